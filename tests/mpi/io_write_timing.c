/* Times a collective write of an output file with MPI-IO, as a program
 * writing a checkpoint does: every rank writes MIB MiB of its own
 * contiguous block (MPI_File_write_at_all), or, with the mode "rank0",
 * the ranks send their blocks to rank 0 (MPI_Gather) and rank 0 alone
 * writes the whole file (MPI_File_write_at). Then every rank reads its
 * block back (MPI_File_read_at_all) and checks it.
 *
 * Usage: io_write_timing FILE MIB [all|rank0]. Prints, from rank 0, the
 * time from a barrier before the write to a barrier after it:
 * "write_s=S read_s=S bytes=B", then "io_write_timing: ok" when every
 * value read back is right. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: io_write_timing FILE MIB [all|rank0]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *file = argv[1];
    long long n = atoll(argv[2]) * (1 << 20) / 8; /* doubles per rank */
    int rank0_writes = argc > 3 && strcmp(argv[3], "rank0") == 0;
    double *block = malloc(n * sizeof *block);
    for (long long i = 0; i < n; i++) block[i] = (double)rank * n + i;

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Offset mine = (MPI_Offset)rank * n * 8;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank0_writes) {
        double *all = rank == 0 ? malloc((size_t)n * size * sizeof *all) : NULL;
        MPI_Gather(block, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_File_write_at(fh, 0, all, (int)(n * size), MPI_DOUBLE, MPI_STATUS_IGNORE);
            free(all);
        }
    } else {
        MPI_File_write_at_all(fh, mine, block, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();

    memset(block, 0, n * sizeof *block);
    MPI_File_read_at_all(fh, mine, block, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    long long wrong = 0;
    for (long long i = 0; i < n; i++)
        if (block[i] != (double)rank * n + i) wrong++;
    MPI_File_close(&fh);
    long long all_wrong;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("write_s=%.6f read_s=%.6f bytes=%lld\n", t1 - t0, t2 - t1, n * 8 * size);
        if (all_wrong == 0)
            printf("io_write_timing: ok\n");
        else
            printf("io_write_timing: %lld values wrong\n", all_wrong);
        MPI_File_delete(file, MPI_INFO_NULL);
    }
    free(block);
    MPI_Finalize();
    return rank == 0 && all_wrong != 0;
}
