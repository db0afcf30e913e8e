/* One-sided timing in emulated time (gateway/tests/rma_timing.rs), 2
 * ranks: rank 0 the origin, rank 1 the target (waiting in MPI_Barrier, so
 * its library answers every request the moment it arrives).
 *
 *   put:  MPI_Put of one double, then MPI_Win_flush    -> one round trip
 *   get:  MPI_Get of 1 MiB, then MPI_Win_flush         -> the request one
 *         way, then the reply's serialisation and propagation
 *
 * Under MPI_Win_lock_all(MPI_MODE_NOCHECK) (no lock messages). Five gets
 * first warm the TCP connection up (its congestion window opens), then
 * each is timed REPS times with MPI_Wtime; rank 0 prints the medians as
 * "put_flush_us=... get_us=..." and checks the data. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 9
#define BIG (1 << 20)

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v) {
    qsort(v, REPS, sizeof(double), cmp);
    return v[REPS / 2];
}

int main(int argc, char **argv) {
    int rank, size, ok = 1;
    unsigned char *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "rma_timing needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_allocate(BIG + 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < BIG; i++)
        base[8 + i] = (unsigned char)(i * 7 + rank);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double put[REPS], get[REPS], value = 42.0;
        unsigned char *got = malloc(BIG);
        for (int i = 0; i < 5; i++) {
            MPI_Get(got, BIG, MPI_BYTE, 1, 8, BIG, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        for (int r = 0; r < REPS; r++) {
            double t0 = MPI_Wtime();
            MPI_Put(&value, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
            MPI_Win_flush(1, win);
            put[r] = MPI_Wtime() - t0;
            value += 1.0;
        }
        for (int r = 0; r < REPS; r++) {
            memset(got, 0, BIG);
            double t0 = MPI_Wtime();
            MPI_Get(got, BIG, MPI_BYTE, 1, 8, BIG, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            get[r] = MPI_Wtime() - t0;
            for (int i = 0; i < BIG; i++)
                ok &= got[i] == (unsigned char)(i * 7 + 1);
        }
        printf("put_flush_us=%.3f get_us=%.3f %s\n", median(put) * 1e6, median(get) * 1e6,
               ok ? "ok" : "WRONG DATA");
        free(got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    if (rank == 1) {
        double last;
        memcpy(&last, base, sizeof last);
        ok = last == 42.0 + REPS - 1;
        if (!ok)
            printf("the target holds %g, not %g\n", last, 42.0 + REPS - 1);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
