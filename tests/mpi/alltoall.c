/* Repeated MPI_Alltoall of fixed-size blocks, every byte checked.
 * Usage: alltoall [iterations] [bytes per pair]
 * Rank 0 prints the elapsed MPI_Wtime and the number of bad bytes seen on
 * all ranks (0 when every block arrived intact). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size;
    int iters = argc > 1 ? atoi(argv[1]) : 10, bytes = argc > 2 ? atoi(argv[2]) : 65536;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t total = (size_t)bytes * size;
    unsigned char *out = malloc(total ? total : 1), *in = malloc(total ? total : 1);
    long bad = 0;
    /* Touch both buffers before the clock starts: a first-touch page fault
     * costs 0.3-10 us on this project's virtual machines, and the
     * computation it inflates would move the timed runtime by run. */
    memset(out, 0, total ? total : 1);
    memset(in, 0, total ? total : 1);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        for (int p = 0; p < size; p++)
            for (int k = 0; k < bytes; k++) out[(size_t)p * bytes + k] = (unsigned char)(rank * 31 + p * 7 + it + k);
        MPI_Alltoall(out, bytes, MPI_BYTE, in, bytes, MPI_BYTE, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++)
            for (int k = 0; k < bytes; k++) bad += in[(size_t)p * bytes + k] != (unsigned char)(p * 31 + rank * 7 + it + k);
    }
    double t = MPI_Wtime() - t0;
    long all_bad = 0;
    MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("alltoall: %d ranks, %d iterations of %d B per pair in %.6f s, %ld bad bytes\n", size, iters, bytes, t, all_bad);
    free(out);
    free(in);
    MPI_Finalize();
    return all_bad != 0;
}
