/* Intercommunicator collectives on 4 ranks, for a capture test
 * (gateway/tests/wireshark_dissector.rs) that counts the messages each
 * one puts on the wire. The groups are {0, 1} (low) and {2, 3} (high).
 * - MPI_Bcast of 3 ints from world rank 0: to the remote leader (rank 2),
 *   which broadcasts in its group (to rank 3): 2 messages of 12 bytes;
 * - MPI_Ibcast of 3 ints from world rank 2 to the low group: 2 -> 0 -> 1;
 * - MPI_Alltoall of 1 int: every rank sends once to each remote rank:
 *   2 x 2 x 2 = 8 messages of 4 bytes;
 * - MPI_Scatter of 1 int per remote rank from world rank 3 (short: all
 *   blocks to the remote leader, 8 bytes, which scatters in its group:
 *   4 bytes to rank 1).
 * Each rank checks what it received and prints one line. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) MPI_Abort(MPI_COMM_WORLD, 2);
    int low = rank < 2;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? 2 : 0, 5, &ic);

    int buf[3] = {-1, -1, -1};
    if (rank == 0)
        for (int k = 0; k < 3; k++) buf[k] = 100 + k;
    int root = low ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(buf, 3, MPI_INT, root, ic);
    for (int k = 0; k < 3; k++) ok &= rank == 1 ? buf[k] == -1 : buf[k] == 100 + k;

    int ibuf[3] = {-1, -1, -1};
    if (rank == 2)
        for (int k = 0; k < 3; k++) ibuf[k] = 200 + k;
    root = low ? 0 : (rank == 2 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Request req;
    MPI_Ibcast(ibuf, 3, MPI_INT, root, ic, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int k = 0; k < 3; k++) ok &= rank == 3 ? ibuf[k] == -1 : ibuf[k] == 200 + k;

    int out[2] = {10 * rank, 10 * rank + 1}, in[2] = {-1, -1};
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ic);
    /* Block j of the remote rank j went to this rank (local rank r): its
     * value 10 * (remote world rank) + (this rank's local rank). */
    int lrank = low ? rank : rank - 2, base = low ? 2 : 0;
    for (int j = 0; j < 2; j++) ok &= in[j] == 10 * (base + j) + lrank;

    int blocks[2] = {300, 301}, mine = -1;
    root = low ? 1 : (rank == 3 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Scatter(blocks, 1, MPI_INT, &mine, 1, MPI_INT, root, ic);
    ok &= low ? mine == 300 + rank : mine == -1;

    printf("rank %d %s\n", rank, ok ? "ok" : "FAILED");
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return ok ? 0 : 1;
}
