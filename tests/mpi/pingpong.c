/* Ping-pong between ranks 0 and 1 with MPI_Send/MPI_Recv.
 * Usage: pingpong [iterations] [bytes]
 * Rank 0 prints the average one-way time measured with MPI_Wtime, in
 * microseconds, and both ranks check every byte they receive. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 1000, bytes = argc > 2 ? atoi(argv[2]) : 32;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "pingpong needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc(bytes > 0 ? bytes : 1);
    int errors = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && rank < 2; i++) {
        if (rank == 0) {
            for (int k = 0; k < bytes; k++) buf[k] = (unsigned char)(i + k);
            MPI_Send(buf, bytes, MPI_BYTE, 1, i % 32768, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, i % 32768, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < bytes; k++) errors += buf[k] != (unsigned char)(i + k + 1);
        } else {
            MPI_Status st;
            MPI_Recv(buf, bytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            errors += count != bytes || st.MPI_SOURCE != 0 || st.MPI_TAG != i % 32768;
            for (int k = 0; k < bytes; k++) errors += buf[k] != (unsigned char)(i + k);
            for (int k = 0; k < bytes; k++) buf[k] = (unsigned char)(i + k + 1);
            MPI_Send(buf, bytes, MPI_BYTE, 0, i % 32768, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("pingpong bytes=%d iters=%d one_way_us=%.3f\n", bytes, iters, t / (2.0 * iters) * 1e6);
    if (rank < 2) printf("rank %d errors=%d\n", rank, errors);
    free(buf);
    MPI_Finalize();
    return errors != 0;
}
