/* User-defined reduction functions that ask MPI about the datatype they
 * were given (MPI_Type_get_extent, MPI_Type_size, MPI_Type_get_true_extent,
 * MPI_Type_get_envelope), as functions written for derived types do: on a
 * strided vector type and a resized struct type, in MPI_Reduce,
 * MPI_Allreduce, MPI_Iallreduce, MPI_Reduce_scatter_block and MPI_Scan.
 * Compared with native MPICH (gateway/tests/mpi_programs.rs). */
#include <mpi.h>
#include <stdio.h>

static int rank;
#include "check.h"

/* Every call of the function records what the queries answered. */
static MPI_Aint seen_lb = -1, seen_extent = -1, seen_true_lb = -1, seen_true_extent = -1;
static int seen_size = -1, seen_combiner = -1, calls;

/* Sums the ints of each element; the element's layout is learnt from the
 * datatype: `stride` ints apart, `per` ints used. */
static void sum_by_query(void *in, void *inout, int *len, MPI_Datatype *dt) {
    MPI_Aint lb, extent, tlb, textent;
    int size, ni, na, nd, combiner;
    MPI_Type_get_extent(*dt, &lb, &extent);
    MPI_Type_get_true_extent(*dt, &tlb, &textent);
    MPI_Type_size(*dt, &size);
    MPI_Type_get_envelope(*dt, &ni, &na, &nd, &combiner);
    seen_lb = lb, seen_extent = extent, seen_true_lb = tlb, seen_true_extent = textent;
    seen_size = size, seen_combiner = combiner, calls++;
    int stride = (int)(extent / sizeof(int)), per = size / (int)sizeof(int);
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        for (int k = 0; k < per; k++) {
            /* A vector's used ints are 2 apart; a resized contiguous
             * block's are adjacent. */
            int at = i * stride + (combiner == MPI_COMBINER_VECTOR ? 2 * k : k);
            b[at] += a[at];
        }
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op op;
    MPI_Op_create(sum_by_query, 1, &op);

    /* 3 ints 2 apart: extent 5 ints, size 3 ints. */
    MPI_Datatype vec, padded, base;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    /* 2 adjacent ints resized to 4 ints of extent. */
    MPI_Type_contiguous(2, MPI_INT, &base);
    MPI_Type_create_resized(base, 0, 4 * sizeof(int), &padded);
    MPI_Type_commit(&padded);

    enum { N = 4 };
    int in[5 * N], out[5 * N];
    for (int i = 0; i < 5 * N; i++) in[i] = rank + 100 * i, out[i] = -1;
    calls = 0;
    MPI_Allreduce(in, out, N, vec, op, MPI_COMM_WORLD);
    int base_sum = size * (size - 1) / 2;
    for (int e = 0; e < N; e++)
        for (int k = 0; k < 3; k++) {
            int at = 5 * e + 2 * k;
            CHECK(out[at] == base_sum + size * 100 * at, "allreduce vec[%d] = %d", at, out[at]);
        }
    CHECK(size == 1 || calls > 0, "the function ran (%d calls)", calls);
    if (calls > 0) {
        CHECK(seen_lb == 0 && seen_extent == 5 * (MPI_Aint)sizeof(int), "extent %ld", (long)seen_extent);
        CHECK(seen_size == 3 * (int)sizeof(int), "size %d", seen_size);
        CHECK(seen_true_lb == 0 && seen_true_extent == 5 * (MPI_Aint)sizeof(int), "true extent %ld",
              (long)seen_true_extent);
        CHECK(seen_combiner == MPI_COMBINER_VECTOR, "combiner %d", seen_combiner);
    }

    /* The same through the nonblocking form, progressed by MPI_Wait. */
    for (int i = 0; i < 5 * N; i++) out[i] = -1;
    MPI_Request req;
    MPI_Iallreduce(in, out, N, vec, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int e = 0; e < N; e++)
        CHECK(out[5 * e + 4] == base_sum + size * 100 * (5 * e + 4), "iallreduce elem %d", e);

    /* The resized type in MPI_Reduce to the last rank and MPI_Scan. */
    int pin[4 * N], pout[4 * N];
    for (int i = 0; i < 4 * N; i++) pin[i] = rank * (i + 1), pout[i] = -7;
    calls = 0;
    MPI_Reduce(pin, pout, N, padded, op, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) {
        for (int e = 0; e < N; e++)
            for (int k = 0; k < 2; k++) {
                int at = 4 * e + k;
                CHECK(pout[at] == base_sum * (at + 1), "reduce padded[%d] = %d", at, pout[at]);
            }
        if (calls > 0) {
            CHECK(seen_extent == 4 * (MPI_Aint)sizeof(int) && seen_size == 2 * (int)sizeof(int),
                  "resized extent %ld size %d", (long)seen_extent, seen_size);
            CHECK(seen_true_extent == 2 * (MPI_Aint)sizeof(int), "resized true extent %ld",
                  (long)seen_true_extent);
            CHECK(seen_combiner == MPI_COMBINER_RESIZED, "resized combiner %d", seen_combiner);
        }
    }
    for (int i = 0; i < 4 * N; i++) pout[i] = -7;
    MPI_Scan(pin, pout, N, padded, op, MPI_COMM_WORLD);
    for (int e = 0; e < N; e++)
        CHECK(pout[4 * e + 1] == rank * (rank + 1) / 2 * (4 * e + 2), "scan elem %d = %d", e,
              pout[4 * e + 1]);

    /* One vector element per rank from MPI_Reduce_scatter_block. */
    int many[5 * 16], mine[5];
    for (int i = 0; i < 5 * size; i++) many[i] = rank + i;
    MPI_Reduce_scatter_block(many, mine, 1, vec, op, MPI_COMM_WORLD);
    for (int k = 0; k < 3; k++)
        CHECK(mine[2 * k] == base_sum + size * (5 * rank + 2 * k), "reduce_scatter_block %d", k);

    MPI_Type_free(&vec);
    MPI_Type_free(&padded);
    MPI_Type_free(&base);
    MPI_Op_free(&op);
    int code = finish_checks("user_op_queries");
    MPI_Finalize();
    return code;
}
