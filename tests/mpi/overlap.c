/* Overlap of a nonblocking allreduce with computation, in emulated time
 * (gateway/tests/nonblocking_overlap.rs), for a message of COUNT doubles
 * (first argument) and COMPUTE_MS milliseconds of computation (second):
 *
 *   comm:      MPI_Allreduce alone                         -> T_comm
 *   compute:   the computation alone                       -> C
 *   blocking:  MPI_Allreduce, then the computation         -> model C + T_comm
 *   overlap:   MPI_Iallreduce, the computation in slices
 *              with an MPI_Test after each, MPI_Wait       -> model max(C, T_comm)
 *
 * Each phase starts after a barrier and is timed with MPI_Wtime (emulated
 * time) on every rank; the slowest rank's time counts, and the median of
 * REPS repetitions is printed by rank 0 as
 * "comm_ms=... compute_ms=... blocking_ms=... overlap_ms=...".
 * The computation is slices of at most SLICE_US of spinning on this
 * process's CPU time: the shim counts the CPU time between MPI calls as
 * computation (and stretches it by the time factor), so a slice is as long
 * on a loaded machine as on an idle one. Each slice is measured and the
 * next shortened by what the slices overran so far, so the computation
 * lasts its length plus at most one overrun. Every result is checked;
 * the exit code is non-zero on a wrong sum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPS 9
#define SLICE_US 1000

static double cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Computes (spins) for `ns` nanoseconds of this process's CPU time — what
 * mpinetsim counts as computation — in slices; after each, tests `req`
 * (when given and not done). */
static void compute(double ns, MPI_Request *req) {
    int done = req == NULL;
    while (ns > 0) {
        double s = ns < SLICE_US * 1e3 ? ns : SLICE_US * 1e3;
        double t0 = cpu_ns();
        while (cpu_ns() - t0 < s) {
        }
        ns -= cpu_ns() - t0;
        if (!done) MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
    if (!done) MPI_Wait(req, MPI_STATUS_IGNORE);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The slowest rank's time of one phase, in ms. */
static double slowest(double t0) {
    double mine = (MPI_Wtime() - t0) * 1e3, all;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

static int check(const double *out, int count, int size) {
    double want = size * (size - 1) / 2.0;
    for (int i = 0; i < count; i++)
        if (out[i] != want + (double)size * i) return 1;
    return 0;
}

int main(int argc, char **argv) {
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int count = argc > 1 ? atoi(argv[1]) : 1;
    double compute_ns = (argc > 2 ? atof(argv[2]) : 10.0) * 1e6;
    double *in = malloc(count * sizeof(double)), *out = malloc(count * sizeof(double));
    for (int i = 0; i < count; i++) in[i] = rank + i;
    double comm[REPS], alone[REPS], blocking[REPS], overlap[REPS];
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        comm[r] = slowest(t0);
        bad |= check(out, count, size);

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        compute(compute_ns, NULL);
        alone[r] = slowest(t0);

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        compute(compute_ns, NULL);
        blocking[r] = slowest(t0);
        bad |= check(out, count, size);

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Request req;
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        compute(compute_ns, &req);
        overlap[r] = slowest(t0);
        bad |= check(out, count, size);
    }
    qsort(comm, REPS, sizeof(double), cmp);
    qsort(alone, REPS, sizeof(double), cmp);
    qsort(blocking, REPS, sizeof(double), cmp);
    qsort(overlap, REPS, sizeof(double), cmp);
    int any_bad;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_ms=%.4f compute_ms=%.4f blocking_ms=%.4f overlap_ms=%.4f %s\n",
               comm[REPS / 2], alone[REPS / 2], blocking[REPS / 2], overlap[REPS / 2],
               any_bad ? "WRONG" : "ok");
    free(in);
    free(out);
    MPI_Finalize();
    return any_bad;
}
