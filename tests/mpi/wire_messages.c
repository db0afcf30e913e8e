/* A known set of point-to-point messages for the Wireshark dissector test
 * (gateway/tests/wireshark_dissector.rs), run with 4 ranks:
 *
 *   all ranks: MPI_Comm_dup(WORLD) -> dup, MPI_Comm_split(WORLD, rank % 2) -> half
 *   rank 0 -> 1  MPI_Send    32 B       tag 7  WORLD  (eager, one segment)
 *   rank 0 -> 1  MPI_Send    100000 B   tag 8  WORLD  (rendezvous: RTS, CTS, data over many segments)
 *   rank 1 -> 0  MPI_Ssend   16 B       tag 9  WORLD  (synchronous eager, acknowledged by rank 0)
 *   rank 2 -> 0  MPI_Isend   40000 B    tag 3  dup    (eager over many segments)
 *   rank 2 -> 0  MPI_Send    2000 B     tag 4  half   (eager, two segments)
 *   rank 3 -> 2  MPI_Send    0 B        tag 5  WORLD  (eager, empty)
 *
 * Every rank checks what it receives and prints "wire_messages: ok" or the
 * first mismatch; the exit code is non-zero on a mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_recv(unsigned char *buf, int n, int src, int tag, MPI_Comm comm, int seed) {
    MPI_Status st;
    int count;
    MPI_Recv(buf, n, MPI_BYTE, src, tag, comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != n) return 1;
    for (int k = 0; k < n; k++)
        if (buf[k] != (unsigned char)(seed + k)) return 1;
    return 0;
}

static void fill(unsigned char *buf, int n, int seed) {
    for (int k = 0; k < n; k++) buf[k] = (unsigned char)(seed + k);
}

int main(int argc, char **argv) {
    int rank, size, bad = 0;
    MPI_Comm dup, half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "wire_messages needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    unsigned char *buf = malloc(100000);
    if (rank == 0) {
        fill(buf, 32, 1);
        MPI_Send(buf, 32, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        fill(buf, 100000, 2);
        MPI_Send(buf, 100000, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
        bad |= check_recv(buf, 16, 1, 9, MPI_COMM_WORLD, 3);
        bad |= check_recv(buf, 40000, 2, 3, dup, 4);
        bad |= check_recv(buf, 2000, 1, 4, half, 5); /* rank 1 of `half` is world rank 2 */
    } else if (rank == 1) {
        bad |= check_recv(buf, 32, 0, 7, MPI_COMM_WORLD, 1);
        bad |= check_recv(buf, 100000, 0, 8, MPI_COMM_WORLD, 2);
        fill(buf, 16, 3);
        MPI_Ssend(buf, 16, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Request req;
        fill(buf, 40000, 4);
        MPI_Isend(buf, 40000, MPI_BYTE, 0, 3, dup, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        fill(buf, 2000, 5);
        MPI_Send(buf, 2000, MPI_BYTE, 0, 4, half);
        bad |= check_recv(buf, 0, 3, 5, MPI_COMM_WORLD, 0);
    } else {
        MPI_Send(buf, 0, MPI_BYTE, 2, 5, MPI_COMM_WORLD);
    }
    if (bad)
        printf("wire_messages: rank %d received something else than was sent\n", rank);
    else
        printf("wire_messages: rank %d ok\n", rank);
    free(buf);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return bad;
}
