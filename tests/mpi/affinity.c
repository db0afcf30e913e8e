/* Prints the CPUs each rank may run on (sched_getaffinity), one line per
 * rank: "rank R cpus 0,2,3". For mpinetsim's --gateway-cpu test. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        perror("sched_getaffinity");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char line[4096];
    int len = snprintf(line, sizeof line, "rank %d cpus ", rank);
    const char *sep = "";
    for (int c = 0; c < CPU_SETSIZE && len < (int)sizeof line - 16; c++)
        if (CPU_ISSET(c, &set)) {
            len += snprintf(line + len, sizeof line - len, "%s%d", sep, c);
            sep = ",";
        }
    printf("%s\n", line);
    MPI_Finalize();
    return 0;
}
