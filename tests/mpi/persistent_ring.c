/* Persistent point-to-point requests: every rank passes a 100 kB block to
 * its right neighbour (rendezvous) and a 64-byte note to its left one
 * (eager) with requests made once (MPI_Send_init, MPI_Ssend_init,
 * MPI_Recv_init, the note's receive from MPI_ANY_SOURCE) and started
 * ITERS times (MPI_Startall, then MPI_Waitall or MPI_Start/MPI_Wait one
 * by one on odd iterations), then freed. Self-checking: every received
 * block and note carries its sender and iteration.
 * Usage: persistent_ring [iterations] (default 20). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "check.h"

#define BLOCK 100000
#define NOTE 64

int main(int argc, char **argv) {
    int size, iters = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char out[BLOCK], in[BLOCK], note_out[NOTE], note_in[NOTE];
    MPI_Request r[4];
    MPI_Send_init(out, BLOCK, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(in, BLOCK, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Ssend_init(note_out, NOTE, MPI_BYTE, left, 2, MPI_COMM_WORLD, &r[2]);
    MPI_Recv_init(note_in, NOTE, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[3]);
    for (int it = 0; it < iters; it++) {
        memset(out, rank, BLOCK);
        out[BLOCK - 1] = (unsigned char)it;
        memset(note_out, rank, NOTE);
        note_out[NOTE - 1] = (unsigned char)it;
        MPI_Status st[4];
        if (it % 2 == 0) {
            MPI_Startall(4, r);
            MPI_Waitall(4, r, st);
        } else {
            for (int k = 0; k < 4; k++) MPI_Start(&r[k]);
            for (int k = 0; k < 4; k++) MPI_Wait(&r[k], &st[k]);
        }
        CHECK(in[0] == left && in[BLOCK - 1] == (unsigned char)it, "iteration %d: block from %d", it, in[0]);
        CHECK(note_in[0] == right && note_in[NOTE - 1] == (unsigned char)it, "iteration %d: note from %d", it, note_in[0]);
        CHECK(st[3].MPI_SOURCE == right, "iteration %d: note's source %d", it, st[3].MPI_SOURCE);
    }
    for (int k = 0; k < 4; k++) MPI_Request_free(&r[k]);
    int code = finish_checks("persistent_ring");
    MPI_Finalize();
    return code;
}
