/* Polling costs emulated time. Rank 0 first makes [polls] MPI_Iprobe
 * calls that find nothing and prints the emulated time they took
 * (MPI_Wtime). Then ranks 0 and 1 make [rounds] round trips of 32 bytes,
 * timed by rank 0: rank 1 takes the message with a blocking MPI_Recv in
 * even rounds and with an MPI_Irecv it polls with MPI_Test in odd ones.
 * Rank 0 prints the median round trip of each kind and how many tests
 * rank 1 made that found nothing.
 * Usage: poll_loop [polls] [rounds] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int rank, size;
    int polls = argc > 1 ? atoi(argv[1]) : 10000;
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || polls < 0 || rounds < 2) {
        fprintf(stderr, "poll_loop needs 2 ranks, polls >= 0 and rounds >= 2\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        int flag;
        double t0 = MPI_Wtime();
        for (int i = 0; i < polls; i++) {
            MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (flag) {
                fprintf(stderr, "poll_loop: a probe found a message nobody sent\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        double t1 = MPI_Wtime();
        printf("poll_loop polls=%d probing_ns=%.1f\n", polls, (t1 - t0) * 1e9);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char buf[32] = {0};
    double *blocking = malloc(sizeof(double) * rounds), *polled = malloc(sizeof(double) * rounds);
    int nb = 0, np = 0;
    long failed_tests = 0;
    for (int i = 0; i < rounds; i++) {
        if (rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(buf, 32, MPI_BYTE, 1, i, MPI_COMM_WORLD);
            MPI_Recv(buf, 32, MPI_BYTE, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double rtt = MPI_Wtime() - t0;
            if (i % 2) polled[np++] = rtt; else blocking[nb++] = rtt;
        } else if (i % 2 == 0) {
            MPI_Recv(buf, 32, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 32, MPI_BYTE, 0, i, MPI_COMM_WORLD);
        } else {
            MPI_Request r;
            int flag = 0;
            MPI_Irecv(buf, 32, MPI_BYTE, 0, i, MPI_COMM_WORLD, &r);
            for (;;) {
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
                if (flag) break;
                failed_tests++;
            }
            MPI_Send(buf, 32, MPI_BYTE, 0, i, MPI_COMM_WORLD);
        }
    }
    if (rank == 1) MPI_Send(&failed_tests, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&failed_tests, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        qsort(blocking, nb, sizeof(double), by_value);
        qsort(polled, np, sizeof(double), by_value);
        printf("poll_loop rounds=%d blocking_rtt_ns=%.1f polled_rtt_ns=%.1f failed_tests=%ld\n", rounds,
               blocking[nb / 2] * 1e9, polled[np / 2] * 1e9, failed_tests);
    }
    free(blocking);
    free(polled);
    MPI_Finalize();
    return 0;
}
