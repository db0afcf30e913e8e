/* A token passed around all ranks: rank 0 starts it at 0, every rank adds
 * its own rank number and passes it on, `laps` times round the ring.
 * Usage: ring [laps] [padding bytes]
 * Rank 0 checks the final value against laps * n(n-1)/2 and prints one line;
 * the exit code is non-zero when it differs. The optional padding makes each
 * hop carry a larger message (checked byte by byte). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size;
    int laps = argc > 1 ? atoi(argv[1]) : 1, pad = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t len = sizeof(long) + (size_t)pad;
    unsigned char *msg = malloc(len);
    long token = 0, bad = 0;
    double t0 = MPI_Wtime();
    for (int lap = 0; lap < laps; lap++) {
        if (rank != 0 || lap > 0) {
            MPI_Recv(msg, (int)len, MPI_BYTE, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memcpy(&token, msg, sizeof token);
            int sent_lap = rank == 0 ? lap - 1 : lap; /* rank 0's token comes from the previous lap */
            for (int k = 0; k < pad; k++) bad += msg[sizeof(long) + k] != (unsigned char)(prev + sent_lap + k);
        }
        token += rank;
        memcpy(msg, &token, sizeof token);
        for (int k = 0; k < pad; k++) msg[sizeof(long) + k] = (unsigned char)(rank + lap + k);
        /* The last hop of the last lap returns the token to rank 0. */
        MPI_Send(msg, (int)len, MPI_BYTE, next, rank == size - 1 ? lap + 1 : lap, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Recv(msg, (int)len, MPI_BYTE, prev, laps, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(&token, msg, sizeof token);
        for (int k = 0; k < pad; k++) bad += msg[sizeof(long) + k] != (unsigned char)(prev + laps - 1 + k);
    }
    double t = MPI_Wtime() - t0;
    long all_bad = 0;
    MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long want = (long)laps * size * (size - 1) / 2;
    int ok = token == want && all_bad == 0;
    if (rank == 0)
        printf("ring: %d ranks, %d laps in %.6f s, token %ld (want %ld), %ld bad bytes, %s\n", size, laps, t, token, want,
               all_bad, ok ? "ok" : "WRONG");
    free(msg);
    MPI_Finalize();
    return rank == 0 && !ok;
}
