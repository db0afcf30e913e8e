/* MPI_THREAD_MULTIPLE: on rank 0 a second thread blocks in MPI_Recv for a
 * reply that rank 1 sends only after the main thread's MPI_Send reached it.
 * If a blocked call kept other threads out of MPI this would deadlock. Also
 * exercises Waitall/Waitany/Probe from a thread. Runs with 2 or more
 * ranks (ranks above 1 only initialise and finalise). */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

static int reply = -1, probed_tag = -1;
static volatile int waiting = 0;

static void *waiter(void *arg) {
    (void)arg;
    MPI_Status st;
    waiting = 1;
    MPI_Probe(1, 1, MPI_COMM_WORLD, &st);
    probed_tag = st.MPI_TAG;
    MPI_Recv(&reply, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv) {
    int provided, rank, errors = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) errors++;
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, waiter, NULL);
        /* Let the other thread block inside MPI_Probe first. */
        while (!waiting) sched_yield();
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        int x = 41;
        MPI_Request rq[2];
        int a = 0, b = 0;
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Irecv(&a, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(&b, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq[1]);
        int idx;
        MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
        MPI_Status sts[2];
        MPI_Waitall(2, rq, sts);
        pthread_join(t, NULL);
        int mine = 7, theirs = 0;
        MPI_Sendrecv(&mine, 1, MPI_INT, 1, 4, &theirs, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errors += (reply != 42) + (probed_tag != 1) + (a != 2) + (b != 3) + (theirs != 8);
        printf("threads_multiple: reply=%d probed_tag=%d a=%d b=%d sendrecv=%d\n", reply, probed_tag, a, b, theirs);
        if (errors == 0) printf("threads_multiple: 6 checks passed\n");
    } else if (rank == 1) {
        int x, two = 2, three = 3;
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        x += 1;
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&two, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Send(&three, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        int in = 0, out = 8;
        MPI_Sendrecv(&out, 1, MPI_INT, 0, 5, &in, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return errors != 0;
}
