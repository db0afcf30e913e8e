/* MPI_Alltoall of a given size per rank pair, repeated; rank 0 prints the
 * average and the median time per all-to-all (MPI_Wtime, so emulated time
 * under mpinetsim; the median ignores a few iterations that a busy machine
 * disturbed) and every rank checks what it received.
 * Usage: alltoall_timed [bytes per pair] [iterations]
 * The Wireshark walkthrough (docs/wireshark.md) runs it on slow-rank0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int rank, size, errors = 0;
    int bytes = argc > 1 ? atoi(argv[1]) : 1 << 20, iters = argc > 2 ? atoi(argv[2]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *out = malloc((size_t)bytes * size + 1), *in = malloc((size_t)bytes * size + 1);
    double total = 0, *times = malloc(sizeof(double) * (iters > 0 ? iters : 1));
    for (int it = 0; it < iters; it++) {
        for (int p = 0; p < size; p++)
            for (int k = 0; k < bytes; k++) out[(size_t)p * bytes + k] = (unsigned char)(rank * 31 + p * 7 + k + it);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Alltoall(out, bytes, MPI_BYTE, in, bytes, MPI_BYTE, MPI_COMM_WORLD);
        times[it] = MPI_Wtime() - t0;
        total += times[it];
        for (int p = 0; p < size; p++)
            for (int k = 0; k < bytes; k++)
                errors += in[(size_t)p * bytes + k] != (unsigned char)(p * 31 + rank * 7 + k + it);
    }
    if (rank == 0 && iters > 0) {
        qsort(times, iters, sizeof(double), by_value);
        double median = iters % 2 ? times[iters / 2] : (times[iters / 2 - 1] + times[iters / 2]) / 2;
        printf("alltoall bytes=%d ranks=%d iters=%d avg_s=%.6f median_s=%.6f\n", bytes, size, iters,
               total / iters, median);
    }
    printf("rank %d errors=%d\n", rank, errors);
    free(times);
    free(out);
    free(in);
    MPI_Finalize();
    return errors != 0;
}
