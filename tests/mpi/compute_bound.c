/* A compute-bound program: every rank does the same fixed amount of work
 * (a dependent chain of 64-bit linear congruential steps that stays in
 * registers) between barriers, ROUNDS times, WORK steps each (arguments 1
 * and 2; default 4 and 10000000), on THREADS threads at once (argument 3,
 * default 1: each thread runs the whole chain, as an OpenMP-hybrid rank
 * keeps several cores busy). Self-checking: every thread's final value
 * equals the closed form of the generator after ROUNDS x WORK steps
 * (computed by jumping ahead in log2 steps) and is the same on every rank.
 * Rank 0 prints the check summary on stdout and the emulated runtime of
 * the rounds (MPI_Wtime) on stderr. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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
};

static void *run_chain(void *arg) {
    struct job *j = arg;
    j->x = chain(j->x, j->work);
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
    for (int t = 0; t < threads; t++) jobs[t] = (struct job){1, work};
    for (int r = 0; r < rounds; r++) {
        for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, run_chain, &jobs[t]);
        run_chain(&jobs[0]);
        for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
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
    if (rank == 0) fprintf(stderr, "rounds_wtime_s=%.6f\n", t1 - t0);
    int code = finish_checks("compute_bound");
    MPI_Finalize();
    return code;
}
