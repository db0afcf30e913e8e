/* Intercommunicators: MPI_COMM_WORLD split into a low half and a high half
 * joined by MPI_Intercomm_create; the queries (test_inter, remote size and
 * group, compare), point-to-point between the groups, every collective
 * with its intercommunicator semantics (MPI_ROOT / MPI_PROC_NULL roots,
 * results from the other group), blocking and nonblocking, then
 * MPI_Intercomm_merge in both orders and MPI_Comm_dup (attributes and
 * name), MPI_Comm_split and MPI_Comm_create of the intercommunicator.
 * Every rank makes the same number of checks (47); rank 0 prints one line
 * per section and the total; failures go to stderr and make the exit code
 * non-zero. Needs at least 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

static int low, lrank, lsize, rsize, split_at;
static MPI_Comm local, ic;

/* World rank of rank r of the other group. */
static int remote_world(int r) { return low ? split_at + r : r; }

/* Sum over the other group of f(world rank). */
static int remote_sum(int (*f)(int)) {
    int s = 0;
    for (int r = 0; r < rsize; r++) s += f(remote_world(r));
    return s;
}

static int ident(int w) { return w; }
static int sq(int w) { return w * w; }

static void queries_and_p2p(void) {
    int flag, n;
    MPI_Comm_test_inter(ic, &flag);
    CHECK(flag, "test_inter");
    MPI_Comm_test_inter(local, &flag);
    CHECK(!flag, "local comm is intra");
    MPI_Comm_remote_size(ic, &n);
    CHECK(n == rsize, "remote size %d", n);
    MPI_Comm_size(ic, &n);
    CHECK(n == lsize, "local size %d", n);
    MPI_Comm_rank(ic, &n);
    CHECK(n == lrank, "rank in intercomm");
    MPI_Group rg, wg;
    MPI_Comm_remote_group(ic, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *rr = malloc(rsize * sizeof(int)), *wr = malloc(rsize * sizeof(int)), bad = 0;
    for (int r = 0; r < rsize; r++) rr[r] = r;
    MPI_Group_translate_ranks(rg, rsize, rr, wg, wr);
    for (int r = 0; r < rsize; r++) bad += wr[r] != remote_world(r);
    CHECK(bad == 0, "remote group");
    free(rr), free(wr);
    MPI_Group_free(&rg), MPI_Group_free(&wg);
    MPI_Comm_compare(ic, ic, &n);
    CHECK(n == MPI_IDENT, "compare with itself");
    /* Each rank sends its world rank to remote rank lrank % rsize and
     * receives from every remote rank that sends to it. */
    int to = lrank % rsize, expect = 0;
    for (int r = 0; r < rsize; r++) expect += r % lsize == lrank;
    MPI_Request s;
    MPI_Isend(&rank, 1, MPI_INT, to, 5, ic, &s);
    int got = 0;
    for (int k = 0; k < expect; k++) {
        int v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st);
        got += v == remote_world(st.MPI_SOURCE);
    }
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    CHECK(got == expect, "point-to-point across the groups (%d of %d)", got, expect);
    section("queries and point-to-point");
}

/* The root argument of a call rooted at rank 0 of the low group. */
static int low_root(void) { return low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0; }

static void collectives(int nonblocking) {
    MPI_Request rq[16];
    int nr = 0;
#define CALL(blocking, nb, ...) \
    do { if (nonblocking) nb(__VA_ARGS__, &rq[nr++]); else blocking(__VA_ARGS__); } while (0)
    int root = low_root();
    int bc[3] = {-1, -1, -1}, red[2] = {-1, -1}, ar[2], mine[2] = {rank, rank * rank};
    if (root == MPI_ROOT) bc[0] = 7, bc[1] = 8, bc[2] = 9;
    int *gat = malloc(rsize * sizeof(int)), *ag = malloc(rsize * sizeof(int));
    int *sc = malloc(lsize * sizeof(int)), scin = -1, *a2a_s = malloc(rsize * sizeof(int));
    int *a2a_r = malloc(rsize * sizeof(int)), *cnt = malloc(rsize * sizeof(int));
    int *dsp = malloc(rsize * sizeof(int)), *agv = malloc(2 * rsize * sizeof(int));
    for (int r = 0; r < rsize; r++) gat[r] = ag[r] = a2a_r[r] = -1, a2a_s[r] = rank * 100 + r;
    for (int r = 0; r < rsize; r++) cnt[r] = remote_world(r) % 2 + 1, dsp[r] = 2 * r;
    for (int r = 0; r < 2 * rsize; r++) agv[r] = -1;
    int *scsrc = malloc(rsize * sizeof(int));
    for (int r = 0; r < rsize; r++) scsrc[r] = 1000 + r;
    int mv[2] = {rank, rank + 1}, mc = rank % 2 + 1;
    CALL(MPI_Barrier, MPI_Ibarrier, ic);
    CALL(MPI_Bcast, MPI_Ibcast, bc, 3, MPI_INT, root, ic);
    /* reduce to the low group's rank 0 */
    CALL(MPI_Reduce, MPI_Ireduce, mine, red, 2, MPI_INT, MPI_SUM, root, ic);
    CALL(MPI_Allreduce, MPI_Iallreduce, mine, ar, 2, MPI_INT, MPI_SUM, ic);
    CALL(MPI_Gather, MPI_Igather, &rank, 1, MPI_INT, gat, 1, MPI_INT, root, ic);
    /* scatter from the low group's rank 0 to the high group */
    CALL(MPI_Scatter, MPI_Iscatter, scsrc, 1, MPI_INT, &scin, 1, MPI_INT, root, ic);
    CALL(MPI_Allgather, MPI_Iallgather, &rank, 1, MPI_INT, ag, 1, MPI_INT, ic);
    CALL(MPI_Allgatherv, MPI_Iallgatherv, mv, mc, MPI_INT, agv, cnt, dsp, MPI_INT, ic);
    CALL(MPI_Alltoall, MPI_Ialltoall, a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, ic);
    if (nonblocking) MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    int bad = 0;
    for (int i = 0; i < 3; i++) bad += low ? bc[i] != (lrank == 0 ? 7 + i : -1) : bc[i] != 7 + i;
    CHECK(bad == 0, "bcast");
    CHECK(root != MPI_ROOT || (red[0] == remote_sum(ident) && red[1] == remote_sum(sq)), "reduce");
    CHECK(ar[0] == remote_sum(ident) && ar[1] == remote_sum(sq), "allreduce");
    bad = 0;
    for (int r = 0; r < rsize; r++) bad += root == MPI_ROOT ? gat[r] != remote_world(r) : gat[r] != -1;
    CHECK(bad == 0, "gather");
    CHECK(low ? scin == -1 : scin == 1000 + lrank, "scatter");
    bad = 0;
    for (int r = 0; r < rsize; r++) bad += ag[r] != remote_world(r);
    CHECK(bad == 0, "allgather");
    bad = 0;
    for (int r = 0; r < rsize; r++) {
        int w = remote_world(r);
        bad += agv[2 * r] != w || (cnt[r] == 2 ? agv[2 * r + 1] != w + 1 : agv[2 * r + 1] != -1);
    }
    CHECK(bad == 0, "allgatherv");
    bad = 0;
    for (int r = 0; r < rsize; r++) bad += a2a_r[r] != remote_world(r) * 100 + lrank;
    CHECK(bad == 0, "alltoall");
    /* The v and w forms of gather/scatter/alltoall, and reduce_scatter. */
    nr = 0;
    int *gv = malloc(2 * rsize * sizeof(int)), svin[2] = {-1, -1}, *svsrc = malloc(2 * rsize * sizeof(int));
    int *a2av = malloc(rsize * sizeof(int)), *ones = malloc(rsize * sizeof(int));
    int *idx = malloc(rsize * sizeof(int)), *bytes = malloc(rsize * sizeof(int));
    int *a2aw = malloc(rsize * sizeof(int));
    MPI_Datatype *tys = malloc(rsize * sizeof(MPI_Datatype));
    for (int r = 0; r < rsize; r++) {
        gv[2 * r] = gv[2 * r + 1] = -1, svsrc[2 * r] = 3000 + 2 * r, svsrc[2 * r + 1] = 3001 + 2 * r;
        a2av[r] = a2aw[r] = -1, ones[r] = 1, idx[r] = r, bytes[r] = r * (int)sizeof(int), tys[r] = MPI_INT;
    }
    int high_root = low ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CALL(MPI_Gatherv, MPI_Igatherv, mv, mc, MPI_INT, gv, cnt, dsp, MPI_INT, high_root, ic);
    CALL(MPI_Scatterv, MPI_Iscatterv, svsrc, cnt, dsp, MPI_INT, svin, mc, MPI_INT, high_root, ic);
    CALL(MPI_Alltoallv, MPI_Ialltoallv, a2a_s, ones, idx, MPI_INT, a2av, ones, idx, MPI_INT, ic);
    CALL(MPI_Alltoallw, MPI_Ialltoallw, a2a_s, ones, bytes, tys, a2aw, ones, bytes, tys, ic);
    /* Reduce_scatter_block: both groups reduce lsize * rsize elements;
     * each member gets the other group's sum of its block of rsize. */
    int *rsin = malloc(lsize * rsize * sizeof(int)), *rsout = malloc(rsize * sizeof(int));
    for (int i = 0; i < lsize * rsize; i++) rsin[i] = rank + i;
    CALL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, rsin, rsout, rsize, MPI_INT, MPI_SUM, ic);
    if (nonblocking) MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    bad = 0;
    if (high_root == MPI_ROOT)
        for (int r = 0; r < rsize; r++) {
            int w = remote_world(r);
            bad += gv[2 * r] != w || (cnt[r] == 2 ? gv[2 * r + 1] != w + 1 : gv[2 * r + 1] != -1);
        }
    CHECK(bad == 0, "gatherv");
    CHECK(!low || (svin[0] == 3000 + 2 * lrank && (mc == 1 ? svin[1] == -1 : svin[1] == 3001 + 2 * lrank)),
          "scatterv");
    bad = 0;
    for (int r = 0; r < rsize; r++) bad += a2av[r] != remote_world(r) * 100 + lrank;
    CHECK(bad == 0, "alltoallv");
    bad = 0;
    for (int r = 0; r < rsize; r++) bad += a2aw[r] != remote_world(r) * 100 + lrank;
    CHECK(bad == 0, "alltoallw");
    bad = 0;
    for (int i = 0; i < rsize; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++) want += remote_world(r) + lrank * rsize + i;
        bad += rsout[i] != want;
    }
    CHECK(bad == 0, "reduce_scatter_block");
#undef CALL
    free(gat), free(ag), free(sc), free(a2a_s), free(a2a_r), free(cnt), free(dsp), free(agv);
    free(scsrc), free(gv), free(svsrc), free(a2av), free(ones), free(idx), free(bytes);
    free(a2aw), free(tys), free(rsin), free(rsout);
    section(nonblocking ? "nonblocking collectives" : "blocking collectives");
}

static int copied;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
    (void)c, (void)k, (void)extra;
    copied++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void merge_dup_split_create(void) {
    MPI_Comm m;
    int r, n, s;
    MPI_Intercomm_merge(ic, !low, &m);
    MPI_Comm_rank(m, &r);
    MPI_Comm_size(m, &n);
    CHECK(r == rank && n == size, "merge, low group first");
    MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, m);
    CHECK(s == size * (size - 1) / 2, "allreduce on the merged comm");
    MPI_Comm_free(&m);
    MPI_Intercomm_merge(ic, low, &m);
    MPI_Comm_rank(m, &r);
    CHECK(r == (low ? rank + size - split_at : rank - split_at), "merge, high group first");
    MPI_Comm_free(&m);

    int key;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(ic, key, &key);
    MPI_Comm_set_name(ic, "halves");
    MPI_Comm d;
    MPI_Comm_dup(ic, &d);
    void *v;
    int flag, len;
    MPI_Comm_get_attr(d, key, &v, &flag);
    CHECK(flag && v == &key && copied == 1, "dup copies the attribute");
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(d, name, &len);
    CHECK(len == 0, "a dup has no name");
    MPI_Comm_get_name(ic, name, &len);
    CHECK(strcmp(name, "halves") == 0, "name of the intercomm");
    MPI_Comm_compare(ic, d, &n);
    CHECK(n == MPI_CONGRUENT, "dup is congruent");
    MPI_Comm_test_inter(d, &flag);
    CHECK(flag, "dup is an intercomm");
    MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, d);
    CHECK(s == remote_sum(ident), "allreduce on the dup");
    MPI_Comm_free(&d);
    MPI_Comm_free_keyval(&key);

    /* Split: the even local ranks of both groups form a new
     * intercommunicator (ordered by descending world rank); the odd ones
     * get MPI_COMM_NULL. */
    MPI_Comm sp;
    MPI_Comm_split(ic, lrank % 2 == 0 ? 0 : MPI_UNDEFINED, -rank, &sp);
    int mates = (rsize + 1) / 2;
    if (lrank % 2) {
        CHECK(sp == MPI_COMM_NULL, "odd ranks get no split");
        CHECK(1, "the same number of checks");
        CHECK(1, "the same number of checks");
    } else {
        MPI_Comm_remote_size(sp, &n);
        CHECK(n == mates, "split remote size");
        MPI_Comm_rank(sp, &r);
        CHECK(r == (lsize + 1) / 2 - 1 - lrank / 2, "split orders by key");
        MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, sp);
        int want = 0;
        for (int q = 0; q < rsize; q += 2) want += remote_world(q);
        CHECK(s == want, "allreduce on the split");
        MPI_Comm_free(&sp);
    }
    /* Create from each group's first member. */
    MPI_Group lg, first;
    MPI_Comm_group(ic, &lg);
    int zero = 0;
    MPI_Group_incl(lg, 1, &zero, &first);
    MPI_Comm c;
    MPI_Comm_create(ic, first, &c);
    if (lrank == 0) {
        MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, c);
        CHECK(s == remote_world(0), "allreduce between the first members");
        MPI_Comm_free(&c);
    } else {
        CHECK(c == MPI_COMM_NULL, "not in the created comm");
    }
    MPI_Group_free(&first), MPI_Group_free(&lg);
    section("merge, dup, split, create");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "intercomm needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    split_at = size / 2;
    low = rank < split_at;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local);
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_size(local, &lsize);
    rsize = size - lsize;
    /* The low group creates one communicator more first, so that an
     * implementation's context ids may differ between the groups. */
    MPI_Comm extra = MPI_COMM_NULL;
    if (low) MPI_Comm_dup(local, &extra);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? split_at : 0, 17, &ic);
    queries_and_p2p();
    collectives(0);
    collectives(1);
    merge_dup_split_create();
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    if (extra != MPI_COMM_NULL) MPI_Comm_free(&extra);
    int code = finish_checks("intercomm");
    MPI_Finalize();
    return code;
}
