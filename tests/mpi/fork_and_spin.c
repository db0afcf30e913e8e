/* Every rank forks a child that sleeps, writes "<rank pid> <child pid>"
 * and on a second line $MPINETSIM_SOCKET (empty when not set) into
 * DIR/rank-<r> (argument 1), and then either computes outside MPI
 * forever (argument 2 "spin") or calls MPI_Finalize and exits, leaving
 * its child behind ("finalize"). For tests that a job's processes and
 * what they start never outlive mpinetsim. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank;
    char path[4096];
    volatile unsigned long spin = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: fork_and_spin DIR spin|finalize\n");
        return 2;
    }
    pid_t child = fork();
    if (child == 0) {
        for (;;) pause();
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s/rank-%d.tmp", argv[1], rank);
    FILE *f = fopen(path, "w");
    const char *socket = getenv("MPINETSIM_SOCKET");
    fprintf(f, "%d %d\n%s\n", (int)getpid(), (int)child, socket ? socket : "");
    fclose(f);
    char done[4096];
    snprintf(done, sizeof done, "%s/rank-%d", argv[1], rank);
    rename(path, done);
    if (strcmp(argv[2], "spin") == 0) {
        for (;;) spin++;
    }
    MPI_Finalize();
    return 0;
}
