/* Repeated MPI_Barrier, checked: in every iteration each rank notes
 * MPI_Wtime (the job's shared clock) just before entering and just after
 * leaving the barrier; afterwards rank 0 gathers the stamps and counts the
 * iterations in which some rank left before the last rank entered (a broken
 * barrier). An MPI_Allreduce after each barrier also checks that every rank
 * is in the same iteration.
 * Usage: barrier_loop [iterations]
 * Rank 0 prints one line; the exit code is non-zero on any violation. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *stamps = malloc(sizeof(double) * 2 * (size_t)iters);
    long wrong_iteration = 0;
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        stamps[2 * it] = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        stamps[2 * it + 1] = MPI_Wtime();
        int lo, hi;
        MPI_Allreduce(&it, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&it, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        wrong_iteration += lo != it || hi != it;
    }
    double t = MPI_Wtime() - t0;
    double *all = rank == 0 ? malloc(sizeof(double) * 2 * (size_t)iters * size) : NULL;
    MPI_Gather(stamps, 2 * iters, MPI_DOUBLE, all, 2 * iters, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long all_wrong = 0;
    MPI_Reduce(&wrong_iteration, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int broken = 0;
    if (rank == 0) {
        for (int it = 0; it < iters; it++) {
            double last_enter = all[2 * it], first_leave = all[2 * it + 1];
            for (int r = 1; r < size; r++) {
                double enter = all[(size_t)r * 2 * iters + 2 * it], leave = all[(size_t)r * 2 * iters + 2 * it + 1];
                if (enter > last_enter) last_enter = enter;
                if (leave < first_leave) first_leave = leave;
            }
            broken += first_leave < last_enter;
        }
        printf("barrier_loop: %d ranks, %d barriers in %.6f s, %d broken, %ld out of step\n", size, iters, t, broken,
               all_wrong);
        free(all);
    }
    free(stamps);
    MPI_Finalize();
    return rank == 0 && (broken || all_wrong);
}
