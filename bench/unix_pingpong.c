/* Raw Unix-socket ping-pong between two processes (socketpair + fork):
 * the floor for any design that relays messages through another process.
 * Usage: unix_pingpong [iterations] [bytes]; prints the mean round trip,
 * and the median and 99th percentile of the round trips timed one by one. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void full(int fd, char *b, int n, int rd) {
    for (int d = 0; d < n;) {
        int r = rd ? read(fd, b + d, n - d) : write(fd, b + d, n - d);
        if (r <= 0) exit(1);
        d += r;
    }
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 10000, bytes = argc > 2 ? atoi(argv[2]) : 32;
    int sv[2];
    char buf[65536];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    if (fork() == 0) {
        for (int i = 0; i < iters; i++) {
            full(sv[1], buf, bytes, 1);
            full(sv[1], buf, bytes, 0);
        }
        return 0;
    }
    double *rtt = malloc(sizeof(double) * (iters > 0 ? iters : 1));
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        double a = now();
        full(sv[0], buf, bytes, 0);
        full(sv[0], buf, bytes, 1);
        rtt[i] = now() - a;
    }
    double t = now() - t0;
    wait(NULL);
    qsort(rtt, iters, sizeof(double), by_value);
    printf("unix_pingpong bytes=%d iters=%d round_trip_us=%.3f median_us=%.3f p99_us=%.3f\n", bytes,
           iters, t / iters * 1e6, iters ? rtt[iters / 2] * 1e6 : 0.0,
           iters ? rtt[(int)(iters * 0.99)] * 1e6 : 0.0);
    free(rtt);
    return 0;
}
