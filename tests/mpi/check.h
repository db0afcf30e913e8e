/* Shared self-checking harness of the tests/mpi programs: CHECK counts a
 * check and reports a failure on stderr; section() prints how many checks
 * a part made on all ranks; finish_checks() prints the summary line the
 * test suite compares ("<name>: N checks passed") and returns the exit
 * code. The including file defines `rank`. */
#ifndef MPINETSIM_CHECK_H
#define MPINETSIM_CHECK_H
#include <mpi.h>
#include <stdio.h>

static int checks, fails;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        checks++;                                                                 \
        if (!(cond)) {                                                            \
            fails++;                                                              \
            fprintf(stderr, "rank %d: check failed at line %d: ", rank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
        }                                                                         \
    } while (0)

static void section(const char *name) {
    static int done;
    int mine = checks - done, all;
    done = checks;
    MPI_Reduce(&mine, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %d checks\n", name, all);
}

/* Sums checks and failures over MPI_COMM_WORLD, prints the summary on rank
 * 0 and returns the program's exit code on every rank. */
static int finish_checks(const char *name) {
    int all[2], mine[2] = {checks, fails};
    MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all[1] == 0)
            printf("%s: %d checks passed\n", name, all[0]);
        else
            printf("%s: %d of %d checks FAILED\n", name, all[1], all[0]);
    }
    MPI_Bcast(all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    return all[1] != 0;
}
#endif
