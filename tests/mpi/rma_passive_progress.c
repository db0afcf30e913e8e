/* Passive-target operations complete while the target computes
 * (gateway/tests/rma_timing.rs), 2 ranks: rank 1, the target, computes
 * without calling MPI while rank 0, the origin, locks its window, puts,
 * flushes, gets and unlocks. On a cluster the target's NIC answers; here
 * the shim's one-sided service must, or the origin waits until the
 * target's next MPI call.
 *
 * Each of REPS rounds: a barrier, then the target spins until its thread
 * has used COMPUTE_S of CPU time, then reads its window without any MPI
 * call and checks that the round's put is there. The origin, meanwhile:
 *
 *   lock:  MPI_Win_lock(EXCLUSIVE)            -> lock request, grant back
 *   put:   MPI_Put of one int + MPI_Win_flush -> request, acknowledgement
 *   get:   MPI_Get of that int + MPI_Win_flush -> request, reply
 *
 * timed with MPI_Wtime; it prints the medians as
 * "lock_us=... put_flush_us=... get_us=..." and checks the value it got. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPS 3
#define COMPUTE_S 0.15

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v) {
    qsort(v, REPS, sizeof(double), cmp);
    return v[REPS / 2];
}

static double thread_cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int rank, size, ok = 1, seen = 0;
    int *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "rma_passive_progress needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double lock[REPS], put[REPS], get[REPS];
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            double start = thread_cpu_s();
            while (thread_cpu_s() - start < COMPUTE_S) {
            }
            __sync_synchronize();
            seen += *(volatile int *)base == r + 1;
        } else {
            int value = r + 1, got = -1;
            double t0 = MPI_Wtime();
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            double t1 = MPI_Wtime();
            MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
            double t2 = MPI_Wtime();
            MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
            double t3 = MPI_Wtime();
            MPI_Win_unlock(1, win);
            lock[r] = t1 - t0;
            put[r] = t2 - t1;
            get[r] = t3 - t2;
            ok &= got == value;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("lock_us=%.3f put_flush_us=%.3f get_us=%.3f %s\n", median(lock) * 1e6,
               median(put) * 1e6, median(get) * 1e6, ok ? "ok" : "WRONG DATA");
    else
        printf("target saw %d of %d puts before its next MPI call\n", seen, REPS);
    MPI_Win_free(&win);
    MPI_Finalize();
    return ok ? 0 : 1;
}
