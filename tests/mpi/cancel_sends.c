/* Cancelling sends, on 2 ranks (through mpinetsim: Debian's MPICH does not
 * cancel sends). Rank 0 cancels six sends to rank 1 before rank 1 posts
 * any receive for them: a standard eager one, a standard rendezvous one
 * (100000 ints), a synchronous one, a buffered one and a started
 * persistent one are cancelled; a send rank 1 received first is not. It
 * then starts the persistent send again and lets it through. Rank 1 must
 * receive exactly the two messages that were not cancelled.
 *
 * Rank 0 prints "cancelled 5 of 6"; a capture test counts one cancel
 * request and one reply per MPI_Cancel (gateway/tests/wireshark_dissector.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

#include "check.h"

#define BIG 100000

static int cancelled_after_wait(MPI_Request *r) {
    MPI_Status st;
    int flag;
    MPI_Cancel(r);
    MPI_Wait(r, &st);
    MPI_Test_cancelled(&st, &flag);
    return flag;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    int small[4] = {1, 2, 3, 4}, *big = calloc(BIG, sizeof(int)), seen = -1;
    if (rank == 0) {
        int cancelled = 0, tries = 0;
        MPI_Request r, p;
        /* Matched first: rank 1 receives tag 2 before the cancel. */
        MPI_Isend(small, 4, MPI_INT, 1, 2, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        int c = cancelled_after_wait(&r);
        CHECK(!c, "a matched send is not cancelled");
        cancelled += c;
        tries++;
        MPI_Isend(small, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
        c = cancelled_after_wait(&r);
        CHECK(c, "standard eager");
        cancelled += c;
        MPI_Isend(big, BIG, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
        c = cancelled_after_wait(&r);
        CHECK(c, "standard rendezvous");
        cancelled += c;
        MPI_Issend(small, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
        c = cancelled_after_wait(&r);
        CHECK(c, "synchronous");
        cancelled += c;
        int bsize = 4 * sizeof(int) + MPI_BSEND_OVERHEAD;
        char *bbuf = malloc(bsize);
        MPI_Buffer_attach(bbuf, bsize);
        MPI_Ibsend(small, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
        c = cancelled_after_wait(&r);
        CHECK(c, "buffered");
        cancelled += c;
        void *back;
        int bback;
        MPI_Buffer_detach(&back, &bback);
        CHECK(back == bbuf && bback == bsize, "the buffered send gave its space back");
        free(bbuf);
        int value = 555;
        MPI_Send_init(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &p);
        MPI_Start(&p);
        c = cancelled_after_wait(&p);
        CHECK(c, "persistent");
        cancelled += c;
        tries += 5;
        printf("cancelled %d of %d\n", cancelled, tries);
        MPI_Barrier(MPI_COMM_WORLD);
        /* Started again, it goes through. */
        MPI_Start(&p);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
        MPI_Request_free(&p);
    } else {
        MPI_Recv(&seen, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        /* Rank 0 cancels meanwhile; this rank answers from the barrier. */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Status st;
        int got = 0, flag;
        MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        CHECK(got == 555, "the only tag-1 message is the restarted persistent one: %d", got);
        MPI_Iprobe(0, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "no cancelled message arrives");
    }
    free(big);
    section("cancel");
    int code = finish_checks("cancel_sends");
    MPI_Finalize();
    return code;
}
