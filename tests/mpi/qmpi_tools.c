/* QMPI tools (MPICH's interface for stacking tools over MPI calls), run
 * with MPIR_CVAR_QMPI_TOOL_LIST=count:trace:count: three tools, ids 1..3 in
 * the list's order, the name "count" twice. Both "count" tools intercept
 * MPI_Send, MPI_Recv and MPI_Allreduce, counting calls in the storage each
 * registered; "trace" intercepts MPI_Send only, logging the chain's order
 * and asking where the program made the call. Each rank sends to its right
 * neighbour and receives from its left ROUNDS times, then reduces once and
 * calls PMPI_Send/PMPI_Recv once (which bypass the tools). Checks: every
 * tool counted exactly ROUNDS sends and receives and one reduction; each
 * send went through tools 1, 2, 3 in that order; the calling address lies
 * in the function that called MPI_Send; the chain queries and bad
 * registrations answer as QMPI defines. Without the tool list no tool is
 * loaded and the counts are zero; both runs make the same checks. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5

static int rank, size;

#include "check.h"

struct counts {
    int id, sends, recvs, allreduces;
};
static struct counts count_tools[4];
static int trace_sends, order[64], orders;
static void *calling_address;

static void log_order(int id) {
    if (orders < 64) order[orders++] = id;
}

static struct counts *storage_of(QMPI_Context context, int tool_id) {
    void *s = NULL;
    QMPI_Get_tool_storage(context, tool_id, &s);
    return s;
}

static int count_send(QMPI_Context context, int tool_id, const void *buf, int count,
                      MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    storage_of(context, tool_id)->sends++;
    log_order(tool_id);
    QMPI_Send_t *next;
    int next_id;
    QMPI_Get_function(tool_id, MPI_SEND_T, (void (**)(void))&next, &next_id);
    return next(context, next_id, buf, count, type, dest, tag, comm);
}

static int count_recv(QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype type,
                      int source, int tag, MPI_Comm comm, MPI_Status *status) {
    storage_of(context, tool_id)->recvs++;
    QMPI_Recv_t *next;
    int next_id;
    QMPI_Get_function(tool_id, MPI_RECV_T, (void (**)(void))&next, &next_id);
    return next(context, next_id, buf, count, type, source, tag, comm, status);
}

static int count_allreduce(QMPI_Context context, int tool_id, const void *in, void *out,
                           int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    storage_of(context, tool_id)->allreduces++;
    QMPI_Allreduce_t *next;
    int next_id;
    QMPI_Get_function(tool_id, MPI_ALLREDUCE_T, (void (**)(void))&next, &next_id);
    return next(context, next_id, in, out, count, type, op, comm);
}

static int trace_send(QMPI_Context context, int tool_id, const void *buf, int count,
                      MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    trace_sends++;
    log_order(tool_id);
    if (!calling_address) {
        char *text = NULL;
        if (QMPI_Get_calling_address(context, (void **)&text) == MPI_SUCCESS && text) {
            calling_address = (void *)(uintptr_t)strtoull(text, NULL, 16);
            free(text);
        }
    }
    QMPI_Send_t *next;
    int next_id;
    QMPI_Get_function(tool_id, MPI_SEND_T, (void (**)(void))&next, &next_id);
    return next(context, next_id, buf, count, type, dest, tag, comm);
}

static void count_init(int tool_id) {
    count_tools[tool_id].id = tool_id;
    QMPI_Register_tool_storage(tool_id, &count_tools[tool_id]);
    QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))count_send);
    QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))count_recv);
    QMPI_Register_function(tool_id, MPI_ALLREDUCE_T, (void (*)(void))count_allreduce);
}

static void trace_init(int tool_id) {
    QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))trace_send);
}

static int registered_count, registered_trace;

__attribute__((constructor)) static void register_tools(void) {
    /* One registration serves both appearances of "count". */
    registered_count = QMPI_Register_tool_name("count", count_init);
    registered_trace = QMPI_Register_tool_name("trace", trace_init);
}

/* Sends right and receives from the left ROUNDS times. */
__attribute__((noinline)) static void ring(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    for (int i = 0; i < ROUNDS; i++) {
        if (rank % 2 == 0) {
            MPI_Send(&rank, 1, MPI_INT, right, i, MPI_COMM_WORLD);
            MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&rank, 1, MPI_INT, right, i, MPI_COMM_WORLD);
        }
        CHECK(got == left, "round %d: got %d from the left, not %d", i, got, left);
    }
}

/* An address's offset into `f`, if it lies in the same object. */
static long offset_into(void *address, void *f) {
    Dl_info a, b;
    if (!address || !dladdr(address, &a) || !dladdr(f, &b) || a.dli_fbase != b.dli_fbase)
        return -1;
    return (long)((char *)address - (char *)f);
}

int main(int argc, char **argv) {
    const char *list = getenv("MPIR_CVAR_QMPI_TOOL_LIST");
    int tools = list && strcmp(list, "count:trace:count") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(registered_count == MPI_SUCCESS && registered_trace == MPI_SUCCESS,
          "registration: %d, %d", registered_count, registered_trace);
    ring();
    int one = 1, all = 0;
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all == size, "allreduce: %d", all);
    /* The profiling names bypass the tools. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    if (rank % 2 == 0) {
        PMPI_Send(&rank, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
        PMPI_Recv(&got, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        PMPI_Recv(&got, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        PMPI_Send(&rank, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
    }
    CHECK(got == left, "PMPI: got %d", got);
    int expect = tools ? ROUNDS : 0;
    for (int id = 1; id <= 3; id += 2) {
        struct counts *c = &count_tools[id];
        CHECK(c->id == (tools ? id : 0) && c->sends == expect && c->recvs == expect &&
                  c->allreduces == (tools ? 1 : 0),
              "tool %d: id %d, %d sends, %d receives, %d reductions", id, c->id, c->sends,
              c->recvs, c->allreduces);
    }
    CHECK(trace_sends == expect, "trace: %d sends", trace_sends);
    int in_order = orders == 3 * expect;
    for (int i = 0; in_order && i < orders; i++) in_order = order[i] == i % 3 + 1;
    CHECK(in_order, "%d tool calls, not in the order 1, 2, 3", orders);
    long off = offset_into(calling_address, (void *)ring);
    CHECK(tools ? off > 0 && off < 4096 : calling_address == NULL,
          "calling address %p is %ld bytes into ring()", calling_address, off);
    if (tools) {
        /* The chain as QMPI_Get_function tells it. */
        void (*f)(void) = NULL;
        int next = -1;
        int rc = QMPI_Get_function(0, MPI_SEND_T, &f, &next);
        CHECK(rc == MPI_SUCCESS && next == 1 && f == (void (*)(void))count_send,
              "first of MPI_Send's chain: rc %d, tool %d", rc, next);
        rc = QMPI_Get_function(1, MPI_RECV_T, &f, &next);
        CHECK(rc == MPI_SUCCESS && next == 3 && f == (void (*)(void))count_recv,
              "after tool 1 for MPI_Recv: rc %d, tool %d", rc, next);
        rc = QMPI_Get_function(3, MPI_SEND_T, &f, &next);
        CHECK(rc == MPI_SUCCESS && next == 0 && f != NULL, "MPI's own MPI_Send: rc %d, tool %d",
              rc, next);
        /* Bad registrations. */
        CHECK(QMPI_Register_tool_name("absent", trace_init) != MPI_SUCCESS, "unlisted name");
        CHECK(QMPI_Register_function(1, MPI_LAST_FUNC_T, (void (*)(void))count_send) ==
                  MPI_ERR_ARG,
              "function number out of range");
        CHECK(QMPI_Register_function(4, MPI_SEND_T, (void (*)(void))count_send) == MPI_ERR_ARG,
              "tool id out of range");
    } else {
        for (int i = 0; i < 6; i++) CHECK(1, "balance");
    }
    return finish_checks("qmpi_tools") + MPI_Finalize();
}
