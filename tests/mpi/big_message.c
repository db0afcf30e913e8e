/* One large message from rank 0 to rank 1, checked byte for byte.
 * Usage: big_message MIB [contig|vector] [blocking|nonblocking] [TIMES]
 * The message is MIB mebibytes: MIB elements of a 1 MiB contiguous type
 * (so its size may exceed what an int count of bytes can say), or of a
 * vector type that takes every other 4 KiB block of a buffer twice as
 * large (resized to 2 MiB) (non-contiguous memory on both sides). Rank 1 checks every byte
 * it received and that the gaps of its buffer were left alone, and
 * MPI_Get_count; rank 0 prints the time the last of TIMES transfers took
 * (MPI_Wtime, rank 0's send until rank 1's one-byte reply; earlier ones
 * warm the connection up). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t)1 << 20)
#define BLOCK 4096

static unsigned char pattern(size_t i) { return (unsigned char)(i * 7 + (i >> 20) + (i >> 12)); }

int main(int argc, char **argv) {
    int rank, size, mib = argc > 1 ? atoi(argv[1]) : 1;
    const char *layout = argc > 2 ? argv[2] : "contig";
    const char *api = argc > 3 ? argv[3] : "blocking";
    int times = argc > 4 ? atoi(argv[4]) : 1;
    int vector = strcmp(layout, "vector") == 0, nonblocking = strcmp(api, "nonblocking") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || mib < 1) {
        if (rank == 0) fprintf(stderr, "big_message needs 2 ranks and at least 1 MiB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Datatype one_mib;
    if (vector) {
        MPI_Datatype blocks;
        MPI_Type_vector((int)(MIB / BLOCK), BLOCK, 2 * BLOCK, MPI_BYTE, &blocks);
        MPI_Type_create_resized(blocks, 0, (MPI_Aint)(2 * MIB), &one_mib);
        MPI_Type_free(&blocks);
    } else
        MPI_Type_contiguous((int)MIB, MPI_BYTE, &one_mib);
    MPI_Type_commit(&one_mib);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(one_mib, &lb, &extent);
    size_t span = (size_t)extent * (size_t)mib;
    size_t bytes = MIB * (size_t)mib;
    unsigned char *buf = malloc(span);
    if (!buf) {
        fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, span);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* The data byte k of the message lives at offset at(k) of the buffer. */
#define AT(k) (vector ? ((k) / BLOCK) * 2 * BLOCK + (k) % BLOCK : (k))
    int errors = 0;
    char one = 1;
    double transfer = 0;
    if (rank == 0)
        for (size_t k = 0; k < bytes; k++) buf[AT(k)] = pattern(k);
    for (int t = 0; t < times; t++) {
        /* Rank 1 fills its buffer before the clock starts: a 24 MiB memset
         * is milliseconds of computation (tens when this machine's page
         * faults are slow), and it would delay the receive and so the
         * clear-to-send by that much. */
        if (rank == 1) memset(buf, 0xA5, span);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            if (nonblocking) {
                MPI_Request r;
                MPI_Isend(buf, mib, one_mib, 1, 7, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(buf, mib, one_mib, 1, 7, MPI_COMM_WORLD);
            }
            MPI_Recv(&one, 1, MPI_CHAR, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            transfer = MPI_Wtime() - t0;
        } else if (rank == 1) {
            MPI_Status st;
            if (nonblocking) {
                MPI_Request r;
                MPI_Irecv(buf, mib, one_mib, 0, 7, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, &st);
            } else {
                MPI_Recv(buf, mib, one_mib, 0, 7, MPI_COMM_WORLD, &st);
            }
            MPI_Send(&one, 1, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
            int count = -1;
            MPI_Get_count(&st, one_mib, &count);
            errors += count != mib || st.MPI_SOURCE != 0 || st.MPI_TAG != 7;
            size_t bad = 0;
            for (size_t k = 0; k < bytes; k++) bad += buf[AT(k)] != pattern(k);
            if (vector)
                for (size_t k = 0; k < span; k++) bad += (k / BLOCK) % 2 == 1 && buf[k] != 0xA5;
            if (bad) fprintf(stderr, "rank 1: %zu bytes wrong\n", bad);
            errors += bad != 0;
        }
    }
    if (rank == 0)
        printf("big_message mib=%d layout=%s api=%s transfer_ms=%.3f\n", mib, layout, api, transfer * 1e3);
    if (rank == 1) printf("rank 1 received %zu bytes %d times errors=%d\n", bytes, times, errors);
    free(buf);
    MPI_Type_free(&one_mib);
    MPI_Finalize();
    return errors != 0;
}
