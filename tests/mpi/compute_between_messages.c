/* Rank 0 sends a message, computes (busy loop) for a fixed 200 ms of this
 * process's CPU time, and sends another; it prints the compute time as
 * MPI_Wtime measured it. Under mpinetsim at time factor F the wall time of
 * the loop is stretched to F x 200 ms while MPI_Wtime still reads ~200 ms
 * (computation is measured as CPU time, so whatever else runs). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        double w0 = MPI_Wtime();
        double c0 = now_s();
        volatile double sink = 0;
        while (now_s() - c0 < 0.200) sink += 1.0;
        double w1 = MPI_Wtime();
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        printf("compute_wtime_ms=%.3f\n", (w1 - w0) * 1e3);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
