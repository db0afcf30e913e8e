/* MPI 4.0 partitioned communication around a ring (tests/mpi, compared
 * with Debian's MPICH by gateway/tests/mpi_programs.rs): each rank sends
 * TOTAL ints to the next rank in SEND_PARTS partitions and receives TOTAL
 * from the previous one in RECV_PARTS partitions, for ROUNDS rounds of
 * one pair of persistent requests:
 *
 *  - round r readies the partitions last to first, with MPI_Pready,
 *    MPI_Pready_range and MPI_Pready_list in turn; the receiver polls
 *    MPI_Parrived until every partition is in, then waits;
 *  - every received int is checked against its sender, round and index,
 *    and the status names the sender and the tag;
 *  - a second pair moves a strided datatype (every other int) in 3
 *    partitions of 2 vectors each way (Debian's MPICH crashes on a
 *    partitioned request to MPI_PROC_NULL, so that case is the engine's
 *    unit tests');
 *
 * Checks per rank: ROUNDS * (RECV_PARTS + 3) + 1. */
#include <stdlib.h>
static int rank;
#include "check.h"

#define TOTAL 4096
#define SEND_PARTS 16
#define RECV_PARTS 4
#define ROUNDS 3

static int value(int src, int round, int i) { return src * 1000003 + round * 10007 + i; }

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *out = malloc(TOTAL * sizeof(int)), *in = malloc(TOTAL * sizeof(int));
    MPI_Request send, recv;
    MPI_Psend_init(out, SEND_PARTS, TOTAL / SEND_PARTS, MPI_INT, next, 7, MPI_COMM_WORLD,
                   MPI_INFO_NULL, &send);
    MPI_Precv_init(in, RECV_PARTS, TOTAL / RECV_PARTS, MPI_INT, prev, 7, MPI_COMM_WORLD,
                   MPI_INFO_NULL, &recv);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < TOTAL; i++) {
            out[i] = value(rank, round, i);
            in[i] = -1;
        }
        MPI_Start(&recv);
        MPI_Start(&send);
        int half = SEND_PARTS / 2;
        if (round == 0) {
            for (int p = SEND_PARTS - 1; p >= 0; p--)
                MPI_Pready(p, send);
        } else if (round == 1) {
            MPI_Pready_range(half, SEND_PARTS - 1, send);
            MPI_Pready_range(0, half - 1, send);
        } else {
            int list[SEND_PARTS];
            for (int p = 0; p < SEND_PARTS; p++)
                list[p] = SEND_PARTS - 1 - p;
            MPI_Pready_list(SEND_PARTS, list, send);
        }
        int arrived[RECV_PARTS] = {0}, left = RECV_PARTS;
        while (left > 0) {
            for (int p = 0; p < RECV_PARTS; p++) {
                int flag = 0;
                if (arrived[p])
                    continue;
                MPI_Parrived(recv, p, &flag);
                if (flag) {
                    int ok = 1, per = TOTAL / RECV_PARTS;
                    for (int i = p * per; i < (p + 1) * per; i++)
                        ok &= in[i] == value(prev, round, i);
                    CHECK(ok, "round %d partition %d holds the wrong data", round, p);
                    arrived[p] = 1;
                    left--;
                }
            }
        }
        MPI_Status st;
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        MPI_Wait(&recv, &st);
        CHECK(st.MPI_SOURCE == prev, "round %d: status source %d", round, st.MPI_SOURCE);
        CHECK(st.MPI_TAG == 7, "round %d: status tag %d", round, st.MPI_TAG);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == TOTAL, "round %d: count %d", round, count);
    }
    MPI_Request_free(&send);
    MPI_Request_free(&recv);

    /* A strided type: 3 partitions of 2 vectors of 8 ints, every other int. */
    MPI_Datatype vector, strided;
    MPI_Type_vector(8, 1, 2, MPI_INT, &vector);
    MPI_Type_create_resized(vector, 0, 16 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    MPI_Type_free(&vector);
    for (int i = 0; i < 96; i++) {
        out[i] = value(rank, 9, i);
        in[i] = -1;
    }
    MPI_Psend_init(out, 3, 2, strided, next, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &send);
    MPI_Precv_init(in, 3, 2, strided, prev, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &recv);
    MPI_Type_free(&strided);
    MPI_Start(&send);
    MPI_Start(&recv);
    MPI_Pready_range(0, 2, send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    int ok = 1;
    for (int i = 0; i < 96; i++)
        ok &= in[i] == (i % 2 == 0 ? value(prev, 9, i) : -1);
    CHECK(ok, "the strided partitions landed wrong");
    MPI_Request_free(&send);
    MPI_Request_free(&recv);

    free(out);
    free(in);
    return finish_checks("partitioned") + MPI_Finalize();
}
