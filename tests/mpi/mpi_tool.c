/* The MPI tool information interface (MPI_T) of mpinetsim: lists every
 * control and performance variable and category, checks the error classes
 * of MPI 3.1, and checks the performance variables against the counts the
 * program's own messages imply (ranks paired 2i -> 2i+1, K messages each):
 *   - K+1 messages waiting unexpected: the unexpected-queue length reads
 *     K+1 and its buffer K+1 payloads; received newest first, the queue is
 *     searched K + K(K-1)/2 times without a match, then reads 0;
 *   - K receives posted in reverse tag order: the posted-queue length reads
 *     K; messages arriving in tag order examine K(K-1)/2 receives without a
 *     match; all K matches are expected, the K+1 before unexpected;
 *   - the queues' high-water marks read K+1 and K, and after a reset the
 *     queues' current lengths (0);
 *   - message counters count exactly the messages sent and received while
 *     their handle is started, from 0, per session.
 * Every phase starts with a message from the receiver to the sender (the
 * receiver's handles are started before the sender sends) and ends with one
 * (the sender sends nothing more before the receiver has read), so the
 * counts do not depend on when a rank happens to read its socket.
 * mpinetsim-specific (MPICH as Debian builds it has no performance
 * variables), so it runs through mpinetsim only. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;
#include "check.h"

#define K 12
#define PAYLOAD 64

typedef unsigned long long ull;

static int pvar(const char *name, int cls) {
    int i = -1;
    int rc = MPI_T_pvar_get_index(name, cls, &i);
    CHECK(rc == MPI_SUCCESS && i >= 0, "no performance variable %s (%d)", name, rc);
    return i;
}

static MPI_T_pvar_handle handle(MPI_T_pvar_session s, int index) {
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    int count = 0;
    CHECK(MPI_T_pvar_handle_alloc(s, index, NULL, &h, &count) == MPI_SUCCESS && count == 1,
          "handle of %d", index);
    return h;
}

static ull rd(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
    ull v = ~0ull;
    CHECK(MPI_T_pvar_read(s, h, &v) == MPI_SUCCESS, "read");
    return v;
}

static long long cvar(const char *name) {
    int i = -1, count = 0;
    MPI_T_cvar_handle h;
    MPI_Datatype dt;
    char n[128];
    int nl = sizeof n;
    CHECK(MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS, "no control variable %s", name);
    MPI_T_cvar_get_info(i, n, &nl, NULL, &dt, NULL, NULL, NULL, NULL, NULL);
    MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
    long long v;
    if (dt == MPI_INT) {
        int x = -1;
        MPI_T_cvar_read(h, &x);
        v = x;
    } else {
        ull x = ~0ull;
        MPI_T_cvar_read(h, &x);
        v = (long long)x;
    }
    MPI_T_cvar_handle_free(&h);
    return v;
}

/* Every variable's description, every category's members (each variable
 * in exactly one category), names round-tripping through get_index. */
static void list_everything(int print) {
    int np, nc, ncat;
    MPI_T_pvar_get_num(&np);
    MPI_T_cvar_get_num(&nc);
    MPI_T_category_get_num(&ncat);
    CHECK(np == 13 && nc == 13 && ncat == 4, "%d pvars, %d cvars, %d categories", np, nc, ncat);
    int pseen[64] = {0}, cseen[64] = {0};
    for (int i = 0; i < np && i < 64; i++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum e;
        CHECK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &e, desc, &dl, &bind, &ro, &cont,
                                  &atomic) == MPI_SUCCESS, "pvar %d", i);
        CHECK(nl == (int)strlen(name) + 1 && dl == (int)strlen(desc) + 1, "lengths of %s", name);
        CHECK(MPI_T_pvar_get_index(name, cls, &idx) == MPI_SUCCESS && idx == i, "index of %s", name);
        CHECK(dt == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_NO_OBJECT && e == MPI_T_ENUM_NULL,
              "%s: type/binding", name);
        CHECK(cls == MPI_T_PVAR_CLASS_LEVEL ? (ro && cont)
                                            : ((cls == MPI_T_PVAR_CLASS_COUNTER || cls == MPI_T_PVAR_CLASS_HIGHWATERMARK) &&
                                               !ro && !cont),
              "%s: class %d readonly %d continuous %d", name, cls, ro, cont);
        if (print)
            printf("pvar %-40s %s: %s\n", name,
                   cls == MPI_T_PVAR_CLASS_LEVEL     ? "level    "
                   : cls == MPI_T_PVAR_CLASS_COUNTER ? "counter  "
                                                     : "watermark",
                   desc);
    }
    for (int i = 0; i < nc && i < 64; i++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum e;
        CHECK(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &e, desc, &dl, &bind, &scope) == MPI_SUCCESS,
              "cvar %d", i);
        CHECK(MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS && idx == i, "index of %s", name);
        CHECK(scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY, "%s: scope %d", name, scope);
        /* Read-only: writing fails, the value stays. */
        MPI_T_cvar_handle h;
        int count, before = 0, after = 0, nine = 9;
        long long wide[2] = {0, 0};
        MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
        MPI_T_cvar_read(h, dt == MPI_INT ? (void *)&before : (void *)&wide[0]);
        CHECK(MPI_T_cvar_write(h, &nine) == MPI_T_ERR_CVAR_SET_NEVER, "%s written", name);
        MPI_T_cvar_read(h, dt == MPI_INT ? (void *)&after : (void *)&wide[1]);
        CHECK(before == after && wide[0] == wide[1], "%s changed", name);
        MPI_T_cvar_handle_free(&h);
        CHECK(h == MPI_T_CVAR_HANDLE_NULL, "freed cvar handle not null");
        if (e != MPI_T_ENUM_NULL) {
            int items = 0, v;
            char en[64], item[64];
            int el = sizeof en;
            MPI_T_enum_get_info(e, &items, en, &el);
            CHECK(items == 4, "%s: %d enum items", name, items);
            const char *want[4] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                   "MPI_THREAD_MULTIPLE"};
            int levels[4] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                             MPI_THREAD_MULTIPLE};
            for (int k = 0; k < items && k < 4; k++) {
                int il = sizeof item;
                MPI_T_enum_get_item(e, k, &v, item, &il);
                CHECK(v == levels[k] && strcmp(item, want[k]) == 0, "enum item %d: %d %s", k, v, item);
            }
            CHECK(MPI_T_enum_get_item(e, items, &v, item, NULL) == MPI_T_ERR_INVALID_INDEX, "item past end");
        }
        if (print)
            printf("cvar %-40s %s = %lld: %s\n", name, scope == MPI_T_SCOPE_CONSTANT ? "constant" : "readonly",
                   cvar(name), desc);
    }
    for (int c = 0; c < ncat; c++) {
        char name[128];
        int nl = sizeof name, ncv, npv, nsub, idx = -1, members[64];
        MPI_T_category_get_info(c, name, &nl, NULL, NULL, &ncv, &npv, &nsub);
        CHECK(MPI_T_category_get_index(name, &idx) == MPI_SUCCESS && idx == c, "category %s", name);
        MPI_T_category_get_cvars(c, 64, members);
        for (int k = 0; k < ncv; k++) cseen[members[k]]++;
        MPI_T_category_get_pvars(c, 64, members);
        for (int k = 0; k < npv; k++) pseen[members[k]]++;
        MPI_T_category_get_categories(c, 64, members);
        for (int k = 0; k < nsub; k++) CHECK(members[k] > c && members[k] < ncat, "subcategory");
        if (print) printf("category %s: %d cvars, %d pvars, %d subcategories\n", name, ncv, npv, nsub);
    }
    for (int i = 0; i < np; i++) CHECK(pseen[i] == 1, "pvar %d in %d categories", i, pseen[i]);
    for (int i = 0; i < nc; i++) CHECK(cseen[i] == 1, "cvar %d in %d categories", i, cseen[i]);
    int stamp = -1;
    CHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS && stamp == 0, "category stamp %d", stamp);
}

/* MPI 3.1's error classes. */
static void errors(void) {
    int n, i;
    MPI_T_pvar_get_num(&n);
    CHECK(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "pvar index past end");
    CHECK(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "negative cvar index");
    CHECK(MPI_T_category_get_info(99, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
          "category index");
    CHECK(MPI_T_pvar_get_index("no_such_variable", MPI_T_PVAR_CLASS_COUNTER, &i) == MPI_T_ERR_INVALID_NAME,
          "pvar name");
    CHECK(MPI_T_pvar_get_index("messages_sent", MPI_T_PVAR_CLASS_LEVEL, &i) == MPI_T_ERR_INVALID_NAME,
          "pvar of another class");
    CHECK(MPI_T_cvar_get_index("NO_SUCH_CVAR", &i) == MPI_T_ERR_INVALID_NAME, "cvar name");
    CHECK(MPI_T_category_get_index("NO_SUCH_CATEGORY", &i) == MPI_T_ERR_INVALID_NAME, "category name");

    MPI_T_pvar_session s, gone;
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_session_create(&gone);
    MPI_T_pvar_session stale = gone;
    MPI_T_pvar_session_free(&gone);
    CHECK(gone == MPI_T_PVAR_SESSION_NULL, "freed session not null");
    MPI_T_pvar_handle h;
    int count;
    CHECK(MPI_T_pvar_handle_alloc(stale, 0, NULL, &h, &count) == MPI_T_ERR_INVALID_SESSION, "stale session");
    CHECK(MPI_T_pvar_session_free(&stale) == MPI_T_ERR_INVALID_SESSION, "session freed twice");
    CHECK(MPI_T_pvar_handle_alloc(s, n, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX, "handle of bad index");

    MPI_T_pvar_handle level = handle(s, pvar("unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL));
    ull v = 5;
    CHECK(MPI_T_pvar_start(s, level) == MPI_T_ERR_PVAR_NO_STARTSTOP, "start a continuous variable");
    CHECK(MPI_T_pvar_stop(s, level) == MPI_T_ERR_PVAR_NO_STARTSTOP, "stop a continuous variable");
    CHECK(MPI_T_pvar_write(s, level, &v) == MPI_T_ERR_PVAR_NO_WRITE, "write a read-only variable");
    CHECK(MPI_T_pvar_reset(s, level) == MPI_T_ERR_PVAR_NO_WRITE, "reset a read-only variable");
    CHECK(MPI_T_pvar_readreset(s, level, &v) == MPI_T_ERR_PVAR_NO_WRITE, "readreset a read-only variable");
    /* All handles: the continuous ones are skipped. */
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all");
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v) == MPI_T_ERR_INVALID_HANDLE, "read all");

    MPI_T_pvar_session other;
    MPI_T_pvar_session_create(&other);
    CHECK(MPI_T_pvar_read(other, level, &v) == MPI_T_ERR_INVALID_HANDLE, "handle of another session");
    CHECK(MPI_T_pvar_handle_free(other, &level) == MPI_T_ERR_INVALID_HANDLE, "free in another session");
    CHECK(MPI_T_pvar_handle_free(s, &level) == MPI_SUCCESS && level == MPI_T_PVAR_HANDLE_NULL, "free");
    MPI_T_pvar_session_free(&other);
    MPI_T_pvar_session_free(&s);

    MPI_T_cvar_handle ch;
    CHECK(MPI_T_cvar_handle_alloc(99, NULL, &ch, &count) == MPI_T_ERR_INVALID_INDEX, "cvar handle index");
    int ev = -1;
    CHECK(MPI_T_event_get_num(&ev) == MPI_SUCCESS && ev == 0, "events %d", ev);
}

int main(int argc, char **argv) {
    int provided, size, n;
    /* Before MPI_T_init_thread nothing answers. */
    int early = MPI_T_pvar_get_num(&n);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    long long eager_before = cvar("MPINETSIM_EAGER_THRESHOLD");
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(early == MPI_T_ERR_NOT_INITIALIZED, "before MPI_T_init_thread: %d", early);
    CHECK(eager_before == 0, "eager threshold before MPI_Init %lld", eager_before);
    CHECK(cvar("MPINETSIM_EAGER_THRESHOLD") > PAYLOAD, "eager threshold after MPI_Init");
    CHECK(cvar("MPINETSIM_THREAD_LEVEL") == provided, "thread level");
    CHECK(cvar("MPIR_CVAR_BCAST_SHORT_MSG_SIZE") == 12288, "bcast short size");

    /* Nesting: a second init, one finalize, still initialized. */
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_finalize();
    list_everything(rank == 0);
    section("variables");
    errors();
    section("error classes");

    int peer = rank ^ 1, sender = rank % 2 == 0, active = peer < size;
    char payload[PAYLOAD] = {0};
    MPI_T_pvar_session s, late;
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_session_create(&late);
    MPI_T_pvar_handle sent = handle(s, pvar("messages_sent", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle sent_bytes = handle(s, pvar("bytes_sent", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle received = handle(s, pvar("messages_received", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle uq_len = handle(s, pvar("unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL));
    MPI_T_pvar_handle uq_bytes = handle(s, pvar("unexpected_recvq_buffer_size", MPI_T_PVAR_CLASS_LEVEL));
    MPI_T_pvar_handle pq_len = handle(s, pvar("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL));
    MPI_T_pvar_handle uq_miss =
        handle(s, pvar("unexpected_recvq_unsuccessful_matches", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle pq_miss = handle(s, pvar("posted_recvq_unsuccessful_matches", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle expected = handle(s, pvar("expected_matches", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle unexpected = handle(s, pvar("unexpected_matches", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle late_sent = handle(late, pvar("messages_sent", MPI_T_PVAR_CLASS_COUNTER));
    MPI_T_pvar_handle uq_mark =
        handle(s, pvar("unexpected_recvq_length_highwatermark", MPI_T_PVAR_CLASS_HIGHWATERMARK));
    MPI_T_pvar_handle pq_mark = handle(s, pvar("posted_recvq_length_highwatermark", MPI_T_PVAR_CLASS_HIGHWATERMARK));
    MPI_Barrier(MPI_COMM_WORLD);
    /* Counters start at 0 and count only while started. */
    CHECK(rd(s, sent) == 0 && rd(s, received) == 0, "counters before start");
    MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES);

    /* Phase 1: K+1 unexpected messages, received newest first. */
    if (active && sender) {
        MPI_Recv(NULL, 0, MPI_BYTE, peer, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int t = 0; t <= K; t++) MPI_Send(payload, PAYLOAD, MPI_BYTE, peer, t, MPI_COMM_WORLD);
        ull bytes = rd(s, sent_bytes);
        CHECK(rd(s, sent) == K + 1, "sent %llu", rd(s, sent));
        CHECK(bytes % (K + 1) == 0 && bytes / (K + 1) > PAYLOAD, "bytes sent %llu", bytes);
    } else if (active) {
        MPI_Status st;
        MPI_Send(NULL, 0, MPI_BYTE, peer, 999, MPI_COMM_WORLD);
        MPI_Probe(peer, K, MPI_COMM_WORLD, &st);
        CHECK(rd(s, uq_len) == K + 1, "unexpected queue %llu", rd(s, uq_len));
        CHECK(rd(s, uq_bytes) == (K + 1) * PAYLOAD, "unexpected bytes %llu", rd(s, uq_bytes));
        CHECK(rd(s, pq_len) == 0, "posted queue %llu", rd(s, pq_len));
        CHECK(rd(s, uq_miss) == 0, "misses before receiving");
        MPI_Recv(payload, PAYLOAD, MPI_BYTE, peer, K, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(s, uq_miss) == K, "misses of the newest %llu", rd(s, uq_miss));
        for (int t = K - 1; t >= 0; t--)
            MPI_Recv(payload, PAYLOAD, MPI_BYTE, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(s, uq_miss) == K + K * (K - 1) / 2, "misses %llu", rd(s, uq_miss));
        CHECK(rd(s, uq_len) == 0 && rd(s, uq_bytes) == 0, "unexpected queue after");
        CHECK(rd(s, uq_mark) == K + 1 && rd(s, pq_mark) == 0, "high-water marks %llu %llu", rd(s, uq_mark),
              rd(s, pq_mark));
        CHECK(rd(s, unexpected) == K + 1 && rd(s, expected) == 0, "classification %llu/%llu",
              rd(s, unexpected), rd(s, expected));
        CHECK(rd(s, received) == K + 1, "received %llu", rd(s, received));
        /* readreset: the value, then 0. */
        ull v = 0;
        MPI_T_pvar_readreset(s, received, &v);
        CHECK(v == K + 1 && rd(s, received) == 0, "readreset %llu", v);
    }

    /* Phase 2: K receives posted in reverse tag order, messages in order. */
    MPI_T_pvar_start(late, late_sent);
    if (active && sender) {
        MPI_Recv(NULL, 0, MPI_BYTE, peer, 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int t = 0; t < K; t++) MPI_Send(payload, PAYLOAD, MPI_BYTE, peer, t, MPI_COMM_WORLD);
        CHECK(rd(s, sent) == 2 * K + 1 && rd(late, late_sent) == K, "sent %llu, late session %llu",
              rd(s, sent), rd(late, late_sent));
        MPI_Recv(NULL, 0, MPI_BYTE, peer, 1001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (active) {
        static char bufs[K][PAYLOAD];
        MPI_Request reqs[K];
        for (int t = K - 1; t >= 0; t--)
            MPI_Irecv(bufs[t], PAYLOAD, MPI_BYTE, peer, t, MPI_COMM_WORLD, &reqs[K - 1 - t]);
        CHECK(rd(s, pq_len) == K, "posted queue %llu", rd(s, pq_len));
        MPI_Send(NULL, 0, MPI_BYTE, peer, 1000, MPI_COMM_WORLD);
        MPI_Status sts[K];
        MPI_Waitall(K, reqs, sts);
        CHECK(rd(s, pq_len) == 0, "posted queue after %llu", rd(s, pq_len));
        CHECK(rd(s, pq_miss) == K * (K - 1) / 2, "posted misses %llu", rd(s, pq_miss));
        CHECK(rd(s, pq_mark) == K && rd(s, uq_mark) == K + 1, "high-water marks %llu %llu", rd(s, pq_mark),
              rd(s, uq_mark));
        CHECK(rd(s, expected) == K && rd(s, received) == K, "expected %llu received %llu", rd(s, expected),
              rd(s, received));
        CHECK(rd(late, late_sent) == 1, "late session sent %llu", rd(late, late_sent));
        MPI_Send(NULL, 0, MPI_BYTE, peer, 1001, MPI_COMM_WORLD);
    }

    /* Stopped handles count nothing; a written value counts on. */
    MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES);
    ull before = rd(s, sent), forty = 40;
    MPI_T_pvar_write(s, received, &forty);
    if (active && sender) {
        MPI_Send(payload, PAYLOAD, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
        CHECK(rd(s, sent) == before, "a stopped handle counted");
        MPI_Recv(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(payload, PAYLOAD, MPI_BYTE, peer, 8, MPI_COMM_WORLD);
    } else if (active) {
        MPI_Recv(payload, PAYLOAD, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(s, received) == 40, "a stopped handle counted: %llu", rd(s, received));
        MPI_T_pvar_start(s, received);
        MPI_Send(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
        MPI_Recv(payload, PAYLOAD, MPI_BYTE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(s, received) == 41, "written then counted %llu", rd(s, received));
    }
    MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES);
    MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES);
    CHECK(rd(s, received) == 0 && rd(s, sent) == 0, "reset all");
    /* A reset restarts a high-water mark at the queue's length then: a
     * message of a rank already in finish_checks may be queued (nothing
     * between the reset and these reads takes messages in). */
    CHECK(rd(s, uq_mark) == rd(s, uq_len) && rd(s, pq_mark) == rd(s, pq_len),
          "high-water marks after reset %llu %llu, queues %llu %llu", rd(s, uq_mark), rd(s, pq_mark),
          rd(s, uq_len), rd(s, pq_len));
    section("counters");

    int rc = finish_checks("mpi_tool");
    MPI_T_pvar_handle_free(s, &sent);
    MPI_Finalize();
    /* After MPI_Finalize the variables keep their last values (the
     * stopped counter still reads 0, the queues are empty). */
    if (rd(s, received) != 0 || rd(s, uq_len) != 0 || MPI_T_pvar_session_free(&s) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: variables unusable after MPI_Finalize\n", rank);
        rc = 1;
    }
    MPI_T_pvar_session_free(&late);
    MPI_T_finalize();
    if (MPI_T_pvar_get_num(&n) != MPI_T_ERR_NOT_INITIALIZED) {
        fprintf(stderr, "rank %d: MPI_T usable after its last MPI_T_finalize\n", rank);
        rc = 1;
    }
    return rc;
}
