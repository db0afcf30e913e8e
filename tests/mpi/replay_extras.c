/* The routines an engine replay makes beyond plain point-to-point and the
 * common collectives, in traffic that takes network time:
 *   1. buffered sends: MPI_Buffer_attach, a ring of MPI_Bsend of 20 kB and
 *      of 200 kB (buffered data leaves eagerly whatever its size), then
 *      MPI_Buffer_detach, which waits until every buffered message left;
 *   2. matched probes: every rank but 0 sends rank 0 a message whose size
 *      depends on its rank (eager and rendezvous); rank 0 takes them with
 *      MPI_Mprobe(MPI_ANY_SOURCE) and MPI_Mrecv, then in a second round
 *      with MPI_Improbe polling and MPI_Imrecv plus MPI_Wait;
 *   3. MPI_Comm_idup, completed by MPI_Wait, then an all-reduce on the copy;
 *   4. MPI_Alltoallw with a different datatype and count per peer, blocking
 *      and nonblocking;
 *   5. a receive polled with MPI_Request_get_status until it completes.
 * Self-checking: every payload carries its sender. Usage: replay_extras. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "check.h"

/* Bytes rank r sends rank 0 in the probe rounds: 1 kB, 100 kB, 300 kB. */
static int probe_bytes(int r) { return r == 1 ? 1000 : r == 2 ? 100000 : 300000; }

static void spin(long n) {
    volatile double x = 1.0;
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
}

static void buffered_ring(int size) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int sizes[2] = {20000, 200000};
    int pack;
    MPI_Pack_size(sizes[1], MPI_BYTE, MPI_COMM_WORLD, &pack);
    int room = 2 * (pack + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)room);
    MPI_Buffer_attach(attached, room);
    for (int i = 0; i < 2; i++) {
        char *out = malloc((size_t)sizes[i]), *in = malloc((size_t)sizes[i]);
        memset(out, rank, (size_t)sizes[i]);
        MPI_Bsend(out, sizes[i], MPI_BYTE, next, i, MPI_COMM_WORLD);
        free(out); /* buffered: the send buffer is free at once */
        MPI_Recv(in, sizes[i], MPI_BYTE, prev, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(in[0] == prev && in[sizes[i] - 1] == prev, "bsend %d from %d", i, prev);
        free(in);
    }
    void *back;
    int back_size;
    MPI_Buffer_detach(&back, &back_size);
    CHECK(back == attached && back_size == room, "detach gave %p/%d", back, back_size);
    free(attached);
}

static void matched_probes(int size) {
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            int *seen = calloc((size_t)size, sizeof(int));
            for (int k = 1; k < size; k++) {
                MPI_Message msg;
                MPI_Status st;
                if (round == 0) {
                    MPI_Mprobe(MPI_ANY_SOURCE, 7 + round, MPI_COMM_WORLD, &msg, &st);
                } else {
                    int flag = 0;
                    while (!flag) MPI_Improbe(MPI_ANY_SOURCE, 7 + round, MPI_COMM_WORLD, &flag, &msg, &st);
                }
                int n;
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK(n == probe_bytes(st.MPI_SOURCE), "%d bytes from %d", n, st.MPI_SOURCE);
                unsigned char *buf = malloc((size_t)n);
                if (round == 0) {
                    MPI_Mrecv(buf, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
                } else {
                    MPI_Request r;
                    MPI_Imrecv(buf, n, MPI_BYTE, &msg, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                }
                CHECK(buf[0] == st.MPI_SOURCE && buf[n - 1] == st.MPI_SOURCE, "payload from %d", st.MPI_SOURCE);
                seen[st.MPI_SOURCE]++;
                free(buf);
            }
            for (int r = 1; r < size; r++) CHECK(seen[r] == 1, "%d messages from %d", seen[r], r);
            free(seen);
        } else {
            int n = probe_bytes(rank);
            unsigned char *buf = malloc((size_t)n);
            memset(buf, rank, (size_t)n);
            spin(200000L * (size - rank));
            MPI_Send(buf, n, MPI_BYTE, 0, 7 + round, MPI_COMM_WORLD);
            free(buf);
        }
    }
}

static void idup_then_reduce(int size) {
    MPI_Comm copy;
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &copy, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    double mine[1000], sum[1000];
    for (int i = 0; i < 1000; i++) mine[i] = rank + i;
    MPI_Allreduce(mine, sum, 1000, MPI_DOUBLE, MPI_SUM, copy);
    CHECK(sum[10] == size * (size - 1) / 2.0 + 10.0 * size, "allreduce gave %g", sum[10]);
    MPI_Comm_free(&copy);
}

static void alltoallw(int size) {
    /* Peer p gets 1000 * (p + 1) ints from even ranks, as many doubles from
     * odd ones; block displacements in bytes. */
    int *scounts = malloc(sizeof(int) * size), *rcounts = malloc(sizeof(int) * size);
    int *sdispls = malloc(sizeof(int) * size), *rdispls = malloc(sizeof(int) * size);
    MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * size), *rtypes = malloc(sizeof(MPI_Datatype) * size);
    int sat = 0, rat = 0;
    for (int p = 0; p < size; p++) {
        scounts[p] = 1000 * (p + 1);
        stypes[p] = rank % 2 ? MPI_DOUBLE : MPI_INT;
        sdispls[p] = sat;
        sat += scounts[p] * (rank % 2 ? 8 : 4);
        rcounts[p] = 1000 * (rank + 1);
        rtypes[p] = p % 2 ? MPI_DOUBLE : MPI_INT;
        rdispls[p] = rat;
        rat += rcounts[p] * (p % 2 ? 8 : 4);
    }
    char *sbuf = malloc((size_t)sat), *rbuf = malloc((size_t)rat);
    for (int p = 0; p < size; p++) {
        if (rank % 2) {
            double *d = (double *)(sbuf + sdispls[p]);
            for (int i = 0; i < scounts[p]; i++) d[i] = rank;
        } else {
            int *v = (int *)(sbuf + sdispls[p]);
            for (int i = 0; i < scounts[p]; i++) v[i] = rank;
        }
    }
    for (int round = 0; round < 2; round++) {
        memset(rbuf, 0xff, (size_t)rat);
        if (round == 0) {
            MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
        } else {
            MPI_Request r;
            MPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        for (int p = 0; p < size; p++) {
            int last = rcounts[p] - 1;
            double got = p % 2 ? ((double *)(rbuf + rdispls[p]))[last] : ((int *)(rbuf + rdispls[p]))[last];
            CHECK(got == p, "alltoallw round %d: block from %d holds %g", round, p, got);
        }
    }
    free(sbuf); free(rbuf); free(scounts); free(rcounts); free(sdispls); free(rdispls); free(stypes); free(rtypes);
}

static void polled_status(int size) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int n = 50000;
    char *out = malloc((size_t)n), *in = malloc((size_t)n);
    memset(out, rank, (size_t)n);
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(in, n, MPI_BYTE, prev, 9, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, n, MPI_BYTE, next, 9, MPI_COMM_WORLD, &r[1]);
    int flag = 0;
    while (!flag) MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE);
    MPI_Waitall(2, r, st);
    CHECK(in[0] == prev && in[n - 1] == prev, "polled receive from %d", prev);
    free(out);
    free(in);
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buffered_ring(size);
    matched_probes(size);
    idup_then_reduce(size);
    alltoallw(size);
    polled_status(size);
    int code = finish_checks("replay_extras");
    MPI_Finalize();
    return code;
}
