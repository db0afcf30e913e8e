/* One neighbourhood collective on each of three topologies of 4 ranks, for
 * a capture test (gateway/tests/wireshark_dissector.rs) that counts the
 * messages between each pair of ranks:
 * - MPI_Neighbor_alltoall on a 2 x 2 grid periodic in its first dimension:
 *   each rank sends twice to the rank in the other row (its -1 and +1
 *   neighbours there) and once along the row (the other end is
 *   MPI_PROC_NULL): 12 messages;
 * - MPI_Neighbor_allgather on a star given by MPI_Dist_graph_create (rank
 *   0 to every other rank and back): 6 messages;
 * - MPI_Neighbor_alltoallv on a ring graph: 8 messages.
 * Each rank checks what it received and prints one line. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) MPI_Abort(MPI_COMM_WORLD, 2);
    int dims[2] = {2, 2}, periods[2] = {1, 0}, in[4], out[4], got[4];
    MPI_Comm grid, star, ring;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    for (int k = 0; k < 4; k++) {
        out[k] = 10 * rank + k;
        got[k] = -1;
    }
    MPI_Neighbor_alltoall(out, 1, MPI_INT, got, 1, MPI_INT, grid);
    /* The other row's rank sent its blocks 1 and 0 (in that order of slots). */
    int other = rank ^ 2;
    ok &= got[0] == 10 * other + 1 && got[1] == 10 * other;
    ok &= (rank % 2 == 0) ? (got[2] == -1 && got[3] == 10 * (rank + 1) + 2)
                          : (got[2] == 10 * (rank - 1) + 3 && got[3] == -1);

    int sources[4] = {1, 2, 3, 0}, degrees[4] = {1, 1, 1, 3}, dests[6] = {0, 0, 0, 1, 2, 3};
    MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 4 : 0, sources, degrees, dests, MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &star);
    int indeg, outdeg, w, sum = 0;
    MPI_Dist_graph_neighbors_count(star, &indeg, &outdeg, &w);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, star);
    for (int k = 0; k < indeg; k++) sum += in[k];
    ok &= rank == 0 ? (indeg == 3 && sum == 6) : (indeg == 1 && sum == 0);

    int index[4] = {2, 4, 6, 8}, edges[8] = {1, 3, 2, 0, 3, 1, 0, 2};
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &ring);
    int counts[2] = {1, 1}, displs[2] = {0, 1}, send[2] = {rank, rank}, recv[2];
    MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, ring);
    ok &= recv[0] == edges[2 * rank] && recv[1] == edges[2 * rank + 1];

    printf("rank %d %s\n", rank, ok ? "ok" : "FAILED");
    MPI_Comm_free(&grid);
    MPI_Comm_free(&star);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return ok ? 0 : 1;
}
