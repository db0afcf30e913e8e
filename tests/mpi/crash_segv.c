/* Rank 1 dies of SIGSEGV after MPI_Init; the others wait. The job must end
 * within 2 s naming rank 1 and the signal. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) raise(SIGSEGV);
    sleep(30);
    MPI_Finalize();
    return 0;
}
