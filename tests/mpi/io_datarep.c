/* Data representations of MPI-IO file views (MPI 3.1 section 13.5):
 *
 * - a representation registered with MPI_Register_datarep, "be64", that
 *   stores every MPI_INT as an 8-byte big-endian integer: views laid out
 *   with its file extents (a strided filetype interleaves the ranks'
 *   8-byte slots), the file's bytes read back unconverted and compared
 *   with the values each rank wrote, reads converted back, the
 *   conversion callbacks' count and position arguments, a non-contiguous
 *   memory type converted through MPI_Pack inside the callback, a short
 *   read at the end of the file, MPI_File_get_type_extent and
 *   MPI_File_get_view;
 * - registration errors (MPI_ERR_DUP_DATAREP) and a failing callback
 *   (MPI_ERR_CONVERSION);
 * - a representation with MPI_CONVERSION_FN_NULL (native bytes);
 * - "external32": MPI_LONG takes 4 big-endian bytes in the file.
 *
 * Every expected value follows from the standard's rules; Debian's MPICH
 * (ROMIO) registers representations but does not convert through them, so
 * this program runs through mpinetsim only. Every rank makes the same
 * number of checks; works for 1..8 ranks. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

#include "check.h"

static char dir[256];

static const char *path(const char *name) {
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static int error_class(int code) {
    int c;
    MPI_Error_class(code, &c);
    return c;
}

/* ---- the "be64" representation ---- */

static int last_count = -1, writes, reads, wrong_state, wrong_type;
static MPI_Offset last_position = -1;

static int be64_extent(MPI_Datatype t, MPI_Aint *extent, void *state) {
    wrong_state += state != (void *)&writes;
    if (t != MPI_INT) return MPI_ERR_TYPE;
    *extent = 8;
    return MPI_SUCCESS;
}

static void put_be64(unsigned char *p, int64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)((uint64_t)v >> (56 - 8 * i));
}

static int64_t get_be64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return (int64_t)v;
}

/* The memory ints of `count` items of `t` from item `position`: packed
 * with MPI_Pack (the callback may call MPI), whatever the layout. */
static int *flatten(void *userbuf, MPI_Datatype t, int count, MPI_Offset position) {
    int tsize;
    MPI_Type_size(t, &tsize);
    int per = tsize / (int)sizeof(int);
    int instances = (int)((position + count + per - 1) / per);
    int bytes;
    MPI_Pack_size(instances, t, MPI_COMM_SELF, &bytes);
    int *ints = malloc(bytes);
    int at = 0;
    MPI_Pack(userbuf, instances, t, ints, bytes, &at, MPI_COMM_SELF);
    return ints;
}

static int be64_write(void *userbuf, MPI_Datatype t, int count, void *filebuf,
                      MPI_Offset position, void *state) {
    (void)state;
    writes++;
    last_count = count;
    last_position = position;
    int *ints = flatten(userbuf, t, count, position);
    for (int i = 0; i < count; i++)
        put_be64((unsigned char *)filebuf + 8 * i, ints[position + i]);
    free(ints);
    return MPI_SUCCESS;
}

static int be64_read(void *userbuf, MPI_Datatype t, int count, void *filebuf,
                     MPI_Offset position, void *state) {
    (void)state;
    reads++;
    last_count = count;
    last_position = position;
    /* Contiguous ints only in this program's reads. */
    wrong_type += t != MPI_INT;
    for (int i = 0; i < count; i++)
        ((int *)userbuf)[position + i] = (int)get_be64((unsigned char *)filebuf + 8 * i);
    return MPI_SUCCESS;
}

static int failing_write(void *userbuf, MPI_Datatype t, int count, void *filebuf,
                         MPI_Offset position, void *state) {
    (void)userbuf, (void)t, (void)count, (void)filebuf, (void)position, (void)state;
    return MPI_ERR_OTHER;
}

static int native_extent(MPI_Datatype t, MPI_Aint *extent, void *state) {
    (void)state;
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, extent);
}

/* The value rank r writes as its item k. */
static int value(int r, int k) { return 1000 * r - 7 * k - 3; }

static void registered(void) {
    int rc = MPI_Register_datarep("be64", be64_read, be64_write, be64_extent, &writes);
    CHECK(rc == MPI_SUCCESS, "register be64: %d", rc);
    rc = MPI_Register_datarep("be64", be64_read, be64_write, be64_extent, &writes);
    CHECK(error_class(rc) == MPI_ERR_DUP_DATAREP, "second be64: class %d", error_class(rc));
    rc = MPI_Register_datarep("external32", be64_read, be64_write, be64_extent, &writes);
    CHECK(error_class(rc) == MPI_ERR_DUP_DATAREP, "registering external32: class %d", error_class(rc));

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("be64"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    /* Each rank's 8-byte slots, one in every `size`: a subarray (a
     * portable type, so its extent scales with the file's int). */
    MPI_Datatype slots;
    int n_all = size, one_slot = 1, mine = rank;
    MPI_Type_create_subarray(1, &n_all, &one_slot, &mine, MPI_ORDER_C, MPI_INT, &slots);
    MPI_Type_commit(&slots);
    rc = MPI_File_set_view(fh, 0, MPI_INT, slots, "be64", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "view in be64: %d", rc);
    MPI_Aint ext;
    MPI_File_get_type_extent(fh, MPI_INT, &ext);
    CHECK(ext == 8, "file extent of MPI_INT %ld", (long)ext);
    MPI_File_get_type_extent(fh, slots, &ext);
    CHECK(ext == 8 * size, "file extent of the filetype %ld", (long)ext);
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK(strcmp(rep, "be64") == 0 && disp == 0, "view %s at %lld", rep, (long long)disp);
    MPI_Type_free(&ft);

    /* Written collectively from every other int of a memory array. */
    int mem[6];
    for (int k = 0; k < 3; k++) mem[2 * k] = value(rank, k), mem[2 * k + 1] = -1;
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Status st;
    int n;
    rc = MPI_File_write_all(fh, mem, 1, every_other, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(rc == MPI_SUCCESS && n == 3, "write_all: rc %d, %d ints", rc, n);
    CHECK(writes == 1 && last_count == 3 && last_position == 0,
          "one write conversion of 3 items from 0: %d, %d, %lld", writes, last_count,
          (long long)last_position);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 24 * size, "file size %lld", (long long)sz);

    /* The bytes in the file: slot j holds rank j % size's item j / size. */
    unsigned char *raw = malloc(24 * size);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, raw, 24 * size, MPI_BYTE, &st);
    int bad = 0;
    for (int j = 0; j < 3 * size; j++)
        bad += get_be64(raw + 8 * j) != value(j % size, j / size);
    CHECK(bad == 0, "%d of %d big-endian slots differ", bad, 3 * size);
    free(raw);

    /* Read back converted, asking for one item more than the view holds. */
    MPI_File_set_view(fh, 0, MPI_INT, slots, "be64", MPI_INFO_NULL);
    int back[4] = {0, 0, 0, 0};
    reads = 0;
    MPI_File_read_at(fh, 0, back, 4, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 3 && reads == 1 && last_count == 3, "short read: %d ints, %d calls of %d", n, reads,
          last_count);
    CHECK(back[0] == value(rank, 0) && back[1] == value(rank, 1) && back[2] == value(rank, 2) &&
              back[3] == 0,
          "values read back: %d %d %d %d", back[0], back[1], back[2], back[3]);
    /* Individual pointer: etypes of the view. */
    int one;
    MPI_File_seek(fh, 2, MPI_SEEK_SET);
    MPI_File_read(fh, &one, 1, MPI_INT, &st);
    MPI_Offset pos, byte;
    MPI_File_get_position(fh, &pos);
    MPI_File_get_byte_offset(fh, pos, &byte);
    CHECK(one == value(rank, 2) && pos == 3 && byte == 8 * (rank + 3 * size),
          "pointer read %d, position %lld at byte %lld", one, (long long)pos, (long long)byte);
    CHECK(wrong_state == 0 && wrong_type == 0, "callbacks got %d wrong states, %d wrong types",
          wrong_state, wrong_type);
    MPI_File_close(&fh);
    MPI_Type_free(&every_other);
    MPI_Type_free(&slots);
}

static void failing_and_null(void) {
    MPI_Register_datarep("failing", NULL, failing_write, be64_extent, &writes);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("failing"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "failing", MPI_INFO_NULL);
    int v = 1;
    MPI_Status st;
    int rc = MPI_File_write_at(fh, rank, &v, 1, MPI_INT, &st);
    CHECK(error_class(rc) == MPI_ERR_CONVERSION, "failing conversion: class %d", error_class(rc));
    MPI_File_close(&fh);

    /* No conversion: native bytes, at native extents. */
    MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, native_extent, NULL);
    MPI_File_open(MPI_COMM_WORLD, path("plain"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "plain", MPI_INFO_NULL);
    double d[2] = {rank + 0.5, -rank - 0.25}, e[2];
    MPI_File_write_at_all(fh, 2 * rank, d, 2, MPI_DOUBLE, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 16 * rank, e, 16, MPI_BYTE, &st);
    CHECK(e[0] == d[0] && e[1] == d[1], "native bytes %g %g", e[0], e[1]);
    MPI_File_close(&fh);
}

static void external32_long(void) {
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("e32"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL);
    MPI_Aint ext;
    MPI_File_get_type_extent(fh, MPI_LONG, &ext);
    CHECK(ext == 4, "external32 extent of MPI_LONG %ld", (long)ext);
    long l[2] = {rank + 1, -(long)rank - 2}, back[2];
    MPI_Status st;
    MPI_File_write_at_all(fh, 2 * rank, l, 2, MPI_LONG, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 8 * size, "external32 file of %lld bytes", (long long)sz);
    MPI_File_read_at(fh, 2 * rank, back, 2, MPI_LONG, &st);
    CHECK(back[0] == l[0] && back[1] == l[1], "longs read back %ld %ld", back[0], back[1]);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    unsigned char b[8];
    MPI_File_read_at(fh, 8 * rank, b, 8, MPI_BYTE, &st);
    int32_t first = (int32_t)((uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]);
    int32_t second = (int32_t)((uint32_t)b[4] << 24 | b[5] << 16 | b[6] << 8 | b[7]);
    CHECK(first == rank + 1 && second == -rank - 2, "big-endian 4-byte longs %d %d", first, second);
    MPI_File_close(&fh);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/io_datarep_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    registered();
    failing_and_null();
    external32_long();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        const char *names[] = {"be64", "failing", "plain", "e32"};
        for (int i = 0; i < 4; i++) unlink(path(names[i]));
        rmdir(dir);
    }
    return finish_checks("io_datarep") + MPI_Finalize();
}
