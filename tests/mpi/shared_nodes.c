/* Prints how MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups the ranks
 * (gateway/tests/mpi_programs.rs compares it with the ranks' simulated
 * nodes): rank 0 prints, for every world rank, "rank R: node of S ranks
 * from world rank F, node rank K" — S the shared communicator's size, F
 * its rank 0's world rank, K this rank's rank in it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, nsize, nrank, first;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    if (nrank == 0) first = rank;
    MPI_Bcast(&first, 1, MPI_INT, 0, node);
    int mine[3] = {nsize, first, nrank}, *all = malloc(3 * size * sizeof(int));
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            printf("rank %d: node of %d ranks from world rank %d, node rank %d\n", r, all[3 * r],
                   all[3 * r + 1], all[3 * r + 2]);
    free(all);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
