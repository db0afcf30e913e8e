/* A 32-byte (or [bytes]) MPI ping-pong between ranks 0 and 1 that times
 * every round trip on its own (CLOCK_MONOTONIC around MPI_Send +
 * MPI_Recv on rank 0) and prints the mean, the median and the 99th
 * percentile: the distribution of what one message costs, which a mean
 * over all of them hides.
 * Usage: rtt_pingpong [iterations] [bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 100000, bytes = argc > 2 ? atoi(argv[2]) : 32;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || iters < 1) {
        fprintf(stderr, "rtt_pingpong needs 2 ranks and at least one iteration\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    double *rtt = rank == 0 ? malloc(sizeof(double) * iters) : NULL;
    double t0 = now();
    for (int i = 0; i < iters && rank < 2; i++) {
        if (rank == 0) {
            double a = now();
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rtt[i] = now() - a;
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = now() - t0;
    if (rank == 0) {
        qsort(rtt, iters, sizeof(double), by_value);
        printf("rtt_pingpong bytes=%d iters=%d round_trip_us=%.3f median_us=%.3f p99_us=%.3f\n", bytes,
               iters, t / iters * 1e6, rtt[iters / 2] * 1e6, rtt[(int)(iters * 0.99)] * 1e6);
    }
    free(rtt);
    free(buf);
    MPI_Finalize();
    return 0;
}
