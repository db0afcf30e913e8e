/* Derived datatypes: constructors, sizes and bounds, sends and receives of
 * vector / indexed / struct / resized types (with different but matching
 * type signatures on both sides), MPI_Pack / MPI_Unpack, MPI_Get_count and
 * MPI_Get_elements, addresses, and the MPI-1 forms.
 * Each rank exchanges with its ring neighbours. Rank 0 prints one line per
 * section and the total of checks of all ranks; failures go to stderr and
 * make the exit code non-zero. Works for 2..8 ranks. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, next, prev;

#include "check.h"

static void bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, int sz, const char *what) {
    MPI_Aint l, e, tl, te;
    int s;
    MPI_Count sx, lx, ex;
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_size(t, &s);
    CHECK(l == lb && e == extent && s == sz, "%s: lb %ld extent %ld size %d", what, (long)l, (long)e, s);
    MPI_Type_size_x(t, &sx);
    MPI_Type_get_extent_x(t, &lx, &ex);
    CHECK(sx == sz && lx == lb && ex == extent, "%s: _x variants", what);
    MPI_Type_get_true_extent(t, &tl, &te);
    CHECK(te <= e || l != 0, "%s: true extent %ld", what, (long)te);
}

static void constructors(void) {
    MPI_Datatype c, v, hv, ix, hix, ib, hib, r, d;
    MPI_Type_contiguous(5, MPI_INT, &c);
    bounds(c, 0, 20, 20, "contiguous");
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v);
    bounds(v, 0, (2 * 4 + 2) * 8, 48, "vector");
    MPI_Type_create_hvector(3, 1, 12, MPI_INT, &hv);
    bounds(hv, 0, 28, 12, "hvector");
    int bl[3] = {2, 1, 3}, dp[3] = {5, 0, 10};
    MPI_Type_indexed(3, bl, dp, MPI_INT, &ix);
    bounds(ix, 0, 52, 24, "indexed");
    MPI_Aint hdp[3] = {16, 0, 40};
    MPI_Type_create_hindexed(3, bl, hdp, MPI_SHORT, &hix);
    bounds(hix, 0, 46, 12, "hindexed");
    int ibd[2] = {3, 1};
    MPI_Type_create_indexed_block(2, 2, ibd, MPI_FLOAT, &ib);
    bounds(ib, 4, 16, 16, "indexed_block");
    MPI_Aint hibd[2] = {-8, 8};
    MPI_Type_create_hindexed_block(2, 1, hibd, MPI_DOUBLE, &hib);
    bounds(hib, -8, 24, 16, "hindexed_block");
    MPI_Type_create_resized(c, -4, 32, &r);
    bounds(r, -4, 32, 20, "resized");
    MPI_Aint tl, te;
    MPI_Type_get_true_extent(r, &tl, &te);
    CHECK(tl == 0 && te == 20, "resized true extent");
    MPI_Type_dup(v, &d);
    bounds(d, 0, 80, 48, "dup");
    /* MPI-1 queries */
    MPI_Aint e1, lb1, ub1;
    MPI_Type_extent(r, &e1);
    MPI_Type_lb(r, &lb1);
    MPI_Type_ub(r, &ub1);
    CHECK(e1 == 32 && lb1 == -4 && ub1 == 28, "MPI-1 extent/lb/ub");
    /* predefined pair types */
    bounds(MPI_DOUBLE_INT, 0, 16, 12, "MPI_DOUBLE_INT");
    bounds(MPI_2INT, 0, 8, 8, "MPI_2INT");
    MPI_Datatype all[9] = {c, v, hv, ix, hix, ib, hib, r, d};
    for (int i = 0; i < 9; i++) {
        MPI_Type_free(&all[i]);
        CHECK(all[i] == MPI_DATATYPE_NULL, "free sets MPI_DATATYPE_NULL");
    }
    section("constructors and bounds");
}

/* column 1 of a 4x5 matrix, sent as a vector and received as contiguous */
static void vector_exchange(void) {
    double m[4][5], col[4] = {0}, back[4][5];
    MPI_Datatype column;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) m[i][j] = rank * 100 + i * 10 + j, back[i][j] = -1;
    MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Status st;
    MPI_Sendrecv(&m[0][1], 1, column, next, 1, col, 4, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
    int bad = 0;
    for (int i = 0; i < 4; i++) bad += col[i] != prev * 100 + i * 10 + 1;
    CHECK(bad == 0, "vector sent, contiguous received");
    int n;
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    CHECK(n == 4, "Get_count doubles %d", n);
    MPI_Get_count(&st, column, &n);
    CHECK(n == 1, "Get_count column %d", n);
    /* and the other way round into column 3 */
    MPI_Sendrecv(col, 4, MPI_DOUBLE, next, 2, &back[0][3], 1, column, prev, 2, MPI_COMM_WORLD, &st);
    bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) {
            int pp = (prev - 1 + size) % size;
            bad += back[i][j] != (j == 3 ? pp * 100 + i * 10 + 1 : -1);
        }
    CHECK(bad == 0, "contiguous sent, vector received");
    /* two columns at once: count 2 of a resized column type */
    MPI_Datatype col1;
    MPI_Type_create_resized(column, 0, sizeof(double), &col1);
    MPI_Type_commit(&col1);
    double two[8];
    MPI_Sendrecv(&m[0][2], 2, col1, next, 3, two, 8, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &st);
    bad = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++) bad += two[k * 4 + i] != prev * 100 + i * 10 + 2 + k;
    CHECK(bad == 0, "count 2 of a resized vector");
    MPI_Type_free(&col1);
    MPI_Type_free(&column);
    section("vector");
}

static void indexed_exchange(void) {
    int src[20], dst[20], bl[3] = {3, 1, 2}, dp[3] = {12, 0, 6};
    MPI_Datatype ix;
    MPI_Type_indexed(3, bl, dp, MPI_INT, &ix);
    MPI_Type_commit(&ix);
    for (int i = 0; i < 20; i++) src[i] = rank * 1000 + i, dst[i] = -1;
    MPI_Status st;
    MPI_Sendrecv(src, 1, ix, next, 4, dst, 1, ix, prev, 4, MPI_COMM_WORLD, &st);
    int bad = 0;
    for (int i = 0; i < 20; i++) {
        int in = i == 0 || i == 6 || i == 7 || (i >= 12 && i < 15);
        bad += dst[i] != (in ? prev * 1000 + i : -1);
    }
    CHECK(bad == 0, "indexed to indexed");
    /* typemap order: the data arrives as 12,13,14,0,6,7 */
    int flat[6];
    MPI_Sendrecv(src, 1, ix, next, 5, flat, 6, MPI_INT, prev, 5, MPI_COMM_WORLD, &st);
    const int order[6] = {12, 13, 14, 0, 6, 7};
    bad = 0;
    for (int i = 0; i < 6; i++) bad += flat[i] != prev * 1000 + order[i];
    CHECK(bad == 0, "indexed typemap order");
    /* a short message: partial instance */
    MPI_Sendrecv(src, 4, MPI_INT, next, 6, dst, 1, ix, prev, 6, MPI_COMM_WORLD, &st);
    int n, e;
    MPI_Get_count(&st, ix, &n);
    MPI_Get_elements(&st, ix, &e);
    CHECK(n == MPI_UNDEFINED && e == 4, "partial instance: count %d elements %d", n, e);
    MPI_Type_free(&ix);
    /* indexed_block and hindexed */
    MPI_Datatype ib, hx;
    int ibd[3] = {4, 0, 8};
    MPI_Type_create_indexed_block(3, 2, ibd, MPI_INT, &ib);
    MPI_Type_commit(&ib);
    int got[6];
    MPI_Sendrecv(src, 1, ib, next, 7, got, 6, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
    const int ibo[6] = {4, 5, 0, 1, 8, 9};
    bad = 0;
    for (int i = 0; i < 6; i++) bad += got[i] != prev * 1000 + ibo[i];
    CHECK(bad == 0, "indexed_block");
    int hbl[2] = {2, 2};
    MPI_Aint hdp[2] = {40, 8};
    MPI_Type_create_hindexed(2, hbl, hdp, MPI_INT, &hx);
    MPI_Type_commit(&hx);
    MPI_Sendrecv(src, 1, hx, next, 8, got, 4, MPI_INT, prev, 8, MPI_COMM_WORLD, &st);
    CHECK(got[0] == prev * 1000 + 10 && got[3] == prev * 1000 + 3, "hindexed");
    MPI_Type_free(&ib);
    MPI_Type_free(&hx);
    section("indexed");
}

typedef struct {
    char c;
    double d;
    int i[3];
    short s;
} rec;

static void fill(rec *r, int who, int k) {
    memset(r, 0, sizeof *r);
    r->c = 'a' + who + k;
    r->d = who * 1.5 + k;
    for (int j = 0; j < 3; j++) r->i[j] = who * 100 + k * 10 + j;
    r->s = (short)(who - k);
}

static int same(const rec *a, const rec *b) {
    return a->c == b->c && a->d == b->d && a->i[0] == b->i[0] && a->i[1] == b->i[1] && a->i[2] == b->i[2] &&
           a->s == b->s;
}

static void struct_exchange(void) {
    rec out[3] = {{0}}, in[3];
    MPI_Datatype t, rt;
    int bl[4] = {1, 1, 3, 1};
    MPI_Aint base, disp[4];
    MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT};
    MPI_Get_address(&out[0], &base);
    MPI_Get_address(&out[0].c, &disp[0]);
    MPI_Get_address(&out[0].d, &disp[1]);
    MPI_Get_address(&out[0].i, &disp[2]);
    MPI_Get_address(&out[0].s, &disp[3]);
    for (int k = 0; k < 4; k++) disp[k] = MPI_Aint_diff(disp[k], base);
    CHECK(disp[1] == offsetof(rec, d) && disp[3] == offsetof(rec, s), "Get_address / Aint_diff");
    CHECK(MPI_Aint_add(base, disp[2]) == (MPI_Aint)&out[0].i, "Aint_add");
    MPI_Type_create_struct(4, bl, disp, types, &t);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(lb == 0 && ext == sizeof(rec), "struct extent %ld (padded like the C struct %ld)", (long)ext,
          (long)sizeof(rec));
    MPI_Type_create_resized(t, 0, sizeof(rec), &rt);
    MPI_Type_commit(&rt);
    int sz;
    MPI_Type_size(rt, &sz);
    CHECK(sz == 1 + 8 + 12 + 2, "struct size %d", sz);
    for (int k = 0; k < 3; k++) fill(&out[k], rank, k);
    memset(in, 0x5a, sizeof in);
    MPI_Status st;
    MPI_Sendrecv(out, 3, rt, next, 9, in, 3, rt, prev, 9, MPI_COMM_WORLD, &st);
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        rec want;
        fill(&want, prev, k);
        bad += !same(&in[k], &want);
    }
    CHECK(bad == 0, "struct array exchanged");
    int n, e;
    MPI_Get_count(&st, rt, &n);
    MPI_Get_elements(&st, rt, &e);
    CHECK(n == 3 && e == 18, "struct Get_count %d Get_elements %d", n, e);
    /* MPI-1 MPI_Type_struct with the same layout */
    MPI_Datatype t1;
    MPI_Type_struct(4, bl, disp, types, &t1);
    MPI_Type_size(t1, &sz);
    CHECK(sz == 23, "MPI_Type_struct size");
    MPI_Type_free(&t1);
    /* MPI-1 MPI_Type_hvector / MPI_Type_hindexed / MPI_Address */
    MPI_Datatype h1, h2;
    MPI_Aint a1;
    MPI_Address(&out[1], &a1);
    CHECK(a1 == base + (MPI_Aint)sizeof(rec), "MPI_Address");
    MPI_Type_hvector(2, 1, sizeof(rec), rt, &h1);
    MPI_Type_hindexed(2, bl, disp, MPI_INT, &h2);
    MPI_Type_size(h1, &sz);
    CHECK(sz == 46, "MPI_Type_hvector size");
    MPI_Type_size(h2, &sz);
    CHECK(sz == 8, "MPI_Type_hindexed size");
    MPI_Type_free(&h1);
    MPI_Type_free(&h2);
    MPI_Type_free(&t);
    MPI_Type_free(&rt);
    section("struct");
}

static void pack_unpack(void) {
    char buf[256];
    int pos = 0, ints[4] = {rank, rank + 1, rank + 2, rank + 3}, psize;
    double d = rank * 0.25;
    MPI_Datatype pair;
    MPI_Type_vector(2, 1, 3, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Pack_size(1, pair, MPI_COMM_WORLD, &psize);
    CHECK(psize >= 8, "Pack_size of a vector %d", psize);
    MPI_Pack(ints, 1, pair, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack("hello", 6, MPI_CHAR, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    int total = pos;
    MPI_Status st;
    char rbuf[256];
    MPI_Sendrecv(buf, total, MPI_PACKED, next, 10, rbuf, sizeof rbuf, MPI_PACKED, prev, 10, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_PACKED, &n);
    CHECK(n == total, "packed bytes %d", n);
    int two[2] = {0, 0};
    double rd = 0;
    char text[6] = {0};
    pos = 0;
    MPI_Unpack(rbuf, n, &pos, two, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, n, &pos, &rd, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, n, &pos, text, 6, MPI_CHAR, MPI_COMM_WORLD);
    CHECK(two[0] == prev && two[1] == prev + 3 && rd == prev * 0.25 && strcmp(text, "hello") == 0 && pos == n,
          "unpacked %d %d %g %s", two[0], two[1], rd, text);
    /* the packed ints (the first 8 bytes) received directly as MPI_INT */
    two[0] = two[1] = -1;
    MPI_Sendrecv(buf, 8, MPI_PACKED, next, 11, two, 2, MPI_INT, prev, 11, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 2 && two[0] == prev && two[1] == prev + 3, "MPI_PACKED received as MPI_INT");
    MPI_Type_free(&pair);
    section("pack/unpack");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size, prev = (rank + size - 1) % size;
    constructors();
    vector_exchange();
    indexed_exchange();
    struct_exchange();
    pack_unpack();
    int code = finish_checks("datatypes");
    MPI_Finalize();
    return code;
}
