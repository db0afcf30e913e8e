/* The matching micro-benchmark: rank 0 sends N tagged messages (tags 0..N-1)
 * to rank 1; rank 1 first computes long enough (100 ms of CPU time) for all of them to
 * have arrived, then receives them in order (0 unsuccessful match attempts
 * expected) or in reverse order (N(N-1)/2 expected). Rank 1 checks each
 * message's content. Usage: matching N in|reverse */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    int rank, n = argc > 1 ? atoi(argv[1]) : 10, reverse = argc > 2 && strcmp(argv[2], "reverse") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int errors = 0;
    if (rank == 0) {
        for (int t = 0; t < n; t++) {
            int v = 1000 + t;
            MPI_Send(&v, 1, MPI_INT, 1, t, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        struct timespec ts, now;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
        while ((now.tv_sec - ts.tv_sec) * 1e3 + (now.tv_nsec - ts.tv_nsec) * 1e-6 < 100.0);
        for (int i = 0; i < n; i++) {
            int t = reverse ? n - 1 - i : i, v;
            MPI_Recv(&v, 1, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors += v != 1000 + t;
        }
        printf("matching n=%d order=%s errors=%d\n", n, reverse ? "reverse" : "in", errors);
    }
    MPI_Finalize();
    return errors != 0;
}
