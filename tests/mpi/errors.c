/* Error handling with MPI_ERRORS_RETURN: invalid rank, tag, count,
 * communicator, datatype, root, op and group arguments and truncated
 * receives return codes of the right class (MPI_Error_class), the job goes
 * on afterwards, and MPI_Error_string describes every class. Error handlers
 * are inherited by MPI_Comm_dup.
 * Hostile input: garbage handles and handles of the wrong kind for every
 * kind of handle, freed communicators, negative counts and sizes in every
 * call family, and collectives whose ranks disagree on the message size.
 * Every expectation is what Debian's MPICH 4.0 returns; cases where MPICH
 * crashes, hangs or detects nothing are left out. After each group of
 * errors the communicator still works.
 * Rank 0 prints one line per section and the total of checks of all ranks;
 * failures go to stderr and make the exit code non-zero. Works for 2..8
 * ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size, next, prev;

#include "check.h"

static int class_of(int code) {
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

/* A user reduction op: elementwise sum of ints. */
static void sum_ints(void *in, void *inout, int *n, MPI_Datatype *t) {
    (void)t;
    for (int i = 0; i < *n; i++) ((int *)inout)[i] += ((int *)in)[i];
}

#define EXPECT(call, cls)                                                                    \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        CHECK(class_of(rc_) == (cls), "%s returned class %d, want %s", #call, class_of(rc_), #cls); \
    } while (0)

static void handlers(MPI_Comm *d) {
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "world starts with MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, d);
    MPI_Comm_get_errhandler(*d, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "dup inherits MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    section("error handlers");
}

static void p2p_errors(MPI_Comm d) {
    int x[2] = {1, 2}, y[2];
    MPI_Datatype loose;
    EXPECT(MPI_Send(x, 1, MPI_INT, size, 0, d), MPI_ERR_RANK);
    EXPECT(MPI_Send(x, 1, MPI_INT, -7, 0, d), MPI_ERR_RANK);
    EXPECT(MPI_Recv(y, 1, MPI_INT, size + 3, 0, d, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    EXPECT(MPI_Send(x, 1, MPI_INT, next, -5, d), MPI_ERR_TAG);
    EXPECT(MPI_Recv(y, 1, MPI_INT, prev, -5, d, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    EXPECT(MPI_Send(x, -1, MPI_INT, next, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Send(x, 1, MPI_DATATYPE_NULL, next, 0, d), MPI_ERR_TYPE);
    MPI_Type_contiguous(2, MPI_INT, &loose);
    EXPECT(MPI_Send(x, 1, loose, next, 0, d), MPI_ERR_TYPE); /* not committed */
    MPI_Type_free(&loose);
    EXPECT(MPI_Send(x, 1, MPI_INT, next, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    section("argument errors");

    /* truncation: two ints into room for one */
    MPI_Status st;
    MPI_Request r;
    MPI_Send(x, 2, MPI_INT, next, 1, d);
    EXPECT(MPI_Recv(y, 1, MPI_INT, prev, 1, d, &st), MPI_ERR_TRUNCATE);
    MPI_Send(x, 2, MPI_INT, next, 2, d);
    MPI_Irecv(y, 1, MPI_INT, prev, 2, d, &r);
    EXPECT(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
    /* in Waitall the class is in the status of the failed request */
    MPI_Request rq[2];
    MPI_Status sts[2];
    int z = 0;
    MPI_Send(x, 2, MPI_INT, next, 3, d);
    MPI_Send(x, 1, MPI_INT, next, 4, d);
    MPI_Irecv(&z, 1, MPI_INT, prev, 4, d, &rq[0]);
    MPI_Irecv(y, 1, MPI_INT, prev, 3, d, &rq[1]);
    EXPECT(MPI_Waitall(2, rq, sts), MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && class_of(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE && z == 1,
          "Waitall statuses: %d %d", sts[0].MPI_ERROR, class_of(sts[1].MPI_ERROR));
    /* the communicator still works */
    int v = rank;
    EXPECT(MPI_Sendrecv(&v, 1, MPI_INT, next, 5, &z, 1, MPI_INT, prev, 5, d, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(z == prev, "communication after errors");
    section("truncation");
}

static void coll_group_errors(MPI_Comm d) {
    int v = 1, w;
    EXPECT(MPI_Bcast(&v, 1, MPI_INT, size, d), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, -1, d), MPI_ERR_ROOT);
    EXPECT(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_OP_NULL, d), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, d), MPI_SUCCESS);
    CHECK(w == size, "allreduce after errors");
    MPI_Group g, ng;
    int bad_rank = size + 1;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    EXPECT(MPI_Group_incl(g, 1, &bad_rank, &ng), MPI_ERR_RANK);
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &v), MPI_ERR_GROUP);
    MPI_Group_free(&g);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &v), MPI_ERR_COMM);
    section("collective and group errors");
}

static void strings(void) {
    const int classes[] = {MPI_SUCCESS,   MPI_ERR_BUFFER, MPI_ERR_COUNT,     MPI_ERR_TYPE,     MPI_ERR_TAG,
                           MPI_ERR_COMM,  MPI_ERR_RANK,   MPI_ERR_ROOT,      MPI_ERR_GROUP,    MPI_ERR_OP,
                           MPI_ERR_ARG,   MPI_ERR_OTHER,  MPI_ERR_TRUNCATE,  MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
                           MPI_ERR_REQUEST, MPI_ERR_INTERN};
    int n = sizeof classes / sizeof classes[0];
    char text[MPI_MAX_ERROR_STRING];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int len = -1, c = -1;
        text[0] = 0;
        MPI_Error_string(classes[i], text, &len);
        MPI_Error_class(classes[i], &c);
        bad += len <= 0 || len != (int)strlen(text) || c != classes[i];
    }
    CHECK(bad == 0, "Error_string / Error_class of %d classes: %d bad", n, bad);
    section("error strings");
}

/* A ring exchange and a sum of ranks over `c` both succeed with the right
 * values. */
static void works(MPI_Comm c, const char *after) {
    int me = -1, n = 0, z = -1, sum = -1;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    int to = (me + 1) % n, from = (me + n - 1) % n;
    EXPECT(MPI_Sendrecv(&me, 1, MPI_INT, to, 9, &z, 1, MPI_INT, from, 9, c, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    CHECK(z == from && sum == n * (n - 1) / 2, "communication after %s: got %d and %d", after, z, sum);
}

/* Handles that name nothing: garbage integers and handles of other kinds. */
#define N_GARBAGE 4

static void bad_comm_handles(MPI_Comm d) {
    const MPI_Comm bad[N_GARBAGE] = {(MPI_Comm)12345, (MPI_Comm)-1, (MPI_Comm)MPI_INT, (MPI_Comm)MPI_GROUP_EMPTY};
    int x = 1, y = 0, v;
    MPI_Request r;
    MPI_Comm nc;
    MPI_Group g;
    for (int i = 0; i < N_GARBAGE; i++) {
        MPI_Comm c = bad[i];
        EXPECT(MPI_Send(&x, 1, MPI_INT, next, 0, c), MPI_ERR_COMM);
        EXPECT(MPI_Isend(&x, 1, MPI_INT, next, 0, c, &r), MPI_ERR_COMM);
        EXPECT(MPI_Irecv(&y, 1, MPI_INT, prev, 0, c, &r), MPI_ERR_COMM);
        EXPECT(MPI_Recv(&y, 1, MPI_INT, prev, 0, c, MPI_STATUS_IGNORE), MPI_ERR_COMM);
        EXPECT(MPI_Iprobe(prev, 0, c, &v, MPI_STATUS_IGNORE), MPI_ERR_COMM);
        EXPECT(MPI_Barrier(c), MPI_ERR_COMM);
        EXPECT(MPI_Bcast(&x, 1, MPI_INT, 0, c), MPI_ERR_COMM);
        EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c), MPI_ERR_COMM);
        EXPECT(MPI_Comm_size(c, &v), MPI_ERR_COMM);
        EXPECT(MPI_Comm_rank(c, &v), MPI_ERR_COMM);
        EXPECT(MPI_Comm_dup(c, &nc), MPI_ERR_COMM);
        EXPECT(MPI_Comm_split(c, 0, 0, &nc), MPI_ERR_COMM);
        EXPECT(MPI_Comm_group(c, &g), MPI_ERR_COMM);
        EXPECT(MPI_Comm_compare(c, MPI_COMM_WORLD, &v), MPI_ERR_COMM);
        EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, c, &v), MPI_ERR_COMM);
        EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM);
    }
    works(d, "bad communicators");
    section("bad communicator handles");
}

static void bad_datatype_handles(MPI_Comm d) {
    const MPI_Datatype bad[N_GARBAGE] = {(MPI_Datatype)12345, (MPI_Datatype)-1, (MPI_Datatype)MPI_COMM_WORLD,
                                         (MPI_Datatype)MPI_SUM};
    int x[4] = {1, 2, 3, 4}, y[4 * 8], v;
    MPI_Aint lb, ext;
    MPI_Status st;
    MPI_Request r;
    MPI_Datatype nt;
    MPI_Op user;
    MPI_Op_create(sum_ints, 1, &user);
    MPI_Sendrecv(x, 1, MPI_INT, next, 7, y, 1, MPI_INT, prev, 7, d, &st);
    for (int i = 0; i < N_GARBAGE; i++) {
        MPI_Datatype t = bad[i];
        EXPECT(MPI_Send(x, 1, t, next, 0, d), MPI_ERR_TYPE);
        EXPECT(MPI_Isend(x, 1, t, next, 0, d, &r), MPI_ERR_TYPE);
        EXPECT(MPI_Irecv(y, 1, t, prev, 0, d, &r), MPI_ERR_TYPE);
        EXPECT(MPI_Recv(y, 1, t, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
        EXPECT(MPI_Sendrecv(x, 1, t, next, 0, y, 1, MPI_INT, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
        EXPECT(MPI_Sendrecv(x, 1, MPI_INT, next, 0, y, 1, t, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
        EXPECT(MPI_Bcast(x, 1, t, 0, d), MPI_ERR_TYPE);
        EXPECT(MPI_Gather(x, 1, t, y, 1, t, 0, d), MPI_ERR_TYPE);
        EXPECT(MPI_Allgather(x, 1, t, y, 1, MPI_INT, d), MPI_ERR_TYPE);
        EXPECT(MPI_Alltoall(x, 1, t, y, 1, MPI_INT, d), MPI_ERR_TYPE);
        /* a predefined op checks the datatype first: MPI_ERR_OP */
        EXPECT(MPI_Reduce(x, y, 1, t, MPI_SUM, 0, d), MPI_ERR_OP);
        EXPECT(MPI_Allreduce(x, y, 1, t, MPI_SUM, d), MPI_ERR_OP);
        EXPECT(MPI_Allreduce(x, y, 1, t, MPI_MAXLOC, d), MPI_ERR_OP);
        EXPECT(MPI_Scan(x, y, 1, t, MPI_SUM, d), MPI_ERR_OP);
        EXPECT(MPI_Exscan(x, y, 1, t, MPI_SUM, d), MPI_ERR_OP);
        EXPECT(MPI_Reduce_scatter_block(x, y, 1, t, MPI_SUM, d), MPI_ERR_OP);
        EXPECT(MPI_Reduce_local(x, y, 1, t, MPI_SUM), MPI_ERR_OP);
        /* a user op does not */
        EXPECT(MPI_Allreduce(x, y, 1, t, user, d), MPI_ERR_TYPE);
        EXPECT(MPI_Type_size(t, &v), MPI_ERR_TYPE);
        EXPECT(MPI_Type_get_extent(t, &lb, &ext), MPI_ERR_TYPE);
        EXPECT(MPI_Type_contiguous(2, t, &nt), MPI_ERR_TYPE);
        EXPECT(MPI_Type_vector(2, 1, 2, t, &nt), MPI_ERR_TYPE);
        EXPECT(MPI_Type_indexed(1, (int[]){1}, (int[]){0}, t, &nt), MPI_ERR_TYPE);
        EXPECT(MPI_Type_create_resized(t, 0, 8, &nt), MPI_ERR_TYPE);
        EXPECT(MPI_Type_dup(t, &nt), MPI_ERR_TYPE);
        EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE);
        EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE);
        EXPECT(MPI_Get_count(&st, t, &v), MPI_ERR_TYPE);
        EXPECT(MPI_Pack_size(1, t, d, &v), MPI_ERR_TYPE);
    }
    /* MPICH's MPI_Type_create_struct takes any predefined handle as a
     * member type, so only handles that are no predefined object are checked */
    for (int i = 0; i < 2; i++)
        EXPECT(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_INT, bad[i]}, &nt),
               MPI_ERR_TYPE);
    MPI_Datatype predefined = MPI_INT, null = MPI_DATATYPE_NULL;
    EXPECT(MPI_Type_free(&predefined), MPI_ERR_TYPE);
    EXPECT(MPI_Type_free(&null), MPI_ERR_TYPE);
    EXPECT(MPI_Allreduce(x, y, 1, MPI_DATATYPE_NULL, MPI_SUM, d), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(x, y, 1, MPI_INT, MPI_MAXLOC, d), MPI_ERR_OP);
    MPI_Op_free(&user);
    works(d, "bad datatypes");
    section("bad datatype handles");
}

static void bad_op_handles(MPI_Comm d) {
    const MPI_Op bad[N_GARBAGE] = {(MPI_Op)12345, (MPI_Op)-1, (MPI_Op)MPI_INT, (MPI_Op)MPI_COMM_WORLD};
    int x = 1, y = 0, v;
    for (int i = 0; i < N_GARBAGE; i++) {
        MPI_Op o = bad[i];
        EXPECT(MPI_Reduce(&x, &y, 1, MPI_INT, o, 0, d), MPI_ERR_OP);
        EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, o, d), MPI_ERR_OP);
        EXPECT(MPI_Scan(&x, &y, 1, MPI_INT, o, d), MPI_ERR_OP);
        EXPECT(MPI_Reduce_local(&x, &y, 1, MPI_INT, o), MPI_ERR_OP);
        EXPECT(MPI_Op_free(&o), MPI_ERR_OP);
    }
    /* MPICH's MPI_Op_commutative takes any predefined handle as an op, so
     * only handles that are no predefined object are checked */
    EXPECT(MPI_Op_commutative((MPI_Op)12345, &v), MPI_ERR_OP);
    EXPECT(MPI_Op_commutative((MPI_Op)-1, &v), MPI_ERR_OP);
    MPI_Op predefined = MPI_SUM;
    EXPECT(MPI_Op_free(&predefined), MPI_ERR_OP);
    works(d, "bad ops");
    section("bad op handles");
}

static void bad_group_handles(MPI_Comm d) {
    const MPI_Group bad[3] = {(MPI_Group)12345, (MPI_Group)-1, (MPI_Group)MPI_COMM_WORLD};
    int v, zero = 0;
    MPI_Group w, ng;
    MPI_Comm nc;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    for (int i = 0; i < 3; i++) {
        MPI_Group g = bad[i];
        EXPECT(MPI_Group_size(g, &v), MPI_ERR_GROUP);
        EXPECT(MPI_Group_rank(g, &v), MPI_ERR_GROUP);
        EXPECT(MPI_Group_incl(g, 1, &zero, &ng), MPI_ERR_GROUP);
        EXPECT(MPI_Group_excl(g, 1, &zero, &ng), MPI_ERR_GROUP);
        EXPECT(MPI_Group_union(g, w, &ng), MPI_ERR_GROUP);
        EXPECT(MPI_Group_union(w, g, &ng), MPI_ERR_GROUP);
        EXPECT(MPI_Group_compare(g, w, &v), MPI_ERR_GROUP);
        EXPECT(MPI_Group_translate_ranks(g, 1, &zero, w, &v), MPI_ERR_GROUP);
        EXPECT(MPI_Comm_create(d, g, &nc), MPI_ERR_GROUP);
        EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP);
    }
    MPI_Group_free(&w);
    works(d, "bad groups");
    section("bad group handles");
}

static void bad_request_handles(MPI_Comm d) {
    const MPI_Request bad[3] = {(MPI_Request)12345, (MPI_Request)-1, (MPI_Request)MPI_COMM_WORLD};
    int v, idx, flag, idxs[2];
    MPI_Status st, sts[2];
    for (int i = 0; i < 3; i++) {
        MPI_Request r = bad[i], two[2];
#define BOTH (two[0] = MPI_REQUEST_NULL, two[1] = bad[i], two)
        EXPECT(MPI_Wait(&r, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Waitall(2, BOTH, sts), MPI_ERR_REQUEST);
        EXPECT(MPI_Testall(2, BOTH, &flag, sts), MPI_ERR_REQUEST);
        EXPECT(MPI_Waitany(2, BOTH, &idx, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Testany(2, BOTH, &idx, &flag, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Waitsome(2, BOTH, &v, idxs, sts), MPI_ERR_REQUEST);
        EXPECT(MPI_Testsome(2, BOTH, &v, idxs, sts), MPI_ERR_REQUEST);
        EXPECT(MPI_Startall(2, BOTH), MPI_ERR_REQUEST);
        EXPECT(MPI_Request_get_status(r, &flag, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
        EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
        EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
#undef BOTH
    }
    MPI_Request null = MPI_REQUEST_NULL;
    EXPECT(MPI_Wait(&null, &st), MPI_SUCCESS);
    EXPECT(MPI_Start(&null), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&null), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&null), MPI_ERR_REQUEST);
    works(d, "bad requests");
    section("bad request handles");
}

static void bad_errhandlers(MPI_Comm d) {
    const MPI_Errhandler bad[5] = {(MPI_Errhandler)12345, (MPI_Errhandler)-1, (MPI_Errhandler)MPI_COMM_WORLD,
                                   (MPI_Errhandler)MPI_INT, MPI_ERRHANDLER_NULL};
    MPI_Errhandler eh;
    for (int i = 0; i < 5; i++) {
        eh = bad[i];
        EXPECT(MPI_Comm_set_errhandler(d, eh), MPI_ERR_ARG);
        EXPECT(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
    }
    EXPECT(MPI_Comm_set_errhandler((MPI_Comm)12345, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    EXPECT(MPI_Comm_get_errhandler((MPI_Comm)12345, &eh), MPI_ERR_COMM);
    EXPECT(MPI_Comm_get_errhandler(d, &eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler unchanged by bad arguments: %#x", (int)eh);
    MPI_Errhandler_free(&eh);
    works(d, "bad error handlers");
    section("bad error handlers");
}

/* A freed communicator is detected through a saved copy of its handle;
 * errors on it go to MPI_COMM_WORLD's handler, not its own. (MPICH does
 * not detect freed datatypes, groups, ops or requests.) */
static void freed_communicator(MPI_Comm d) {
    MPI_Comm f, saved, nc;
    MPI_Group g;
    MPI_Request r;
    MPI_Errhandler eh;
    int x = 1, y = 0, v;
    MPI_Comm_dup(d, &f);
    MPI_Comm_set_errhandler(f, MPI_ERRORS_ARE_FATAL);
    saved = f;
    EXPECT(MPI_Comm_free(&f), MPI_SUCCESS);
    CHECK(f == MPI_COMM_NULL, "freed handle is MPI_COMM_NULL");
    EXPECT(MPI_Comm_size(saved, &v), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(saved, &v), MPI_ERR_COMM);
    EXPECT(MPI_Send(&x, 1, MPI_INT, next, 0, saved), MPI_ERR_COMM);
    EXPECT(MPI_Recv(&y, 1, MPI_INT, prev, 0, saved, MPI_STATUS_IGNORE), MPI_ERR_COMM);
    EXPECT(MPI_Isend(&x, 1, MPI_INT, next, 0, saved, &r), MPI_ERR_COMM);
    EXPECT(MPI_Irecv(&y, 1, MPI_INT, prev, 0, saved, &r), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(saved), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(&x, 1, MPI_INT, 0, saved), MPI_ERR_COMM);
    EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, saved), MPI_ERR_COMM);
    EXPECT(MPI_Comm_dup(saved, &nc), MPI_ERR_COMM);
    EXPECT(MPI_Comm_split(saved, 0, 0, &nc), MPI_ERR_COMM);
    EXPECT(MPI_Comm_group(saved, &g), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_errhandler(saved, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    EXPECT(MPI_Comm_get_errhandler(saved, &eh), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&saved), MPI_ERR_COMM);
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&self), MPI_ERR_COMM);
    works(d, "freed communicator");
    section("freed communicator");
}

static void negative_p2p_counts(MPI_Comm d) {
    int x[4] = {0}, y[4];
    MPI_Request r, rs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status sts[2];
    int v, idx, flag;
    static char bsend_space[1024];
    MPI_Buffer_attach(bsend_space, sizeof bsend_space);
    EXPECT(MPI_Isend(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Issend(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Ibsend(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Irsend(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(y, -1, MPI_INT, prev, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Ssend(x, -1, MPI_INT, next, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Bsend(x, -1, MPI_INT, next, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Rsend(x, -1, MPI_INT, next, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(y, -1, MPI_INT, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    EXPECT(MPI_Sendrecv(x, -1, MPI_INT, next, 0, y, 1, MPI_INT, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    EXPECT(MPI_Sendrecv(x, 1, MPI_INT, next, 0, y, -1, MPI_INT, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    EXPECT(MPI_Sendrecv_replace(x, -1, MPI_INT, next, 0, prev, 0, d, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    EXPECT(MPI_Send_init(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Ssend_init(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Bsend_init(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Rsend_init(x, -1, MPI_INT, next, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Recv_init(y, -1, MPI_INT, prev, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Waitall(-1, rs, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Testall(-1, rs, &flag, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Waitany(-1, rs, &idx, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Testany(-1, rs, &idx, &flag, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Waitsome(-1, rs, &v, &idx, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Testsome(-1, rs, &v, &idx, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Startall(-1, rs), MPI_ERR_COUNT);
    void *bp;
    int bs;
    MPI_Buffer_detach(&bp, &bs);
    EXPECT(MPI_Buffer_attach(bsend_space, -1), MPI_ERR_ARG);
    int pos = 0;
    EXPECT(MPI_Pack_size(-1, MPI_INT, d, &v), MPI_ERR_COUNT);
    EXPECT(MPI_Pack(x, -1, MPI_INT, y, sizeof y, &pos, d), MPI_ERR_COUNT);
    EXPECT(MPI_Pack(x, 1, MPI_INT, y, -4, &pos, d), MPI_ERR_ARG);
    EXPECT(MPI_Unpack(x, sizeof x, &pos, y, -1, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Unpack(x, -4, &pos, y, 1, MPI_INT, d), MPI_ERR_ARG);
    works(d, "negative point-to-point counts");
    section("negative point-to-point counts");
}

/* Every rank passes the same negative count, so all fail alike without
 * communicating. (MPICH crashes on negative counts in Reduce, Allreduce,
 * Scan, Exscan, Reduce_scatter_block and Reduce_local, and a count only
 * the root checks leaves the other ranks' messages behind or makes them
 * wait forever; those are left out.) */
static void negative_collective_counts(MPI_Comm d) {
    int x[8] = {0}, y[8 * 8] = {0}, cnt[8], dsp[8];
    for (int i = 0; i < size; i++) cnt[i] = 1, dsp[i] = i;
    cnt[size - 1] = -1;
    EXPECT(MPI_Bcast(x, -1, MPI_INT, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Gather(x, -1, MPI_INT, y, 1, MPI_INT, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Scatter(x, 1, MPI_INT, y, -1, MPI_INT, 0, d), MPI_ERR_COUNT);
    EXPECT(MPI_Allgather(x, -1, MPI_INT, y, 1, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Allgather(x, 1, MPI_INT, y, -1, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoall(x, -1, MPI_INT, y, 1, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoall(x, 1, MPI_INT, y, -1, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoallv(x, cnt, dsp, MPI_INT, y, cnt, dsp, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Allgatherv(x, 1, MPI_INT, y, cnt, dsp, MPI_INT, d), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_scatter(x, y, cnt, MPI_INT, MPI_SUM, d), MPI_ERR_COUNT);
    works(d, "negative collective counts");
    section("negative collective counts");
}

static void negative_type_and_group_sizes(MPI_Comm d) {
    MPI_Datatype t;
    MPI_Group g, ng;
    MPI_Comm nc;
    int v, ranks[1] = {0}, range[1][3] = {{0, 0, 1}};
    EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(-1, 1, 2, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(2, -1, 2, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_indexed(-1, (int[]){1}, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_indexed(2, (int[]){1, -1}, (int[]){0, 4}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hindexed(-1, (int[]){1}, (MPI_Aint[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hindexed(2, (int[]){1, -1}, (MPI_Aint[]){0, 4}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_indexed_block(-1, 1, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_indexed_block(1, -1, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hindexed_block(-1, 1, (MPI_Aint[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hindexed_block(1, -1, (MPI_Aint[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_struct(-1, (int[]){1}, (MPI_Aint[]){0}, (MPI_Datatype[]){MPI_INT}, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_struct(2, (int[]){1, -1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_INT, MPI_INT}, &t),
           MPI_ERR_COUNT);
    MPI_Comm_group(d, &g);
    EXPECT(MPI_Group_incl(g, -1, ranks, &ng), MPI_ERR_ARG);
    EXPECT(MPI_Group_excl(g, -1, ranks, &ng), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_incl(g, -1, range, &ng), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_excl(g, -1, range, &ng), MPI_ERR_ARG);
    EXPECT(MPI_Group_translate_ranks(g, -1, ranks, g, &v), MPI_ERR_ARG);
    MPI_Group_free(&g);
    /* MPICH takes negative colours (only MPI_UNDEFINED is special) */
    int colour = rank % 2 ? -5 : -7, mates = 0, above = 0, nsize = -1, nrank = -1;
    for (int r = 0; r < size; r++) {
        mates += r % 2 == rank % 2;
        above += r % 2 == rank % 2 && r > rank;
    }
    EXPECT(MPI_Comm_split(d, colour, -rank, &nc), MPI_SUCCESS);
    MPI_Comm_size(nc, &nsize);
    MPI_Comm_rank(nc, &nrank);
    CHECK(nsize == mates && nrank == above, "split by negative colour: size %d rank %d, want %d %d", nsize, nrank,
          mates, above);
    works(nc, "a split by negative colours");
    MPI_Comm_free(&nc);
    works(d, "negative sizes");
    section("negative type and group sizes");
}

/* Ranks that disagree on a collective's message size, on a communicator
 * of their own; afterwards the same collectives with matching arguments
 * give the right results, so nothing was left behind. */
static void mismatched_collectives(MPI_Comm d) {
    MPI_Comm m;
    int x[8] = {0}, y[8 * 8] = {0}, ok;
    MPI_Comm_dup(d, &m);
    /* Bcast, root 0 sends 2 ints, the others expect 1: the root's children
     * in the binomial tree (ranks that are powers of two) see a truncated
     * message, the ranks they forward to MPICH's MPI_ERR_OTHER */
    int pow2 = rank > 0 && (rank & (rank - 1)) == 0;
    int forwarded = rank == 0 ? MPI_SUCCESS : pow2 ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER;
    EXPECT(MPI_Bcast(x, rank == 0 ? 2 : 1, MPI_INT, 0, m), forwarded);
    EXPECT(MPI_Bcast(x, 1, rank == 0 ? MPI_DOUBLE : MPI_INT, 0, m), forwarded);
    /* root 0 sends 1 int, the others expect 2: a size mismatch everywhere */
    EXPECT(MPI_Bcast(x, rank == 0 ? 1 : 2, MPI_INT, 0, m), rank == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
    x[0] = rank == 0 ? 42 : 0;
    EXPECT(MPI_Bcast(x, 1, MPI_INT, 0, m), MPI_SUCCESS);
    CHECK(x[0] == 42, "bcast after mismatches: %d", x[0]);
    /* Gather into room for 1 int per rank at the root (in place), 2 sent */
    x[0] = x[1] = rank;
    EXPECT(MPI_Gather(rank == 0 ? MPI_IN_PLACE : (void *)x, 2, MPI_INT, y, 1, MPI_INT, 0, m),
           rank == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    EXPECT(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, 0, m), MPI_SUCCESS);
    ok = 1;
    for (int i = 0; rank == 0 && i < size; i++) ok &= y[i] == i;
    CHECK(ok, "gather after mismatches");
    /* Reduce: the root reduces 1 int, the others send 2 */
    x[0] = x[1] = 1;
    EXPECT(MPI_Reduce(x, y, rank == 0 ? 1 : 2, MPI_INT, MPI_SUM, 0, m), rank == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    y[0] = 0;
    EXPECT(MPI_Reduce(x, y, 1, MPI_INT, MPI_SUM, 0, m), MPI_SUCCESS);
    CHECK(rank != 0 || y[0] == size, "reduce after mismatches: %d", y[0]);
    /* Allgather and Alltoall: 2 ints sent per block, room for 1 */
    EXPECT(MPI_Allgather(x, 2, MPI_INT, y, 1, MPI_INT, m), MPI_ERR_TRUNCATE);
    EXPECT(MPI_Alltoall(x, 2, MPI_INT, y, 1, MPI_INT, m), MPI_ERR_TRUNCATE);
    x[0] = rank;
    EXPECT(MPI_Allgather(x, 1, MPI_INT, y, 1, MPI_INT, m), MPI_SUCCESS);
    ok = 1;
    for (int i = 0; i < size; i++) ok &= y[i] == i;
    CHECK(ok, "allgather after mismatches");
    works(m, "mismatched collectives");
    MPI_Comm_free(&m);
    works(d, "mismatched collectives");
    section("mismatched collectives");
}

int main(int argc, char **argv) {
    MPI_Comm d;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size, prev = (rank + size - 1) % size;
    handlers(&d);
    p2p_errors(d);
    coll_group_errors(d);
    bad_comm_handles(d);
    bad_datatype_handles(d);
    bad_op_handles(d);
    bad_group_handles(d);
    bad_request_handles(d);
    bad_errhandlers(d);
    freed_communicator(d);
    negative_p2p_counts(d);
    negative_collective_counts(d);
    negative_type_and_group_sizes(d);
    mismatched_collectives(d);
    strings();
    MPI_Comm_free(&d);
    int code = finish_checks("errors");
    MPI_Finalize();
    return code;
}
