/* Communicator routines of MPI 3: MPI_Comm_idup (several outstanding, on
 * two communicators started in opposite orders by even and odd ranks,
 * attributes copied, the new communicators usable once complete),
 * MPI_Comm_split_type (MPI_COMM_TYPE_SHARED partitions the ranks by node:
 * checked as a partition, since the nodes differ between a real machine
 * and an emulated network; MPI_UNDEFINED gives MPI_COMM_NULL) and
 * MPI_Comm_create_group (disjoint groups at once with the same tag, the
 * ranks outside them not taking part).
 * Every rank makes the same number of checks (19); rank 0 prints one line
 * per section and the total; failures go to stderr and make the exit code
 * non-zero. Works for any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

#include "check.h"

static int copies;
static int count_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int sum_on(MPI_Comm c, int v) {
    int s;
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, c);
    return s;
}

static void idup(void) {
    MPI_Comm a, b, da, db, dw, x, y;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    int key, val = 5;
    MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(a, key, &val);
    MPI_Request r[3];
    if (rank % 2 == 0) {
        MPI_Comm_idup(a, &x, &r[0]);
        MPI_Comm_idup(b, &y, &r[1]);
    } else {
        MPI_Comm_idup(b, &y, &r[1]);
        MPI_Comm_idup(a, &x, &r[0]);
    }
    MPI_Comm_idup(MPI_COMM_WORLD, &dw, &r[2]);
    /* Other communication on the parents while the dups are under way. */
    CHECK(sum_on(a, 1) == size, "allreduce on a parent while it is duplicated");
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    da = x, db = y;
    CHECK(copies == 1, "idup copied the attribute once (%d)", copies);
    void *v;
    int flag, res;
    MPI_Comm_get_attr(da, key, &v, &flag);
    CHECK(flag && *(int *)v == 5, "attribute of the idup");
    MPI_Comm_get_attr(db, key, &v, &flag);
    CHECK(!flag, "no attribute on b's idup");
    MPI_Comm_compare(da, a, &res);
    CHECK(res == MPI_CONGRUENT, "idup is congruent");
    CHECK(sum_on(da, rank) == size * (size - 1) / 2, "allreduce on a's idup");
    CHECK(sum_on(db, 2 * rank) == size * (size - 1), "allreduce on b's idup");
    CHECK(sum_on(dw, 1) == size, "allreduce on world's idup");
    /* Messages on the three never mix. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got[3];
    MPI_Request s[6];
    MPI_Comm cs[3] = {da, db, dw};
    for (int k = 0; k < 3; k++) MPI_Irecv(&got[k], 1, MPI_INT, prev, 0, cs[k], &s[k]);
    for (int k = 0; k < 3; k++) {
        int v2 = 10 * k + rank;
        MPI_Send(&v2, 1, MPI_INT, next, 0, cs[2 - k]);
        (void)v2;
    }
    MPI_Waitall(3, s, MPI_STATUSES_IGNORE);
    CHECK(got[0] == 20 + prev && got[1] == 10 + prev && got[2] == prev, "messages stay on their comm");
    MPI_Comm_free(&da), MPI_Comm_free(&db), MPI_Comm_free(&dw);
    MPI_Comm_free(&a), MPI_Comm_free(&b);
    MPI_Comm_free_keyval(&key);
    section("comm_idup");
}

static void split_type(void) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    CHECK(node != MPI_COMM_NULL, "a shared comm");
    int nsize, nrank;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    CHECK(nsize >= 1 && nrank < nsize, "its size and rank");
    CHECK(sum_on(node, 1) == nsize, "allreduce over the node");
    /* A partition of world: the node leaders (node rank 0) count every
     * rank once; members are in world order (key = world rank). */
    int first;
    if (nrank == 0) first = rank;
    MPI_Bcast(&first, 1, MPI_INT, 0, node);
    CHECK(first <= rank, "the node's first member has the lowest world rank");
    int mine = nrank == 0 ? nsize : 0, total;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == size, "the nodes hold every rank once");
    MPI_Comm_free(&node);
    MPI_Comm none;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none);
    CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
    /* MPICH's neighbourhoods of a directory every rank names alike (all
     * ranks share this machine's file system); different names, or no
     * such hint, give MPI_COMM_NULL. */
    MPI_Info hint;
    MPI_Info_create(&hint);
    MPI_Info_set(hint, "nbhd_common_dirname", ".");
    MPI_Comm nbhd;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, hint, &nbhd);
    int nsz = -1;
    if (nbhd != MPI_COMM_NULL) MPI_Comm_size(nbhd, &nsz), MPI_Comm_free(&nbhd);
    CHECK(nsz == size, "a common directory: %d ranks", nsz);
    MPI_Info_set(hint, "nbhd_common_dirname", rank == 0 ? "/a" : "/b");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, hint, &nbhd);
    CHECK(size == 1 || nbhd == MPI_COMM_NULL, "different directories");
    if (nbhd != MPI_COMM_NULL) MPI_Comm_free(&nbhd);
    MPI_Info_delete(hint, "nbhd_common_dirname");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, hint, &nbhd);
    CHECK(nbhd == MPI_COMM_NULL, "no hint");
    MPI_Info_free(&hint);
    section("comm_split_type");
}

static void create_group(void) {
    /* Even and odd ranks create their communicators at once with the
     * same tag; the last rank of an odd-sized world takes no part. */
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int n = size % 2 ? size - 1 : size;
    int *members = malloc(size * sizeof(int)), k = 0;
    for (int r = rank % 2; r < n; r += 2) members[k++] = r;
    MPI_Group_incl(wg, k, members, &g);
    MPI_Comm c = MPI_COMM_NULL;
    if (rank < n) {
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 11, &c);
        int cr;
        MPI_Comm_rank(c, &cr);
        CHECK(cr == rank / 2, "rank in the created comm");
        int want = 0;
        for (int i = 0; i < k; i++) want += members[i];
        CHECK(sum_on(c, rank) == want, "allreduce on the created comm");
        MPI_Comm_free(&c);
    } else {
        CHECK(1, "the same number of checks");
        CHECK(1, "the same number of checks");
    }
    /* World still works, and a second round with a reversed order. */
    CHECK(sum_on(MPI_COMM_WORLD, 1) == size, "world after create_group");
    MPI_Group rev;
    for (int i = 0; i < k / 2; i++) {
        int t = members[i];
        members[i] = members[k - 1 - i], members[k - 1 - i] = t;
    }
    MPI_Group_incl(wg, k, members, &rev);
    if (rank < n) {
        MPI_Comm_create_group(MPI_COMM_WORLD, rev, 12, &c);
        int cr;
        MPI_Comm_rank(c, &cr);
        CHECK(cr == k - 1 - rank / 2, "rank in the reversed comm");
        MPI_Comm_free(&c);
    } else {
        CHECK(1, "the same number of checks");
    }
    MPI_Group_free(&rev), MPI_Group_free(&g), MPI_Group_free(&wg);
    free(members);
    section("comm_create_group");
}

/* MPI_Comm_disconnect frees a communicator whose communication is
 * complete (here a ring exchange on it); MPI_Comm_get_parent is
 * MPI_COMM_NULL in a job that was not spawned. 3 checks. */
static void disconnect(void) {
    MPI_Comm c, parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "a parent in a job nobody spawned");
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int out = rank * 7, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 3, &in, 1, MPI_INT,
                 (rank + size - 1) % size, 3, c, MPI_STATUS_IGNORE);
    MPI_Comm_disconnect(&c);
    CHECK(c == MPI_COMM_NULL, "the handle after MPI_Comm_disconnect");
    CHECK(in == (rank + size - 1) % size * 7, "the ring exchange before the disconnect: %d", in);
    section("comm_disconnect");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    idup();
    split_type();
    create_group();
    disconnect();
    int code = finish_checks("comm_routines");
    MPI_Finalize();
    return code;
}
