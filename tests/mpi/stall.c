/* Jobs that stop making progress, and ranks that all end at once.
 * Usage: stall deadlock | no-init | fatal
 *   deadlock     ranks 0 and 1 each wait in MPI_Recv for the other
 *   no-init      rank 1 (MPINETSIM_RANK=1) never calls MPI_Init; rank 0
 *                waits in MPI_Recv for it
 *   fatal        every rank at once spawns a program that does not exist
 *                (MPI_ERR_SPAWN under MPI_ERRORS_ARE_FATAL ends the job)
 *   slow         rank 1 spends 3 s outside MPI before it sends to rank 0,
 *                which waits in MPI_Recv meanwhile (not a stall) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "deadlock";
    const char *me = getenv("MPINETSIM_RANK");
    if (strcmp(mode, "no-init") == 0 && me && atoi(me) == 1) {
        for (;;) sleep(60); /* never reaches MPI_Init */
    }
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "deadlock") == 0 && rank < 2) {
        MPI_Recv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    } else if (strcmp(mode, "no-init") == 0 && rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "slow") == 0 && rank < 2) {
        if (rank == 1) {
            sleep(3);
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "fatal") == 0) {
        MPI_Comm c;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_spawn("worker", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c, MPI_ERRCODES_IGNORE);
    }
    printf("rank %d of %d passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
