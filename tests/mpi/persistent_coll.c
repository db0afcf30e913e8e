/* MPI 4.0 persistent collectives: each request is initialised once and
 * started several times with new data in the same buffers; MPI_Startall;
 * ranks starting two of them in different orders (the init calls order
 * them); a neighbourhood collective on a periodic ring; MPI_Request_free
 * of inactive requests. Compared with native MPICH on 2, 4 and 8 ranks
 * (gateway/tests/mpi_programs.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank;
#include "check.h"

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int b[3], mine, sum, root = size - 1;
    int *all = malloc(sizeof(int) * size), *gat = malloc(sizeof(int) * size);
    int *a2a = malloc(sizeof(int) * size);
    int *rsb_in = malloc(sizeof(int) * size), rsb_out;
    MPI_Request r[6];
    MPI_Bcast_init(b, 3, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Alltoall_init(a2a, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    /* (Not MPI_Gather_init nor MPI_Allgather_init: Debian's MPICH 4.0.2
     * gathers what the send buffers held at the first start.) */
    MPI_Reduce_init(a2a, gat, size, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    MPI_Reduce_scatter_block_init(rsb_in, &rsb_out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &r[4]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[5]);

    for (int round = 0; round < 3; round++) {
        /* One at a time. */
        for (int k = 0; k < 3; k++) b[k] = rank == root ? 10 * round + k : -1;
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        for (int k = 0; k < 3; k++) CHECK(b[k] == 10 * round + k, "round %d bcast[%d] = %d", round, k, b[k]);
        CHECK(r[0] != MPI_REQUEST_NULL, "the persistent request stays");

        mine = rank + round;
        MPI_Start(&r[1]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        CHECK(sum == size * (size - 1) / 2 + size * round, "round %d allreduce %d", round, sum);

        /* Several at once. */
        for (int j = 0; j < size; j++) a2a[j] = 1000 * rank + 10 * j + round, rsb_in[j] = rank * j + round;
        MPI_Startall(2, &r[2]);
        MPI_Waitall(2, &r[2], MPI_STATUSES_IGNORE);
        for (int j = 0; j < size; j++)
            CHECK(all[j] == 1000 * j + 10 * rank + round, "round %d alltoall[%d] = %d", round, j, all[j]);
        if (rank == 0)
            for (int j = 0; j < size; j++)
                CHECK(gat[j] == 1000 * (size - 1) + 10 * j + round, "round %d reduce[%d] = %d", round, j, gat[j]);

        /* Different orders on different ranks. */
        if (rank % 2 == 0) {
            MPI_Start(&r[4]);
            MPI_Start(&r[5]);
        } else {
            MPI_Start(&r[5]);
            MPI_Start(&r[4]);
        }
        MPI_Waitall(2, &r[4], MPI_STATUSES_IGNORE);
        CHECK(rsb_out == (size - 1) * rank + round, "round %d reduce_scatter_block %d", round, rsb_out);
    }

    /* A neighbourhood collective on a periodic ring. */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1}, sendv[2], recvv[2];
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Request nr;
    MPI_Neighbor_alltoall_init(sendv, 1, MPI_INT, recvv, 1, MPI_INT, ring, MPI_INFO_NULL, &nr);
    for (int round = 0; round < 2; round++) {
        sendv[0] = 100 * rank + round; /* to the left neighbour */
        sendv[1] = 100 * rank + 50 + round; /* to the right one */
        MPI_Start(&nr);
        MPI_Wait(&nr, MPI_STATUS_IGNORE);
        int left = (rank + size - 1) % size, right = (rank + 1) % size;
        CHECK(recvv[0] == 100 * left + 50 + round, "ring from left %d", recvv[0]);
        CHECK(recvv[1] == 100 * right + round, "ring from right %d", recvv[1]);
    }
    MPI_Request_free(&nr);
    CHECK(nr == MPI_REQUEST_NULL, "freed");
    MPI_Comm_free(&ring);

    for (int k = 0; k < 6; k++) MPI_Request_free(&r[k]);
    free(all), free(gat), free(a2a), free(rsb_in);
    int code = finish_checks("persistent_coll");
    MPI_Finalize();
    return code;
}
