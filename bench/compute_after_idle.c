/* How much CPU time the same computation takes right after the previous
 * one and after the process waited [wait_us] (sleeping, or busy-waiting
 * with "spin"): 100 rounds of filling a 1 MiB buffer and checking
 * another, each timed with CLOCK_PROCESS_CPUTIME_ID; prints the median
 * and the 90th percentile. At a large time factor a rank waits that long
 * between two computations, and mpinetsim measures computations as CPU
 * time. Usage: compute_after_idle wait_us [sleep|spin] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long wait_us = argc > 1 ? atol(argv[1]) : 0;
    int spin = argc > 2 && strcmp(argv[2], "spin") == 0;
    size_t n = 1 << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    memset(a, 0, n);
    memset(b, 0, n);
    long bad = 0;
    double cpu[100];
    for (int r = 0; r < 100; r++) {
        if (wait_us > 0 && !spin) usleep(wait_us);
        if (wait_us > 0 && spin) {
            double until = seconds(CLOCK_MONOTONIC) + wait_us * 1e-6;
            while (seconds(CLOCK_MONOTONIC) < until) {
            }
        }
        double t = seconds(CLOCK_PROCESS_CPUTIME_ID);
        for (size_t k = 0; k < n; k++) a[k] = (unsigned char)(k * 7 + r);
        for (size_t k = 0; k < n; k++) bad += b[k] != (unsigned char)(k * 3 + r);
        memcpy(b, a, n);
        cpu[r] = seconds(CLOCK_PROCESS_CPUTIME_ID) - t;
    }
    qsort(cpu, 100, sizeof(double), by_value);
    printf("compute_after_idle wait_us=%ld mode=%s median_ms=%.3f p90_ms=%.3f (%ld)\n", wait_us,
           spin ? "spin" : "sleep", cpu[50] * 1e3, cpu[90] * 1e3, bad > 0);
    return 0;
}
