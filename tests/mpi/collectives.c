/* Every collective of MPI-1/2 on MPI_COMM_WORLD, checked against results
 * computed locally: several sizes and roots, MPI_IN_PLACE, every predefined
 * op on int and double, MINLOC/MAXLOC on MPI_DOUBLE_INT and MPI_2INT, user
 * ops (a non-commutative 2x2 matrix product, and ops on non-contiguous and
 * shifted datatypes), derived datatypes in collectives.
 * Rank 0 prints one line per section and the total of checks of all ranks;
 * failures go to stderr and make the exit code non-zero. Works for any
 * number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

/* ---- predefined ops on int and double ---- */

#define NOPS 10
static const MPI_Op int_ops[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                     MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char *op_names[NOPS] = {"max", "min", "sum", "prod", "land",
                                     "lor", "lxor", "band", "bor", "bxor"};

static int gen_int(int op, int r, int i) {
    switch (op) {
    case 3: return 1 + ((r + i) % 5 == 0); /* prod: factors 1 and 2, at most 2^(size/5+1) */
    case 4: case 5: case 6: return (r * 3 + i) % 4 == 0 ? 0 : (r + i) % 3; /* logical */
    case 7: case 8: case 9: return (r * 37 + i * 11) & 0xff; /* bitwise */
    default: return (r * 7 + i * 5) % 23 - 11;
    }
}

static int apply_int(int op, int a, int b) {
    switch (op) {
    case 0: return a > b ? a : b;
    case 1: return a < b ? a : b;
    case 2: return a + b;
    case 3: return a * b;
    case 4: return a && b;
    case 5: return a || b;
    case 6: return !a != !b;
    case 7: return a & b;
    case 8: return a | b;
    default: return a ^ b;
    }
}

static int expect_int(int op, int i) {
    int v = gen_int(op, 0, i);
    for (int r = 1; r < size; r++) v = apply_int(op, v, gen_int(op, r, i));
    return v;
}

static double gen_double(int r, int i) { return ((r * 3 + i) % 7 - 3) * 0.5 + 0.25; }

static double apply_double(int op, double a, double b) {
    switch (op) {
    case 0: return a > b ? a : b;
    case 1: return a < b ? a : b;
    case 2: return a + b;
    default: return a * b;
    }
}

static double expect_double(int op, int i) {
    double v = gen_double(0, i);
    for (int r = 1; r < size; r++) v = apply_double(op, v, gen_double(r, i));
    return v;
}

static void predefined_ops(void) {
    const int counts[3] = {1, 7, 1000};
    int *s = malloc(1000 * sizeof(int)), *d = malloc(1000 * sizeof(int));
    for (int op = 0; op < NOPS; op++) {
        for (int c = 0; c < 3; c++) {
            int n = counts[c], root = (op + c) % size;
            for (int i = 0; i < n; i++) s[i] = gen_int(op, rank, i), d[i] = -999;
            MPI_Reduce(s, d, n, MPI_INT, int_ops[op], root, MPI_COMM_WORLD);
            int bad = 0;
            for (int i = 0; i < n; i++)
                bad += rank == root ? d[i] != expect_int(op, i) : d[i] != -999;
            CHECK(bad == 0, "reduce %s n=%d root=%d: %d wrong", op_names[op], n, root, bad);
            MPI_Allreduce(s, d, n, MPI_INT, int_ops[op], MPI_COMM_WORLD);
            bad = 0;
            for (int i = 0; i < n; i++) bad += d[i] != expect_int(op, i);
            CHECK(bad == 0, "allreduce %s n=%d: %d wrong", op_names[op], n, bad);
        }
        /* in place, at the root and everywhere */
        int n = 7, root = size - 1 - op % size;
        for (int i = 0; i < n; i++) d[i] = gen_int(op, rank, i);
        if (rank == root)
            MPI_Reduce(MPI_IN_PLACE, d, n, MPI_INT, int_ops[op], root, MPI_COMM_WORLD);
        else
            MPI_Reduce(d, NULL, n, MPI_INT, int_ops[op], root, MPI_COMM_WORLD);
        if (rank == root) {
            int bad = 0;
            for (int i = 0; i < n; i++) bad += d[i] != expect_int(op, i);
            CHECK(bad == 0, "reduce in place %s", op_names[op]);
        }
        for (int i = 0; i < n; i++) d[i] = gen_int(op, rank, i);
        MPI_Allreduce(MPI_IN_PLACE, d, n, MPI_INT, int_ops[op], MPI_COMM_WORLD);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += d[i] != expect_int(op, i);
        CHECK(bad == 0, "allreduce in place %s", op_names[op]);
    }
    free(s);
    free(d);
    section("reduce/allreduce int, 10 ops");

    double *x = malloc(600 * sizeof(double)), *y = malloc(600 * sizeof(double));
    for (int op = 0; op < 4; op++) {
        const int dcounts[2] = {3, 600};
        for (int c = 0; c < 2; c++) {
            int n = dcounts[c], root = (op * 3 + c) % size;
            for (int i = 0; i < n; i++) x[i] = gen_double(rank, i), y[i] = -1e9;
            MPI_Reduce(x, y, n, MPI_DOUBLE, int_ops[op], root, MPI_COMM_WORLD);
            int bad = 0;
            for (int i = 0; i < n; i++)
                bad += rank == root ? y[i] != expect_double(op, i) : y[i] != -1e9;
            CHECK(bad == 0, "reduce double %s n=%d", op_names[op], n);
            MPI_Allreduce(x, y, n, MPI_DOUBLE, int_ops[op], MPI_COMM_WORLD);
            bad = 0;
            for (int i = 0; i < n; i++) bad += y[i] != expect_double(op, i);
            CHECK(bad == 0, "allreduce double %s n=%d", op_names[op], n);
        }
    }
    free(x);
    free(y);
    section("reduce/allreduce double, 4 ops");
}

/* ---- MINLOC / MAXLOC ---- */

struct di { double v; int i; };
struct ii { int v; int i; };

static void minloc_maxloc(void) {
    enum { N = 5 };
    struct di a[N], b[N];
    struct ii p[N], q[N];
    for (int k = 0; k < N; k++) {
        a[k].v = (double)((rank * 5 + k) % 3) - 0.5, a[k].i = rank * 10 + k % 2;
        p[k].v = (rank * 3 + k * 7) % 4, p[k].i = size - rank;
    }
    for (int w = 0; w < 2; w++) {
        MPI_Op op = w ? MPI_MAXLOC : MPI_MINLOC;
        MPI_Allreduce(a, b, N, MPI_DOUBLE_INT, op, MPI_COMM_WORLD);
        MPI_Reduce(p, q, N, MPI_2INT, op, size - 1, MPI_COMM_WORLD);
        for (int k = 0; k < N; k++) {
            struct di e = {(double)((0 * 5 + k) % 3) - 0.5, k % 2};
            struct ii f = {(k * 7) % 4, size};
            for (int r = 1; r < size; r++) {
                double v = (double)((r * 5 + k) % 3) - 0.5;
                int i = r * 10 + k % 2;
                int better = w ? v > e.v : v < e.v;
                if (better || (v == e.v && i < e.i)) e.v = v, e.i = i;
                int pv = (r * 3 + k * 7) % 4, pi = size - r;
                better = w ? pv > f.v : pv < f.v;
                if (better || (pv == f.v && pi < f.i)) f.v = pv, f.i = pi;
            }
            CHECK(b[k].v == e.v && b[k].i == e.i, "%s double_int k=%d got (%g,%d) want (%g,%d)",
                  w ? "maxloc" : "minloc", k, b[k].v, b[k].i, e.v, e.i);
            if (rank == size - 1)
                CHECK(q[k].v == f.v && q[k].i == f.i, "%s 2int k=%d", w ? "maxloc" : "minloc", k);
        }
    }
    section("minloc/maxloc");
}

/* ---- user ops ---- */

typedef struct { long long a, b, c, d; } mat;
static MPI_Datatype mat_type;
static int dtype_mismatch;

/* Matrices are multiplied modulo a prime, so products of any number of
 * ranks' matrices stay small. */
#define MOD 1000003LL

/* inout = in x inout: associative, not commutative. */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    if (*dt != mat_type) dtype_mismatch++;
    mat *x = in, *y = inout;
    for (int k = 0; k < *len; k++) {
        mat p = x[k], q = y[k];
        y[k].a = (p.a * q.a + p.b * q.c) % MOD;
        y[k].b = (p.a * q.b + p.b * q.d) % MOD;
        y[k].c = (p.c * q.a + p.d * q.c) % MOD;
        y[k].d = (p.c * q.b + p.d * q.d) % MOD;
    }
}

static mat gen_mat(int r, int k) {
    mat m = {1, r + 1 + k, (r + k) % 2 + 1, 1};
    return m;
}

static mat identity(void) {
    mat m = {1, 0, 0, 1};
    return m;
}

/* Product of the matrices of ranks lo..hi-1, in rank order. */
static mat product(int lo, int hi, int k) {
    mat acc = identity();
    for (int r = hi - 1; r >= lo; r--) {
        mat m = gen_mat(r, k);
        int one = 1;
        MPI_Datatype t = mat_type;
        mat_mul(&m, &acc, &one, &t);
    }
    return acc;
}

static int mat_eq(mat x, mat y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

/* Sums ints at offsets 0 and 2 of each 3-int instance (a vector type). */
static MPI_Datatype vec_type;
static void vec_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    if (*dt != vec_type) dtype_mismatch++;
    int *x = in, *y = inout;
    for (int k = 0; k < *len; k++) y[3 * k] += x[3 * k], y[3 * k + 2] += x[3 * k + 2];
}

/* A type whose data starts 8 bytes after the buffer address. */
static MPI_Datatype shift_type;
static void shift_max(void *in, void *inout, int *len, MPI_Datatype *dt) {
    if (*dt != shift_type) dtype_mismatch++;
    int *x = (int *)((char *)in + 8), *y = (int *)((char *)inout + 8);
    for (int k = 0; k < *len; k++) y[k] = x[k] > y[k] ? x[k] : y[k];
}

static void user_ops(void) {
    MPI_Op mul, vsum, smax;
    int commute;
    MPI_Type_contiguous(4, MPI_LONG_LONG, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(mat_mul, 0, &mul);
    MPI_Op_commutative(mul, &commute);
    CHECK(commute == 0, "matrix op is not commutative");
    MPI_Op_commutative(MPI_SUM, &commute);
    CHECK(commute == 1, "MPI_SUM is commutative");
    enum { K = 3 };
    mat in[K], out[K];
    for (int k = 0; k < K; k++) in[k] = gen_mat(rank, k);
    for (int root = 0; root < size; root++) {
        memset(out, 0, sizeof out);
        MPI_Reduce(in, out, K, mat_type, mul, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int k = 0; k < K; k++)
                CHECK(mat_eq(out[k], product(0, size, k)), "noncommutative reduce root=%d k=%d", root, k);
    }
    MPI_Allreduce(in, out, K, mat_type, mul, MPI_COMM_WORLD);
    for (int k = 0; k < K; k++) CHECK(mat_eq(out[k], product(0, size, k)), "noncommutative allreduce k=%d", k);
    MPI_Scan(in, out, K, mat_type, mul, MPI_COMM_WORLD);
    for (int k = 0; k < K; k++) CHECK(mat_eq(out[k], product(0, rank + 1, k)), "noncommutative scan k=%d", k);
    memcpy(out, in, sizeof out);
    MPI_Scan(MPI_IN_PLACE, out, K, mat_type, mul, MPI_COMM_WORLD);
    for (int k = 0; k < K; k++) CHECK(mat_eq(out[k], product(0, rank + 1, k)), "scan in place k=%d", k);
    MPI_Exscan(in, out, K, mat_type, mul, MPI_COMM_WORLD);
    if (rank > 0)
        for (int k = 0; k < K; k++) CHECK(mat_eq(out[k], product(0, rank, k)), "noncommutative exscan k=%d", k);
    /* reduce_scatter_block with the matrix op: block i of rank r is gen_mat(r, i) */
    mat *blocks = malloc(size * sizeof(mat)), mine;
    for (int i = 0; i < size; i++) blocks[i] = gen_mat(rank, i);
    MPI_Reduce_scatter_block(blocks, &mine, 1, mat_type, mul, MPI_COMM_WORLD);
    CHECK(mat_eq(mine, product(0, size, rank)), "noncommutative reduce_scatter_block");
    free(blocks);
    /* reduce_local: in x inout */
    mat l = gen_mat(1, 0), m = gen_mat(2, 0);
    MPI_Reduce_local(&l, &m, 1, mat_type, mul);
    CHECK(mat_eq(m, product(1, 3, 0)), "reduce_local with user op");
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
    CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33, "reduce_local sum");

    /* a user op on a vector type: the holes stay untouched */
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec_type);
    MPI_Type_commit(&vec_type);
    MPI_Op_create(vec_sum, 1, &vsum);
    int vs[9], vr[9];
    for (int i = 0; i < 9; i++) vs[i] = rank * 100 + i, vr[i] = -7;
    MPI_Allreduce(vs, vr, 3, vec_type, vsum, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < 9; i++) {
        int want = i % 3 == 1 ? -7 : 100 * size * (size - 1) / 2 + size * i;
        bad += vr[i] != want;
    }
    CHECK(bad == 0, "user op on vector type: %d wrong", bad);

    /* a user op on a type with lower bound 8 */
    int bl = 1;
    MPI_Aint disp = 8;
    MPI_Type_create_hindexed_block(1, bl, &disp, MPI_INT, &shift_type);
    MPI_Type_commit(&shift_type);
    MPI_Op_create(shift_max, 1, &smax);
    int ss[6], sr[6];
    for (int i = 0; i < 6; i++) ss[i] = (rank * 13 + i * 7) % 10, sr[i] = -1;
    MPI_Reduce(ss, sr, 3, shift_type, smax, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        bad = sr[0] != -1 || sr[1] != -1 || sr[5] != -1;
        for (int i = 2; i < 5; i++) {
            int want = 0;
            for (int r = 0; r < size; r++) want = (r * 13 + i * 7) % 10 > want ? (r * 13 + i * 7) % 10 : want;
            bad += sr[i] != want;
        }
        CHECK(bad == 0, "user op on shifted type");
    }
    CHECK(dtype_mismatch == 0, "user functions got the right datatype handle");
    MPI_Op_free(&mul);
    MPI_Op_free(&vsum);
    MPI_Op_free(&smax);
    MPI_Type_free(&mat_type);
    CHECK(mul == MPI_OP_NULL, "Op_free sets MPI_OP_NULL");
    MPI_Type_free(&vec_type);
    MPI_Type_free(&shift_type);
    section("user ops");
}

/* ---- barrier, bcast ---- */

static void bcast(void) {
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    CHECK(1, "barrier");
    const int counts[4] = {1, 100, 5000, 200000};
    int *buf = malloc(200000 * sizeof(int));
    for (int c = 0; c < 4; c++) {
        for (int root = 0; root < size; root++) {
            if (c == 3 && root > 1) break;
            int n = counts[c];
            for (int i = 0; i < n; i++) buf[i] = rank == root ? root * 1000003 + i : -1;
            MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD);
            int bad = 0;
            for (int i = 0; i < n; i++) bad += buf[i] != root * 1000003 + i;
            CHECK(bad == 0, "bcast n=%d root=%d: %d wrong", n, root, bad);
        }
    }
    /* a vector type: every other int */
    MPI_Datatype every_other;
    MPI_Type_vector(50, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < 100; i++) buf[i] = rank == 1 % size ? i : -1;
    MPI_Bcast(buf, 1, every_other, 1 % size, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < 100; i++) bad += buf[i] != (i % 2 == 0 || rank == 1 % size ? i : -1);
    CHECK(bad == 0, "bcast of a vector type");
    MPI_Type_free(&every_other);
    free(buf);
    section("barrier/bcast");
}

/* ---- gather, scatter and their v variants ---- */

static void gather_scatter(void) {
    enum { K = 3 };
    int send[K], *all = malloc(size * K * sizeof(int));
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < K; i++) send[i] = rank * 100 + i;
        for (int i = 0; i < size * K; i++) all[i] = -1;
        MPI_Gather(send, K, MPI_INT, all, K, MPI_INT, root, MPI_COMM_WORLD);
        int bad = 0;
        for (int i = 0; i < size * K; i++) bad += rank == root ? all[i] != (i / K) * 100 + i % K : all[i] != -1;
        CHECK(bad == 0, "gather root=%d", root);
        /* in place at the root */
        for (int i = 0; i < size * K; i++) all[i] = i / K == rank ? rank * 100 + i % K : -1;
        if (rank == root)
            MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, K, MPI_INT, root, MPI_COMM_WORLD);
        else
            MPI_Gather(send, K, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        if (rank == root) {
            bad = 0;
            for (int i = 0; i < size * K; i++) bad += all[i] != (i / K) * 100 + i % K;
            CHECK(bad == 0, "gather in place root=%d", root);
        }
        /* scatter back, received as one contiguous triple */
        MPI_Datatype triple;
        MPI_Type_contiguous(K, MPI_INT, &triple);
        MPI_Type_commit(&triple);
        for (int i = 0; i < size * K; i++) all[i] = rank == root ? i * 3 : -1;
        int got[K] = {-1, -1, -1};
        MPI_Scatter(all, K, MPI_INT, got, 1, triple, root, MPI_COMM_WORLD);
        CHECK(got[0] == rank * K * 3 && got[2] == (rank * K + 2) * 3, "scatter root=%d", root);
        if (rank == root)
            MPI_Scatter(all, K, MPI_INT, MPI_IN_PLACE, K, MPI_INT, root, MPI_COMM_WORLD);
        else
            MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, got, K, MPI_INT, root, MPI_COMM_WORLD);
        CHECK(got[1] == (rank * K + 1) * 3, "scatter in place root=%d", root);
        MPI_Type_free(&triple);
    }
    free(all);

    /* v variants: rank r has r+1 ints; the root leaves a gap of one int
     * between blocks and orders blocks in reverse. */
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int)), total = 0;
    for (int r = size - 1; r >= 0; r--) counts[r] = r + 1, displs[r] = total, total += r + 2;
    int *buf = malloc(total * sizeof(int)), *mine = malloc(size * sizeof(int));
    int *got = malloc((size + 1) * sizeof(int));
    for (int i = 0; i <= rank; i++) mine[i] = rank * 10 + i;
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < total; i++) buf[i] = -1;
        MPI_Gatherv(mine, rank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
        if (rank == root) {
            int bad = 0;
            for (int r = 0; r < size; r++) {
                for (int i = 0; i <= r; i++) bad += buf[displs[r] + i] != r * 10 + i;
                bad += buf[displs[r] + r + 1] != -1;
            }
            CHECK(bad == 0, "gatherv root=%d", root);
            for (int i = 0; i < total; i++) buf[i] = -1;
            for (int i = 0; i <= root; i++) buf[displs[root] + i] = root * 10 + i;
            MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
            bad = 0;
            for (int r = 0; r < size; r++)
                for (int i = 0; i <= r; i++) bad += buf[displs[r] + i] != r * 10 + i;
            CHECK(bad == 0, "gatherv in place root=%d", root);
            for (int i = 0; i < total; i++) buf[i] = 1000 + i;
        } else {
            MPI_Gatherv(mine, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD);
        }
        for (int i = 0; i <= size; i++) got[i] = -1;
        MPI_Scatterv(buf, counts, displs, MPI_INT, got, rank + 1, MPI_INT, root, MPI_COMM_WORLD);
        int bad = got[rank + 1] != -1;
        for (int i = 0; i <= rank; i++) bad += got[i] != 1000 + displs[rank] + i;
        CHECK(bad == 0, "scatterv root=%d", root);
        if (rank == root)
            MPI_Scatterv(buf, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, MPI_COMM_WORLD);
        else
            MPI_Scatterv(NULL, NULL, NULL, MPI_INT, got, rank + 1, MPI_INT, root, MPI_COMM_WORLD);
        CHECK(got[rank] == 1000 + displs[rank] + rank, "scatterv in place root=%d", root);
    }
    free(buf);
    free(mine);
    free(got);
    free(counts);
    free(displs);
    section("gather/scatter(v)");
}

/* ---- allgather(v), alltoall(v) ---- */

static void allgather_alltoall(void) {
    const int counts[3] = {1, 5, 40000};
    int *s = malloc(40000 * sizeof(int)), *all = malloc(40000 * size * sizeof(int));
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        for (int i = 0; i < n; i++) s[i] = rank * 100000 + i;
        for (int i = 0; i < n * size; i++) all[i] = -1;
        MPI_Allgather(s, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
        int bad = 0;
        for (int i = 0; i < n * size; i++) bad += all[i] != (i / n) * 100000 + i % n;
        CHECK(bad == 0, "allgather n=%d", n);
        for (int i = 0; i < n * size; i++) all[i] = i / n == rank ? rank * 100000 + i % n : -1;
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT, MPI_COMM_WORLD);
        bad = 0;
        for (int i = 0; i < n * size; i++) bad += all[i] != (i / n) * 100000 + i % n;
        CHECK(bad == 0, "allgather in place n=%d", n);
    }
    /* allgatherv: rank r has r+1 ints, gaps of 2 */
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int)), total = 0;
    for (int r = 0; r < size; r++) rc[r] = r + 1, rd[r] = total, total += r + 3;
    for (int i = 0; i <= rank; i++) s[i] = rank * 10 + i;
    for (int i = 0; i < total; i++) all[i] = -1;
    MPI_Allgatherv(s, rank + 1, MPI_INT, all, rc, rd, MPI_INT, MPI_COMM_WORLD);
    int bad = 0;
    for (int r = 0; r < size; r++) {
        for (int i = 0; i <= r; i++) bad += all[rd[r] + i] != r * 10 + i;
        bad += all[rd[r] + r + 1] != -1 || all[rd[r] + r + 2] != -1;
    }
    CHECK(bad == 0, "allgatherv");
    for (int i = 0; i < total; i++) all[i] = -1;
    for (int i = 0; i <= rank; i++) all[rd[rank] + i] = rank * 10 + i;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, all, rc, rd, MPI_INT, MPI_COMM_WORLD);
    bad = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i <= r; i++) bad += all[rd[r] + i] != r * 10 + i;
    CHECK(bad == 0, "allgatherv in place");
    section("allgather(v)");

    /* alltoall: block j of rank r holds r*1000+j*10+i */
    const int acounts[3] = {1, 3, 10000};
    int *a = malloc(10000 * size * sizeof(int)), *b = malloc(10000 * size * sizeof(int));
    for (int c = 0; c < 3; c++) {
        int n = acounts[c];
        for (int i = 0; i < n * size; i++) a[i] = rank * 1000000 + (i / n) * 100000 + i % n, b[i] = -1;
        MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
        bad = 0;
        for (int i = 0; i < n * size; i++) bad += b[i] != (i / n) * 1000000 + rank * 100000 + i % n;
        CHECK(bad == 0, "alltoall n=%d", n);
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, MPI_COMM_WORLD);
        bad = 0;
        for (int i = 0; i < n * size; i++) bad += a[i] != (i / n) * 1000000 + rank * 100000 + i % n;
        CHECK(bad == 0, "alltoall in place n=%d", n);
    }
    /* alltoallv: rank s sends (s+2d)%3+1 ints to d; receive blocks with gaps */
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rcv = malloc(size * sizeof(int)), *rdv = malloc(size * sizeof(int)), st = 0, rt = 0;
    for (int d = 0; d < size; d++) {
        sc[d] = (rank + 2 * d) % 3 + 1, sd[d] = st, st += sc[d];
        rcv[d] = (d + 2 * rank) % 3 + 1, rdv[d] = rt, rt += rcv[d] + 1;
    }
    for (int d = 0; d < size; d++)
        for (int i = 0; i < sc[d]; i++) a[sd[d] + i] = rank * 100 + d * 10 + i;
    for (int i = 0; i < rt; i++) b[i] = -1;
    MPI_Alltoallv(a, sc, sd, MPI_INT, b, rcv, rdv, MPI_INT, MPI_COMM_WORLD);
    bad = 0;
    for (int s2 = 0; s2 < size; s2++) {
        for (int i = 0; i < rcv[s2]; i++) bad += b[rdv[s2] + i] != s2 * 100 + rank * 10 + i;
        bad += b[rdv[s2] + rcv[s2]] != -1;
    }
    CHECK(bad == 0, "alltoallv");
    /* in place needs symmetric counts: (s+d)%3+1 */
    rt = 0;
    for (int d = 0; d < size; d++) rcv[d] = (rank + d) % 3 + 1, rdv[d] = rt, rt += rcv[d] + 1;
    for (int d = 0; d < size; d++)
        for (int i = 0; i < rcv[d]; i++) b[rdv[d] + i] = rank * 100 + d * 10 + i;
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rcv, rdv, MPI_INT, MPI_COMM_WORLD);
    bad = 0;
    for (int s2 = 0; s2 < size; s2++)
        for (int i = 0; i < rcv[s2]; i++) bad += b[rdv[s2] + i] != s2 * 100 + rank * 10 + i;
    CHECK(bad == 0, "alltoallv in place");
    free(sc), free(sd), free(rcv), free(rdv), free(rc), free(rd);
    free(a), free(b), free(s), free(all);
    section("alltoall(v)");
}

/* ---- reduce_scatter(_block), scan, exscan with MPI_SUM ---- */

static void scans(void) {
    int *s = malloc(3 * size * sizeof(int)), *r = malloc(3 * size * sizeof(int));
    int *counts = malloc(size * sizeof(int)), total = 0;
    for (int i = 0; i < size; i++) counts[i] = i % 3, total += counts[i];
    for (int i = 0; i < total; i++) s[i] = rank + i;
    int start = 0;
    for (int i = 0; i < rank; i++) start += counts[i];
    for (int i = 0; i < 3; i++) r[i] = -1;
    MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int bad = r[counts[rank]] != -1;
    for (int i = 0; i < counts[rank]; i++) bad += r[i] != size * (size - 1) / 2 + size * (start + i);
    CHECK(bad == 0, "reduce_scatter (with zero counts)");
    for (int i = 0; i < total; i++) r[i] = rank + i;
    MPI_Reduce_scatter(MPI_IN_PLACE, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad = 0;
    for (int i = 0; i < counts[rank]; i++) bad += r[i] != size * (size - 1) / 2 + size * (start + i);
    CHECK(bad == 0, "reduce_scatter in place");
    for (int i = 0; i < 2 * size; i++) s[i] = rank * i;
    MPI_Reduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(r[0] == size * (size - 1) / 2 * (2 * rank) && r[1] == size * (size - 1) / 2 * (2 * rank + 1),
          "reduce_scatter_block");
    for (int i = 0; i < 2 * size; i++) r[i] = rank * i;
    MPI_Reduce_scatter_block(MPI_IN_PLACE, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(r[0] == size * (size - 1) / 2 * (2 * rank), "reduce_scatter_block in place");

    int v[2] = {rank + 1, 2 * rank}, w[2] = {-1, -1};
    MPI_Scan(v, w, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(w[0] == (rank + 1) * (rank + 2) / 2 && w[1] == rank * (rank + 1), "scan sum");
    MPI_Scan(v, w, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(w[0] == rank + 1 && w[1] == 2 * rank, "scan max");
    w[0] = -1, w[1] = -1;
    MPI_Exscan(v, w, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) CHECK(w[0] == rank * (rank + 1) / 2 && w[1] == rank * (rank - 1), "exscan sum");
    w[0] = rank + 1, w[1] = 2 * rank;
    MPI_Exscan(MPI_IN_PLACE, w, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) CHECK(w[0] == rank * (rank + 1) / 2, "exscan in place");
    double dv = rank + 0.5, dw;
    MPI_Scan(&dv, &dw, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
    double want = 1;
    for (int i = 0; i <= rank; i++) want *= i + 0.5;
    CHECK(dw == want, "scan prod double");
    free(s), free(r), free(counts);
    section("reduce_scatter/scan/exscan");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bcast();
    predefined_ops();
    minloc_maxloc();
    user_ops();
    gather_scatter();
    allgather_alltoall();
    scans();
    int code = finish_checks("collectives");
    MPI_Finalize();
    return code;
}
