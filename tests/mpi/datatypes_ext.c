/* More datatypes: subarrays and distributed arrays (checked element by
 * element against the layout written down here, and exchanged between
 * ranks), envelopes and contents of every constructor, MPI_Type_match_size,
 * the Fortran 90 parameterised types, "external32" packing (rank 0 prints
 * the bytes of every predefined type on which MPICH's own implementation
 * agrees with the standard, so native and mpinetsim must produce the same
 * bytes), MPI_Get_elements(_x) of partial derived types and
 * MPI_Status_set_elements(_x).
 *
 * Works for 1..8 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

static int error_class(int code) {
    int c;
    MPI_Error_class(code, &c);
    return c;
}

/* Packs one instance of `t` from `src` (ints) and compares the ints with
 * `want[0..n)`. */
static void packed_ints(MPI_Datatype t, const int *src, const int *want, int n, const char *what) {
    int psize, pos = 0;
    MPI_Pack_size(1, t, MPI_COMM_WORLD, &psize);
    CHECK(psize == 4 * n, "%s: pack size %d, want %d", what, psize, 4 * n);
    int *out = malloc(psize + 4);
    MPI_Pack(src, 1, t, out, psize, &pos, MPI_COMM_WORLD);
    int same = pos == 4 * n;
    for (int i = 0; same && i < n; i++) same = out[i] == want[i];
    CHECK(same, "%s: packed elements", what);
    free(out);
}

static void subarrays(void) {
    /* int a[4][5] = 0..19; rows 1..2, columns 2..4. */
    int a[20], want[6], k = 0;
    for (int i = 0; i < 20; i++) a[i] = i;
    for (int i = 1; i < 3; i++)
        for (int j = 2; j < 5; j++) want[k++] = 5 * i + j;
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Datatype c, f;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &c);
    MPI_Type_commit(&c);
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(c, &lb, &ext);
    MPI_Type_get_true_extent(c, &tlb, &text);
    CHECK(lb == 0 && ext == 80 && tlb == 28 && text == 32, "C subarray bounds %ld %ld %ld %ld", (long)lb,
          (long)ext, (long)tlb, (long)text);
    packed_ints(c, a, want, 6, "C subarray");
    /* Fortran order: a(4,5), element (i,j) at i + 4j. */
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &f);
    MPI_Type_commit(&f);
    k = 0;
    for (int j = 2; j < 5; j++)
        for (int i = 1; i < 3; i++) want[k++] = i + 4 * j;
    packed_ints(f, a, want, 6, "Fortran subarray");
    /* Send my block to the next rank, which receives it as 6 ints. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got[6];
    for (int i = 0; i < 20; i++) a[i] = 100 * rank + i;
    MPI_Sendrecv(a, 1, c, next, 0, got, 6, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got[0] == 100 * prev + 7 && got[5] == 100 * prev + 14, "received subarray %d %d", got[0], got[5]);
    /* Three dimensions, two instances back to back. */
    int s3[3] = {3, 4, 2}, b3[3] = {2, 1, 2}, o3[3] = {1, 3, 0}, a3[48], w3[8];
    for (int i = 0; i < 48; i++) a3[i] = i;
    MPI_Datatype t3;
    MPI_Type_create_subarray(3, s3, b3, o3, MPI_ORDER_C, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    k = 0;
    for (int inst = 0; inst < 2; inst++)
        for (int i = 1; i < 3; i++)
            for (int j = 3; j < 4; j++)
                for (int l = 0; l < 2; l++) w3[k++] = 24 * inst + 8 * i + 2 * j + l;
    int out3[8], pos = 0;
    MPI_Pack(a3, 2, t3, out3, sizeof out3, &pos, MPI_COMM_WORLD);
    CHECK(pos == 32 && memcmp(out3, w3, 32) == 0, "two 3-d subarrays");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {-1, 0};
    MPI_Datatype x;
    CHECK(error_class(MPI_Type_create_subarray(2, sizes, sub, bad, MPI_ORDER_C, MPI_INT, &x)) == MPI_ERR_COUNT,
          "a negative start");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&c);
    MPI_Type_free(&f);
    MPI_Type_free(&t3);
}

/* The global indices process coordinate `p` of `np` owns in a dimension of
 * `g` elements, in order (MPI's definition of each distribution). */
static int owned(int dist, int darg, int g, int np, int p, int *idx) {
    int n = 0;
    if (dist == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < g; i++) idx[n++] = i;
    } else if (dist == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + np - 1) / np : darg;
        for (int i = p * b; i < (p + 1) * b && i < g; i++) idx[n++] = i;
    } else {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (int s = p * b; s < g; s += np * b)
            for (int i = s; i < s + b && i < g; i++) idx[n++] = i;
    }
    return n;
}

static void darrays(void) {
    int psizes[2] = {0, 0};
    MPI_Dims_create(size, 2, psizes);
    int coords[2] = {rank / psizes[1], rank % psizes[1]};
    int gsizes[2] = {9, 7};
    int dists[][2] = {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
                      {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                      {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC},
                      {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}};
    /* Explicit block sizes large enough for the grid's dimensions. */
    int b0 = (9 + psizes[0] - 1) / psizes[0] + 1, b1 = (7 + psizes[1] - 1) / psizes[1];
    int dargs[][2] = {{MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, {2, b1}, {1, 3},
                      {b0, MPI_DISTRIBUTE_DFLT_DARG}};
    int global[63];
    for (int i = 0; i < 63; i++) global[i] = i;
    for (int order = 0; order < 2; order++) {
        for (int d = 0; d < 4; d++) {
            int ord = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
            MPI_Datatype t;
            MPI_Type_create_darray(size, rank, 2, gsizes, dists[d], dargs[d], psizes, ord, MPI_INT, &t);
            MPI_Type_commit(&t);
            int i0[9], i1[7];
            int n0 = owned(dists[d][0], dargs[d][0], 9, psizes[0], coords[0], i0);
            int n1 = owned(dists[d][1], dargs[d][1], 7, psizes[1], coords[1], i1);
            int want[63], k = 0;
            /* C: dimension 1 fastest, element (i, j) at 7 i + j; Fortran:
             * dimension 0 fastest, element (i, j) at i + 9 j. */
            if (!order) {
                for (int a = 0; a < n0; a++)
                    for (int b = 0; b < n1; b++) want[k++] = 7 * i0[a] + i1[b];
            } else {
                for (int b = 0; b < n1; b++)
                    for (int a = 0; a < n0; a++) want[k++] = i0[a] + 9 * i1[b];
            }
            MPI_Aint lb, ext;
            MPI_Type_get_extent(t, &lb, &ext);
            CHECK(lb == 0 && ext == 63 * 4, "darray extent %ld", (long)ext);
            char what[64];
            snprintf(what, sizeof what, "darray %d order %d", d, order);
            packed_ints(t, global, want, k, what);
            /* Every element belongs to exactly one process. */
            int total;
            MPI_Allreduce(&k, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(total == 63, "%s covers %d elements", what, total);
            MPI_Type_free(&t);
        }
    }
    /* Block size too small for the array. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size > 1) {
        int g = 10 * size, dist = MPI_DISTRIBUTE_BLOCK, darg = 1, p = size;
        MPI_Datatype x;
        CHECK(error_class(MPI_Type_create_darray(size, rank, 1, &g, &dist, &darg, &p, MPI_ORDER_C, MPI_INT, &x)) ==
                  MPI_ERR_ARG,
              "a block that cannot cover the array");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Checks `t`'s envelope and contents against what made it. */
static void envelope(MPI_Datatype t, int combiner, int ni, const int *ints, int na, const MPI_Aint *aints, int nd,
                     const MPI_Datatype *types, const char *what) {
    int gi, ga, gd, gc;
    MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc);
    CHECK(gc == combiner && gi == ni && ga == na && gd == nd, "%s envelope: %d %d %d %d", what, gc, gi, ga, gd);
    if (gc != combiner || gi != ni || ga != na || gd != nd || combiner == MPI_COMBINER_NAMED) return;
    int ri[64];
    MPI_Aint ra[16];
    MPI_Datatype rt[16];
    MPI_Type_get_contents(t, 64, 16, 16, ri, ra, rt);
    CHECK(memcmp(ri, ints, sizeof(int) * ni) == 0, "%s integers", what);
    CHECK(na == 0 || memcmp(ra, aints, sizeof(MPI_Aint) * na) == 0, "%s addresses", what);
    for (int i = 0; i < nd; i++) {
        CHECK(rt[i] == types[i], "%s datatype %d", what, i);
        /* A derived type comes back as a handle of its own to free. */
        int ci, ca, cd, cc;
        MPI_Type_get_envelope(rt[i], &ci, &ca, &cd, &cc);
        if (cc != MPI_COMBINER_NAMED && rt[i] != MPI_LB && rt[i] != MPI_UB) MPI_Type_free(&rt[i]);
    }
}

static void envelopes(void) {
    int gi, ga, gd, gc;
    MPI_Type_get_envelope(MPI_DOUBLE, &gi, &ga, &gd, &gc);
    CHECK(gc == MPI_COMBINER_NAMED && gi == 0 && ga == 0 && gd == 0, "named");
    MPI_Datatype c, v, hv, ix, hix, ib, hib, st, st1, sub, da, rs, dup, f;
    MPI_Type_contiguous(3, MPI_INT, &c);
    envelope(c, MPI_COMBINER_CONTIGUOUS, 1, (int[]){3}, 0, NULL, 1, (MPI_Datatype[]){MPI_INT}, "contiguous");
    MPI_Type_vector(2, 3, -4, c, &v);
    envelope(v, MPI_COMBINER_VECTOR, 3, (int[]){2, 3, -4}, 0, NULL, 1, &c, "vector");
    MPI_Type_create_hvector(4, 1, 100, v, &hv);
    envelope(hv, MPI_COMBINER_HVECTOR, 2, (int[]){4, 1}, 1, (MPI_Aint[]){100}, 1, &v, "hvector");
    MPI_Type_hvector(4, 2, 48, MPI_SHORT, &f);
    envelope(f, MPI_COMBINER_HVECTOR, 2, (int[]){4, 2}, 1, (MPI_Aint[]){48}, 1, (MPI_Datatype[]){MPI_SHORT},
             "MPI-1 hvector");
    MPI_Type_free(&f);
    int bl[3] = {1, 0, 2}, dp[3] = {4, 9, -2};
    MPI_Type_indexed(3, bl, dp, MPI_FLOAT, &ix);
    envelope(ix, MPI_COMBINER_INDEXED, 7, (int[]){3, 1, 0, 2, 4, 9, -2}, 0, NULL, 1, (MPI_Datatype[]){MPI_FLOAT},
             "indexed");
    MPI_Aint hdp[3] = {16, 0, 40};
    MPI_Type_create_hindexed(3, bl, hdp, ix, &hix);
    envelope(hix, MPI_COMBINER_HINDEXED, 4, (int[]){3, 1, 0, 2}, 3, hdp, 1, &ix, "hindexed");
    MPI_Type_create_indexed_block(3, 2, dp, MPI_CHAR, &ib);
    envelope(ib, MPI_COMBINER_INDEXED_BLOCK, 5, (int[]){3, 2, 4, 9, -2}, 0, NULL, 1, (MPI_Datatype[]){MPI_CHAR},
             "indexed_block");
    MPI_Type_create_hindexed_block(3, 2, hdp, MPI_DOUBLE, &hib);
    envelope(hib, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){3, 2}, 3, hdp, 1, (MPI_Datatype[]){MPI_DOUBLE},
             "hindexed_block");
    MPI_Datatype mem[3] = {MPI_INT, hib, MPI_LONG_DOUBLE};
    int sbl[3] = {2, 1, 3};
    MPI_Aint sdp[3] = {0, 16, 256};
    MPI_Type_create_struct(3, sbl, sdp, mem, &st);
    envelope(st, MPI_COMBINER_STRUCT, 4, (int[]){3, 2, 1, 3}, 3, sdp, 3, mem, "struct");
    MPI_Datatype mem1[3] = {MPI_LB, MPI_INT, MPI_UB};
    MPI_Type_struct(3, sbl, sdp, mem1, &st1);
    envelope(st1, MPI_COMBINER_STRUCT, 4, (int[]){3, 2, 1, 3}, 3, sdp, 3, mem1, "MPI-1 struct with bounds");
    MPI_Aint lb, ext;
    MPI_Type_get_extent(st1, &lb, &ext);
    CHECK(lb == 0 && ext == 256, "MPI_LB / MPI_UB bounds %ld %ld", (long)lb, (long)ext);
    int sz[2] = {6, 5}, ss[2] = {2, 2}, so[2] = {3, 1};
    MPI_Type_create_subarray(2, sz, ss, so, MPI_ORDER_FORTRAN, c, &sub);
    envelope(sub, MPI_COMBINER_SUBARRAY, 8, (int[]){2, 6, 5, 2, 2, 3, 1, MPI_ORDER_FORTRAN}, 0, NULL, 1, &c,
             "subarray");
    int g[2] = {8, 6}, di[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, da2[2] = {2, MPI_DISTRIBUTE_DFLT_DARG},
        ps[2] = {size, 1};
    MPI_Type_create_darray(size, rank, 2, g, di, da2, ps, MPI_ORDER_C, MPI_DOUBLE, &da);
    envelope(da, MPI_COMBINER_DARRAY, 12,
             (int[]){size, rank, 2, 8, 6, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, 2, MPI_DISTRIBUTE_DFLT_DARG,
                     size, 1, MPI_ORDER_C},
             0, NULL, 1, (MPI_Datatype[]){MPI_DOUBLE}, "darray");
    MPI_Type_create_resized(st, -8, 1000, &rs);
    envelope(rs, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){-8, 1000}, 1, &st, "resized");
    MPI_Type_dup(rs, &dup);
    envelope(dup, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &rs, "dup");
    /* A type freed by the program still shows in what was made from it. */
    MPI_Datatype was_c = c;
    MPI_Type_free(&c);
    envelope(v, MPI_COMBINER_VECTOR, 3, (int[]){2, 3, -4}, 0, NULL, 1, &was_c, "vector of a freed type");
    int ri[3];
    MPI_Datatype rt[1];
    MPI_Type_get_contents(v, 3, 0, 1, ri, NULL, rt);
    int csize;
    MPI_Type_size(rt[0], &csize);
    CHECK(csize == 12, "the freed type, returned, still works: size %d", csize);
    MPI_Type_free(&rt[0]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(error_class(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ri, NULL, rt)) == MPI_ERR_TYPE,
          "contents of a predefined type");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Datatype all[] = {v, hv, ix, hix, ib, hib, st, st1, sub, da, rs, dup};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) MPI_Type_free(&all[i]);
}

static void fortran_kinds(void) {
    int classes[3] = {MPI_TYPECLASS_REAL, MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_COMPLEX};
    for (int k = 0; k < 3; k++) {
        for (int s = 1; s <= 32; s++) {
            MPI_Datatype t;
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int e = MPI_Type_match_size(classes[k], s, &t);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            if (e != MPI_SUCCESS) {
                CHECK(error_class(e) == MPI_ERR_ARG, "match_size %d %d", classes[k], s);
                continue;
            }
            int ts;
            char name[MPI_MAX_OBJECT_NAME];
            int len;
            MPI_Type_size(t, &ts);
            MPI_Type_get_name(t, name, &len);
            CHECK(ts == s, "match_size %d %d: size %d", classes[k], s, ts);
            if (rank == 0) printf("match_size class %d size %d: %s\n", classes[k], s, name);
        }
    }
    /* Each (p, r) has its type, the same every time. */
    int pr[][2] = {{6, 37}, {6, MPI_UNDEFINED}, {MPI_UNDEFINED, 37}, {15, 307}, {7, 0}, {0, 38}};
    for (unsigned i = 0; i < sizeof pr / sizeof pr[0]; i++) {
        MPI_Datatype r1, r2, c1;
        MPI_Type_create_f90_real(pr[i][0], pr[i][1], &r1);
        MPI_Type_create_f90_real(pr[i][0], pr[i][1], &r2);
        MPI_Type_create_f90_complex(pr[i][0], pr[i][1], &c1);
        int rs, cs;
        MPI_Type_size(r1, &rs);
        MPI_Type_size(c1, &cs);
        CHECK(r1 == r2 && cs == 2 * rs, "f90 real %d %d", pr[i][0], pr[i][1]);
        envelope(r1, MPI_COMBINER_F90_REAL, 2, pr[i], 0, NULL, 0, NULL, "f90 real");
        envelope(c1, MPI_COMBINER_F90_COMPLEX, 2, pr[i], 0, NULL, 0, NULL, "f90 complex");
        if (rank == 0) printf("f90 real(%d, %d): %d bytes\n", pr[i][0], pr[i][1], rs);
    }
    int ranges[] = {1, 2, 3, 4, 5, 9, 10, 18, MPI_UNDEFINED};
    for (unsigned i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        MPI_Datatype t, u;
        MPI_Type_create_f90_integer(ranges[i], &t);
        MPI_Type_create_f90_integer(ranges[i], &u);
        int ts;
        MPI_Type_size(t, &ts);
        CHECK(t == u, "f90 integer %d cached", ranges[i]);
        envelope(t, MPI_COMBINER_F90_INTEGER, 1, &ranges[i], 0, NULL, 0, NULL, "f90 integer");
        if (rank == 0) printf("f90 integer(%d): %d bytes\n", ranges[i], ts);
    }
    /* An f90 type communicates as the predefined type of its size. */
    MPI_Datatype r8;
    MPI_Type_create_f90_real(15, 300, &r8);
    double d = 2.5 + rank, back;
    MPI_Sendrecv(&d, 1, r8, 0, 1, &back, 1, MPI_DOUBLE, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    CHECK(back == d, "f90 real sent to self");
}

/* Packs `count` elements of `t` from `src` in external32, prints the bytes
 * on rank 0 and unpacks them again; compares with `src`. */
static void external(const void *src, int count, MPI_Datatype t, int elem_bytes, const char *name) {
    MPI_Aint sz, pos = 0, pos2 = 0;
    unsigned char out[256], back[256];
    MPI_Pack_external_size("external32", count, t, &sz);
    MPI_Pack_external("external32", src, count, t, out, sizeof out, &pos);
    CHECK(pos == sz, "%s: external32 size %ld, packed %ld", name, (long)sz, (long)pos);
    if (rank == 0) {
        printf("external32 %s:", name);
        for (int i = 0; i < pos; i++) printf(" %02x", out[i]);
        printf("\n");
    }
    memset(back, 0, sizeof back);
    MPI_Unpack_external("external32", out, pos, &pos2, back, count, t);
    int same = pos2 == pos;
    /* Compare the data bytes (a long double's last 6 are padding). */
    int data = t == MPI_LONG_DOUBLE ? 10 : elem_bytes;
    for (int k = 0; same && k < count; k++)
        same = memcmp(back + k * elem_bytes, (const unsigned char *)src + k * elem_bytes, data) == 0;
    CHECK(same, "%s round trip", name);
}

static void externals(void) {
    signed char c[3] = {-1, 2, 127};
    short s[2] = {-2, 0x1234};
    int i[2] = {-3, 0x01020304};
    long l[2] = {-4, 0x05060708};
    unsigned long ul[1] = {0x89abcdefUL};
    long long ll[1] = {-0x0102030405060708LL};
    float f[2] = {1.5f, -0.125f};
    double d[2] = {3.25, -1e300};
    long double ld[2] = {1.5L, -3.25e100L};
    float cf[2] = {1.0f, -2.0f};
    double cd[2] = {0.5, 4.0};
    int logical[2] = {1, 0};
    external(c, 3, MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR");
    external(s, 2, MPI_SHORT, 2, "MPI_SHORT");
    external(i, 2, MPI_INT, 4, "MPI_INT");
    external(l, 2, MPI_LONG, 8, "MPI_LONG");
    external(ul, 1, MPI_UNSIGNED_LONG, 8, "MPI_UNSIGNED_LONG");
    external(ll, 1, MPI_LONG_LONG, 8, "MPI_LONG_LONG");
    external(f, 2, MPI_FLOAT, 4, "MPI_FLOAT");
    external(d, 2, MPI_DOUBLE, 8, "MPI_DOUBLE");
    external(ld, 2, MPI_LONG_DOUBLE, 16, "MPI_LONG_DOUBLE");
    external(cf, 1, MPI_C_FLOAT_COMPLEX, 8, "MPI_C_FLOAT_COMPLEX");
    external(cd, 1, MPI_C_DOUBLE_COMPLEX, 16, "MPI_C_DOUBLE_COMPLEX");
    external(cf, 1, MPI_COMPLEX8, 8, "MPI_COMPLEX8");
    external(i, 2, MPI_INTEGER, 4, "MPI_INTEGER");
    external(logical, 2, MPI_LOGICAL, 4, "MPI_LOGICAL");
    external(d, 2, MPI_REAL8, 8, "MPI_REAL8");
    external(ll, 1, MPI_AINT, 8, "MPI_AINT");
    /* A vector of longs (4 bytes each in external32; MPICH 4.0 handles
     * derived types of one element type only), packed after a position. */
    long lv[8] = {1, -2, 3, -4, 5, -6, 7, -8};
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 3, MPI_LONG, &t);
    MPI_Type_commit(&t);
    MPI_Aint sz;
    MPI_Pack_external_size("external32", 2, t, &sz);
    CHECK(sz == 16, "vector external32 size %ld", (long)sz);
    unsigned char out[64];
    MPI_Aint pos = 4, pos2 = 4;
    memset(out, 0xee, sizeof out);
    MPI_Pack_external("external32", lv, 2, t, out, sizeof out, &pos);
    CHECK(pos == 20 && out[3] == 0xee && out[7] == 1 && out[11] == 0xfc, "vector packed after a position");
    if (rank == 0) {
        printf("external32 vector of MPI_LONG:");
        for (int k = 4; k < pos; k++) printf(" %02x", out[k]);
        printf("\n");
    }
    long lb[8] = {0};
    MPI_Unpack_external("external32", out, pos, &pos2, lb, 2, t);
    CHECK(pos2 == 20 && lb[0] == 1 && lb[3] == -4 && lb[4] == 5 && lb[7] == -8 && lb[1] == 0,
          "vector unpacked: %ld %ld %ld %ld", lb[0], lb[3], lb[4], lb[7]);
    MPI_Type_free(&t);
}

static void elements(void) {
    /* { int; double } received from 3 ints and from 1 int + 1 double. */
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, t;
    MPI_Type_create_struct(2, bl, dp, ty, &t);
    MPI_Type_commit(&t);
    int three[4] = {1, 2, 3, 4};
    unsigned char buf[64];
    MPI_Status st;
    int n, cnt;
    MPI_Count nx;
    MPI_Sendrecv(three, 3, MPI_INT, 0, 5, buf, 2, t, 0, 5, MPI_COMM_SELF, &st);
    MPI_Get_elements(&st, t, &n);
    MPI_Get_elements_x(&st, t, &nx);
    MPI_Get_count(&st, t, &cnt);
    /* 12 bytes: the int and the double (4 + 8) of the first instance. */
    CHECK(n == 2 && nx == 2 && cnt == 1, "12 bytes of {int, double}: %d elements, count %d", n, cnt);
    MPI_Sendrecv(three, 4, MPI_INT, 0, 5, buf, 2, t, 0, 5, MPI_COMM_SELF, &st);
    MPI_Get_elements(&st, t, &n);
    MPI_Get_count(&st, t, &cnt);
    CHECK(n == 3 && cnt == MPI_UNDEFINED, "16 bytes: %d elements, count %d", n, cnt);
    MPI_Status_set_elements(&st, MPI_DOUBLE, 5);
    MPI_Get_elements(&st, MPI_DOUBLE, &n);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(n == 5 && cnt == 10, "set_elements: %d, as ints %d", n, cnt);
    MPI_Status_set_elements_x(&st, t, 3);
    MPI_Get_elements_x(&st, t, &nx);
    MPI_Get_count(&st, t, &cnt);
    CHECK(nx == 6 && cnt == 3, "set_elements_x of a struct: %lld, count %d", (long long)nx, cnt);
    MPI_Type_free(&t);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    subarrays();
    section("subarray");
    darrays();
    section("darray");
    envelopes();
    section("envelope and contents");
    fortran_kinds();
    section("match_size and f90 kinds");
    externals();
    section("external32");
    elements();
    section("elements");
    int code = finish_checks("datatypes_ext");
    MPI_Finalize();
    return code;
}
