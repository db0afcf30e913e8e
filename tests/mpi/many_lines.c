/* Every rank prints LINES lines (argument 1, default 20000) of lengths
 * from 40 to about 300 bytes, so that stdio's 4 KiB blocks end in the
 * middle of lines; each line names its rank and number and ends with a
 * check digit, so a reader can tell a whole line from pieces. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int rank;
    long lines = argc > 1 ? atol(argv[1]) : 20000;
    char pad[300];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < lines; i++) {
        int n = (int)((i * 37 + rank * 11) % 260);
        memset(pad, 'a' + rank % 26, n);
        pad[n] = '\0';
        printf("many_lines: rank %d line %ld pad %d %s end %d\n", rank, i, n, pad, (int)((rank + i + n) % 10));
    }
    MPI_Finalize();
    return 0;
}
