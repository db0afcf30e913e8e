/* One-sided traffic on the wire (2 ranks): between two fences, rank 0
 * puts 16 ints into rank 1's window at displacement 32, gets 16 ints
 * from displacement 0, accumulates 4 ints with MPI_SUM at displacement 4
 * and fetches-and-maxes one int at displacement 0. Prints "ok" per rank
 * when the window and the results hold what they must. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, *win_mem, v[16], got[16], old = -1, ok = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    for (int i = 0; i < 64; i++) win_mem[i] = i;
    for (int i = 0; i < 16; i++) v[i] = 100 + i, got[i] = -1;
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(v, 16, MPI_INT, 1, 32, 16, MPI_INT, win);
        MPI_Get(got, 16, MPI_INT, 1, 0, 16, MPI_INT, win);
        MPI_Accumulate(v, 4, MPI_INT, 1, 4, 4, MPI_INT, MPI_SUM, win);
        MPI_Fetch_and_op(&v[15], &old, MPI_INT, 1, 0, MPI_MAX, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0) {
        for (int i = 0; i < 16; i++) ok &= got[i] == i;
        ok &= old == 0;
    } else {
        for (int i = 0; i < 16; i++) ok &= win_mem[32 + i] == 100 + i;
        for (int i = 0; i < 4; i++) ok &= win_mem[4 + i] == 4 + i + 100 + i;
        ok &= win_mem[0] == 115;
    }
    printf("rank %d %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
