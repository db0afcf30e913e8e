/* Every nonblocking collective of MPI 3.1 on MPI_COMM_WORLD and on a
 * duplicate, checked against results computed locally: several calls
 * outstanding at once and completed in other orders (MPI_Waitall,
 * MPI_Waitany, MPI_Testsome, MPI_Test loops), MPI_IN_PLACE, derived
 * datatypes, a datatype and a user op freed before the wait, a blocking
 * point-to-point exchange while a collective is outstanding (it must keep
 * progressing), and MPI_Ibarrier's synchronisation.
 * Every rank makes the same number of checks (69); rank 0 prints one line
 * per section and the total; failures go to stderr and make the exit code
 * non-zero. Works for any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] += a[i];
}

/* Rooted and reduction calls, all outstanding at once, waited for in
 * reverse order by MPI_Waitany. */
static void rooted(MPI_Comm comm) {
    int root = size - 1, n = 5;
    int bc[5], red[5], g1[1], *gall = malloc(size * sizeof(int)), sc_in = -1;
    int *sc_all = malloc(size * sizeof(int)), ar[5], scan_out = -1, ex_out = -7;
    for (int i = 0; i < n; i++) bc[i] = rank == root ? 100 + i : -1;
    for (int i = 0; i < size; i++) sc_all[i] = 1000 + i, gall[i] = -1;
    int mine[5];
    for (int i = 0; i < n; i++) mine[i] = rank + i;
    g1[0] = rank * 3;
    MPI_Request r[8];
    MPI_Ibcast(bc, n, MPI_INT, root, comm, &r[0]);
    MPI_Ireduce(mine, red, n, MPI_INT, MPI_SUM, 0, comm, &r[1]);
    MPI_Igather(g1, 1, MPI_INT, gall, 1, MPI_INT, root, comm, &r[2]);
    MPI_Iscatter(sc_all, 1, MPI_INT, &sc_in, 1, MPI_INT, 0, comm, &r[3]);
    MPI_Iallreduce(mine, ar, n, MPI_INT, MPI_MAX, comm, &r[4]);
    int one = 1;
    MPI_Iscan(&one, &scan_out, 1, MPI_INT, MPI_SUM, comm, &r[5]);
    MPI_Iexscan(&one, &ex_out, 1, MPI_INT, MPI_SUM, comm, &r[6]);
    MPI_Ibarrier(comm, &r[7]);
    int seen = 0, idx;
    for (int k = 0; k < 8; k++) {
        MPI_Waitany(8, r, &idx, MPI_STATUS_IGNORE);
        seen |= 1 << idx;
    }
    CHECK(seen == 0xff, "waitany completed all eight (%x)", seen);
    for (int k = 0; k < 8; k++) CHECK(r[k] == MPI_REQUEST_NULL, "request %d freed", k);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += bc[i] != 100 + i;
    CHECK(bad == 0, "ibcast");
    bad = 0;
    for (int i = 0; i < n; i++) bad += rank == 0 && red[i] != size * (size - 1) / 2 + size * i;
    CHECK(bad == 0, "ireduce");
    bad = 0;
    for (int i = 0; i < size; i++) bad += rank == root ? gall[i] != 3 * i : gall[i] != -1;
    CHECK(bad == 0, "igather");
    CHECK(sc_in == 1000 + rank, "iscatter");
    bad = 0;
    for (int i = 0; i < n; i++) bad += ar[i] != size - 1 + i;
    CHECK(bad == 0, "iallreduce max");
    CHECK(scan_out == rank + 1, "iscan");
    CHECK(rank == 0 || ex_out == rank, "iexscan");
    free(gall);
    free(sc_all);
}

/* The v and w forms and the all-to-all calls, completed by MPI_Waitall,
 * with MPI_IN_PLACE variants. */
static void all_to_all(MPI_Comm comm) {
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int)), total = 0;
    for (int r = 0; r < size; r++) counts[r] = r % 3 + 1, displs[r] = total, total += counts[r] + 1;
    int *mine = malloc(4 * sizeof(int)), mc = rank % 3 + 1;
    for (int i = 0; i < mc; i++) mine[i] = rank * 10 + i;
    int *gv = malloc(total * sizeof(int)), *agv = malloc(total * sizeof(int));
    int *sv_in = malloc(4 * sizeof(int)), *ag = malloc(2 * size * sizeof(int));
    int *a2a_s = malloc(size * sizeof(int)), *a2a_r = malloc(size * sizeof(int));
    int *a2av_r = malloc(total * sizeof(int)), *a2aw_r = malloc(size * sizeof(int));
    int *a2av_s = malloc(4 * size * sizeof(int)), *sdis = malloc(size * sizeof(int));
    int *scnt = malloc(size * sizeof(int)), *wdis = malloc(size * sizeof(int));
    MPI_Datatype *wtypes = malloc(size * sizeof(MPI_Datatype));
    int *ones = malloc(size * sizeof(int));
    for (int i = 0; i < total; i++) gv[i] = agv[i] = a2av_r[i] = -1;
    for (int i = 0; i < 4; i++) sv_in[i] = -1;
    int s = 0;
    for (int d = 0; d < size; d++) {
        a2a_s[d] = rank * 100 + d, a2a_r[d] = -1, a2aw_r[d] = -1;
        scnt[d] = counts[rank], sdis[d] = s, wdis[d] = d * (int)sizeof(int), ones[d] = 1;
        wtypes[d] = MPI_INT;
        for (int i = 0; i < counts[rank]; i++) a2av_s[s + i] = rank * 1000 + d * 10 + i;
        s += counts[rank];
    }
    int ag_mine[2] = {rank, -rank};
    int *rc_a2av = malloc(size * sizeof(int));
    for (int r = 0; r < size; r++) rc_a2av[r] = counts[r];
    MPI_Request q[8];
    MPI_Igatherv(mine, mc, MPI_INT, gv, counts, displs, MPI_INT, 0, comm, &q[0]);
    int *svsend = malloc(total * sizeof(int));
    for (int i = 0; i < total; i++) svsend[i] = 5000 + i;
    MPI_Iscatterv(svsend, counts, displs, MPI_INT, sv_in, mc, MPI_INT, 0, comm, &q[1]);
    MPI_Iallgather(ag_mine, 2, MPI_INT, ag, 2, MPI_INT, comm, &q[2]);
    MPI_Iallgatherv(mine, mc, MPI_INT, agv, counts, displs, MPI_INT, comm, &q[3]);
    MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, comm, &q[4]);
    MPI_Ialltoallv(a2av_s, scnt, sdis, MPI_INT, a2av_r, rc_a2av, displs, MPI_INT, comm, &q[5]);
    MPI_Ialltoallw(a2a_s, ones, wdis, wtypes, a2aw_r, ones, wdis, wtypes, comm, &q[6]);
    int rsb_in[2 * 64], rsb_out[2] = {-1, -1};
    int nb = 2 * size < 128 ? 2 * size : 128;
    for (int i = 0; i < nb; i++) rsb_in[i] = rank + i;
    if (size <= 64)
        MPI_Ireduce_scatter_block(rsb_in, rsb_out, 2, MPI_INT, MPI_SUM, comm, &q[7]);
    else
        MPI_Ibarrier(comm, &q[7]);
    MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
    int bad = 0;
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < counts[r]; i++) bad += gv[displs[r] + i] != r * 10 + i;
            bad += gv[displs[r] + counts[r]] != -1;
        }
    CHECK(bad == 0, "igatherv");
    bad = sv_in[mc] != -1;
    for (int i = 0; i < mc; i++) bad += sv_in[i] != 5000 + displs[rank] + i;
    CHECK(bad == 0, "iscatterv");
    bad = 0;
    for (int r = 0; r < size; r++) bad += ag[2 * r] != r || ag[2 * r + 1] != -r;
    CHECK(bad == 0, "iallgather");
    bad = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++) bad += agv[displs[r] + i] != r * 10 + i;
    CHECK(bad == 0, "iallgatherv");
    bad = 0;
    for (int r = 0; r < size; r++) bad += a2a_r[r] != r * 100 + rank;
    CHECK(bad == 0, "ialltoall");
    bad = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++) bad += a2av_r[displs[r] + i] != r * 1000 + rank * 10 + i;
    CHECK(bad == 0, "ialltoallv");
    bad = 0;
    for (int r = 0; r < size; r++) bad += a2aw_r[r] != r * 100 + rank;
    CHECK(bad == 0, "ialltoallw");
    CHECK(size > 64 || (rsb_out[0] == size * (size - 1) / 2 + size * 2 * rank &&
                        rsb_out[1] == size * (size - 1) / 2 + size * (2 * rank + 1)),
          "ireduce_scatter_block");

    /* In place: iallreduce, iallgather, ialltoall, igather at the root. */
    int ip[3] = {rank, rank * 2, 7};
    for (int d = 0; d < size; d++) a2a_r[d] = rank * 100 + d, ag[2 * d] = ag[2 * d + 1] = -1;
    ag[2 * rank] = rank, ag[2 * rank + 1] = -rank;
    int *gip = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) gip[i] = i == rank ? rank * 5 : -1;
    MPI_Request p[4];
    MPI_Iallreduce(MPI_IN_PLACE, ip, 3, MPI_INT, MPI_SUM, comm, &p[0]);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 2, MPI_INT, comm, &p[1]);
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a_r, 1, MPI_INT, comm, &p[2]);
    if (rank == 0)
        MPI_Igather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gip, 1, MPI_INT, 0, comm, &p[3]);
    else
        MPI_Igather(&gip[rank], 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, comm, &p[3]);
    int outcount, idx[4], done = 0;
    while (done < 4) {
        MPI_Testsome(4, p, &outcount, idx, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) done += outcount;
    }
    CHECK(ip[0] == size * (size - 1) / 2 && ip[1] == size * (size - 1) && ip[2] == 7 * size,
          "iallreduce in place");
    bad = 0;
    for (int r = 0; r < size; r++) bad += ag[2 * r] != r || ag[2 * r + 1] != -r;
    CHECK(bad == 0, "iallgather in place");
    bad = 0;
    for (int r = 0; r < size; r++) bad += a2a_r[r] != r * 100 + rank;
    CHECK(bad == 0, "ialltoall in place");
    bad = 0;
    if (rank == 0)
        for (int r = 0; r < size; r++) bad += gip[r] != r * 5;
    CHECK(bad == 0, "igather in place");
    free(gip);
    free(counts), free(displs), free(mine), free(gv), free(agv), free(sv_in), free(ag);
    free(a2a_s), free(a2a_r), free(a2av_r), free(a2aw_r), free(a2av_s), free(sdis);
    free(scnt), free(wdis), free(wtypes), free(ones), free(rc_a2av), free(svsend);
}

/* A vector datatype and a user op, both freed before the wait. */
static void freed_before_wait(MPI_Comm comm) {
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int buf[8], out[4];
    for (int i = 0; i < 8; i++) buf[i] = rank == 0 ? i * 11 : -1;
    MPI_Request r[2];
    MPI_Ibcast(buf, 1, every_other, 0, comm, &r[0]);
    MPI_Type_free(&every_other);
    MPI_Op op;
    MPI_Op_create(sum_fn, 1, &op);
    int in[4] = {rank, 1, 2, 3};
    MPI_Iallreduce(in, out, 4, MPI_INT, op, comm, &r[1]);
    MPI_Op_free(&op);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int bad = 0;
    for (int i = 0; i < 8; i++) bad += buf[i] != (i % 2 == 0 || rank == 0 ? i * 11 : -1);
    CHECK(bad == 0, "ibcast of a vector type freed before the wait");
    CHECK(out[0] == size * (size - 1) / 2 && out[3] == 3 * size, "user op freed before the wait");
}

/* An allreduce outstanding while the ranks exchange messages around a
 * ring with blocking calls: the ring's calls must progress it. */
static void progress_in_blocking_calls(MPI_Comm comm) {
    int x = rank + 1, sum = 0, token = -1;
    MPI_Request r;
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &r);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int k = 0; k < 3; k++)
        MPI_Sendrecv(&k, 1, MPI_INT, next, 9, &token, 1, MPI_INT, prev, 9, comm, MPI_STATUS_IGNORE);
    CHECK(token == 2, "ring while a collective is outstanding");
    int flag = 0;
    MPI_Status st;
    while (!flag) MPI_Test(&r, &flag, &st);
    CHECK(sum == size * (size + 1) / 2, "iallreduce completed by tests");
    CHECK(r == MPI_REQUEST_NULL, "test freed the request");
}

/* After MPI_Ibarrier completes on a rank, every rank has started it:
 * rank 0 announces the barrier's start by a message sent before it, and
 * every rank finds that message when its barrier completes. */
static void ibarrier_synchronises(MPI_Comm comm) {
    int flag = 0, v = 42, got = -1;
    MPI_Request r, s = MPI_REQUEST_NULL;
    if (rank == 0)
        for (int d = 1; d < size; d++) MPI_Send(&v, 1, MPI_INT, d, 3, comm);
    MPI_Ibarrier(comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank != 0) {
        MPI_Iprobe(0, 3, comm, &flag, MPI_STATUS_IGNORE);
        while (!flag) MPI_Iprobe(0, 3, comm, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&got, 1, MPI_INT, 0, 3, comm, MPI_STATUS_IGNORE);
    } else {
        got = v;
    }
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    CHECK(got == 42, "message sent before the barrier is there after it");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int k = 0; k < 2; k++) {
        MPI_Comm c = k ? dup : MPI_COMM_WORLD;
        rooted(c);
        section(k ? "rooted and reductions (dup)" : "rooted and reductions");
        all_to_all(c);
        section(k ? "v, w and all-to-all (dup)" : "v, w and all-to-all");
        freed_before_wait(c);
        progress_in_blocking_calls(c);
        ibarrier_synchronises(c);
        section(k ? "freed objects, progress, ibarrier (dup)" : "freed objects, progress, ibarrier");
    }
    /* The same calls on two communicators interleaved. */
    int a = rank, b = 2 * rank, sa = 0, sb = 0;
    MPI_Request r[2];
    MPI_Iallreduce(&a, &sa, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&b, &sb, 1, MPI_INT, MPI_SUM, dup, &r[1]);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(sa == size * (size - 1) / 2 && sb == size * (size - 1), "two communicators interleaved");
    MPI_Comm_free(&dup);
    int code = finish_checks("nonblocking");
    MPI_Finalize();
    return code;
}
