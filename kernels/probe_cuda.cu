/*
 * probe_cuda.cu: the CUDA backend of vramlab-probe (host side): device
 * query, timing, buffers, copy and read; the matrix tests live in
 * probe_cuda_mat.cu.
 *
 * Method (shared spec measure.md, performance-anchors.md sec. 4): buffers at
 * least 4x L2 (a ring of copies for smaller operands), one warm-up launch,
 * then one discarded and GPU_SAMPLES timed samples, each k back-to-back
 * launches between two CUDA events with k chosen so a sample lasts >= 2 ms;
 * median, best and spread (coefficient of variation, flagged above 5%).
 * Outputs are poisoned before the first run and every kernel is compared
 * with the CPU reference (kern_quant.c, float64 accumulation) before its
 * number is reported. C = max(own copy kernel, cudaMemcpyAsync), counted
 * as bytes read + written.
 *
 * Failure: every CUDA call goes through CUDA_CHECK (probe_cuda.h); device
 * buffers are registered and freed on every exit path, including SIGTERM
 * (polled between samples) and a kernel fault (the sticky error ends the
 * run with an `error` event; process exit releases the context).
 *
 */
#include "config.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_cuda.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"
#include "kernels/probe.h"
#include "kernels/probe_cuda.h"

/* Record a failed call; returns -1. */
int cuda_err_record(struct cuda_err *e, cudaError_t code, const char *stmt, const char *file,
                    int line) {
    const char *base = strrchr(file, '/');
    e->code = code;
    snprintf(e->text, sizeof e->text, "%s (%s) in %s at %s:%d", cudaGetErrorString(code),
             cudaGetErrorName(code), stmt, base ? base + 1 : file, line);
    return -1;
}

/* Allocate and register a device buffer. */
int pcuda_alloc(struct cctx *C, void **p, size_t bytes) {
    *p = NULL;
    if (C->nbufs == MAX_BUFS) {
        snprintf(C->err.text, sizeof C->err.text, "too many device buffers");
        C->err.code = cudaErrorMemoryAllocation;
        return -1;
    }
    CUDA_CHECK(&C->err, cudaMalloc(p, bytes ? bytes : 16));
    C->bufs[C->nbufs++] = *p;
    return 0;
}

/* Free one registered buffer (NULL is ignored). */
void pcuda_free(struct cctx *C, void *p) {
    for (int i = 0; p && i < C->nbufs; i++)
        if (C->bufs[i] == p) {
            cudaFree(p);
            C->bufs[i] = C->bufs[--C->nbufs];
            return;
        }
}

/* Free every registered buffer (errors ignored: after a fault they fail). */
static void pcuda_free_all(struct cctx *C) {
    for (int i = 0; i < C->nbufs; i++)
        cudaFree(C->bufs[i]);
    C->nbufs = 0;
}

/* Time fn (see the module comment). Returns 0, or -1 on error/cancel. */
int pcuda_time(struct cctx *C, launch_fn fn, void *ctx, const char *test, struct probe_stats *st) {
    CUDA_CHECK(&C->err, fn(ctx, 0, C->s));
    CUDA_CHECK(&C->err, cudaStreamSynchronize(C->s));
    CUDA_CHECK(&C->err, cudaEventRecord(C->e0, C->s));
    CUDA_CHECK(&C->err, fn(ctx, 1, C->s));
    CUDA_CHECK(&C->err, cudaEventRecord(C->e1, C->s));
    CUDA_CHECK(&C->err, cudaEventSynchronize(C->e1));
    float ms = 0;
    CUDA_CHECK(&C->err, cudaEventElapsedTime(&ms, C->e0, C->e1));
    unsigned k = ms > 0 ? (unsigned)ceil(GPU_MIN_SAMPLE_MS / ms) : 1000;
    k = k < 1 ? 1 : k > 20000 ? 20000 : k;
    double t[GPU_SAMPLES + 1];
    for (unsigned smp = 0; smp <= GPU_SAMPLES; smp++) {
        if (probe_cancelled()) {
            C->skipped = true;
            return -1;
        }
        CUDA_CHECK(&C->err, cudaEventRecord(C->e0, C->s));
        for (unsigned r = 0; r < k; r++)
            CUDA_CHECK(&C->err, fn(ctx, r, C->s));
        CUDA_CHECK(&C->err, cudaEventRecord(C->e1, C->s));
        CUDA_CHECK(&C->err, cudaEventSynchronize(C->e1));
        CUDA_CHECK(&C->err, cudaEventElapsedTime(&ms, C->e0, C->e1));
        t[smp] = 1e-3 * ms / k;
        probe_emit_progress(test, (double)smp / GPU_SAMPLES);
    }
    probe_stats_summarise(t + 1, GPU_SAMPLES, st); /* the first sample is discarded */
    return 0;
}

/* Build the ring: slot 0 is src itself, more slots are device copies,
 * until `count` slots (0: until the ring touches 4x L2). */
int pcuda_ring_make(struct cctx *C, void *src, size_t bytes, unsigned count, struct ring *r) {
    r->n = 1;
    r->p[0] = src;
    while (r->n < RING_MAX && (count ? r->n < count : (double)r->n * bytes < 4.0 * C->l2)) {
        if (pcuda_alloc(C, &r->p[r->n], bytes) != 0)
            return -1;
        CUDA_CHECK(&C->err,
                   cudaMemcpyAsync(r->p[r->n], src, bytes, cudaMemcpyDeviceToDevice, C->s));
        r->n++;
    }
    return 0;
}

/* Free the ring's copies (not slot 0). */
void pcuda_ring_free(struct cctx *C, struct ring *r) {
    for (unsigned i = 1; i < r->n; i++)
        pcuda_free(C, r->p[i]);
    r->n = 1;
}

/* ---- copy and read -------------------------------------------------------- */

struct stream_ctx {
    void *a, *b;
    size_t bytes;
    int sms;
    unsigned long long *sum;
};

/* Launch: own copy kernel. */
static cudaError_t launch_copy(void *v, unsigned rep, cudaStream_t s) {
    (void)rep;
    struct stream_ctx *c = (struct stream_ctx *)v;
    return kc_copy(c->a, c->b, c->bytes, c->sms, s);
}

/* Launch: the copy engine. */
static cudaError_t launch_memcpy(void *v, unsigned rep, cudaStream_t s) {
    (void)rep;
    struct stream_ctx *c = (struct stream_ctx *)v;
    return cudaMemcpyAsync(c->b, c->a, c->bytes, cudaMemcpyDeviceToDevice, s);
}

/* Launch: read-only reduction. */
static cudaError_t launch_read(void *v, unsigned rep, cudaStream_t s) {
    (void)rep;
    struct stream_ctx *c = (struct stream_ctx *)v;
    return kc_read(c->a, c->bytes, c->sum, c->sms, s);
}

/* Check b == a on the device (all words) and against the host pattern at
 * both ends; *ok is the verdict. */
static int copy_check(struct cctx *C, struct stream_ctx *c, unsigned long long *dcount, bool *ok) {
    size_t words = c->bytes / 4;
    unsigned long long count = 1;
    uint32_t head[1024], tail[1024];
    CUDA_CHECK(&C->err, cudaMemsetAsync(dcount, 0, sizeof *dcount, C->s));
    CUDA_CHECK(&C->err, kc_count_mismatch((const uint32_t *)c->a, (const uint32_t *)c->b, words,
                                          dcount, C->sms, C->s));
    CUDA_CHECK(&C->err,
               cudaMemcpyAsync(&count, dcount, sizeof count, cudaMemcpyDeviceToHost, C->s));
    CUDA_CHECK(&C->err, cudaMemcpyAsync(head, c->b, sizeof head, cudaMemcpyDeviceToHost, C->s));
    CUDA_CHECK(&C->err, cudaMemcpyAsync(tail, (uint32_t *)c->b + words - 1024, sizeof tail,
                                        cudaMemcpyDeviceToHost, C->s));
    CUDA_CHECK(&C->err, cudaStreamSynchronize(C->s));
    *ok = count == 0;
    for (size_t i = 0; i < 1024; i++)
        *ok = *ok && head[i] == kc_pattern(i) && tail[i] == kc_pattern(words - 1024 + i);
    return 0;
}

/* Sum of kc_pattern(i) for i < n, in closed form (mod 2^64 like the GPU). */
static unsigned long long pattern_sum(size_t n) {
    unsigned long long p = 65521ull, full = n / p, r = n % p;
    return full * (p * (p - 1) / 2) + r * (r - 1) / 2;
}

/* copy (own kernel and cudaMemcpyAsync, the larger is C) and read. */
static int run_stream(struct cctx *C, size_t free_b) {
    struct stream_ctx c;
    memset(&c, 0, sizeof c);
    /* quick: still 4x L2 (the ring rule of the matrix tests), a power of two */
    size_t want = (size_t)1 << 30;
    if (C->o->quick)
        for (want = (size_t)64 << 20; want < 4 * C->l2 && want < ((size_t)1 << 30);)
            want *= 2;
    while (want > ((size_t)16 << 20) && want > free_b / 4)
        want /= 2;
    c.bytes = want;
    c.sms = C->sms;
    unsigned long long *dcount = NULL;
    if (pcuda_alloc(C, &c.a, c.bytes) || pcuda_alloc(C, &c.b, c.bytes) ||
        pcuda_alloc(C, (void **)&dcount, 2 * sizeof *dcount))
        return -1;
    c.sum = dcount + 1;
    CUDA_CHECK(&C->err, kc_fill_pattern((uint32_t *)c.a, c.bytes / 4, C->sms, C->s));

    if (C->o->want[PROBE_COPY]) {
        struct probe_result best;
        memset(&best, 0, sizeof best);
        launch_fn fns[2] = {launch_copy, launch_memcpy};
        const char *names[2] = {"kernel", "memcpy"};
        for (int m = 0; m < 2; m++) {
            struct probe_result r;
            memset(&r, 0, sizeof r);
            r.test = "copy";
            r.method = names[m];
            r.cols = c.bytes / 16;
            r.bytes = 2.0 * (double)c.bytes;
            CUDA_CHECK(&C->err, cudaMemsetAsync(c.b, 0xff, c.bytes, C->s)); /* poison */
            if (pcuda_time(C, fns[m], &c, "copy", &r.st) != 0)
                return -1;
            if (copy_check(C, &c, dcount, &r.verified) != 0)
                return -1;
            if (!best.test || (best.verified && (!r.verified || r.st.median_s < best.st.median_s)))
                best = r;
        }
        C->bad |= !best.verified;
        probe_emit_result(&best);
    }
    if (C->o->want[PROBE_READ]) {
        struct probe_result r;
        memset(&r, 0, sizeof r);
        r.test = "read";
        r.method = "kernel";
        r.cols = c.bytes / 16;
        r.bytes = (double)c.bytes;
        unsigned long long got = 0;
        CUDA_CHECK(&C->err, cudaMemsetAsync(c.sum, 0, sizeof *c.sum, C->s));
        CUDA_CHECK(&C->err, kc_read(c.a, c.bytes, c.sum, C->sms, C->s));
        CUDA_CHECK(&C->err, cudaMemcpyAsync(&got, c.sum, sizeof got, cudaMemcpyDeviceToHost, C->s));
        CUDA_CHECK(&C->err, cudaStreamSynchronize(C->s));
        r.verified = got == pattern_sum(c.bytes / 4);
        if (pcuda_time(C, launch_read, &c, "read", &r.st) != 0)
            return -1;
        C->bad |= !r.verified;
        probe_emit_result(&r);
    }
    pcuda_free(C, c.a);
    pcuda_free(C, c.b);
    pcuda_free(C, dcount);
    return 0;
}

/* ---- device and entry point --------------------------------------------------- */

/* The probe error code of a CUDA error. */
static const char *error_code(cudaError_t e) {
    switch (e) {
    case cudaErrorInsufficientDriver:
        return PROBE_ERR_DRIVER_OLD;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
        return PROBE_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
        return PROBE_ERR_OOM;
    case cudaErrorInitializationError:
    case cudaErrorStubLibrary:
        return PROBE_ERR_NO_DRIVER;
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
        return PROBE_ERR_FAULT;
    default:
        return PROBE_ERR_INTERNAL;
    }
}

/* Query the device, emit the device event. */
static int query_device(struct cctx *C, int dev, size_t *free_b) {
    int ndev = 0;
    CUDA_CHECK(&C->err, cudaGetDeviceCount(&ndev));
    if (dev >= ndev) {
        C->err.code = cudaErrorInvalidDevice;
        snprintf(C->err.text, sizeof C->err.text, "CUDA device %d does not exist (%d found)", dev,
                 ndev);
        return -1;
    }
    CUDA_CHECK(&C->err, cudaSetDevice(dev));
    struct cudaDeviceProp p;
    CUDA_CHECK(&C->err, cudaGetDeviceProperties(&p, dev));
    int sms = 0, clk_khz = 0, bus = 0, l2 = 0;
    CUDA_CHECK(&C->err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(&C->err, cudaDeviceGetAttribute(&clk_khz, cudaDevAttrMemoryClockRate, dev));
    CUDA_CHECK(&C->err, cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
    CUDA_CHECK(&C->err, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    size_t total = 0;
    CUDA_CHECK(&C->err, cudaMemGetInfo(free_b, &total));
    C->sms = sms;
    C->l2 = (size_t)(l2 > 0 ? l2 : 50 << 20);
    struct probe_device d;
    memset(&d, 0, sizeof d);
    d.backend = "cuda";
    snprintf(d.name, sizeof d.name, "%.127s", p.name);
    d.memory_bytes = (double)total;
    d.compute_units = (unsigned)sms;
    d.memory_clock_hz = 1e3 * clk_khz;
    d.bus_width_bits = (unsigned)bus;
    /* double data rate: two transfers per memory clock */
    d.theoretical_bytes_per_s = 2.0 * d.memory_clock_hz * bus / 8.0;
    d.l2_bytes = (double)C->l2;
    snprintf(d.arch, sizeof d.arch, "sm_%d%d", p.major, p.minor);
    probe_emit_device(&d);
    return 0;
}

/* Run the selected tests on the GPU. */
static int cuda_run(const struct probe_opts *o, const char **code, char *msg, size_t len) {
    struct cctx *C = (struct cctx *)calloc(1, sizeof *C);
    if (!C) {
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "out of host memory");
        return -1;
    }
    C->o = o;
    size_t free_b = 0;
    int rc = query_device(C, o->device, &free_b);
    bool have_stream = false, have_events = false;
    if (rc == 0) {
        rc = cudaStreamCreateWithFlags(&C->s, cudaStreamNonBlocking) == cudaSuccess ? 0 : -1;
        have_stream = rc == 0;
        if (rc == 0)
            rc = cudaEventCreate(&C->e0) == cudaSuccess && cudaEventCreate(&C->e1) == cudaSuccess
                     ? 0
                     : -1;
        have_events = rc == 0;
        if (rc != 0)
            cuda_err_record(&C->err, cudaGetLastError(), "stream/event", __FILE__, __LINE__);
    }
    if (rc == 0 && (o->want[PROBE_COPY] || o->want[PROBE_READ]))
        rc = run_stream(C, free_b);
    if (rc == 0 && (o->want[PROBE_GEMV_FP16] || o->want[PROBE_GEMM] || o->want[PROBE_QUANTIZE] ||
                    o->want[PROBE_DEQUANTIZE] || o->want[PROBE_W8A16] || o->want[PROBE_W4A16]))
        rc = cuda_run_matrix(C, free_b);
    if (rc == 0 && o->want[PROBE_ERROR])
        rc = cuda_run_error_lab(C);
    pcuda_free_all(C);
    if (have_events) {
        cudaEventDestroy(C->e0);
        cudaEventDestroy(C->e1);
    }
    if (have_stream)
        cudaStreamDestroy(C->s);
    if (rc != 0 && !C->skipped) {
        int drv = 0;
        cudaDriverGetVersion(&drv);
        *code = error_code(C->err.code);
        if (drv == 0 && C->err.code == cudaErrorInsufficientDriver) {
            *code = PROBE_ERR_NO_DRIVER;
            snprintf(msg, len,
                     "no NVIDIA driver found (libcuda.so is not installed or not "
                     "loadable); use --device cpu");
        } else if (C->err.code == cudaErrorInsufficientDriver)
            snprintf(msg, len,
                     "no usable NVIDIA driver: it is missing or older than this probe's CUDA "
                     "runtime " VRAMLAB_CUDA_VERSION " (%s)",
                     C->err.text);
        else
            snprintf(msg, len, "%s", C->err.text[0] ? C->err.text : "CUDA failure");
    } else if (rc == 0 && C->bad) {
        *code = PROBE_ERR_VERIFY;
        snprintf(msg, len, "a kernel disagreed with its CPU reference (see verified:false)");
        rc = -1;
    } else if (C->skipped) {
        *code = PROBE_ERR_CANCELLED;
        snprintf(msg, len, "cancelled");
    }
    free(C);
    return rc;
}

/* --build-info line of this backend. */
static const char *cuda_build_info(void) {
    static char buf[160];
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    snprintf(buf, sizeof buf, "runtime %d.%d (static), driver %d.%d%s", rt / 1000, (rt % 1000) / 10,
             drv / 1000, (drv % 1000) / 10, drv ? "" : " (none found)");
    return buf;
}

extern "C" const struct probe_backend probe_backend_cuda = {"cuda", cuda_run, cuda_build_info};
