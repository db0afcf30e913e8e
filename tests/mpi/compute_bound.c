/* A compute-bound program: every rank does the same fixed amount of work
 * (a dependent chain of 64-bit linear congruential steps that stays in
 * registers) between barriers, ROUNDS times, WORK steps each (arguments 1
 * and 2; default 4 and 10000000), on THREADS threads at once (argument 3,
 * default 1: each thread runs the whole chain, as an OpenMP-hybrid rank
 * keeps several cores busy). Self-checking: every thread's final value
 * equals the closed form of the generator after ROUNDS x WORK steps
 * (computed by jumping ahead in log2 steps) and is the same on every rank.
 * Rank 0 prints the check summary on stdout and, on stderr, the emulated
 * runtime of the rounds (MPI_Wtime), every rank's CPU time of its work as
 * the program itself measures it (each thread's CLOCK_THREAD_CPUTIME_ID
 * around its chain, summed over threads and rounds) and the runtime that
 * CPU time predicts for the rounds (the sum over rounds of the slowest
 * rank's work: the barrier waits for it), so a test can hold mpinetsim's
 * computation against the same run's own measure of the work. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int rank;
#include "check.h"

#define A 6364136223846793005ULL
#define C 1442695040888963407ULL

/* WORK steps of the chain from x. */
static unsigned long long chain(unsigned long long x, long work) {
    for (long i = 0; i < work; i++) {
        x = x * A + C;
        __asm__ volatile("" : "+r"(x)); /* keep every step */
    }
    return x;
}

/* The chain's value after n steps from x, in O(log n): composes the affine
 * map x -> A x + C with itself by squaring. */
static unsigned long long jump(unsigned long long x, unsigned long long n) {
    unsigned long long a = A, c = C, acc_a = 1, acc_c = 0;
    while (n) {
        if (n & 1) {
            acc_a = acc_a * a;
            acc_c = acc_c * a + c;
        }
        c = c * (a + 1);
        a = a * a;
        n >>= 1;
    }
    return acc_a * x + acc_c;
}

struct job {
    unsigned long long x;
    long work;
    double cpu_s; /* this thread's CPU time of its last chain */
};

static double thread_cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *run_chain(void *arg) {
    struct job *j = arg;
    double start = thread_cpu_s();
    j->x = chain(j->x, j->work);
    j->cpu_s = thread_cpu_s() - start;
    return NULL;
}

#define MAX_THREADS 64

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    long work = argc > 2 ? atol(argv[2]) : 10000000L;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    if (threads < 1 || threads > MAX_THREADS) threads = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    struct job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    double *round_cpu_s = calloc((size_t)rounds, sizeof(double));
    for (int t = 0; t < threads; t++) jobs[t] = (struct job){1, work, 0.0};
    for (int r = 0; r < rounds; r++) {
        for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, run_chain, &jobs[t]);
        run_chain(&jobs[0]);
        for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
        for (int t = 0; t < threads; t++) round_cpu_s[r] += jobs[t].cpu_s;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    unsigned long long x = jobs[0].x;
    for (int t = 1; t < threads; t++)
        CHECK(jobs[t].x == x, "thread %d: chain %llu, thread 0: %llu", t, jobs[t].x, x);
    double t1 = MPI_Wtime();
    unsigned long long expected = jump(1, (unsigned long long)rounds * (unsigned long long)work);
    CHECK(x == expected, "chain %llu, closed form %llu", x, expected);
    unsigned long long min, max;
    MPI_Allreduce(&x, &min, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(min == max, "chains differ between ranks (%llu to %llu)", min, max);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *all_cpu_s = rank == 0 ? calloc((size_t)rounds * (size_t)size, sizeof(double)) : NULL;
    MPI_Gather(round_cpu_s, rounds, MPI_DOUBLE, all_cpu_s, rounds, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        fprintf(stderr, "rounds_wtime_s=%.6f\n", t1 - t0);
        double model_s = 0.0;
        for (int r = 0; r < rounds; r++) {
            double slowest = 0.0;
            for (int p = 0; p < size; p++)
                if (all_cpu_s[p * rounds + r] > slowest) slowest = all_cpu_s[p * rounds + r];
            model_s += slowest;
        }
        fprintf(stderr, "rounds_model_s=%.9f\nwork_cpu_s=", model_s);
        for (int p = 0; p < size; p++) {
            double total = 0.0;
            for (int r = 0; r < rounds; r++) total += all_cpu_s[p * rounds + r];
            fprintf(stderr, "%s%.9f", p ? "," : "", total);
        }
        fprintf(stderr, "\n");
    }
    free(all_cpu_s);
    free(round_cpu_s);
    int code = finish_checks("compute_bound");
    MPI_Finalize();
    return code;
}
