/* Process topologies and neighbourhood collectives.
 *
 * - MPI_Dims_create on thousands of inputs: rank 0 prints a digest of the
 *   results per number of dimensions (so native MPICH and mpinetsim must
 *   agree on every single one) and a few results in full; every rank checks
 *   products, order and given dimensions, and the error classes.
 * - A Cartesian grid (MPI_Dims_create(size, 2), periodic in the first
 *   dimension): coordinates, ranks, shifts, sub-grids, maps, dup, a grid
 *   of zero dimensions and a grid too large.
 * - A ring graph, a weighted distributed graph given adjacently, and one
 *   given edge by edge by rank 0 (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY).
 * - MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v,w), and their
 *   nonblocking forms, on the grid, a column of it, the ring and the
 *   adjacent graph (on the star, whose order of in-neighbours MPICH does
 *   not fix, an allgather as a set): every block is checked against the
 *   neighbour that sent it. Where two edges join the same two processes (a
 *   periodic dimension of 2, a ring of 2) MPICH pairs the blocks of
 *   MPI_Neighbor_alltoall last-to-first and those of the v and w forms
 *   first-to-first; the checks expect exactly that.
 *
 * Works for 2..8 ranks (any number of ranks, in fact). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

#define MAXDEG 16

/* Runs a neighbourhood collective in its blocking form, or in its
 * nonblocking form followed by MPI_Wait, as `nonblocking` says. */
static int nonblocking;
#define NEIGHBOR(blocking, started, ...)                \
    do {                                                \
        if (nonblocking) {                              \
            MPI_Request req_;                           \
            started(__VA_ARGS__, &req_);                \
            MPI_Wait(&req_, MPI_STATUS_IGNORE);         \
        } else {                                        \
            blocking(__VA_ARGS__);                      \
        }                                               \
    } while (0)

static unsigned long long mix(unsigned long long h, long long v) {
    return (h ^ (unsigned long long)v) * 1099511628211ULL;
}

static int error_class(int code) {
    int c;
    MPI_Error_class(code, &c);
    return c;
}

static void dims_create(void) {
    for (int nd = 1; nd <= 5; nd++) {
        unsigned long long h = 14695981039346656037ULL;
        for (int n = 1; n <= 1500; n++) {
            int d[5] = {0, 0, 0, 0, 0};
            MPI_Dims_create(n, nd, d);
            long long prod = 1;
            int ordered = 1;
            for (int i = 0; i < nd; i++) {
                prod *= d[i];
                if (i > 0 && d[i] > d[i - 1]) ordered = 0;
                h = mix(h, d[i]);
            }
            if (n % 97 == 0) CHECK(prod == n && ordered, "dims_create(%d, %d)", n, nd);
        }
        if (rank == 0) printf("dims_create nd=%d digest=%016llx\n", nd, h);
    }
    /* A few large and awkward inputs in full. */
    int big[][2] = {{2147483646, 3}, {1927369800, 5}, {1920053800, 4}, {360, 3}, {1000000007, 2}, {65536, 6}};
    for (unsigned k = 0; k < sizeof big / sizeof big[0]; k++) {
        int d[6] = {0};
        MPI_Dims_create(big[k][0], big[k][1], d);
        if (rank == 0) {
            printf("dims_create(%d, %d) =", big[k][0], big[k][1]);
            for (int i = 0; i < big[k][1]; i++) printf(" %d", d[i]);
            printf("\n");
        }
    }
    int given[3] = {0, 3, 0};
    MPI_Dims_create(24, 3, given);
    CHECK(given[0] == 4 && given[1] == 3 && given[2] == 2, "given dims: %d %d %d", given[0], given[1], given[2]);
    int all[2] = {2, 5};
    MPI_Dims_create(10, 2, all);
    CHECK(all[0] == 2 && all[1] == 5, "all dims given");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {0, 3};
    CHECK(error_class(MPI_Dims_create(10, 2, bad)) == MPI_ERR_DIMS, "10 over a given 3");
    int neg[2] = {-1, 0};
    CHECK(error_class(MPI_Dims_create(10, 2, neg)) == MPI_ERR_DIMS, "negative dims");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* This process's in- and out-neighbours in `comm`'s topology. */
static void neighbours(MPI_Comm comm, int *nin, int *in, int *nout, int *out) {
    int kind;
    MPI_Topo_test(comm, &kind);
    if (kind == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        for (int d = 0; d < nd; d++) MPI_Cart_shift(comm, d, 1, &in[2 * d], &in[2 * d + 1]);
        *nin = *nout = 2 * nd;
        memcpy(out, in, sizeof(int) * *nin);
    } else if (kind == MPI_GRAPH) {
        int r;
        MPI_Comm_rank(comm, &r);
        MPI_Graph_neighbors_count(comm, r, nin);
        MPI_Graph_neighbors(comm, r, MAXDEG, in);
        *nout = *nin;
        memcpy(out, in, sizeof(int) * *nin);
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(comm, nin, nout, &w);
        MPI_Dist_graph_neighbors(comm, MAXDEG, in, MPI_UNWEIGHTED, MAXDEG, out, MPI_UNWEIGHTED);
    }
}

/* Which block of `from`'s send buffer lands in slot `slot` (whose
 * in-neighbour is `from`): the k-th of this process's slots from `from`
 * pairs with the k-th block `from` sends here, or (reversed) with the
 * k-th from the end. `outs` holds every process's out-neighbours. */
static int block_for(int me, int slot, const int *in, int from, const int *outs, const int *nouts, int reversed) {
    int k = 0, a = 0;
    for (int j = 0; j < MAXDEG && in[j] != -99; j++) {
        if (in[j] != from) continue;
        if (j < slot) k++;
        a++;
    }
    if (reversed) k = a - 1 - k;
    for (int b = 0; b < nouts[from]; b++)
        if (outs[from * MAXDEG + b] == me && k-- == 0) return b;
    return -1;
}

static void neighbourhood_once(MPI_Comm comm, const char *what) {
    int in[MAXDEG + 1], out[MAXDEG + 1], nin, nout, me, wrank;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int full;
    MPI_Comm_size(comm, &full);
    if (full == size) CHECK(me == wrank, "%s: reordering is the identity", what);
    for (int i = 0; i <= MAXDEG; i++) in[i] = out[i] = -99;
    neighbours(comm, &nin, in, &nout, out);
    in[nin] = -99;
    int outs[8 * MAXDEG * 8], nouts[64];
    int mine[MAXDEG];
    for (int i = 0; i < MAXDEG; i++) mine[i] = i < nout ? out[i] : -99;
    MPI_Allgather(mine, MAXDEG, MPI_INT, outs, MAXDEG, MPI_INT, comm);
    MPI_Allgather(&nout, 1, MPI_INT, nouts, 1, MPI_INT, comm);

    /* allgather: every neighbour's rank and its square. */
    int two[2] = {me, me * me}, got[2 * MAXDEG];
    for (int i = 0; i < 2 * MAXDEG; i++) got[i] = -1;
    NEIGHBOR(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, two, 2, MPI_INT, got, 2, MPI_INT, comm);
    for (int k = 0; k < nin; k++) {
        int n = in[k];
        int want0 = n == MPI_PROC_NULL ? -1 : n, want1 = n == MPI_PROC_NULL ? -1 : n * n;
        CHECK(got[2 * k] == want0 && got[2 * k + 1] == want1, "%s allgather slot %d: %d %d", what, k, got[2 * k],
              got[2 * k + 1]);
    }

    /* allgatherv: blocks placed last slot first. */
    int counts[MAXDEG], displs[MAXDEG];
    for (int k = 0; k < nin; k++) {
        counts[k] = 2;
        displs[k] = 2 * (nin - 1 - k);
    }
    for (int i = 0; i < 2 * MAXDEG; i++) got[i] = -1;
    NEIGHBOR(MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv, two, 2, MPI_INT, got, counts, displs, MPI_INT, comm);
    for (int k = 0; k < nin; k++) {
        int n = in[k], at = displs[k];
        int want = n == MPI_PROC_NULL ? -1 : n;
        CHECK(got[at] == want, "%s allgatherv slot %d: %d", what, k, got[at]);
    }

    /* alltoall: block b of process p holds 1000 p + b. */
    int sbuf[MAXDEG], rbuf[MAXDEG];
    for (int b = 0; b < nout; b++) sbuf[b] = 1000 * me + b;
    for (int k = 0; k < MAXDEG; k++) rbuf[k] = -1;
    NEIGHBOR(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm);
    for (int k = 0; k < nin; k++) {
        int n = in[k];
        int want = n == MPI_PROC_NULL ? -1 : 1000 * n + block_for(me, k, in, n, outs, nouts, 1);
        CHECK(rbuf[k] == want, "%s alltoall slot %d: %d, want %d", what, k, rbuf[k], want);
    }

    /* alltoallv: block b of process p holds (b % 3 + 1) copies of
     * 1000 p + b, all blocks the same length (3) so that any pairing fits. */
    int sv[3 * MAXDEG], rv[3 * MAXDEG], sc[MAXDEG], sd[MAXDEG], rc[MAXDEG], rd[MAXDEG];
    for (int b = 0; b < nout; b++) {
        sc[b] = 3;
        sd[b] = 3 * (nout - 1 - b);
        for (int i = 0; i < 3; i++) sv[sd[b] + i] = 1000 * me + b + 100 * i;
    }
    for (int k = 0; k < nin; k++) {
        rc[k] = 3;
        rd[k] = 3 * k;
    }
    for (int i = 0; i < 3 * MAXDEG; i++) rv[i] = -1;
    NEIGHBOR(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, comm);
    for (int k = 0; k < nin; k++) {
        int n = in[k], b = n == MPI_PROC_NULL ? 0 : block_for(me, k, in, n, outs, nouts, 0);
        for (int i = 0; i < 3; i++) {
            int want = n == MPI_PROC_NULL ? -1 : 1000 * n + b + 100 * i;
            CHECK(rv[3 * k + i] == want, "%s alltoallv slot %d[%d]: %d, want %d", what, k, i, rv[3 * k + i], want);
        }
    }

    /* alltoallw: each block one int sent as MPI_INT, received as a
     * resized int type, at byte displacements. */
    MPI_Datatype st[MAXDEG], rt[MAXDEG], wide;
    MPI_Type_create_resized(MPI_INT, 0, 8, &wide);
    MPI_Type_commit(&wide);
    MPI_Aint sdb[MAXDEG], rdb[MAXDEG];
    int one[MAXDEG];
    for (int b = 0; b < nout; b++) {
        st[b] = MPI_INT;
        one[b] = 1;
        sdb[b] = 4 * b;
    }
    for (int k = 0; k < nin; k++) {
        rt[k] = wide;
        rdb[k] = 8 * k;
    }
    for (int k = 0; k < 2 * MAXDEG; k++) got[k] = -1;
    NEIGHBOR(MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw, sbuf, one, sdb, st, got, one, rdb, rt, comm);
    for (int k = 0; k < nin; k++) {
        int n = in[k];
        int want = n == MPI_PROC_NULL ? -1 : 1000 * n + block_for(me, k, in, n, outs, nouts, 0);
        CHECK(got[2 * k] == want && got[2 * k + 1] == -1, "%s alltoallw slot %d: %d, want %d", what, k, got[2 * k],
              want);
    }
    MPI_Type_free(&wide);
}

/* Every neighbourhood collective on `comm`, blocking then nonblocking. */
static void neighbourhood(MPI_Comm comm, const char *what) {
    for (nonblocking = 0; nonblocking < 2; nonblocking++) neighbourhood_once(comm, what);
}

static void cartesian(void) {
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    int kind, nd, gd[2], gp[2], gc[2];
    MPI_Topo_test(cart, &kind);
    MPI_Cartdim_get(cart, &nd);
    CHECK(kind == MPI_CART && nd == 2, "cart: kind %d ndims %d", kind, nd);
    MPI_Cart_get(cart, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0, "cart_get");
    CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1], "row-major coordinates %d %d", gc[0], gc[1]);
    for (int r = 0; r < size; r++) {
        int back;
        MPI_Cart_coords(cart, r, 2, coords);
        MPI_Cart_rank(cart, coords, &back);
        CHECK(back == r && coords[0] == r / dims[1], "coords of %d", r);
    }
    /* A periodic dimension wraps, the other has edges. */
    int src, dst, c[2] = {gc[0], gc[1]}, want;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    c[0] = (gc[0] + dims[0] - 1) % dims[0];
    MPI_Cart_rank(cart, c, &want);
    CHECK(src == want, "shift 0 source");
    c[0] = gc[0] - dims[0] - 1;
    MPI_Cart_rank(cart, c, &want);
    CHECK(dst != MPI_PROC_NULL && want == src, "coordinates wrap: %d %d", want, src);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    CHECK((gc[1] == 0) == (src == MPI_PROC_NULL) && (gc[1] == dims[1] - 1) == (dst == MPI_PROC_NULL),
          "edges of the non-periodic dimension");
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    c[0] = 0;
    c[1] = dims[1];
    CHECK(error_class(MPI_Cart_rank(cart, c, &want)) == MPI_ERR_ARG, "outside a non-periodic dimension");
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_ARE_FATAL);
    /* Sub-grids: rows keep dimension 1, columns dimension 0. */
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0}, rs, rr, cs, cr;
    MPI_Comm row, col;
    MPI_Cart_sub(cart, keep_row, &row);
    MPI_Cart_sub(cart, keep_col, &col);
    MPI_Comm_size(row, &rs);
    MPI_Comm_rank(row, &rr);
    MPI_Comm_size(col, &cs);
    MPI_Comm_rank(col, &cr);
    CHECK(rs == dims[1] && rr == gc[1] && cs == dims[0] && cr == gc[0], "sub-grids");
    int sum;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    CHECK(sum == dims[1] * gc[0] * dims[1] + dims[1] * (dims[1] - 1) / 2, "a row's sum %d", sum);
    MPI_Cartdim_get(col, &nd);
    MPI_Cart_get(col, 1, gd, gp, gc);
    CHECK(nd == 1 && gd[0] == dims[0] && gp[0] == 1, "a column is a periodic line");
    /* Dup keeps the grid; a map keeps the rank. */
    MPI_Comm dup;
    MPI_Comm_dup(cart, &dup);
    MPI_Topo_test(dup, &kind);
    MPI_Cart_get(dup, 2, gd, gp, gc);
    CHECK(kind == MPI_CART && gd[0] == dims[0] && gp[0] == 1, "dup keeps the grid");
    int line = size - 1, newrank;
    MPI_Cart_map(MPI_COMM_WORLD, 1, &line, periods, &newrank);
    CHECK(newrank == (rank < size - 1 ? rank : MPI_UNDEFINED), "cart_map: %d", newrank);
    neighbourhood(cart, "cart");
    neighbourhood(col, "column");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Comm_free(&cart);
    /* A grid of zero dimensions is rank 0 alone; one too large fails. */
    MPI_Comm zero;
    MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero);
    CHECK((rank == 0) == (zero != MPI_COMM_NULL), "zero dimensions");
    if (zero != MPI_COMM_NULL) {
        int zs;
        MPI_Comm_size(zero, &zs);
        MPI_Cartdim_get(zero, &nd);
        CHECK(zs == 1 && nd == 0, "zero-dimensional grid");
        MPI_Comm_free(&zero);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int toolarge = size + 1;
    MPI_Comm none;
    CHECK(error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &toolarge, periods, 0, &none)) == MPI_ERR_ARG,
          "a grid larger than the communicator");
    CHECK(error_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst)) == MPI_ERR_TOPOLOGY,
          "no grid on MPI_COMM_WORLD");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void graphs(void) {
    /* A ring: node i's neighbours are i + 1 and i - 1. */
    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % size;
        edges[2 * i + 1] = (i + size - 1) % size;
    }
    MPI_Comm ring;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &ring);
    int kind, nnodes, nedges, n, nb[2];
    MPI_Topo_test(ring, &kind);
    MPI_Graphdims_get(ring, &nnodes, &nedges);
    CHECK(kind == MPI_GRAPH && nnodes == size && nedges == 2 * size, "graph dims");
    int gi[64], ge[128];
    MPI_Graph_get(ring, size, 2 * size, gi, ge);
    CHECK(gi[size - 1] == 2 * size && ge[1] == size - 1, "graph_get");
    MPI_Graph_neighbors_count(ring, (rank + 1) % size, &n);
    MPI_Graph_neighbors(ring, (rank + 1) % size, 2, nb);
    CHECK(n == 2 && nb[0] == (rank + 2) % size && nb[1] == rank, "neighbours of the next node");
    int newrank;
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank);
    CHECK(newrank == rank, "graph_map");
    neighbourhood(ring, "ring");
    MPI_Comm_free(&ring);

    /* A weighted graph: edges to i + 1 and i + 2, weight 10 i + k. */
    int src[2] = {(rank + size - 1) % size, (rank + size - 2) % size};
    int sw[2] = {10 * src[0], 10 * src[1] + 1};
    int dst[2] = {(rank + 1) % size, (rank + 2) % size};
    int dw[2] = {10 * rank, 10 * rank + 1};
    MPI_Comm adj;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, &adj);
    int indeg, outdeg, weighted, gs[2], gsw[2], gdst[2], gdw[2];
    MPI_Topo_test(adj, &kind);
    MPI_Dist_graph_neighbors_count(adj, &indeg, &outdeg, &weighted);
    MPI_Dist_graph_neighbors(adj, 2, gs, gsw, 2, gdst, gdw);
    CHECK(kind == MPI_DIST_GRAPH && indeg == 2 && outdeg == 2 && weighted, "adjacent graph counts");
    CHECK(gs[1] == src[1] && gsw[1] == sw[1] && gdst[0] == dst[0] && gdw[1] == dw[1], "adjacent graph edges");
    neighbourhood(adj, "adjacent graph");
    MPI_Comm_free(&adj);

    /* Rank 0 names every edge of a star: i -> 0 and 0 -> i, unweighted. */
    int sources[64], degrees[64], dests[64], k = 0;
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            sources[k] = i;
            degrees[k] = 1;
            dests[k++] = 0;
        }
        sources[k] = 0;
        degrees[k] = size - 1;
        for (int i = 1; i < size; i++) dests[k - 1 + i] = i;
        k++;
    }
    MPI_Comm star;
    MPI_Dist_graph_create(MPI_COMM_WORLD, k, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &star);
    MPI_Dist_graph_neighbors_count(star, &indeg, &outdeg, &weighted);
    int want = rank == 0 ? size - 1 : 1;
    CHECK(indeg == want && outdeg == want && !weighted, "star degrees %d %d", indeg, outdeg);
    int ins[64], outs[64], seen = 0;
    MPI_Dist_graph_neighbors(star, 64, ins, MPI_UNWEIGHTED, 64, outs, MPI_UNWEIGHTED);
    for (int i = 0; i < indeg; i++) seen |= 1 << ins[i];
    CHECK(seen == (rank == 0 ? (1 << size) - 2 : 1), "star in-neighbours %x", seen);
    /* Slots come in an order MPICH does not fix: compare as a set. */
    int got[64];
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, star);
    seen = 0;
    for (int i = 0; i < indeg; i++) seen |= 1 << got[i];
    CHECK(seen == (rank == 0 ? (1 << size) - 2 : 1), "star allgather %x", seen);
    MPI_Comm_free(&star);

    /* Weighted with MPI_WEIGHTS_EMPTY where a rank names nothing. */
    int s1 = 0, d1 = 1 % size, w1 = 7, one = 1;
    MPI_Comm empty;
    if (rank == 0)
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s1, &one, &d1, &w1, MPI_INFO_NULL, 0, &empty);
    else
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &empty);
    MPI_Dist_graph_neighbors_count(empty, &indeg, &outdeg, &weighted);
    CHECK(weighted && indeg == (rank == 1 % size ? 1 : 0), "weights empty: %d %d", weighted, indeg);
    MPI_Comm_free(&empty);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims_create();
    section("dims_create");
    cartesian();
    section("cartesian");
    graphs();
    section("graphs");
    int code = finish_checks("topology");
    MPI_Finalize();
    return code;
}
