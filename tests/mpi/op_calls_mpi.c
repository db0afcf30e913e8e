/* A user reduction function that calls MPI_Comm_rank, which mpinetsim
 * cannot answer while its engine runs the function: the job must end with
 * a sentence naming the call (gateway/tests/run_failures.rs), not hang. */
#include <mpi.h>

static void sum_and_ask(void *in, void *inout, int *len, MPI_Datatype *dt) {
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv) {
    int rank, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op op;
    MPI_Op_create(sum_and_ask, 1, &op);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
