/* Prints rank/size, the processor name and the MPI version. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size, len, v, sv, flag;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Initialized(&flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    MPI_Get_version(&v, &sv);
    printf("hello from %d of %d (initialized=%d, MPI %d.%d, name length %d)\n", rank, size, flag, v, sv, len > 0);
    MPI_Finalize();
    MPI_Finalized(&flag);
    if (!flag) return 1;
    return 0;
}
