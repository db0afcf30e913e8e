/* Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7); the job ends with code 7. */
#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
    sleep(30);
    MPI_Finalize();
    return 0;
}
