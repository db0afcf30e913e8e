/* Matched probes and their receives (MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv, MPI_MESSAGE_NO_PROC), MPI 4.0's MPI_Isendrecv and
 * MPI_Isendrecv_replace, cancelling receives, MPI_Status_set_cancelled,
 * MPI_Request_get_status, and which calls leave status.MPI_ERROR alone.
 *
 * Every rank exchanges with the others, eager (4 ints) and rendezvous
 * (100000 ints) messages alike. Works for 2..8 ranks. (Cancelling sends is
 * tested through mpinetsim alone, tests/mpi/cancel_sends.c: Debian's MPICH
 * does not cancel sends.) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

#define BIG 100000

static int *filled(int n, int base) {
    int *b = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) b[i] = base + i;
    return b;
}

static int holds(const int *b, int n, int base) {
    for (int i = 0; i < n; i++)
        if (b[i] != base + i) return 0;
    return 1;
}

/* Every rank sends two messages (tags 1 and 2) of n ints to every other;
 * each rank takes them with matched probes in several ways. */
static void matched_probes(int n) {
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * size);
    int **bufs = malloc(sizeof(int *) * 2 * size), nreq = 0;
    for (int p = 0; p < size; p++) {
        if (p == rank) continue;
        for (int tag = 1; tag <= 2; tag++) {
            bufs[nreq] = filled(n, 1000000 * rank + 1000 * tag);
            MPI_Isend(bufs[nreq], n, MPI_INT, p, tag, MPI_COMM_WORLD, &reqs[nreq]);
            nreq++;
        }
    }
    int *got = malloc(sizeof(int) * n);
    for (int k = 0; k < size - 1; k++) {
        /* Mprobe a tag-2 message from anyone: it is out of reach of any
         * other receive until Mrecv takes it. */
        MPI_Message m;
        MPI_Status st;
        st.MPI_ERROR = MPI_ERR_DIMS;
        MPI_Mprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &m, &st);
        int src = st.MPI_SOURCE, count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(st.MPI_TAG == 2 && count == n && m != MPI_MESSAGE_NULL && st.MPI_ERROR == MPI_ERR_DIMS,
              "mprobe: tag %d count %d error %d", st.MPI_TAG, count, st.MPI_ERROR);
        int flag = 1;
        MPI_Message other;
        MPI_Improbe(src, 2, MPI_COMM_WORLD, &flag, &other, MPI_STATUS_IGNORE);
        CHECK(!flag, "the probed message is taken");
        /* Its tag-1 message is still there for a plain receive... */
        MPI_Recv(got, n, MPI_INT, src, 1, MPI_COMM_WORLD, &st);
        CHECK(holds(got, n, 1000000 * src + 1000), "tag 1 from %d", src);
        /* ...and the probed one comes with Mrecv or Imrecv. */
        memset(got, 0, sizeof(int) * n);
        st.MPI_ERROR = MPI_ERR_TOPOLOGY;
        if (k % 2 == 0) {
            MPI_Mrecv(got, n, MPI_INT, &m, &st);
        } else {
            MPI_Request r;
            MPI_Imrecv(got, n, MPI_INT, &m, &r);
            MPI_Wait(&r, &st);
        }
        CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == src && st.MPI_ERROR == MPI_ERR_TOPOLOGY,
              "mrecv: message %x source %d error %d", (unsigned)m, st.MPI_SOURCE, st.MPI_ERROR);
        CHECK(holds(got, n, 1000000 * src + 2000), "tag 2 from %d", src);
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nreq; i++) free(bufs[i]);
    free(bufs);
    free(reqs);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Improbe polls until a message is there. */
    int token = 77 + rank, back = 0, flag = 0;
    MPI_Request r;
    MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &r);
    MPI_Message m;
    MPI_Status st;
    while (!flag) MPI_Improbe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &m, &st);
    MPI_Mrecv(&back, 1, MPI_INT, &m, &st);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(back == 77 + (rank + size - 1) % size, "improbe token %d", back);
}

static void no_proc(void) {
    MPI_Message m;
    MPI_Status st;
    int flag, x = 5;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
    CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "mprobe proc_null");
    MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(m == MPI_MESSAGE_NULL && x == 5 && count == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "mrecv no_proc");
    MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &m, &st);
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "improbe proc_null");
    MPI_Request r;
    MPI_Imrecv(&x, 1, MPI_INT, &m, &r);
    MPI_Wait(&r, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && r == MPI_REQUEST_NULL, "imrecv no_proc");
}

/* Isendrecv: each rank sends to rank + offset and receives from rank -
 * offset; Isendrecv_replace does the same in one buffer. */
static void isendrecv(int n) {
    for (int offset = 1; offset < size; offset++) {
        int to = (rank + offset) % size, from = (rank + size - offset) % size;
        int *out = filled(n, 10 * rank), *in = malloc(sizeof(int) * n);
        MPI_Request r[2];
        MPI_Isendrecv(out, n, MPI_INT, to, offset, in, n, MPI_INT, from, offset, MPI_COMM_WORLD, &r[0]);
        int *rep = filled(n, 10 * rank + 5);
        MPI_Isendrecv_replace(rep, n, MPI_INT, to, 100 + offset, from, 100 + offset, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        /* (MPICH 4.0 leaves their statuses unset: only the data is checked.) */
        CHECK(holds(in, n, 10 * from), "isendrecv %d", offset);
        CHECK(holds(rep, n, 10 * from + 5), "isendrecv_replace %d", offset);
        free(out);
        free(in);
        free(rep);
    }
    /* (MPI_Isendrecv with MPI_PROC_NULL crashes Debian's MPICH 4.0.2.) */
}

static void cancels_and_statuses(void) {
    /* A receive nobody sends to is cancelled. */
    int x = 3, flag;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag && x == 3, "receive cancelled");
    /* Status_set_cancelled / Test_cancelled, and set_elements. */
    MPI_Status_set_cancelled(&st, 1);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "set cancelled");
    MPI_Status_set_cancelled(&st, 0);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "cleared cancelled");
    /* Request_get_status leaves the request; Wait then frees it. */
    int v = rank, w = -1;
    MPI_Request s, q;
    MPI_Irecv(&w, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &q);
    MPI_Isend(&v, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &s);
    flag = 0;
    while (!flag) MPI_Request_get_status(q, &flag, &st);
    CHECK(q != MPI_REQUEST_NULL && st.MPI_SOURCE == (rank + size - 1) % size && w == st.MPI_SOURCE,
          "request_get_status keeps the request");
    MPI_Request_get_status(q, &flag, &st);
    CHECK(flag, "a second request_get_status");
    st.MPI_ERROR = 1234;
    MPI_Wait(&q, &st);
    CHECK(q == MPI_REQUEST_NULL && st.MPI_ERROR == 1234, "wait after request_get_status");
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "request_get_status of null");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    matched_probes(4);
    matched_probes(BIG);
    no_proc();
    section("matched probes");
    isendrecv(4);
    isendrecv(BIG);
    section("isendrecv");
    cancels_and_statuses();
    section("cancel and statuses");
    int code = finish_checks("p2p_ext");
    MPI_Finalize();
    return code;
}
