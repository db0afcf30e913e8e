/* Probes: every rank but 0 sends rank 0 a message whose size depends on
 * its rank (small ones eager, the largest rendezvous), after computing for
 * a time that also depends on its rank; rank 0 takes them with
 * MPI_Probe(MPI_ANY_SOURCE), sizes its buffer from the status and
 * receives from the source it probed. A second round polls with
 * MPI_Iprobe until each message is there. Self-checking: every payload
 * carries its sender and round, and every sender is met once per round.
 * Usage: probe_any [rounds] (default 3). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank;
#include "check.h"

/* Bytes rank r sends: 100 B, 10 kB, 100 kB, ... (capped at 400 kB). */
static int size_of(int r) {
    int s = 100;
    for (int i = 1; i < r && s < 400000; i++) s *= 10;
    return s > 400000 ? 400000 : s;
}

static void spin(long n) {
    volatile double x = 1.0;
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
}

int main(int argc, char **argv) {
    int size, rounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 2 * rounds; round++) {
        int polling = round >= rounds;
        if (rank == 0) {
            int *seen = calloc((size_t)size, sizeof(int));
            for (int k = 1; k < size; k++) {
                MPI_Status st;
                if (polling) {
                    int flag = 0;
                    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &flag, &st);
                } else {
                    MPI_Probe(MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &st);
                }
                int n;
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK(n == size_of(st.MPI_SOURCE), "round %d: %d bytes from %d", round, n, st.MPI_SOURCE);
                unsigned char *buf = malloc((size_t)n);
                MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(buf[0] == st.MPI_SOURCE && buf[n - 1] == round, "round %d: payload from %d", round, st.MPI_SOURCE);
                seen[st.MPI_SOURCE]++;
                free(buf);
            }
            for (int r = 1; r < size; r++) CHECK(seen[r] == 1, "round %d: %d messages from %d", round, seen[r], r);
            free(seen);
        } else {
            int n = size_of(rank);
            unsigned char *buf = malloc((size_t)n);
            for (int i = 0; i < n; i++) buf[i] = (unsigned char)rank;
            buf[n - 1] = (unsigned char)round;
            spin(200000L * (size - rank));
            MPI_Send(buf, n, MPI_BYTE, 0, round, MPI_COMM_WORLD);
            free(buf);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int code = finish_checks("probe_any");
    MPI_Finalize();
    return code;
}
