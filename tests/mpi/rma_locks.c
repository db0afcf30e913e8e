/* Passive-target one-sided communication: every rank increments a
 * counter on rank 0 with MPI_Fetch_and_op under an exclusive lock (and a
 * get-put read-modify-write cycle under an exclusive lock, which loses
 * increments without it), reads every rank's window under shared locks
 * and MPI_Win_lock_all with request-based gets, and puts with
 * MPI_Win_flush inside one epoch. Every rank makes the same number of
 * checks; works for 1..8 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

#include "check.h"

#define ROUNDS 20

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0, mem[2] = 1000 + rank, mem[3] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    /* Counters on rank 0: atomic fetch-and-add and a locked cycle. */
    int one = 1, old, seen_max = -1;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        if (old > seen_max) seen_max = old;
        int v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    CHECK(seen_max >= ROUNDS - 1, "largest value fetched %d", seen_max);
    MPI_Barrier(MPI_COMM_WORLD);
    int counters[2];
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(counters, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK(counters[0] == ROUNDS * size, "fetch-and-op counter %d", counters[0]);
    CHECK(counters[1] == ROUNDS * size, "locked get-put counter %d", counters[1]);
    section("exclusive locks");

    /* Everyone's third int, with request-based gets under lock_all. */
    int *got = malloc(sizeof(int) * size);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * size);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < size; t++) MPI_Rget(&got[t], 1, MPI_INT, t, 2, 1, MPI_INT, win, &reqs[t]);
    MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE);
    MPI_Win_unlock_all(win);
    for (int t = 0; t < size; t++) CHECK(got[t] == 1000 + t, "rget from %d: %d", t, got[t]);
    section("lock_all and Rget");

    /* A put to the next rank, flushed, then read back in the same epoch. */
    int next = (rank + 1) % size, mine = 5000 + rank, back = -7;
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    MPI_Put(&mine, 1, MPI_INT, next, 3, 1, MPI_INT, win);
    MPI_Win_flush(next, win);
    MPI_Get(&back, 1, MPI_INT, next, 3, 1, MPI_INT, win);
    MPI_Win_unlock(next, win);
    CHECK(back == mine, "read back %d", back);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    int prev = (rank + size - 1) % size;
    CHECK(mem[3] == 5000 + prev, "own window %d", mem[3]);
    MPI_Win_unlock(rank, win);
    section("flush");

    /* A dynamic window: every rank attaches two ints and publishes their
     * address; each puts into the next rank's. */
    MPI_Win dyn;
    int *region = malloc(2 * sizeof(int));
    region[0] = region[1] = -1;
    MPI_Aint addr, *addrs = malloc(sizeof(MPI_Aint) * size);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_attach(dyn, region, 2 * sizeof(int));
    MPI_Get_address(region, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    int two[2] = {rank, 7 * rank};
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, dyn);
    MPI_Put(two, 2, MPI_INT, next, addrs[next], 2, MPI_INT, dyn);
    MPI_Win_unlock(next, dyn);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(region[0] == prev && region[1] == 7 * prev, "dynamic window %d %d", region[0], region[1]);
    MPI_Win_detach(dyn, region);
    MPI_Win_free(&dyn);
    free(region);
    free(addrs);
    section("dynamic window");

    free(got);
    free(reqs);
    MPI_Win_free(&win);
    int code = finish_checks("rma_locks");
    MPI_Finalize();
    return code;
}
