/* MPI 4.0's large-count `_c` routines: point-to-point (blocking,
 * nonblocking, persistent, sendrecv), collectives (blocking, nonblocking,
 * persistent, v-variants with MPI_Count counts and MPI_Aint
 * displacements), datatypes whose sizes exceed an int (sizes, extents,
 * pack sizes, element counts: the classic routines answer MPI_UNDEFINED;
 * envelopes and contents of large-count constructors),
 * MPI_Op_create_c and one-sided MPI_Put_c/MPI_Get_c. Compared with native
 * MPICH on 2, 4 and 8 ranks (gateway/tests/mpi_programs.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank;
#include "check.h"

/* Sums with an MPI_Count length. */
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) {
    (void) dt;
    for (MPI_Count i = 0; i < *len; i++) ((long long *) inout)[i] += ((long long *) in)[i];
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* Point-to-point around a ring. */
    enum { N = 1 << 16 };
    int *out = malloc(sizeof(int) * N), *in = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) out[i] = rank * N + i, in[i] = -1;
    MPI_Request rq[2];
    MPI_Status st, sts[2];
    MPI_Irecv_c(in, (MPI_Count) N, MPI_INT, prev, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend_c(out, (MPI_Count) N, MPI_INT, next, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= in[i] == prev * N + i;
    CHECK(ok, "ring data");
    MPI_Count got = -1;
    MPI_Sendrecv_c(out, 7, MPI_INT, next, 2, in, N, MPI_INT, prev, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count_c(&st, MPI_INT, &got);
    CHECK(got == 7 && in[6] == prev * N + 6, "sendrecv count %lld", (long long) got);
    MPI_Send_init_c(out, 3, MPI_INT, next, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Recv_init_c(in, 3, MPI_INT, prev, 3, MPI_COMM_WORLD, &rq[0]);
    for (int round = 0; round < 2; round++) {
        out[0] = 100 * round + rank;
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, sts);
        CHECK(in[0] == 100 * round + prev, "persistent round %d got %d", round, in[0]);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    if (rank == 0) MPI_Send_c(out, 5, MPI_INT, size - 1, 4, MPI_COMM_WORLD);
    if (rank == size - 1) {
        MPI_Recv_c(in, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, &st);
        MPI_Get_elements_c(&st, MPI_INT, &got);
        CHECK(got == 5, "elements %lld", (long long) got);
    }
    section("point-to-point");

    /* Collectives. */
    long long v = rank + 1, total = 0;
    MPI_Allreduce_c(&v, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == (long long) size * (size + 1) / 2, "allreduce %lld", total);
    MPI_Op op;
    MPI_Op_create_c(sum_c, 1, &op);
    long long pair[2] = {rank, 2 * rank}, sums[2] = {0, 0};
    MPI_Reduce_c(pair, sums, 2, MPI_LONG_LONG, op, 0, MPI_COMM_WORLD);
    if (rank == 0) CHECK(sums[0] == (long long) size * (size - 1) / 2 && sums[1] == 2 * sums[0], "user op %lld %lld", sums[0], sums[1]);
    long long local[2] = {1, 1};
    MPI_Reduce_local_c(pair, local, 2, MPI_LONG_LONG, op);
    CHECK(local[0] == rank + 1 && local[1] == 2 * rank + 1, "reduce_local");
    MPI_Op_free(&op);
    int b[4] = {rank, rank, rank, rank};
    MPI_Request r;
    MPI_Ibcast_c(b, 4, MPI_INT, size - 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(b[0] == size - 1 && b[3] == size - 1, "ibcast %d", b[0]);
    /* Alltoallv: rank j gets j + 1 values from each rank, at 3 * j apart. */
    MPI_Count *sc = malloc(sizeof(MPI_Count) * size), *rc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * size), *rd = malloc(sizeof(MPI_Aint) * size);
    int *sb = malloc(sizeof(int) * 16 * size), *rb = malloc(sizeof(int) * 16 * size);
    for (int j = 0; j < size; j++) {
        sc[j] = j + 1, sd[j] = 16 * j;
        rc[j] = rank + 1, rd[j] = 16 * j;
        for (int k = 0; k < 16; k++) sb[16 * j + k] = 1000 * rank + 10 * j + k, rb[16 * j + k] = -1;
    }
    MPI_Alltoallv_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < size; j++)
        for (int k = 0; k < 16; k++) ok &= rb[16 * j + k] == (k <= rank ? 1000 * j + 10 * rank + k : -1);
    CHECK(ok, "alltoallv");
    int *all = malloc(sizeof(int) * size);
    MPI_Allgather_init_c(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    ok = 1;
    for (int j = 0; j < size; j++) ok &= all[j] == j;
    CHECK(ok, "persistent allgather");
    MPI_Request_free(&r);
    section("collectives");

    /* Datatypes larger than an int can describe. */
    MPI_Datatype big, vec;
    MPI_Count bytes = 3000000000LL, tsize, lb, extent;
    MPI_Type_contiguous_c(bytes, MPI_CHAR, &big);
    MPI_Type_commit(&big);
    MPI_Type_size_c(big, &tsize);
    MPI_Type_get_extent_c(big, &lb, &extent);
    CHECK(tsize == bytes && lb == 0 && extent == bytes, "contiguous size %lld extent %lld", (long long) tsize, (long long) extent);
    int isize;
    MPI_Type_size(big, &isize);
    CHECK(isize == MPI_UNDEFINED, "classic size %d", isize);
    MPI_Type_vector_c(3, 1000000000LL, 2000000000LL, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_size_c(vec, &tsize);
    MPI_Type_get_true_extent_c(vec, &lb, &extent);
    CHECK(tsize == 12000000000LL && extent == 4 * (2 * 2000000000LL + 1000000000LL), "vector size %lld extent %lld", (long long) tsize, (long long) extent);
    MPI_Count psize;
    MPI_Pack_size_c(2, big, MPI_COMM_WORLD, &psize);
    CHECK(psize >= 2 * bytes, "pack size %lld", (long long) psize);
    MPI_Status_set_elements_x(&st, MPI_BYTE, bytes);
    MPI_Get_count_c(&st, MPI_BYTE, &got);
    MPI_Get_count(&st, MPI_BYTE, &isize);
    CHECK(got == bytes && isize == MPI_UNDEFINED, "get_count %lld / %d", (long long) got, isize);
    MPI_Type_free(&big);
    MPI_Type_free(&vec);
    MPI_Count blens[2] = {2, 1}, displs[2] = {4, 0};
    MPI_Datatype idx;
    MPI_Type_indexed_c(2, blens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    int src[6] = {10, 11, 12, 13, 14, 15}, dst[6] = {0, 0, 0, 0, 0, 0};
    char packed[64];
    MPI_Count pos = 0;
    MPI_Pack_c(src, 1, idx, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    CHECK(pos == 12, "packed %lld bytes", (long long) pos);
    pos = 0;
    MPI_Unpack_c(packed, sizeof packed, &pos, dst, 1, idx, MPI_COMM_WORLD);
    CHECK(dst[4] == 14 && dst[5] == 15 && dst[0] == 10 && dst[1] == 0, "unpacked");
    /* Envelopes: a large-count constructor's arguments are large counts. */
    MPI_Count ni, na, nl, nd;
    int comb, ints[4];
    MPI_Count large[8];
    MPI_Aint addrs[4];
    MPI_Datatype types[2];
    MPI_Type_get_envelope_c(idx, &ni, &na, &nl, &nd, &comb);
    MPI_Type_get_contents_c(idx, ni, na, nl, nd, ints, addrs, large, types);
    CHECK(ni == 0 && na == 0 && nl == 5 && nd == 1 && comb == MPI_COMBINER_INDEXED && large[0] == 2 &&
              large[1] == 2 && large[2] == 1 && large[3] == 4 && large[4] == 0 && types[0] == MPI_INT,
          "indexed_c envelope %lld %lld %lld %lld", (long long) ni, (long long) na, (long long) nl, (long long) nd);
    int cni, cna, cnd;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_get_envelope(idx, &cni, &cna, &cnd, &comb) != MPI_SUCCESS, "classic envelope of a large type");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Datatype classic_vec;
    MPI_Type_vector(2, 3, 4, MPI_INT, &classic_vec);
    MPI_Type_get_envelope_c(classic_vec, &ni, &na, &nl, &nd, &comb);
    MPI_Type_get_contents_c(classic_vec, ni, na, nl, nd, ints, addrs, large, types);
    CHECK(ni == 3 && nl == 0 && comb == MPI_COMBINER_VECTOR && ints[0] == 2 && ints[1] == 3 && ints[2] == 4,
          "classic vector envelope_c");
    MPI_Type_free(&classic_vec);
    MPI_Type_free(&idx);
    section("datatypes");

    /* One-sided. */
    int *wmem, w = -1;
    MPI_Win win;
    MPI_Win_allocate_c(sizeof(int) * 4, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
    for (int k = 0; k < 4; k++) wmem[k] = -1;
    MPI_Win_fence(0, win);
    int mine = 7 * rank;
    MPI_Put_c(&mine, 1, MPI_INT, next, 2, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get_c(&w, 1, MPI_INT, prev, 2, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(wmem[2] == 7 * prev && w == 7 * ((prev + size - 1) % size), "put %d get %d", wmem[2], w);
    MPI_Win_free(&win);
    section("one-sided");

    int failed = finish_checks("large_count");
    free(out), free(in), free(sc), free(rc), free(sd), free(rd), free(sb), free(rb), free(all);
    MPI_Finalize();
    return failed;
}
