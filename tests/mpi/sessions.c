/* MPI 4.0's Sessions model: a session before MPI_Init (process sets,
 * their info, a communicator from mpi://WORLD and an intercommunicator
 * from two groups of it, MPI_Session_call_errhandler with a created
 * handler), ended after MPI_Init (MPICH 4.0.2 cannot start the world
 * model once every session ended); a second session beside the world
 * model, whose communicator is
 * still used after MPI_Finalize and whose session ends last. Compared
 * with native MPICH on 2, 4 and 8 ranks (gateway/tests/mpi_programs.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "check.h"

static int handler_calls, handler_code;
static void on_session_error(MPI_Session *s, int *code, ...) {
    (void) s;
    handler_calls++;
    handler_code = *code;
}

/* Checks of the session-only phase, kept until MPI_COMM_WORLD can sum them. */
static MPI_Session session_before_init(void) {
    MPI_Session s;
    MPI_Info want, got;
    MPI_Info_create(&want);
    MPI_Info_set(want, "thread_level", "MPI_THREAD_MULTIPLE");
    CHECK(MPI_Session_init(want, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "session init");
    MPI_Info_free(&want);
    int flag;
    char value[64];
    MPI_Session_get_info(s, &got);
    MPI_Info_get(got, "thread_level", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0, "thread level %s", flag ? value : "(none)");
    MPI_Info_free(&got);

    int npsets, world_size = 0, found_world = 0, found_self = 0;
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets);
    CHECK(npsets >= 2, "%d process sets", npsets);
    for (int i = 0; i < npsets; i++) {
        int len = 0;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        char *name = malloc(len);
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        CHECK((int) strlen(name) + 1 == len, "pset %d name length %d", i, len);
        MPI_Info pinfo;
        MPI_Session_get_pset_info(s, name, &pinfo);
        MPI_Info_get(pinfo, "mpi_size", sizeof value - 1, value, &flag);
        CHECK(flag, "pset %s has mpi_size", name);
        if (strcmp(name, "mpi://WORLD") == 0) found_world = 1, world_size = atoi(value);
        if (strcmp(name, "mpi://SELF") == 0) {
            found_self = 1;
            CHECK(atoi(value) == 1, "self size %s", value);
        }
        MPI_Info_free(&pinfo);
        free(name);
    }
    CHECK(found_world && found_self, "world %d self %d", found_world, found_self);

    /* A communicator of every process, ranks as in the world. */
    MPI_Group wg, half, other;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    MPI_Comm all, pair, inter;
    MPI_Comm_create_from_group(wg, "mpinetsim.sessions.all", MPI_INFO_NULL, MPI_ERRORS_RETURN, &all);
    int n, me;
    MPI_Comm_size(all, &n);
    MPI_Comm_rank(all, &me);
    CHECK(n == world_size, "size %d of %d", n, world_size);
    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, all);
    CHECK(sum == n * (n - 1) / 2, "allreduce %d", sum);
    rank = me;

    /* Even and odd ranks: a communicator each, then one between them. */
    int count = (n + 1 - me % 2) / 2, *ranks = malloc(sizeof(int) * n), *others = malloc(sizeof(int) * n);
    int nothers = 0;
    for (int i = 0, k = 0; i < n; i++) {
        if (i % 2 == me % 2) ranks[k++] = i;
        else others[nothers++] = i;
    }
    MPI_Group_incl(wg, count, ranks, &half);
    MPI_Group_incl(wg, nothers, others, &other);
    MPI_Comm_create_from_group(half, me % 2 ? "odd" : "even", MPI_INFO_NULL, MPI_ERRORS_RETURN, &pair);
    int psize;
    MPI_Comm_size(pair, &psize);
    CHECK(psize == count, "half size %d", psize);
    MPI_Intercomm_create_from_groups(half, 0, other, 0, "mpinetsim.sessions.inter", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &inter);
    int remote, got_rank = -1, is_inter;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_remote_size(inter, &remote);
    CHECK(is_inter && remote == nothers, "intercommunicator %d remote %d", is_inter, remote);
    /* Rank 0 of each side swaps its world rank with the other side's rank 0. */
    int prank;
    MPI_Comm_rank(pair, &prank);
    if (prank == 0) {
        MPI_Sendrecv(&me, 1, MPI_INT, 0, 5, &got_rank, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        CHECK(got_rank == 1 - me, "leader got %d", got_rank);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&pair);
    MPI_Comm_free(&all);
    MPI_Group_free(&half);
    MPI_Group_free(&other);
    MPI_Group_free(&wg);
    free(ranks);
    free(others);

    /* The session's handler: a created one is called by an error. */
    MPI_Errhandler eh, eh_got;
    MPI_Session_create_errhandler(on_session_error, &eh);
    MPI_Session_set_errhandler(s, eh);
    MPI_Session_get_errhandler(s, &eh_got);
    CHECK(eh_got == eh, "handler read back");
    MPI_Errhandler_free(&eh_got);
    MPI_Errhandler_free(&eh);
    MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "called handler %d", handler_calls);
    return s;
}

int main(int argc, char **argv) {
    MPI_Session first = session_before_init();

    int provided, flag;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Initialized(&flag);
    CHECK(flag, "initialized");
    CHECK(MPI_Session_finalize(&first) == MPI_SUCCESS && first == MPI_SESSION_NULL, "session finalize");
    section("sessions before MPI_Init");

    /* A session beside the world model: mpi://SELF and mpi://world. */
    MPI_Session s;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group selfg, wg;
    MPI_Group_from_session_pset(s, "mpi://self", &selfg);
    MPI_Comm self, lib;
    MPI_Comm_create_from_group(selfg, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &self);
    int one, x = rank, y = -1;
    MPI_Comm_size(self, &one);
    CHECK(one == 1, "self size %d", one);
    MPI_Sendrecv(&x, 1, MPI_INT, 0, 1, &y, 1, MPI_INT, 0, 1, self, MPI_STATUS_IGNORE);
    CHECK(y == rank, "self message %d", y);
    MPI_Group_from_session_pset(s, "mpi://world", &wg);
    MPI_Comm_create_from_group(wg, "library", MPI_INFO_NULL, MPI_ERRORS_RETURN, &lib);
    MPI_Group libg, worldg;
    int cmp;
    MPI_Comm_group(lib, &libg);
    MPI_Comm_group(MPI_COMM_WORLD, &worldg);
    MPI_Group_compare(libg, worldg, &cmp);
    CHECK(cmp == MPI_IDENT, "library group compares %d", cmp);
    MPI_Comm_compare(lib, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "library communicator compares %d", cmp);
    MPI_Group_free(&libg);
    MPI_Group_free(&worldg);
    MPI_Group_free(&selfg);
    MPI_Group_free(&wg);
    /* One thread level per process: the first session's. */
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d", provided);
    MPI_Query_thread(&flag);
    CHECK(flag == MPI_THREAD_MULTIPLE, "thread level %d", flag);
    section("a session beside MPI_COMM_WORLD");
    int failed = finish_checks("sessions");
    MPI_Comm_free(&self);
    MPI_Finalize();

    /* After MPI_Finalize the session's communicator still works. */
    int finalized, total = -1;
    MPI_Finalized(&finalized);
    MPI_Allreduce(&x, &total, 1, MPI_INT, MPI_SUM, lib);
    MPI_Comm_free(&lib);
    MPI_Session_finalize(&s);
    if (!finalized || total != size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: after MPI_Finalize: finalized %d, sum %d\n", rank, finalized, total);
        failed = 1;
    }
    return failed;
}
