/* Rank 2 exits with status 3 without calling MPI_Finalize. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) exit(3);
    sleep(30);
    MPI_Finalize();
    return 0;
}
