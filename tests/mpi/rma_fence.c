/* Active-target one-sided communication: windows (MPI_Win_create,
 * MPI_Win_allocate, their attributes, name and group), MPI_Put, MPI_Get,
 * MPI_Accumulate with every predefined op on ints and pairs (and on
 * doubles), MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap,
 * derived datatypes on origin and target, a put of several pieces, all
 * between MPI_Win_fence calls; then post/start/complete/wait around a
 * ring. Every rank targets every rank (itself included). Works for 1..8
 * ranks; every rank makes the same number of checks. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

#define NOPS 11
#define BIG 400000 /* ints: 1.6 MB, more than one 1 MiB piece */

static void window_state(void) {
    int *buf = malloc(4 * sizeof(int));
    MPI_Win win;
    MPI_Win_create(buf, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    void *base;
    MPI_Aint *wsize;
    int *unit, *flavor, *model, flag;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == buf, "WIN_BASE");
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
    CHECK(flag && *wsize == (MPI_Aint)(4 * sizeof(int)), "WIN_SIZE %ld", (long)*wsize);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
    CHECK(flag && *unit == (int)sizeof(int), "WIN_DISP_UNIT");
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "WIN_CREATE_FLAVOR");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "WIN_MODEL");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_set_name(win, "halo window");
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 11 && strcmp(name, "halo window") == 0, "name '%s'", name);
    MPI_Group wg, cg;
    int cmp;
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(MPI_COMM_WORLD, &cg);
    MPI_Group_compare(wg, cg, &cmp);
    CHECK(cmp == MPI_IDENT, "window group %d", cmp);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(win, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default window error handler");
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_get_errhandler(win, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "window error handler set");
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "freed window is MPI_WIN_NULL");
    free(buf);

    double *mem;
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == mem, "allocated WIN_BASE");
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "allocated WIN_CREATE_FLAVOR");
    for (int i = 0; i < 3; i++) mem[i] = -1;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    double v = rank + 0.5;
    MPI_Put(&v, 1, MPI_DOUBLE, (rank + 1) % size, 1, 1, MPI_DOUBLE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    int prev = (rank + size - 1) % size;
    CHECK(mem[0] == -1 && mem[1] == prev + 0.5 && mem[2] == -1, "allocated window %g %g %g", mem[0], mem[1], mem[2]);
    MPI_Win_free(&win);
}

static void put_get(void) {
    int *buf = malloc(sizeof(int) * size), *got = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) buf[i] = -1;
    MPI_Win win;
    MPI_Win_create(buf, sizeof(int) * size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++) {
        int v = 100 * rank + t;
        MPI_Put(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    for (int o = 0; o < size; o++) CHECK(buf[o] == 100 * o + rank, "put from %d: %d", o, buf[o]);
    int next = (rank + 1) % size;
    MPI_Get(got, size, MPI_INT, next, 0, size, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int o = 0; o < size; o++) CHECK(got[o] == 100 * o + next, "get [%d]: %d", o, got[o]);
    /* MPI_PROC_NULL targets are no-ops. */
    MPI_Put(got, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(buf);
    free(got);
}

static const MPI_Op ops[NOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR,
                                 MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE};
static const int initial[NOPS] = {0, 1, INT_MIN, INT_MAX, -1, 0, 0, 1, 0, 0, -1};

/* What origin `o` contributes with op k. */
static int value(int k, int o) {
    switch (k) {
    case 0: case 2: case 3: return o + 1;
    case 1: return o % 3 == 0 ? 2 : 1;
    case 4: return ~(1 << o);
    case 5: case 6: return 1 << o;
    case 7: return 1;
    case 8: return o == size - 1;
    case 9: return 1;
    default: return o;
    }
}

static int expected(int k) {
    int r = initial[k];
    for (int o = 0; o < size; o++) {
        int v = value(k, o);
        switch (k) {
        case 0: r += v; break;
        case 1: r *= v; break;
        case 2: r = v > r ? v : r; break;
        case 3: r = v < r ? v : r; break;
        case 4: r &= v; break;
        case 5: r |= v; break;
        case 6: r ^= v; break;
        case 7: r = r && v; break;
        case 8: r = r || v; break;
        case 9: r = !r != !v; break;
        }
    }
    return r;
}

typedef struct { int v, i; } pair;

static void accumulates(void) {
    /* Window memory on the heap (Debian's MPICH over UCX mishandles
     * windows on the stack). */
    pair *pairs = malloc(2 * sizeof(pair));
    int *buf = malloc(NOPS * sizeof(int));
    double *dsum = malloc(sizeof(double));
    *dsum = 0;
    MPI_Win win, pwin, dwin;
    memcpy(buf, initial, NOPS * sizeof(int));
    pairs[0].v = INT_MIN, pairs[0].i = -1; /* MAXLOC */
    pairs[1].v = INT_MAX, pairs[1].i = -1; /* MINLOC */
    MPI_Win_create(buf, NOPS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create(pairs, 2 * sizeof(pair), sizeof(pair), MPI_INFO_NULL, MPI_COMM_WORLD, &pwin);
    MPI_Win_create(dsum, sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &dwin);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, pwin);
    MPI_Win_fence(0, dwin);
    /* One origin per epoch: Debian's MPICH over UCX loses concurrent
     * accumulates from different origins on 8 ranks (the unit tests of
     * the engine check concurrent ones). */
    for (int turn = 0; turn < size; turn++) {
    for (int t = 0; t < size && turn == rank; t++) {
        for (int k = 0; k < NOPS; k++) {
            int v = value(k, rank);
            MPI_Accumulate(&v, 1, MPI_INT, t, k, 1, MPI_INT, ops[k], win);
        }
        pair mine = {(rank * 5) % size, rank};
        MPI_Accumulate(&mine, 1, MPI_2INT, t, 0, 1, MPI_2INT, MPI_MAXLOC, pwin);
        MPI_Accumulate(&mine, 1, MPI_2INT, t, 1, 1, MPI_2INT, MPI_MINLOC, pwin);
        double d = 0.25 * (rank + 1);
        MPI_Accumulate(&d, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_SUM, dwin);
    }
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, pwin);
    MPI_Win_fence(0, dwin);
    }
    for (int k = 0; k < NOPS - 1; k++) CHECK(buf[k] == expected(k), "op %d: %d, want %d", k, buf[k], expected(k));
    CHECK(buf[NOPS - 1] >= 0 && buf[NOPS - 1] < size, "replace left %d", buf[NOPS - 1]);
    /* (5 o) mod size: the largest value's lowest index, the smallest's. */
    int maxv = -1, maxi = -1;
    for (int o = 0; o < size; o++)
        if ((o * 5) % size > maxv) maxv = (o * 5) % size, maxi = o;
    CHECK(pairs[0].v == maxv && pairs[0].i == maxi, "maxloc (%d,%d)", pairs[0].v, pairs[0].i);
    CHECK(pairs[1].v == 0 && pairs[1].i == 0, "minloc (%d,%d)", pairs[1].v, pairs[1].i);
    CHECK(*dsum == 0.125 * size * (size + 1), "double sum %g", *dsum);
    MPI_Win_free(&win);
    MPI_Win_free(&pwin);
    MPI_Win_free(&dwin);
    free(pairs);
    free(buf);
    free(dsum);
}

static void fetching(void) {
    int *cell = malloc(3 * sizeof(int)); /* counter, CAS cell, get-accumulate cell */
    cell[0] = 0, cell[1] = -1, cell[2] = 7;
    MPI_Win win;
    MPI_Win_create(cell, 3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    int one = 1, fetched = -5, old = -5, me = rank, none = -1, before[2] = {0, 0}, add[2] = {rank, 1};
    MPI_Fetch_and_op(&one, &fetched, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Compare_and_swap(&me, &none, &old, MPI_INT, 0, 1, win);
    MPI_Win_fence(0, win);
    /* Every value 0 .. size-1 was fetched once. */
    int *all = malloc(sizeof(int) * 2 * size), mine[2] = {fetched, old};
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    int seen = 0, winners = 0, winner;
    MPI_Bcast(cell + 1, 1, MPI_INT, 0, MPI_COMM_WORLD);
    winner = cell[1];
    for (int o = 0; o < size; o++) {
        seen |= 1 << all[2 * o];
        winners += all[2 * o + 1] == -1;
        CHECK(all[2 * o + 1] == (o == winner ? -1 : winner), "CAS of %d saw %d", o, all[2 * o + 1]);
    }
    CHECK(seen == (1 << size) - 1, "fetched values %#x", seen);
    CHECK(winners == 1, "%d CAS winners", winners);
    /* Get_accumulate SUM on each rank's last cell, then NO_OP reads. */
    MPI_Get_accumulate(&add[1], 1, MPI_INT, &before[0], 1, MPI_INT, (rank + 1) % size, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(before[0] == 7, "get_accumulate old %d", before[0]);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &before[1], 1, MPI_INT, rank, 2, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Fetch_and_op(NULL, &fetched, MPI_INT, 0, 0, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    CHECK(before[1] == 8, "no-op read %d", before[1]);
    CHECK(fetched == size, "counter %d", fetched);
    (void)add[0];
    free(all);
    MPI_Win_free(&win);
    free(cell);
}

static void derived(void) {
    /* Target: every other int of 2 * size; origin: contiguous. */
    int *buf = malloc(sizeof(int) * 2 * (size + 1)), *big;
    for (int i = 0; i < 2 * (size + 1); i++) buf[i] = -1;
    MPI_Datatype every_other, pair_idx;
    MPI_Type_vector(size, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int lens[2] = {1, 1}, displs[2] = {3, 0};
    MPI_Type_indexed(2, lens, displs, MPI_INT, &pair_idx);
    MPI_Type_commit(&pair_idx);
    MPI_Win win;
    MPI_Win_create(buf, sizeof(int) * 2 * (size + 1), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    int next = (rank + 1) % size, *vals = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) vals[i] = 1000 * rank + i;
    MPI_Put(vals, size, MPI_INT, next, 1, 1, every_other, win);
    MPI_Win_fence(0, win);
    int prev = (rank + size - 1) % size;
    for (int i = 0; i < size; i++) {
        CHECK(buf[2 * i] == -1, "gap %d: %d", i, buf[2 * i]);
        CHECK(buf[2 * i + 1] == 1000 * prev + i, "slot %d: %d", i, buf[2 * i + 1]);
    }
    /* Origin indexed (elements 3 and 0 of `got`) from the next rank's
     * ints 1 and 2 (its first slot and a gap). */
    int got[4] = {-9, -9, -9, -9};
    MPI_Get(got, 1, pair_idx, next, 1, 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(got[3] == 1000 * rank && got[0] == -1 && got[1] == -9 && got[2] == -9, "indexed get %d %d %d %d", got[0], got[1], got[2], got[3]);
    /* Accumulate through the vector type. */
    MPI_Accumulate(vals, size, MPI_INT, next, 1, 1, every_other, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < size; i++) CHECK(buf[2 * i + 1] == 2000 * prev + 2 * i, "summed slot %d: %d", i, buf[2 * i + 1]);
    MPI_Win_free(&win);
    /* A put of several pieces into an allocated window. */
    MPI_Win_allocate(sizeof(int) * BIG, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &big, &win);
    int *src = malloc(sizeof(int) * BIG);
    for (int i = 0; i < BIG; i++) src[i] = rank * 7 + i, big[i] = 0;
    MPI_Win_fence(0, win);
    MPI_Put(src, BIG, MPI_INT, next, 0, BIG, MPI_INT, win);
    MPI_Win_fence(0, win);
    int bad = 0;
    for (int i = 0; i < BIG; i++) bad += big[i] != prev * 7 + i;
    CHECK(bad == 0, "%d wrong ints in the big put", bad);
    MPI_Get(src, BIG, MPI_INT, next, 0, BIG, MPI_INT, win);
    MPI_Win_fence(0, win);
    bad = 0;
    for (int i = 0; i < BIG; i++) bad += src[i] != rank * 7 + i;
    CHECK(bad == 0, "%d wrong ints in the big get", bad);
    MPI_Win_free(&win);
    MPI_Type_free(&every_other);
    MPI_Type_free(&pair_idx);
    free(vals);
    free(src);
    free(buf);
}

static void pscw(void) {
    int *cell = malloc(2 * sizeof(int));
    cell[0] = cell[1] = -1;
    MPI_Win win;
    MPI_Win_create(cell, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world, to, from;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Group_incl(world, 1, &next, &to);
    MPI_Group_incl(world, 1, &prev, &from);
    for (int round = 0; round < 3; round++) {
        MPI_Win_post(from, 0, win);
        MPI_Win_start(to, 0, win);
        int v = 10 * rank + round;
        MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win);
        MPI_Accumulate(&v, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_MAX, win);
        MPI_Win_complete(win);
        if (round == 2) {
            int flag = 0;
            while (!flag) MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        CHECK(cell[0] == 10 * prev + round && cell[1] == 10 * prev + round, "round %d: %d %d", round, cell[0], cell[1]);
    }
    MPI_Group_free(&world);
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Win_free(&win);
    free(cell);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    window_state();
    section("windows");
    put_get();
    section("put and get");
    accumulates();
    section("accumulate");
    fetching();
    section("fetch, compare and swap");
    derived();
    section("derived datatypes and pieces");
    pscw();
    section("post/start/complete/wait");
    int code = finish_checks("rma_fence");
    MPI_Finalize();
    return code;
}
