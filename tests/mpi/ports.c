/* Client/server connections inside one job: the even ranks accept on a
 * port world rank 0 opened (its name broadcast over MPI_COMM_WORLD), the
 * odd ranks connect to it; over the intercommunicator both sides check
 * the remote group, exchange values point to point, reduce across, and
 * merge into one communicator; MPI_Comm_disconnect ends it. The port is
 * also published under a service name, looked up by every rank, and
 * unpublished (a later lookup is MPI_ERR_NAME). Then ranks 0
 * and 1 join over a TCP socket of their own with MPI_Comm_join and talk
 * over the one-to-one intercommunicator. Every rank makes the same
 * number of checks; needs an even number of ranks, 2..8. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int rank, size;

#include "check.h"

static void accept_and_connect(void) {
    int even = rank % 2 == 0;
    MPI_Comm half, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, even, rank, &half);
    char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("mpinetsim-ports-test", MPI_INFO_NULL, port);
    }
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    /* The connecting side finds the port through the name service too. */
    int rc = MPI_Lookup_name("mpinetsim-ports-test", MPI_INFO_NULL, found);
    CHECK(rc == MPI_SUCCESS && strcmp(found, port) == 0, "lookup: %d, '%s'", rc, found);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = even ? MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter)
                  : MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    CHECK(rc == MPI_SUCCESS, "accept/connect: %d", rc);
    int flag, lsize, rsize, me;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &me);
    CHECK(flag && lsize == size / 2 && rsize == size / 2 && me == rank / 2,
          "intercommunicator: inter %d, sizes %d/%d, rank %d", flag, lsize, rsize, me);
    /* Remote rank i is world rank 2i + 1 on the even side, 2i on the odd. */
    MPI_Group remote, world;
    MPI_Comm_remote_group(inter, &remote);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int first = 0, w;
    MPI_Group_translate_ranks(remote, 1, &first, world, &w);
    CHECK(w == (even ? 1 : 0), "remote rank 0 is world rank %d", w);
    MPI_Group_free(&remote);
    MPI_Group_free(&world);
    /* Partner exchange: each rank sends its world rank to remote rank me. */
    int got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, me, 5, &got, 1, MPI_INT, me, 5, inter, MPI_STATUS_IGNORE);
    CHECK(got == (even ? rank + 1 : rank - 1), "partner sent %d", got);
    /* Reduce across: each side gets the sum of the other side's world ranks. */
    int sum = -1, n = size / 2;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
    int odd_sum = n * n, even_sum = n * (n - 1);
    CHECK(sum == (even ? odd_sum : even_sum), "sum of the remote world ranks %d", sum);
    /* Merge with the accepting side first: world order. */
    MPI_Intercomm_merge(inter, !even, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size && mrank == (even ? rank / 2 : n + rank / 2), "merged rank %d of %d", mrank,
          msize);
    MPI_Comm_free(&merged);
    rc = MPI_Comm_disconnect(&inter);
    CHECK(rc == MPI_SUCCESS && inter == MPI_COMM_NULL, "disconnect: %d", rc);
    if (rank == 0) {
        rc = MPI_Close_port(port);
        CHECK(rc == MPI_SUCCESS, "close port: %d", rc);
        rc = MPI_Unpublish_name("mpinetsim-ports-test", MPI_INFO_NULL, port);
        CHECK(rc == MPI_SUCCESS, "unpublish: %d", rc);
    } else {
        CHECK(1, "balance");
        CHECK(1, "balance");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Unpublished: the name is gone for everyone. */
    rc = MPI_Lookup_name("mpinetsim-ports-test", MPI_INFO_NULL, found);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NAME, "lookup after unpublish: class %d", cls);
    MPI_Comm_free(&half);
}

/* Ranks 0 and 1 join over a TCP connection on the loopback interface. */
static void join(void) {
    int fd = -1;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        bind(l, (struct sockaddr *)&a, sizeof a);
        listen(l, 1);
        socklen_t len = sizeof a;
        getsockname(l, (struct sockaddr *)&a, &len);
        int p = ntohs(a.sin_port);
        MPI_Send(&p, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        fd = accept(l, NULL, NULL);
        close(l);
    } else if (rank == 1) {
        int p;
        MPI_Recv(&p, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(p),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        connect(fd, (struct sockaddr *)&a, sizeof a);
    }
    if (rank < 2) {
        MPI_Comm j;
        int rc = MPI_Comm_join(fd, &j);
        int rsize = 0, got = -1, mine = 100 + rank;
        if (rc == MPI_SUCCESS) {
            MPI_Comm_remote_size(j, &rsize);
            MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, j, MPI_STATUS_IGNORE);
            MPI_Comm_disconnect(&j);
        }
        CHECK(rc == MPI_SUCCESS && rsize == 1 && got == 101 - rank, "join: rc %d, remote size %d, got %d",
              rc, rsize, got);
        close(fd);
    } else {
        CHECK(1, "balance");
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    accept_and_connect();
    join();
    return finish_checks("ports") + MPI_Finalize();
}
