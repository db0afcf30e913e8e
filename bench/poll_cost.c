/* The wall time of one test or probe that finds nothing: rank 0 times
 * [calls] calls each of MPI_Iprobe, MPI_Test (on a receive nobody sends to
 * until the end) and MPI_Improbe with CLOCK_MONOTONIC, over [rounds]
 * rounds, and prints the fastest round's ns per call of each. Under
 * Debian's MPICH this is what a poll costs on this machine (the default
 * `poll_cost`); through mpinetsim's shim, what it costs the shim in wall
 * time (a poll keeps pace with the schedule while this is under
 * poll_cost x time factor).
 * Usage: poll_cost [calls] [rounds] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    int rank, flag;
    int calls = argc > 1 ? atoi(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char b = 0;
    MPI_Request r;
    MPI_Message m;
    MPI_Irecv(&b, 1, MPI_CHAR, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    double best[3] = {1e300, 1e300, 1e300};
    for (int k = 0; k < rounds; k++) {
        double t[4];
        t[0] = now_ns();
        for (int i = 0; i < calls; i++) MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        t[1] = now_ns();
        for (int i = 0; i < calls; i++) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        t[2] = now_ns();
        for (int i = 0; i < calls; i++) MPI_Improbe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
        t[3] = now_ns();
        for (int j = 0; j < 3; j++)
            if ((t[j + 1] - t[j]) / calls < best[j]) best[j] = (t[j + 1] - t[j]) / calls;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Each rank's receive is completed by its neighbour. */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Send(&b, 1, MPI_CHAR, (rank + 1) % size, 99, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("poll_cost calls=%d iprobe_ns=%.1f test_ns=%.1f improbe_ns=%.1f\n", calls, best[0], best[1], best[2]);
    MPI_Finalize();
    return 0;
}
