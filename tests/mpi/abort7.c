/* Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7); the job ends with code 7.
 * Every rank first prints a line into stdio's buffer (a pipe: nothing is
 * written until a flush); the job's output must still hold every line:
 * rank 1 flushes on MPI_Abort, the others when the gateway ends them. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d before the abort\n", rank);
    /* Every rank has printed before rank 1 aborts. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
    sleep(30);
    MPI_Finalize();
    return 0;
}
