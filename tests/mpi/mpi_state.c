/* The state MPI objects carry, and the calls around it: attributes of
 * communicators and datatypes (copy and delete callbacks, their order and
 * errors, keyval lifetimes, MPI_COMM_SELF's at MPI_Finalize), names, error
 * handlers, classes, codes and strings, info objects and communicator
 * hints, MPI_Alloc_mem, generalized requests (also completed by another
 * thread), datatypes freed while operations use them, logical reductions
 * on floating types, versions and MPI_Is_thread_main.
 * Rank 0 prints one line per section and the total of checks of all ranks
 * (and MPICH's text of every error class, which native MPICH must print
 * alike); failures go to stderr and make the exit code non-zero. Works for
 * 2..8 ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "check.h"

/* ---- attributes ---- */

/* The order delete callbacks ran in: the attribute values, appended. */
static long deleted[16];
static int ndeleted;
static int fail_delete, fail_copy;

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void) comm;
    (void) keyval;
    (void) extra;
    if (fail_delete)
        return MPI_ERR_OTHER;
    deleted[ndeleted++ % 16] = (long) value;
    return MPI_SUCCESS;
}

static int add_extra(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
    (void) comm;
    (void) keyval;
    if (fail_copy)
        return MPI_ERR_OTHER;
    *(void **) out = (void *) ((long) in + *(long *) extra);
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int keyval, void *value, void *extra) {
    (void) t;
    (void) keyval;
    (void) extra;
    deleted[ndeleted++ % 16] = (long) value;
    return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag) {
    (void) t;
    (void) keyval;
    (void) extra;
    *(void **) out = (void *) ((long) in * 10);
    *flag = 1;
    return MPI_SUCCESS;
}

static void attributes(void) {
    MPI_Comm dup, dup2;
    int k[3], flag, err, cls;
    long extra = 1000;
    void *v;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    for (int i = 0; i < 3; i++) {
        MPI_Comm_create_keyval(i == 1 ? MPI_COMM_NULL_COPY_FN : add_extra, record_delete, &k[i],
                               &extra);
    }
    /* Set in the order 2, 0, 1: copies run in that order, deletions the
     * other way round. */
    MPI_Comm_set_attr(dup, k[2], (void *) 2L);
    MPI_Comm_set_attr(dup, k[0], (void *) 10L);
    MPI_Comm_set_attr(dup, k[1], (void *) 1L);
    /* Replacing calls the delete callback on the old value. */
    ndeleted = 0;
    MPI_Comm_set_attr(dup, k[0], (void *) 0L);
    CHECK(ndeleted == 1 && deleted[0] == 10, "replace deleted %d values", ndeleted);
    MPI_Comm_dup(dup, &dup2);
    MPI_Comm_get_attr(dup2, k[0], &v, &flag);
    CHECK(flag && (long) v == 1000, "copied value %ld", (long) v);
    MPI_Comm_get_attr(dup2, k[1], &v, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copies nothing");
    ndeleted = 0;
    MPI_Comm_free(&dup2);
    CHECK(ndeleted == 2 && deleted[0] == 1000 && deleted[1] == 1002,
          "dup2 deletions %d: %ld %ld", ndeleted, deleted[0], deleted[1]);
    /* A failing delete callback fails the call and keeps the attribute. */
    fail_delete = 1;
    err = MPI_Comm_delete_attr(dup, k[2]);
    MPI_Error_class(err, &cls);
    CHECK(err != MPI_SUCCESS && cls == MPI_ERR_OTHER, "failing delete: class %d", cls);
    MPI_Comm_get_attr(dup, k[2], &v, &flag);
    CHECK(flag && (long) v == 2, "attribute kept after a failing delete");
    fail_delete = 0;
    /* A failing copy callback fails the dup: MPI_COMM_NULL. */
    fail_copy = 1;
    err = MPI_Comm_dup(dup, &dup2);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OTHER && dup2 == MPI_COMM_NULL, "failing copy: class %d", cls);
    fail_copy = 0;
    /* Freed keyvals live while attributes use them. */
    int k0 = k[0];
    MPI_Comm_free_keyval(&k[0]);
    CHECK(k[0] == MPI_KEYVAL_INVALID, "freed keyval handle");
    MPI_Comm_get_attr(dup, k0, &v, &flag);
    CHECK(flag && (long) v == 0, "attribute of a freed keyval");
    ndeleted = 0;
    MPI_Comm_free(&dup);
    CHECK(ndeleted == 3 && deleted[0] == 1 && deleted[1] == 0 && deleted[2] == 2,
          "deletion order %ld %ld %ld", deleted[0], deleted[1], deleted[2]);
    MPI_Comm_free_keyval(&k[1]);
    MPI_Comm_free_keyval(&k[2]);
    /* Errors: predefined keyvals cannot be set, garbage keyvals are
     * MPI_ERR_KEYVAL. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void *) 1L);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "set MPI_TAG_UB: class %d", cls);
    err = MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "garbage keyval: class %d", cls);
    int *ip;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &ip, &flag);
    CHECK(flag && *ip >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag);
    CHECK(flag && *ip == 0, "MPI_APPNUM");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag);
    CHECK(flag && *ip >= 32767, "MPI_TAG_UB");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* Datatype attributes: copied by MPI_Type_dup, deleted by MPI_Type_free. */
    int tk;
    MPI_Datatype t, t2;
    MPI_Type_create_keyval(type_copy, type_delete, &tk, NULL);
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, tk, (void *) 7L);
    MPI_Type_dup(t, &t2);
    MPI_Type_get_attr(t2, tk, &v, &flag);
    CHECK(flag && (long) v == 70, "type attribute copied: %ld", (long) v);
    /* (The copy is freed first: MPICH keeps a type a dup was made of
     * until the dup goes, and calls its delete callbacks only then.) */
    ndeleted = 0;
    MPI_Type_delete_attr(t2, tk);
    MPI_Type_get_attr(t2, tk, &v, &flag);
    CHECK(!flag && ndeleted == 1 && deleted[0] == 70, "type attribute deleted");
    MPI_Type_set_attr(t2, tk, (void *) 8L);
    MPI_Type_free(&t2);
    MPI_Type_free(&t);
    CHECK(ndeleted == 3 && deleted[1] == 8 && deleted[2] == 7, "type deletions at free");
    MPI_Type_free_keyval(&tk);
    CHECK(tk == MPI_KEYVAL_INVALID, "type keyval freed");
    section("attributes");
}

/* ---- names ---- */

static void names(void) {
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Datatype t;
    MPI_Comm dup;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name %s", name);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len == 0, "a dup has no name");
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my dup") == 0, "dup's name %s", name);
    MPI_Comm_free(&dup);
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_LONG_LONG, MPI_C_FLOAT_COMPLEX,
                                  MPI_INTEGER, MPI_2INT, MPI_PACKED};
    const char *want[] = {"MPI_INT", "MPI_DOUBLE", "MPI_LONG_LONG_INT", "MPI_C_COMPLEX",
                          "MPI_INTEGER", "MPI_2INT", "MPI_PACKED"};
    for (int i = 0; i < 7; i++) {
        MPI_Type_get_name(types[i], name, &len);
        CHECK(strcmp(name, want[i]) == 0, "type name %s, not %s", name, want[i]);
    }
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_get_name(t, name, &len);
    CHECK(len == 0, "a new type has no name");
    MPI_Type_set_name(t, "strided");
    MPI_Type_get_name(t, name, &len);
    CHECK(strcmp(name, "strided") == 0 && len == 7, "type name %s", name);
    MPI_Type_free(&t);
    section("names");
}

/* ---- errors ---- */

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void handler(MPI_Comm *comm, int *code, ...) {
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

static void errors(void) {
    MPI_Errhandler eh, got;
    MPI_Comm dup;
    int cls, code, code2, err, len, flag;
    char text[MPI_MAX_ERROR_STRING];
    /* MPICH's texts, compared with native MPICH's output. */
    if (rank == 0) {
        for (int c = 0; c <= 61; c++) {
            MPI_Error_string(c, text, &len);
            printf("class %d: %s\n", c, text);
        }
    }
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_code(MPI_ERR_ARG, &code2);
    MPI_Add_error_string(code, "my error");
    int c1;
    MPI_Error_class(code, &c1);
    CHECK(c1 == cls, "class of an added code");
    MPI_Error_class(code2, &c1);
    CHECK(c1 == MPI_ERR_ARG, "class of a code added to MPI_ERR_ARG");
    MPI_Error_string(code, text, &len);
    CHECK(strcmp(text, "my error") == 0 && len == 8, "added string %s", text);
    int *last;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    CHECK(flag && *last >= cls, "MPI_LASTUSEDCODE covers the new class");
    if (rank == 0)
        printf("added class %#x code %#x code of MPI_ERR_ARG %#x\n", cls, code, code2);

    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "freed handle");
    err = MPI_Comm_call_errhandler(dup, code);
    CHECK(err == MPI_SUCCESS && handler_calls == 1 && handler_code == code && handler_comm == dup,
          "call_errhandler: %d calls, code %d", handler_calls, handler_code);
    int x = 1;
    err = MPI_Send(&x, 1, MPI_INT, size + 3, 0, dup);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK && handler_calls == 2 && handler_code == err,
          "handler on a failing send: class %d", cls);
    MPI_Comm_get_errhandler(dup, &got);
    MPI_Comm dup2;
    MPI_Comm_dup(dup, &dup2);
    err = MPI_Send(&x, 1, MPI_INT, -5, 0, dup2);
    CHECK(err != MPI_SUCCESS && handler_calls == 3, "inherited handler");
    MPI_Errhandler_free(&got);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    section("errors");
}

/* ---- info ---- */

static void info(void) {
    MPI_Info i, d, used;
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, n, len, err, cls;
    MPI_Info_create(&i);
    MPI_Info_set(i, "c", "3");
    MPI_Info_set(i, "d", "4");
    MPI_Info_set(i, "c", "33");
    MPI_Info_get_nkeys(i, &n);
    CHECK(n == 2, "nkeys %d", n);
    MPI_Info_get_nthkey(i, 0, key);
    CHECK(strcmp(key, "c") == 0, "first key %s", key);
    MPI_Info_get(i, "c", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "33") == 0, "value %s", value);
    MPI_Info_get_valuelen(i, "c", &len, &flag);
    CHECK(flag && len == 2, "valuelen %d", len);
    /* A value longer than valuelen is cut, and (in MPICH) an error. */
    memset(value, 0, 8);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Info_get(i, "c", 1, value, &flag);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(err, &cls);
    CHECK(flag && cls == MPI_ERR_INFO_VALUE && strcmp(value, "3") == 0,
          "valuelen 1 keeps one character: class %d, %s", cls, value);
    len = 2;
    MPI_Info_get_string(i, "c", &len, value, &flag);
    CHECK(flag && len == 3 && strcmp(value, "3") == 0, "get_string %d %s", len, value);
    MPI_Info_dup(i, &d);
    MPI_Info_delete(d, "c");
    MPI_Info_get_nkeys(d, &n);
    CHECK(n == 1, "dup then delete");
    MPI_Info_get_nkeys(i, &n);
    CHECK(n == 2, "the original keeps its keys");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Info_delete(d, "c");
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_INFO_NOKEY, "delete twice: class %d", cls);
    err = MPI_Info_set(d, "", "x");
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_INFO_KEY, "empty key: class %d", cls);
    err = MPI_Info_get_nthkey(d, 5, key);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "nthkey beyond: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&d);
    CHECK(d == MPI_INFO_NULL, "freed info");
    /* MPI_INFO_ENV may be empty (native MPICH under hydra), but what it
     * says must be true. */
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(!flag || atoi(value) == size, "maxprocs %s", value);

    /* Communicator hints: the MPI 4.0 assertions; unknown keys ignored. */
    MPI_Comm dup;
    MPI_Info_set(i, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(i, "invalid_test_key", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, i, &dup);
    MPI_Comm_get_info(dup, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "asserted hint");
    MPI_Info_get(used, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "false") == 0, "hint not asserted");
    MPI_Info_get(used, "invalid_test_key", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(!flag, "unknown key ignored");
    MPI_Info_free(&used);
    MPI_Info_set(i, "mpi_assert_no_any_tag", "false");
    MPI_Comm_set_info(dup, i);
    MPI_Comm_get_info(dup, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "false") == 0, "hint reset");
    MPI_Info_free(&used);
    /* The communicator works. */
    int s = rank, sum;
    MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, dup);
    CHECK(sum == size * (size - 1) / 2, "allreduce on a dup with info");
    /* The nonblocking form (MPI 4.0): the info's hints, not the parent's. */
    MPI_Comm idup;
    MPI_Request req;
    MPI_Info_set(i, "mpi_assert_no_any_source", "true");
    MPI_Comm_idup_with_info(dup, i, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_get_info(idup, &used);
    MPI_Info_get(used, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "idup_with_info hint");
    MPI_Info_free(&used);
    MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, idup);
    CHECK(sum == size * (size - 1) / 2, "allreduce on an idup with info");
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup);
    MPI_Info_free(&i);

    /* MPI_Alloc_mem: usable, aligned as asked. */
    double *p;
    MPI_Info a;
    MPI_Info_create(&a);
    MPI_Info_set(a, "mpi_minimum_memory_alignment", "4096");
    MPI_Alloc_mem(1000 * sizeof(double), a, &p);
    CHECK(((unsigned long) p % 4096) == 0, "alignment");
    for (int k = 0; k < 1000; k++)
        p[k] = k + rank;
    MPI_Sendrecv_replace(p, 1000, MPI_DOUBLE, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(p[999] == 999 + (rank + size - 1) % size, "alloc'd memory as a buffer");
    MPI_Free_mem(p);
    MPI_Info_free(&a);
    section("info");
}

/* ---- generalized requests ---- */

static int greq_frees, greq_cancels;

static int greq_query(void *extra, MPI_Status *status) {
    status->MPI_SOURCE = 100 + *(int *) extra;
    status->MPI_TAG = 7;
    return *(int *) extra == 13 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int greq_free(void *extra) {
    (void) extra;
    greq_frees++;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete) {
    (void) extra;
    greq_cancels += complete ? 10 : 1;
    return MPI_SUCCESS;
}

static void *complete_later(void *arg) {
    MPI_Grequest_complete(*(MPI_Request *) arg);
    return NULL;
}

static void generalized(void) {
    MPI_Request r, rs[2];
    MPI_Status st, sts[2];
    int flag, one = 1, two = 2, bad = 13, err, x = rank, y = -1;
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &one, &r);
    MPI_Test(&r, &flag, &st);
    CHECK(!flag, "not complete before MPI_Grequest_complete");
    MPI_Cancel(&r);
    CHECK(greq_cancels == 1, "cancel of a pending request");
    MPI_Grequest_complete(r);
    MPI_Request_get_status(r, &flag, &st);
    CHECK(flag && st.MPI_SOURCE == 101 && greq_frees == 0, "get_status queries");
    MPI_Wait(&r, &st);
    CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == 101 && st.MPI_TAG == 7 && greq_frees == 1,
          "wait: source %d, %d frees", st.MPI_SOURCE, greq_frees);
    /* With a point-to-point request in one Waitall. */
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &two, &rs[0]);
    MPI_Irecv(&y, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &rs[1]);
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
    MPI_Grequest_complete(rs[0]);
    MPI_Waitall(2, rs, sts);
    CHECK(sts[0].MPI_SOURCE == 102 && y == (rank + size - 1) % size && greq_frees == 2,
          "waitall with a generalized request");
    /* A query function's error is the call's. */
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &bad, &r);
    MPI_Grequest_complete(r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OTHER && greq_frees == 3, "query error class %d", cls);
    /* Completed by another thread while this one waits. */
    pthread_t t;
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &one, &r);
    pthread_create(&t, NULL, complete_later, &r);
    MPI_Wait(&r, &st);
    pthread_join(t, NULL);
    CHECK(st.MPI_SOURCE == 101 && greq_frees == 4, "completed by another thread");
    section("generalized requests");
}

/* ---- datatypes in use ---- */

static void freed_types(void) {
    MPI_Datatype v, other;
    MPI_Request r, p;
    int buf[40], got[40];
    int from = (rank + size - 1) % size, to = (rank + 1) % size;
    for (int k = 0; k < 40; k++) {
        buf[k] = 1000 * rank + k;
        got[k] = -1;
    }
    MPI_Type_vector(10, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    MPI_Irecv(got, 2, v, from, 5, MPI_COMM_WORLD, &r);
    MPI_Recv_init(got, 1, v, from, 6, MPI_COMM_WORLD, &p);
    MPI_Type_free(&v);
    /* A new type may take the freed one's place only once no operation
     * uses it. */
    MPI_Type_contiguous(3, MPI_INT, &other);
    MPI_Type_commit(&other);
    MPI_Send(buf, 20, MPI_INT, to, 5, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    /* Two vectors of 10 ints with stride 2, the second one extent (19
     * ints) after the first. */
    int want[40], ok = 1;
    for (int k = 0; k < 40; k++)
        want[k] = -1;
    for (int j = 0; j < 20; j++)
        want[j < 10 ? 2 * j : 19 + 2 * (j - 10)] = 1000 * from + j;
    for (int k = 0; k < 40; k++)
        ok &= got[k] == want[k];
    CHECK(ok, "receive with a freed vector type");
    for (int round = 0; round < 3; round++) {
        MPI_Start(&p);
        MPI_Send(buf, 10, MPI_INT, to, 6, MPI_COMM_WORLD);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
    }
    CHECK(got[18] == 1000 * from + 9, "persistent receive with a freed type");
    MPI_Request_free(&p);
    MPI_Type_free(&other);
    section("freed datatypes");
}

/* ---- misc ---- */

static int thread_main = -1;

static void *ask_main(void *arg) {
    (void) arg;
    MPI_Is_thread_main(&thread_main);
    return NULL;
}

static void misc(int provided) {
    int v, sv, flag;
    MPI_Get_version(&v, &sv);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
    if (rank == 0)
        printf("MPI %d.%d\n", v, sv);
    MPI_Pcontrol(1);
    MPI_Pcontrol(0, "ignored");
    MPI_Is_thread_main(&flag);
    CHECK(flag, "the main thread is main");
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t t;
        pthread_create(&t, NULL, ask_main, NULL);
        pthread_join(t, NULL);
        CHECK(thread_main == 0, "another thread is not main (%d)", thread_main);
    }
    /* LXOR on floating types (MPICH allows it): C's truth, results 1 or 0.
     * (MPICH 4.0 accepts LAND and LOR on them too, then fails inside.) */
    double in[3] = {rank % 2 ? 2.5 : 0.0, 1.0, rank == 0 ? 0.0 : -1.0}, lxor[3];
    float fin = rank == 1 ? 0.5f : 0.0f, fout;
    MPI_Allreduce(in, lxor, 3, MPI_DOUBLE, MPI_LXOR, MPI_COMM_WORLD);
    MPI_Allreduce(&fin, &fout, 1, MPI_FLOAT, MPI_LXOR, MPI_COMM_WORLD);
    int odd = size / 2;
    CHECK(lxor[0] == (odd % 2 ? 1.0 : 0.0) && lxor[1] == (size % 2 ? 1.0 : 0.0) &&
              lxor[2] == ((size - 1) % 2 ? 1.0 : 0.0),
          "lxor %g %g %g", lxor[0], lxor[1], lxor[2]);
    CHECK(fout == 1.0f, "lxor on float %g", fout);
    section("misc");
}

/* ---- MPI_COMM_SELF at MPI_Finalize ---- */

static int self_deletes[4], nself;

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    int finalized;
    (void) comm;
    (void) keyval;
    (void) extra;
    MPI_Finalized(&finalized);
    self_deletes[nself++ % 4] = finalized ? -1 : (int) (long) value;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    int provided, k[3];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    attributes();
    names();
    errors();
    info();
    generalized();
    freed_types();
    misc(provided);
    for (int i = 0; i < 3; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k[i], NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, k[i], (void *) (long) (i + 1));
        MPI_Comm_free_keyval(&k[i]);
    }
    int code = finish_checks("mpi_state");
    MPI_Finalize();
    /* The delete callbacks ran at the start of MPI_Finalize, last set first. */
    int ok = nself == 3 && self_deletes[0] == 3 && self_deletes[1] == 2 && self_deletes[2] == 1;
    printf("rank %d: MPI_COMM_SELF attributes deleted at MPI_Finalize: %s\n", rank,
           ok ? "yes, last set first" : "NO");
    return code || !ok;
}
