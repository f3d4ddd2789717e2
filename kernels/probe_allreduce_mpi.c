/*
 * probe_allreduce_mpi.c: the all-reduce test's MPI side (built when
 * configure found an MPI, --with-mpi): the world of ranks and hosts, the
 * small collectives the driver agrees through (the slowest rank's time,
 * every rank's verdict), the broadcast of NCCL's unique id, and the host
 * transport MPI_Allreduce (see probe_allreduce.h).
 *
 * MPI is initialised only when the probe was started by an MPI launcher
 * and asked for the all-reduce: every other run of the probe never
 * touches MPI. Errors are returned (MPI_ERRORS_RETURN on the world) so
 * that a rank can say what failed before the job is stopped.
 */
#include "config.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kern_half.h"
#include "kernels/probe_allreduce.h"

static MPI_Op bf16_sum = MPI_OP_NULL;

/* The BF16 sum: each pair added in FP32 and rounded back to nearest even
 * (kern_f32_to_bf16), as NCCL and PyTorch add BF16. */
static void bf16_add(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const uint16_t *a = in;
    uint16_t *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = kern_f32_to_bf16(kern_bf16_to_f32(a[i]) + kern_bf16_to_f32(b[i]));
}

/* MPI's error string of a return code. */
static void mpi_say(int rc, const char *what, char *msg, size_t len) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    snprintf(msg, len, "%s: %s", what, s);
}

/* Initialise MPI and describe the world. */
int par_mpi_init(struct probe_ar_world *w, char *msg, size_t len) {
    int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
        mpi_say(rc, "MPI_Init", msg, len);
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    w->mpi = true;
    char name[MPI_MAX_PROCESSOR_NAME];
    int nl = 0;
    MPI_Get_processor_name(name, &nl);
    snprintf(w->host, sizeof w->host, "%.*s", nl, name);
    /* the local rank: among the ranks that share memory with this one */
    MPI_Comm local;
    w->local_rank = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(local, &w->local_rank);
        MPI_Comm_free(&local);
    }
    /* the hosts: distinct host names over the ranks (MPI_Get_processor_name) */
    enum { HN = 64 };
    char mine[HN];
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s", w->host);
    char *all = calloc((size_t)w->size, HN);
    w->hosts = 1;
    if (all &&
        MPI_Allgather(mine, HN, MPI_CHAR, all, HN, MPI_CHAR, MPI_COMM_WORLD) == MPI_SUCCESS) {
        int hosts = 0;
        for (int i = 0; i < w->size; i++) {
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = strncmp(all + (size_t)i * HN, all + (size_t)j * HN, HN) == 0;
            hosts += !seen;
        }
        w->hosts = hosts;
    }
    free(all);
    MPI_Op_create(bf16_add, 1, &bf16_sum);
    return 0;
}

/* Leave MPI. */
void par_mpi_finalize(void) {
    if (bf16_sum != MPI_OP_NULL)
        MPI_Op_free(&bf16_sum);
    MPI_Finalize();
}

/* Stop every rank of the job. */
void par_mpi_abort(int status) {
    MPI_Abort(MPI_COMM_WORLD, status);
    _exit(status);
}

/* The largest v over the ranks. */
double par_mpi_max(double v) {
    double r = v;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return r;
}

/* The sum of v over the ranks. */
long par_mpi_sum(long v) {
    long r = v;
    MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

/* The smallest v over the ranks. */
long par_mpi_min(long v) {
    long r = v;
    MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    return r;
}

/* Wait for every rank. */
void par_mpi_barrier(void) {
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0's len bytes to every rank. */
void par_mpi_bcast(void *buf, size_t len) {
    MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/* iters MPI_Allreduce calls back to back; this rank's seconds. Counts
 * above INT_MAX are sent in pieces (MPI counts are int). */
double par_mpi_allreduce(const void *send, void *recv, size_t count, enum probe_ar_dtype d,
                         unsigned iters, char *msg, size_t len) {
    MPI_Datatype type = d == PROBE_AR_BF16 ? MPI_UINT16_T : MPI_FLOAT;
    MPI_Op op = d == PROBE_AR_BF16 ? bf16_sum : MPI_SUM;
    size_t es = probe_ar_dtype_size(d), piece = (size_t)1 << 30;
    double t0 = MPI_Wtime();
    for (unsigned k = 0; k < iters; k++) {
        for (size_t off = 0; off < count; off += piece) {
            size_t n = count - off < piece ? count - off : piece;
            int rc = MPI_Allreduce((const char *)send + off * es, (char *)recv + off * es, (int)n,
                                   type, op, MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS) {
                mpi_say(rc, "MPI_Allreduce", msg, len);
                return -1;
            }
        }
    }
    return MPI_Wtime() - t0;
}
