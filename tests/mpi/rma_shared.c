/* Self-checking test of shared-memory windows: MPI_Win_allocate_shared on
 * the ranks of one node (MPI_Comm_split_type MPI_COMM_TYPE_SHARED),
 * MPI_Win_shared_query, loads and stores into other ranks' segments
 * between MPI_Win_sync / MPI_Barrier / MPI_Win_sync, MPI_Put and MPI_Get
 * through the window seen by direct loads and stores, MPI_Fetch_and_op on
 * a counter every node rank increments, alloc_shared_noncontig with empty
 * segments (the hint reported by MPI_Win_get_info), and a shared window
 * over MPI_COMM_WORLD (which must fail with MPI_ERR_RMA_SHARED when the
 * world spans several nodes). Natively all
 * ranks share one node; through mpinetsim the ranks of each simulated
 * host. 13 checks per rank whatever the nodes. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, checks, fails;

static void check(int ok, const char *what) {
    checks++;
    if (!ok) {
        fails++;
        fprintf(stderr, "rank %d: check failed: %s\n", rank, what);
    }
}

/* Each node rank r holds 100 * (r + 1) ints. */
static MPI_Aint segment_ints(int r) { return 100 * (MPI_Aint)(r + 1); }

int main(int argc, char **argv) {
    int size, nrank, nsize, flag, *mine, *all, disp_unit;
    MPI_Aint qsize;
    MPI_Comm node;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int next = (nrank + 1) % nsize;

    /* ---- contiguous segments, one after the other ---- */
    MPI_Win_allocate_shared(segment_ints(nrank) * sizeof(int), sizeof(int), MPI_INFO_NULL, node,
                            &mine, &win);
    int contiguous = 1;
    int *first = NULL;
    MPI_Aint before = 0;
    for (int r = 0; r < nsize; r++) {
        int *base;
        MPI_Win_shared_query(win, r, &qsize, &disp_unit, &base);
        if (r == 0)
            first = base;
        contiguous &= qsize == segment_ints(r) * (MPI_Aint)sizeof(int) &&
                      disp_unit == (int)sizeof(int) && base == first + before;
        before += segment_ints(r);
    }
    check(contiguous, "segments lie one after the other with their sizes and units");
    {
        int *base;
        MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &disp_unit, &base);
        check(base == first && qsize == 100 * (MPI_Aint)sizeof(int), "MPI_PROC_NULL names rank 0");
    }
    {
        int *flavor, *unit;
        MPI_Aint *wsize;
        int ok = 1;
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
        check(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "MPI_WIN_CREATE_FLAVOR is shared");
        MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
        ok &= flag && *wsize == segment_ints(nrank) * (MPI_Aint)sizeof(int);
        MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
        ok &= flag && *unit == (int)sizeof(int);
        check(ok, "MPI_WIN_SIZE and MPI_WIN_DISP_UNIT");
        int *base;
        MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
        check(flag && base == mine, "MPI_WIN_BASE is this rank's segment");
    }

    /* ---- loads and stores across the node ---- */
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (MPI_Aint i = 0; i < segment_ints(nrank); i++)
        mine[i] = 1000 * nrank + (int)i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    {
        int *theirs;
        MPI_Win_shared_query(win, next, &qsize, &disp_unit, &theirs);
        int ok = 1;
        for (MPI_Aint i = 0; i < segment_ints(next); i++)
            ok &= theirs[i] == 1000 * next + (int)i;
        check(ok, "the next node rank's stores are seen by loads");
    }
    MPI_Barrier(node);

    /* ---- MPI_Put seen by a load, a store seen by MPI_Get ---- */
    int value = 7000 + nrank, got = -1;
    MPI_Put(&value, 1, MPI_INT, next, 5, 1, MPI_INT, win);
    MPI_Win_flush(next, win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    int prev = (nrank + nsize - 1) % nsize;
    check(mine[5] == 7000 + prev, "a put from the previous node rank is seen by a load");
    mine[7] = 8000 + nrank;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Get(&got, 1, MPI_INT, next, 7, 1, MPI_INT, win);
    MPI_Win_flush(next, win);
    check(got == 8000 + next, "a store of the next node rank is seen by a get");
    MPI_Barrier(node);

    /* ---- an atomic counter in rank 0's segment ---- */
    if (nrank == 0)
        mine[0] = 0;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    int one = 1, old;
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    check(first[0] == nsize && old >= 0 && old < nsize, "every node rank added one to the counter");
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    check(win == MPI_WIN_NULL, "freed window");

    /* ---- non-contiguous segments, the odd ranks' empty ---- */
    {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        MPI_Aint bytes = nrank % 2 ? 0 : 64 * sizeof(double);
        double *seg;
        MPI_Win_allocate_shared(bytes, sizeof(double), info, node, &seg, &win);
        MPI_Info_free(&info);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        for (int i = 0; i < (int)(bytes / sizeof(double)); i++)
            seg[i] = nrank + i / 100.0;
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        int ok = 1;
        for (int r = 0; r < nsize; r++) {
            double *base;
            MPI_Win_shared_query(win, r, &qsize, &disp_unit, &base);
            if (r % 2) {
                ok &= qsize == 0;
            } else {
                ok &= qsize == 64 * (MPI_Aint)sizeof(double);
                for (int i = 0; i < 64; i++)
                    ok &= base[i] == r + i / 100.0;
            }
        }
        check(ok, "non-contiguous segments, empty ones of size 0");
        MPI_Info used;
        char value[MPI_MAX_INFO_VAL + 1];
        int found;
        MPI_Win_get_info(win, &used);
        MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, value, &found);
        check(found && strcmp(value, "true") == 0, "MPI_Win_get_info reports the hint");
        MPI_Info_free(&used);
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }

    /* ---- the whole world: one node natively, maybe several simulated ---- */
    {
        int nodes_everyone = nsize == size, all_one;
        MPI_Allreduce(&nodes_everyone, &all_one, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int err = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                          &all, &win);
        int cls = MPI_SUCCESS;
        MPI_Error_class(err, &cls);
        if (all_one) {
            check(err == MPI_SUCCESS, "a world on one node shares memory");
            if (err == MPI_SUCCESS)
                MPI_Win_free(&win);
        } else {
            check(cls == MPI_ERR_RMA_SHARED, "a world on several nodes cannot share memory");
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    int mine_totals[2] = {checks, fails}, totals[2];
    MPI_Reduce(mine_totals, totals, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (totals[1] == 0)
            printf("rma_shared: %d checks passed\n", totals[0]);
        else
            printf("rma_shared: %d of %d checks FAILED\n", totals[1], totals[0]);
    }
    MPI_Bcast(totals, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return totals[1] != 0;
}
