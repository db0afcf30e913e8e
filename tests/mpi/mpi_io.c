/* MPI-IO: files opened by all ranks in a fresh private folder (rank 0
 * makes it with mkdtemp and removes it at the end). Open modes and their
 * errors, sizes, strided, subarray and darray views written collectively
 * and checked byte by byte, individual, shared and ordered pointers,
 * nonblocking and split collective accesses, file error handlers, hints,
 * atomicity and handle conversion. Every rank makes the same number of
 * checks; works for 1..8 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

#include "check.h"

static char dir[256];

/* The path of file `name` in the test's folder. */
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

static int handler_calls, handler_class;
static void on_file_error(MPI_File *fh, int *code, ...) {
    (void)fh;
    handler_calls++;
    handler_class = error_class(*code);
}

static void modes_and_sizes(void) {
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(error_class(rc) == MPI_ERR_NO_SUCH_FILE, "opening a missing file: class %d", error_class(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK(error_class(rc) == MPI_ERR_AMODE, "two access modes: class %d", error_class(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "exclusive create: %d", rc);
    int amode;
    MPI_File_get_amode(fh, &amode);
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR), "amode %d", amode);
    MPI_Group g, w;
    int cmp;
    MPI_File_get_group(fh, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_compare(g, w, &cmp);
    CHECK(cmp == MPI_IDENT, "group of the file: %d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    MPI_File_set_size(fh, 1000);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 1000, "size after set_size %lld", (long long)sz);
    MPI_File_preallocate(fh, 500);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 1000, "preallocate never shrinks: %lld", (long long)sz);
    MPI_File_preallocate(fh, 2000);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 2000, "preallocate grows: %lld", (long long)sz);
    MPI_File_set_size(fh, 10);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 10, "set_size shrinks: %lld", (long long)sz);
    MPI_File_close(&fh);
    CHECK(fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");
    rc = MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK(error_class(rc) == MPI_ERR_FILE_EXISTS, "exclusive create of an existing file: class %d", error_class(rc));
    /* Delete on close. */
    MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(path("a"), F_OK) != 0, "delete on close removed the file");
    /* MPI_File_delete by rank 0, then it is gone for everyone. */
    MPI_File_open(MPI_COMM_WORLD, path("b"), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_close(&fh);
    if (rank == 0) CHECK(MPI_File_delete(path("b"), MPI_INFO_NULL) == MPI_SUCCESS, "delete");
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_File_delete(path("b"), MPI_INFO_NULL);
    CHECK(error_class(rc) == MPI_ERR_NO_SUCH_FILE, "deleting a deleted file: class %d", error_class(rc));
    /* Append: the pointer starts at the end. */
    MPI_File_open(MPI_COMM_WORLD, path("c"), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 64);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, path("c"), MPI_MODE_WRONLY | MPI_MODE_APPEND | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == 64, "append starts at the end: %lld", (long long)pos);
    MPI_File_close(&fh);
    section("modes and sizes");
}

/* Rank r owns ints r, r+size, r+2*size, ... : a strided view. */
static void strided_views(void) {
    enum { N = 6 };
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("strided"), MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_Datatype one, ft;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, size * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 16 + rank * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
    int mine[N], back[N];
    for (int i = 0; i < N; i++) mine[i] = 1000 * rank + i;
    MPI_Status st;
    MPI_File_write_all(fh, mine, N, MPI_INT, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == N, "write_all count %d", count);
    MPI_Offset pos, byte;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == N, "pointer after write_all %lld", (long long)pos);
    MPI_File_get_byte_offset(fh, 2, &byte);
    CHECK(byte == 16 + (2 * size + rank) * (MPI_Offset)sizeof(int), "byte offset %lld", (long long)byte);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    /* Every rank reads the whole file through the default view. */
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    int all[8 * N];
    MPI_File_read_at(fh, 16, all, N * size, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == N * size, "read_at count %d", count);
    int bad = 0;
    for (int i = 0; i < N * size; i++)
        if (all[i] != 1000 * (i % size) + i / size) bad++;
    CHECK(bad == 0, "%d ints of the interleaved file are wrong", bad);
    /* Back through the view with read_at_all. */
    MPI_File_set_view(fh, 16 + rank * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
    memset(back, 0, sizeof back);
    MPI_File_read_at_all(fh, 0, back, N, MPI_INT, &st);
    CHECK(memcmp(back, mine, sizeof mine) == 0, "read_at_all through the view");
    MPI_Offset disp;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &et, &ft2, rep);
    MPI_Aint lb2, ext2;
    int size2;
    MPI_Type_get_extent(ft2, &lb2, &ext2);
    MPI_Type_size(ft2, &size2);
    CHECK(disp == 16 + rank * (MPI_Offset)sizeof(int) && et == MPI_INT && strcmp(rep, "native") == 0 && ext2 == size * (MPI_Aint)sizeof(int) && size2 == sizeof(int),
          "view %lld %s extent %ld size %d", (long long)disp, rep, (long)ext2, size2);
    MPI_Type_free(&ft2);
    /* Reading past the end of the file (a contiguous view): a short count. */
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 16 + (N * size - 2) * sizeof(int), back, 4, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 2, "read past the end gives %d ints", count);
    MPI_Type_free(&ft);
    MPI_Type_free(&one);
    MPI_File_close(&fh);
    section("strided views");
}

/* A 2-D global array of ints, value = row * 100 + column, written
 * through darray (block, block) views and read back through subarray
 * views of one row band per rank. */
static void subarray_and_darray(void) {
    enum { ROWS = 8, COLS = 12 };
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int gsizes[2] = {ROWS, COLS}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Datatype dar;
    MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_INT, &dar);
    MPI_Type_commit(&dar);
    int tsize;
    MPI_Type_size(dar, &tsize);
    int n = tsize / sizeof(int);
    int *local = malloc((n + 1) * sizeof(int));
    /* Which global elements this rank holds: the darray's own order. */
    int rblock = (ROWS + dims[0] - 1) / dims[0], cblock = (COLS + dims[1] - 1) / dims[1];
    int pr = rank / dims[1], pc = rank % dims[1], k = 0;
    for (int r = pr * rblock; r < ROWS && r < (pr + 1) * rblock; r++)
        for (int c = pc * cblock; c < COLS && c < (pc + 1) * cblock; c++) local[k++] = r * 100 + c;
    CHECK(k == n, "darray holds %d ints, expected %d", n, k);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("grid"), MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, dar, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, local, n, MPI_INT, MPI_STATUS_IGNORE);
    /* Rows split among ranks, read through a subarray view. */
    int first = ROWS * rank / size, rows = ROWS * (rank + 1) / size - first;
    int sub[2] = {rows > 0 ? rows : 1, COLS}, start[2] = {rows > 0 ? first : 0, 0};
    MPI_Datatype band;
    MPI_Type_create_subarray(2, gsizes, sub, start, MPI_ORDER_C, MPI_INT, &band);
    MPI_Type_commit(&band);
    MPI_File_set_view(fh, 0, MPI_INT, band, "native", MPI_INFO_NULL);
    int *mine = calloc(ROWS * COLS, sizeof(int));
    MPI_File_read_all(fh, mine, rows * COLS, MPI_INT, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < COLS; c++)
            if (mine[r * COLS + c] != (first + r) * 100 + c) bad++;
    CHECK(bad == 0, "%d ints of the row band are wrong", bad);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == ROWS * COLS * (MPI_Offset)sizeof(int), "grid file size %lld", (long long)sz);
    MPI_File_close(&fh);
    MPI_Type_free(&band);
    MPI_Type_free(&dar);
    free(local);
    free(mine);
    section("subarray and darray views");
}

/* The shared pointer once every rank got here, before any goes on. */
static MPI_Offset shared_position(MPI_File fh) {
    MPI_Offset sh;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &sh);
    MPI_Barrier(MPI_COMM_WORLD);
    return sh;
}

static void pointers(void) {
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("ptr"), MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    /* Individual pointers: each rank writes its own block of 4 ints. */
    int v[4] = {rank, rank + 1, rank + 2, rank + 3}, w[4];
    MPI_File_seek(fh, rank * 4 * sizeof(int), MPI_SEEK_SET);
    MPI_File_write(fh, v, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (rank + 1) * 4 * (MPI_Offset)sizeof(int), "pointer after write %lld", (long long)pos);
    MPI_File_seek(fh, -(MPI_Offset)(2 * sizeof(int)), MPI_SEEK_CUR);
    MPI_File_read(fh, w, 2, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(w[0] == rank + 2 && w[1] == rank + 3, "read after seek_cur %d %d", w[0], w[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek(fh, -(MPI_Offset)sizeof(int), MPI_SEEK_END);
    MPI_File_read(fh, w, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(w[0] == size - 1 + 3, "last int %d", w[0]);
    /* Shared pointer: ordered writes then shared writes. */
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_Offset sh = shared_position(fh);
    CHECK(sh == 0, "shared pointer after set_view %lld", (long long)sh);
    int mine[8];
    for (int i = 0; i <= rank; i++) mine[i] = rank;
    MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, MPI_STATUS_IGNORE);
    sh = shared_position(fh);
    int tri = size * (size + 1) / 2;
    CHECK(sh == tri, "shared pointer after write_ordered %lld", (long long)sh);
    int tag = 500 + rank;
    MPI_File_write_shared(fh, &tag, 1, MPI_INT, MPI_STATUS_IGNORE);
    sh = shared_position(fh);
    CHECK(sh == tri + size, "shared pointer after write_shared %lld", (long long)sh);
    /* Read back: the ordered part in rank order, the shared part in any order. */
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    int got[8];
    MPI_File_read_ordered(fh, got, rank + 1, MPI_INT, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i <= rank; i++)
        if (got[i] != rank) bad++;
    CHECK(bad == 0, "read_ordered gave %d wrong ints", bad);
    int tail[8], seen = 0;
    MPI_File_read_at(fh, tri, tail, size, MPI_INT, MPI_STATUS_IGNORE);
    for (int i = 0; i < size; i++) seen |= 1 << (tail[i] - 500);
    CHECK(seen == (1 << size) - 1, "each rank's shared write once: mask %#x", seen);
    MPI_File_seek_shared(fh, -1, MPI_SEEK_END);
    int last;
    if (rank == 0) MPI_File_read_shared(fh, &last, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset end;
    MPI_File_get_size(fh, &end);
    sh = shared_position(fh);
    CHECK(sh == end / (MPI_Offset)sizeof(int), "shared pointer after read_shared %lld", (long long)sh);
    MPI_File_close(&fh);
    section("pointers");
}

static void nonblocking_and_split(void) {
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path("nb"), MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    double d[3] = {rank + 0.5, rank + 1.5, rank + 2.5}, e[3];
    MPI_Request req;
    MPI_Status st;
    int count;
    MPI_File_iwrite_at(fh, rank * sizeof d, d, 3, MPI_DOUBLE, &req);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 3 && req == MPI_REQUEST_NULL, "iwrite_at count %d", count);
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size, flag = 0;
    MPI_File_iread_at(fh, peer * sizeof d, e, 3, MPI_DOUBLE, &req);
    while (!flag) MPI_Test(&req, &flag, &st);
    CHECK(e[0] == peer + 0.5 && e[2] == peer + 2.5, "iread_at of the next rank %g", e[0]);
    MPI_File_iwrite_at_all(fh, (size + rank) * sizeof d, d, 3, MPI_DOUBLE, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_File_iread_at_all(fh, (size + peer) * sizeof d, e, 3, MPI_DOUBLE, &req);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 3 && e[1] == peer + 1.5, "iread_at_all %d %g", count, e[1]);
    /* Split collectives through the individual pointer. */
    MPI_File_seek(fh, (2 * size + rank) * sizeof d, MPI_SEEK_SET);
    MPI_File_write_all_begin(fh, d, 3, MPI_DOUBLE);
    MPI_File_write_all_end(fh, d, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 3, "write_all_end count %d", count);
    MPI_File_read_at_all_begin(fh, (2 * size + peer) * sizeof d, e, 3, MPI_DOUBLE);
    MPI_File_read_at_all_end(fh, e, &st);
    CHECK(e[0] == peer + 0.5, "read_at_all_end %g", e[0]);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_File_iread_all(fh, e, 3, MPI_DOUBLE, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(e[0] == 0.5, "iread_all from the start %g", e[0]);
    MPI_File_close(&fh);
    section("nonblocking and split collectives");
}

static void handlers_hints_and_handles(void) {
    MPI_Errhandler eh;
    MPI_File_get_errhandler(MPI_FILE_NULL, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler returns errors");
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_File_open(MPI_COMM_WORLD, path("h"), MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE, info, &fh);
    MPI_Info_free(&info);
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL];
    int flag;
    MPI_File_get_info(fh, &used);
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL - 1, value, &flag);
    CHECK(flag && strcmp(value, "1") == 0, "cb_nodes hint %s", flag ? value : "(none)");
    MPI_Info_free(&used);
    /* One aggregator: the collective write still lands everywhere. */
    int v = rank * 7;
    MPI_File_write_at_all(fh, rank * sizeof v, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == size * (MPI_Offset)sizeof v, "size after one-aggregator write %lld", (long long)sz);
    MPI_File_get_errhandler(fh, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "a new file gets MPI_FILE_NULL's handler");
    int r;
    int rc = MPI_File_read_at(fh, 0, &r, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_ACCESS, "reading a write-only file: class %d", error_class(rc));
    MPI_Errhandler mine;
    MPI_File_create_errhandler(on_file_error, &mine);
    MPI_File_set_errhandler(fh, mine);
    MPI_Errhandler_free(&mine);
    rc = MPI_File_seek(fh, 0, 12345);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_ARG && error_class(rc) == MPI_ERR_ARG, "handler calls %d class %d", handler_calls, handler_class);
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler class %d", handler_class);
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(MPI_File_f2c(f) == fh && MPI_File_c2f(MPI_FILE_NULL) == 0, "c2f/f2c round trip");
    MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 1, "atomicity %d", flag);
    MPI_Aint ext;
    MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext);
    CHECK(ext == sizeof(double), "type extent %ld", (long)ext);
    MPI_File_close(&fh);
    section("handlers, hints and handles");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/mpi_io_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    modes_and_sizes();
    strided_views();
    subarray_and_darray();
    pointers();
    nonblocking_and_split();
    handlers_hints_and_handles();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) rmdir(dir);
    return finish_checks("mpi_io") + MPI_Finalize();
}
