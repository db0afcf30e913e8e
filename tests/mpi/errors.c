/* Error handling with MPI_ERRORS_RETURN: invalid rank, tag, count,
 * communicator, datatype, root, op and group arguments and truncated
 * receives return codes of the right class (MPI_Error_class), the job goes
 * on afterwards, and MPI_Error_string describes every class. Error handlers
 * are inherited by MPI_Comm_dup.
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

int main(int argc, char **argv) {
    MPI_Comm d;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size, prev = (rank + size - 1) % size;
    handlers(&d);
    p2p_errors(d);
    coll_group_errors(d);
    strings();
    MPI_Comm_free(&d);
    int code = finish_checks("errors");
    MPI_Finalize();
    return code;
}
