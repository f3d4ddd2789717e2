/*
 * probe_cuda.h: CUDA error checking for the probe's CUDA backend.
 *
 * CUDA_CHECK(E, call) records the failing statement, file and line and the
 * CUDA error's name and text in *E, and returns -1 from the enclosing
 * function; the backend then frees every device buffer it registered and
 * reports an `error` event. It never exits (unlike BabelStream's and
 * nvbandwidth's checks; style.md "Errors, by layer").
 */
#ifndef VRAMLAB_PROBE_CUDA_H
#define VRAMLAB_PROBE_CUDA_H

#include <cuda_runtime.h>

#include <stddef.h>

struct cuda_err {
    cudaError_t code;
    char text[400];
};

/* Record a failed call; returns -1. */
int cuda_err_record(struct cuda_err *e, cudaError_t code, const char *stmt, const char *file,
                    int line);

#define CUDA_CHECK(E, call)                                                                        \
    do {                                                                                           \
        cudaError_t cuda_check_rc_ = (call);                                                       \
        if (cuda_check_rc_ != cudaSuccess)                                                         \
            return cuda_err_record((E), cuda_check_rc_, #call, __FILE__, __LINE__);                \
    } while (0)

#include <stdbool.h>

#include "kernels/probe.h"

#define GPU_SAMPLES       20
#define GPU_MIN_SAMPLE_MS 2.0
#define VERIFY_ROWS       48
#define MAX_BUFS          64
#define RING_MAX          8
#define W_SEED            11
#define X_SEED            12
#define XG_SEED           13
#define W_AMP             0.05f

/* The backend's state: stream, events, registered buffers, first error. */
struct cctx {
    const struct probe_opts *o;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    void *bufs[MAX_BUFS];
    int nbufs;
    int sms;
    size_t l2;
    struct cuda_err err;
    bool bad;     /* a kernel disagreed with its reference */
    bool skipped; /* cancelled by a signal */
};

/* Allocate and register a device buffer; -1 with C->err set. */
int pcuda_alloc(struct cctx *C, void **p, size_t bytes);
/* Free one registered buffer (NULL is ignored). */
void pcuda_free(struct cctx *C, void *p);

/* A kernel launch for the timer: `rep` picks a ring slot. */
typedef cudaError_t (*launch_fn)(void *ctx, unsigned rep, cudaStream_t s);

/* Time fn: warm-up, one discarded and GPU_SAMPLES samples of >= 2 ms. */
int pcuda_time(struct cctx *C, launch_fn fn, void *ctx, const char *test, struct probe_stats *st);

/* Copies of a buffer so a kernel cycling through them touches >= 4x L2. */
struct ring {
    void *p[RING_MAX];
    unsigned n;
};

/* Build a ring of `count` copies of src (0: enough to touch 4x L2; slot 0
 * is src itself). */
int pcuda_ring_make(struct cctx *C, void *src, size_t bytes, unsigned count, struct ring *r);
/* Free the ring's copies. */
void pcuda_ring_free(struct cctx *C, struct ring *r);

/* The matrix tests (GEMV, GEMM sweep, quantization; probe_cuda_mat.cu)
 * and the error lab (probe_cuda_lab.cu). */
int cuda_run_matrix(struct cctx *C, size_t free_b);
int cuda_run_error_lab(struct cctx *C);

#endif
