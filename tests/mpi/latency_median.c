/* A latency benchmark as HPC users run one: ranks 0 and 1 exchange a
 * message of [bytes] back and forth; rank 0 times every round trip on its
 * own with MPI_Wtime, after [warmup] untimed ones, and prints half the
 * mean and half the median round trip. The median is what one message
 * costs, whatever a rare slow round trip did to the mean.
 * Usage: latency_median [iterations] [bytes] [warmup] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int rank, size;
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    int bytes = argc > 2 ? atoi(argv[2]) : 32;
    int warmup = argc > 3 ? atoi(argv[3]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || iters < 1 || bytes < 0 || warmup < 0) {
        fprintf(stderr, "latency_median needs 2 ranks, iterations >= 1, bytes >= 0, warmup >= 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    double *rtt = malloc(sizeof(double) * iters);
    for (int i = -warmup; i < iters && rank < 2; i++) {
        if (rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t1 = MPI_Wtime();
            if (i >= 0) rtt[i] = t1 - t0;
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        double sum = 0;
        for (int i = 0; i < iters; i++) sum += rtt[i];
        qsort(rtt, iters, sizeof(double), by_value);
        printf("latency_median bytes=%d iters=%d mean_one_way_us=%.4f median_one_way_us=%.4f\n", bytes,
               iters, sum / iters / 2 * 1e6, rtt[iters / 2] / 2 * 1e6);
    }
    free(rtt);
    free(buf);
    MPI_Finalize();
    return 0;
}
