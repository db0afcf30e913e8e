/* Rank 0 reads numbers, one per line, from its standard input (mpiexec
 * passes its own input to rank 0) and broadcasts how many it read and
 * their sum; every rank prints them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank;
    long got[2] = {0, 0}; /* lines, sum */
    char line[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        while (fgets(line, sizeof line, stdin)) {
            got[0] += 1;
            got[1] += atol(line);
        }
    }
    MPI_Bcast(got, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    printf("stdin_sum: rank %d: %ld lines, sum %ld\n", rank, got[0], got[1]);
    MPI_Finalize();
    return 0;
}
