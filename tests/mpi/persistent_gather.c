/* Persistent gathers whose send buffers change between starts: each start
 * gathers what the buffers hold then (MPI 4.0 §6.13). Run through
 * mpinetsim only (gateway/tests/mpi_programs.rs): Debian's MPICH 4.0.2
 * gathers what the buffers held at the first start. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank;
#include "check.h"

int main(int argc, char **argv) {
    int size, mine;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *g = malloc(sizeof(int) * size), *ag = malloc(sizeof(int) * size);
    MPI_Request r[2];
    MPI_Gather_init(&mine, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Allgather_init(&mine, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    for (int round = 0; round < 3; round++) {
        mine = 10 * rank + round;
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        for (int j = 0; j < size; j++) {
            if (rank == 0) CHECK(g[j] == 10 * j + round, "round %d gather[%d] = %d", round, j, g[j]);
            CHECK(ag[j] == 10 * j + round, "round %d allgather[%d] = %d", round, j, ag[j]);
        }
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    free(g), free(ag);
    int code = finish_checks("persistent_gather");
    MPI_Finalize();
    return code;
}
