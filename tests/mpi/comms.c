/* Communicators, groups and attributes: dup, split, create, compare, free,
 * the group algebra, names, predefined and user attributes with copy and
 * delete callbacks, and isolation (messages on different communicators
 * never match, even with MPI_ANY_SOURCE / MPI_ANY_TAG).
 * Rank 0 prints one line per section and the total of checks of all ranks;
 * failures go to stderr and make the exit code non-zero. Works for 2..8
 * ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

static void dup_compare_isolation(void) {
    MPI_Comm dup, dup2;
    int result, flag, v;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    CHECK(result == MPI_CONGRUENT, "dup is congruent to world (%d)", result);
    MPI_Comm_compare(dup, dup, &result);
    CHECK(result == MPI_IDENT, "a communicator is identical to itself");
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
    CHECK(result == MPI_UNEQUAL, "world and self are unequal");
    MPI_Comm_test_inter(dup, &flag);
    CHECK(flag == 0, "not an intercommunicator");
    MPI_Comm_size(dup, &v);
    CHECK(v == size, "dup size");
    MPI_Comm_rank(dup, &v);
    CHECK(v == rank, "dup rank");
    MPI_Comm_rank(MPI_COMM_SELF, &v);
    CHECK(v == 0, "self rank");
    MPI_Comm_size(MPI_COMM_SELF, &v);
    CHECK(v == 1, "self size");

    /* Same source, tag and content type on three communicators: each
     * receive gets the message of its own communicator. */
    MPI_Comm_dup(dup, &dup2);
    if (rank == 0) {
        for (int i = 0; i < 3; i++) {
            MPI_Comm c = i == 0 ? dup2 : i == 1 ? dup : MPI_COMM_WORLD;
            int x = 100 + i;
            MPI_Send(&x, 1, MPI_INT, 1, 7, c);
        }
    } else if (rank == 1) {
        MPI_Status st;
        int x = -1;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(x == 102 && st.MPI_SOURCE == 0 && st.MPI_TAG == 7, "world receive got %d", x);
        MPI_Recv(&x, 1, MPI_INT, 0, 7, dup, &st);
        CHECK(x == 101, "dup receive got %d", x);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup2, &st);
        CHECK(x == 100, "dup2 receive got %d", x);
    }
    /* A collective on one communicator does not consume p2p messages of
     * the same communicator. */
    if (rank == 0) {
        int x = 55;
        MPI_Send(&x, 1, MPI_INT, size - 1, 0, dup);
    }
    int b = rank == 0 ? 77 : 0;
    MPI_Bcast(&b, 1, MPI_INT, 0, dup);
    CHECK(b == 77, "bcast on dup");
    if (rank == size - 1) {
        int x = 0;
        MPI_Recv(&x, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
        CHECK(x == 55, "p2p after bcast on dup");
    }
    MPI_Comm_free(&dup2);
    CHECK(dup2 == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
    MPI_Comm_free(&dup);
    section("dup/compare/isolation");
}

static void split(void) {
    MPI_Comm half, rev, odd_only;
    int v, sum;
    /* two halves by parity, reversed order by key */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int members = (size - rank % 2 + 1) / 2;
    MPI_Comm_size(half, &v);
    CHECK(v == members, "split size %d want %d", v, members);
    MPI_Comm_rank(half, &v);
    int expect_rank = 0;
    for (int r = rank + 2; r < size; r += 2) expect_rank++;
    CHECK(v == expect_rank, "split rank %d want %d", v, expect_rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    int want = 0;
    for (int r = rank % 2; r < size; r += 2) want += r;
    CHECK(sum == want, "allreduce on split half");
    /* ring inside the half */
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int from = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, (hr + 1) % hs, 3, &from, 1, MPI_INT, (hr + hs - 1) % hs, 3, half,
                 MPI_STATUS_IGNORE);
    int left_world = rank + 2 * ((hr + hs - 1) % hs - hr) * -1;
    CHECK(from == left_world, "ring in half: got %d want %d", from, left_world);
    /* key ties keep the parent order */
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &rev);
    MPI_Comm_rank(rev, &v);
    CHECK(v == rank, "equal keys keep order");
    MPI_Comm_free(&rev);
    /* MPI_UNDEFINED gives MPI_COMM_NULL */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? 1 : MPI_UNDEFINED, rank, &odd_only);
    if (rank % 2) {
        MPI_Comm_size(odd_only, &v);
        CHECK(v == size / 2, "odd ranks");
        MPI_Comm_free(&odd_only);
    } else {
        CHECK(odd_only == MPI_COMM_NULL, "undefined color gives MPI_COMM_NULL");
    }
    /* split of a split */
    MPI_Comm quarter;
    MPI_Comm_split(half, hr / 2, 0, &quarter);
    MPI_Comm_size(quarter, &v);
    CHECK(v == (hr / 2 * 2 + 1 < hs ? 2 : 1), "split of a split: size %d", v);
    MPI_Barrier(quarter);
    MPI_Comm_free(&quarter);
    MPI_Comm_free(&half);
    section("split");
}

static void groups(void) {
    MPI_Group world, evens, odds, first, u, in, diff, g;
    int v, result;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(world, &v);
    CHECK(v == size, "world group size");
    MPI_Group_rank(world, &v);
    CHECK(v == rank, "world group rank");
    int nevens = (size + 1) / 2, *ev = malloc(size * sizeof(int));
    for (int i = 0; i < nevens; i++) ev[i] = 2 * i;
    MPI_Group_incl(world, nevens, ev, &evens);
    MPI_Group_excl(world, nevens, ev, &odds);
    MPI_Group_size(evens, &v);
    CHECK(v == nevens, "incl size");
    MPI_Group_size(odds, &v);
    CHECK(v == size - nevens, "excl size");
    MPI_Group_rank(evens, &v);
    CHECK(v == (rank % 2 ? MPI_UNDEFINED : rank / 2), "group rank or MPI_UNDEFINED: %d", v);
    /* range_incl of the evens equals incl */
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, ranges, &g);
    MPI_Group_compare(g, evens, &result);
    CHECK(result == MPI_IDENT, "range_incl equals incl");
    MPI_Group_free(&g);
    MPI_Group_range_excl(world, 1, ranges, &g);
    MPI_Group_compare(g, odds, &result);
    CHECK(result == MPI_IDENT, "range_excl equals excl");
    MPI_Group_free(&g);
    /* reversed ranges: similar, not identical */
    int back[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, back, &g);
    MPI_Group_compare(g, world, &result);
    CHECK(result == MPI_SIMILAR, "reversed group is similar");
    MPI_Group_rank(g, &v);
    CHECK(v == size - 1 - rank, "rank in reversed group");
    MPI_Group_free(&g);
    MPI_Group_compare(evens, odds, &result);
    CHECK(result == MPI_UNEQUAL, "evens and odds are unequal");
    /* algebra */
    MPI_Group_union(odds, evens, &u);
    MPI_Group_size(u, &v);
    CHECK(v == size, "union size");
    MPI_Group_compare(u, world, &result);
    CHECK(result == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "union is similar to world");
    int two[2] = {0, 1};
    MPI_Group_incl(world, 2, two, &first);
    MPI_Group_intersection(first, evens, &in);
    MPI_Group_size(in, &v);
    CHECK(v == 1, "intersection size");
    MPI_Group_difference(evens, evens, &diff);
    CHECK(diff == MPI_GROUP_EMPTY, "difference with itself is MPI_GROUP_EMPTY");
    MPI_Group_size(MPI_GROUP_EMPTY, &v);
    CHECK(v == 0, "empty group size");
    MPI_Group_difference(world, first, &g);
    MPI_Group_size(g, &v);
    CHECK(v == size - 2, "difference size");
    if (g != MPI_GROUP_EMPTY) MPI_Group_free(&g);
    /* translate: world rank of each odd, with MPI_PROC_NULL passed through */
    int nodd = size - nevens, q[9], t[9];
    for (int i = 0; i < nodd; i++) q[i] = i;
    q[nodd] = MPI_PROC_NULL;
    MPI_Group_translate_ranks(odds, nodd + 1, q, world, t);
    int bad = t[nodd] != MPI_PROC_NULL;
    for (int i = 0; i < nodd; i++) bad += t[i] != 2 * i + 1;
    CHECK(bad == 0, "translate ranks");
    MPI_Group_translate_ranks(evens, 1, q, odds, t);
    CHECK(t[0] == MPI_UNDEFINED, "translate to a non-member gives MPI_UNDEFINED");

    /* Comm_create: the evens get a communicator, the odds MPI_COMM_NULL */
    MPI_Comm ec;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &ec);
    if (rank % 2 == 0) {
        MPI_Comm_rank(ec, &v);
        CHECK(v == rank / 2, "rank in created comm");
        int x = v == 0 ? 4242 : 0;
        MPI_Bcast(&x, 1, MPI_INT, 0, ec);
        CHECK(x == 4242, "bcast in created comm");
        MPI_Group cg;
        MPI_Comm_group(ec, &cg);
        MPI_Group_compare(cg, evens, &result);
        CHECK(result == MPI_IDENT, "group of created comm");
        MPI_Group_free(&cg);
        MPI_Comm_free(&ec);
    } else {
        CHECK(ec == MPI_COMM_NULL, "non-members get MPI_COMM_NULL");
    }
    /* communicators still agree after some ranks skipped one */
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int s = 1, tot;
    MPI_Allreduce(&s, &tot, 1, MPI_INT, MPI_SUM, d);
    CHECK(tot == size, "dup after create");
    MPI_Comm_free(&d);
    MPI_Group_free(&evens);
    CHECK(evens == MPI_GROUP_NULL, "Group_free sets MPI_GROUP_NULL");
    MPI_Group_free(&odds);
    MPI_Group_free(&first);
    MPI_Group_free(&u);
    MPI_Group_free(&in);
    MPI_Group_free(&world);
    free(ev);
    section("groups/create");
}

static void names(void) {
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name is %s", name);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self's name is %s", name);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_set_name(d, "my duplicate");
    MPI_Comm_get_name(d, name, &len);
    CHECK(strcmp(name, "my duplicate") == 0 && len == 12, "set name is %s", name);
    MPI_Comm_free(&d);
    section("names");
}

/* ---- attributes ---- */

static int copies, deletes;

static int copy_plus_one(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    (void)c, (void)key;
    copies++;
    *(int *)extra += 1;
    *(void **)out = (void *)((char *)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int key, void *val, void *extra) {
    (void)c, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void attributes(void) {
    void *p;
    int flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    CHECK(flag && *(int *)p >= 32767, "MPI_TAG_UB");
    int tag_ub = *(int *)p;
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    CHECK(flag && *(int *)p == tag_ub, "MPI_Attr_get MPI_TAG_UB");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag);
    CHECK(!flag || *(int *)p == 0 || *(int *)p == 1, "MPI_WTIME_IS_GLOBAL");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag);
    CHECK(!flag || *(int *)p >= size, "MPI_UNIVERSE_SIZE");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag);
    CHECK(flag && (*(int *)p == MPI_PROC_NULL || (*(int *)p >= 0 && *(int *)p < size)), "MPI_HOST");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag);
    CHECK(flag && (*(int *)p == MPI_ANY_SOURCE || *(int *)p == rank), "MPI_IO");
    /* a tag at the upper bound works */
    if (size > 1) {
        int x = rank;
        if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, tag_ub, MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Status st;
            MPI_Recv(&x, 1, MPI_INT, 0, tag_ub, MPI_COMM_WORLD, &st);
            CHECK(x == 0 && st.MPI_TAG == tag_ub, "message with tag MPI_TAG_UB");
        }
    }

    int extra = 0, kplus, knull, kdup;
    static char base[16];
    MPI_Comm_create_keyval(copy_plus_one, count_delete, &kplus, &extra);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &knull, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
    MPI_Comm c, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_get_attr(c, kplus, &p, &flag);
    CHECK(flag == 0, "unset attribute");
    MPI_Comm_set_attr(c, kplus, base);
    MPI_Comm_set_attr(c, knull, base + 5);
    MPI_Comm_set_attr(c, kdup, base + 9);
    MPI_Comm_get_attr(c, kplus, &p, &flag);
    CHECK(flag && p == base, "get what was set");
    MPI_Comm_set_attr(c, knull, base + 6);
    CHECK(deletes == 1, "replacing an attribute deletes the old value");
    MPI_Comm_dup(c, &d);
    CHECK(copies == 1 && extra == 1, "copy callback ran once with its extra state");
    MPI_Comm_get_attr(d, kplus, &p, &flag);
    CHECK(flag && p == base + 1, "copied by the callback");
    MPI_Comm_get_attr(d, knull, &p, &flag);
    CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN does not copy");
    MPI_Comm_get_attr(d, kdup, &p, &flag);
    CHECK(flag && p == base + 9, "MPI_COMM_DUP_FN copies the value");
    MPI_Comm_delete_attr(c, knull);
    CHECK(deletes == 2, "delete_attr calls the delete callback");
    MPI_Comm_get_attr(c, knull, &p, &flag);
    CHECK(flag == 0, "deleted attribute is gone");
    MPI_Comm_free(&d);
    CHECK(deletes == 3, "freeing a communicator deletes its attributes");
    MPI_Comm_free_keyval(&knull);
    CHECK(knull == MPI_KEYVAL_INVALID, "free_keyval sets MPI_KEYVAL_INVALID");
    MPI_Comm_free(&c);
    CHECK(deletes == 4, "freeing the other communicator");
    MPI_Comm_free_keyval(&kplus);
    MPI_Comm_free_keyval(&kdup);
    section("attributes");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dup_compare_isolation();
    split();
    groups();
    names();
    attributes();
    int code = finish_checks("comms");
    MPI_Finalize();
    return code;
}
