/* Dynamic processes: the job's ranks spawn copies of this program and
 * talk to them.
 *
 *   spawn UNIVERSE        (the parents, started by `mpinetsim run`)
 *
 * 1. MPI_Comm_spawn of 3 children with arguments, on the host the info
 *    key `host` names: the parents see an intercommunicator whose remote
 *    group has 3 processes; each child sees MPI_COMM_WORLD of 3, a
 *    parent intercommunicator named MPI_COMM_PARENT whose remote group is
 *    the parents, its arguments, MPI_APPNUM 0 and the universe the
 *    parents were given. Across the intercommunicator: an allreduce (each
 *    side gets the other side's sum of world ranks... of its own
 *    numbering), point-to-point both ways, then MPI_Intercomm_merge with
 *    the parents first and an allreduce over the merged communicator;
 *    after MPI_Comm_disconnect a child has no parent (its exit code).
 * 2. MPI_Comm_spawn_multiple of two commands, one process each: the
 *    children's MPI_APPNUM is 0 and 1, their world has 2 processes.
 * 3. A spawn of a program that does not exist returns MPI_ERR_SPAWN on
 *    every parent (MPI_ERRORS_RETURN), with MPI_COMM_NULL, and the job
 *    goes on.
 * Each child counts its checks and sends the count and its failures to
 * the parents' rank 0, which adds them to its own: the summary line is
 * 13 n + 3 (the tokens) + 3 × 9 + 2 × 5 = 13 n + 40 checks on n parents. */
#include <stdlib.h>
#include <string.h>
static int rank;
#include "check.h"

/* A child: checks what it was given, talks to its parents, reports. */
static int child(MPI_Comm parent, int argc, char **argv) {
    int size, rsize, appnum = -1, flag, *uv, *an;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(parent, &rsize);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &an, &flag);
    if (flag) appnum = *an;
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    if (!multiple) {
        int universe = atoi(argv[3]);
        CHECK(size == 3, "child world of %d, not 3", size);
        CHECK(argc == 4 && strcmp(argv[1], "child") == 0 && strcmp(argv[2], "two words") == 0,
              "child arguments %d '%s'", argc, argc > 2 ? argv[2] : "");
        CHECK(appnum == 0, "appnum %d, not 0", appnum);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &uv, &flag);
        CHECK(flag && *uv == universe, "universe %d, not %d", flag ? *uv : -1, universe);
        MPI_Comm_get_name(parent, name, &len);
        CHECK(strcmp(name, "MPI_COMM_PARENT") == 0, "parent named '%s'", name);
        /* Each side gets the sum of the other side's ranks in their world. */
        int mine = rank, theirs = -1;
        MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, parent);
        CHECK(theirs == rsize * (rsize - 1) / 2, "parents' sum %d", theirs);
        /* Child r sends to parent r % n and receives its answer. */
        int token = 1000 + rank, back = -1;
        MPI_Send(&token, 1, MPI_INT, rank % rsize, 7, parent);
        MPI_Recv(&back, 1, MPI_INT, rank % rsize, 8, parent, MPI_STATUS_IGNORE);
        CHECK(back == 2 * token, "answer %d to %d", back, token);
        /* Merged: the parents first, then the children. */
        MPI_Comm merged;
        int mrank, msize, total = -1, one = 1;
        MPI_Intercomm_merge(parent, 1, &merged);
        MPI_Comm_rank(merged, &mrank);
        MPI_Comm_size(merged, &msize);
        CHECK(mrank == rsize + rank && msize == rsize + 3, "merged rank %d of %d", mrank, msize);
        MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
        CHECK(total == rsize + 3, "merged sum %d", total);
        MPI_Comm_free(&merged);
    } else {
        CHECK(size == 2, "multiple: world of %d, not 2", size);
        CHECK(appnum == rank, "multiple: appnum %d on child %d", appnum, rank);
        CHECK(argc == 3 && atoi(argv[2]) == rank, "multiple: argument of child %d", rank);
        MPI_Comm_get_name(parent, name, &len);
        CHECK(strcmp(name, "MPI_COMM_PARENT") == 0, "parent named '%s'", name);
        int mine = 1, theirs = -1;
        MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, parent);
        CHECK(theirs == rsize, "multiple: parents counted %d", theirs);
    }
    /* The parents' rank 0 collects every child's checks. */
    int counts[2] = {checks, fails}, sum[2];
    MPI_Reduce(counts, sum, 2, MPI_INT, MPI_SUM, 0, parent);
    MPI_Comm_disconnect(&parent);
    /* Reported by the exit code: no communicator reaches the parents now. */
    MPI_Comm none;
    MPI_Comm_get_parent(&none);
    MPI_Finalize();
    if (none != MPI_COMM_NULL) fprintf(stderr, "child %d: a parent after MPI_Comm_disconnect\n", rank);
    return none == MPI_COMM_NULL ? 0 : 1;
}

/* The children's checks, added to rank 0's. */
static void collect(MPI_Comm inter) {
    int none[2] = {0, 0}, sum[2] = {0, 0};
    MPI_Reduce(none, sum, 2, MPI_INT, MPI_SUM, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (rank == 0) {
        checks += sum[0];
        fails += sum[1];
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) return child(parent, argc, argv);

    int size, flag, *uv;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int universe = argc > 1 ? atoi(argv[1]) : -1;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &uv, &flag);
    CHECK(flag && *uv == universe, "universe %d, not %d", flag ? *uv : -1, universe);

    /* 1. Three children on host1, from the last rank. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", "host1");
    char *args[] = {"child", "two words", argv[1], NULL};
    MPI_Comm inter;
    int errcodes[3] = {-1, -1, -1}, rsize, remote_flag;
    MPI_Comm_spawn(argv[0], args, 3, info, size - 1, MPI_COMM_WORLD, &inter, errcodes);
    MPI_Info_free(&info);
    MPI_Comm_test_inter(inter, &remote_flag);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(remote_flag && rsize == 3, "remote group of %d", rsize);
    CHECK(errcodes[0] == MPI_SUCCESS && errcodes[1] == MPI_SUCCESS && errcodes[2] == MPI_SUCCESS,
          "error codes %d %d %d", errcodes[0], errcodes[1], errcodes[2]);
    int mine = rank, theirs = -1;
    MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter);
    CHECK(theirs == 3, "children's sum %d, not 0 + 1 + 2", theirs);
    for (int c = 0; c < 3; c++) {
        if (c % size != rank) continue;
        int token = -1, answer;
        MPI_Recv(&token, 1, MPI_INT, c, 7, inter, MPI_STATUS_IGNORE);
        CHECK(token == 1000 + c, "token %d from child %d", token, c);
        answer = 2 * token;
        MPI_Send(&answer, 1, MPI_INT, c, 8, inter);
    }
    MPI_Comm merged;
    int mrank, msize, total = -1, one = 1;
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(mrank == rank && msize == size + 3, "merged rank %d of %d", mrank, msize);
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
    CHECK(total == size + 3, "merged sum %d", total);
    MPI_Comm_free(&merged);
    collect(inter);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "the handle after disconnect");
    section("spawn");

    /* 2. Two commands of one process each, from rank 0. */
    char *cmds[2] = {argv[0], argv[0]};
    char *argv0[] = {"multiple", "0", NULL}, *argv1[] = {"multiple", "1", NULL};
    char **argvs[2] = {argv0, argv1};
    int procs[2] = {1, 1};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm_spawn_multiple(2, cmds, argvs, procs, infos, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 2, "spawn_multiple: remote group of %d", rsize);
    mine = 1;
    MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter);
    CHECK(theirs == 2, "spawn_multiple: children counted %d", theirs);
    collect(inter);
    MPI_Comm_disconnect(&inter);
    section("spawn_multiple");

    /* 3. A program that does not exist. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn("./no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                            MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    int class = -1;
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_SPAWN, "a missing program gave class %d", class);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn's intercommunicator");
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "the parents have no parent");
    int alive = 1, all = 0;
    MPI_Allreduce(&alive, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all == size, "the job goes on after a failed spawn");
    section("refused");
    int code = finish_checks("spawn");
    MPI_Finalize();
    return code;
}
