/*
 * probe_cuda_mat.cu: the CUDA backend's matrix tests: FP16 GEMV, the cuBLAS
 * GEMM sweep (1..4096 vectors: reuse and the roofline), quantize and
 * dequantize (groups of 32, FP16 scales), W8A16/W4A16 GEMV at batch 1..16
 * (the error lab is in probe_cuda_lab.cu). Method and failure handling as in
 * probe_cuda.cu. Byte counts (performance-anchors.md sec. 4.8): GEMV
 * W + x + y; quantize FP16 in + codes + scales; dequantize codes + scales +
 * FP16 out; WbA16 codes + scales + x + y. cuBLAS is opened with dlopen
 * so the probe needs only the driver: without libcublas the sweep is
 * skipped, visibly (a `skip` event).
 */
#include "config.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_cuda.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"
#include "kernels/probe.h"
#include "kernels/probe_cuda.h"

/* ---- matrices: GEMV, GEMM, quantization ------------------------------------ */

struct mat {
    int rows, cols;
    uint16_t *w, *x, *deq;
    float *y;
    uint8_t *codes;
    uint16_t *scales;
    struct ring ring;  /* of w, or of the packed codes */
    struct ring sring; /* of the scales, in step with ring */
    int bits, batch;
    /* host copies for checks: sampled rows of W, and all of x */
    uint16_t *hw, *hx;
    int vrows[VERIFY_ROWS];
};

/* Launch: FP16 GEMV on ring slot rep. */
static cudaError_t launch_gemv(void *v, unsigned rep, cudaStream_t s) {
    struct mat *m = (struct mat *)v;
    return kc_gemv_f16((const uint16_t *)m->ring.p[rep % m->ring.n], m->x, m->y, m->rows, m->cols,
                       s);
}

/* Launch: quantize W (groups of 32). */
static cudaError_t launch_quant(void *v, unsigned rep, cudaStream_t s) {
    (void)rep;
    struct mat *m = (struct mat *)v;
    return kc_quantize(m->w, (size_t)m->rows * m->cols, m->bits, m->codes, m->scales, NULL, s);
}

/* Launch: dequantize to FP16. */
static cudaError_t launch_dequant(void *v, unsigned rep, cudaStream_t s) {
    (void)rep;
    struct mat *m = (struct mat *)v;
    return kc_dequantize(m->codes, m->scales, NULL, (size_t)m->rows * m->cols, m->bits, m->deq, s);
}

/* Launch: quantized GEMV on ring slot rep. */
static cudaError_t launch_gemv_q(void *v, unsigned rep, cudaStream_t s) {
    struct mat *m = (struct mat *)v;
    unsigned k = rep % m->ring.n;
    return kc_gemv_q((const uint8_t *)m->ring.p[k], (const uint16_t *)m->sring.p[k], m->x, m->y,
                     m->rows, m->cols, m->bits, m->batch, s);
}

/* Regenerate sampled row r of W on the host (the device's exact bits). */
static void host_row(const struct mat *m, int r, uint16_t *out) {
    for (int c = 0; c < m->cols; c++)
        out[c] = kern_f32_to_f16(W_AMP * kc_value((uint64_t)r * m->cols + c, W_SEED));
}

/* Compare y (batch x rows, on the device) with the float64 reference on
 * the sampled rows; q selects the quantized product (using the twin's codes
 * of those rows, already checked bit-exact). Returns the worst error in
 * tolerance units through *worst. */
static int gemv_check(struct cctx *C, struct mat *m, bool q, const uint8_t *tcodes,
                      const uint16_t *tscales, double *worst) {
    size_t ny = (size_t)m->batch * m->rows;
    float *y = (float *)malloc(ny * sizeof *y);
    if (!y) {
        *worst = INFINITY;
        return 0;
    }
    cudaError_t rc = cudaMemcpy(y, m->y, ny * sizeof *y, cudaMemcpyDeviceToHost);
    if (rc != cudaSuccess) {
        free(y);
        return cuda_err_record(&C->err, rc, "cudaMemcpy(y)", __FILE__, __LINE__);
    }
    size_t cb = kern_quant_code_bytes((size_t)m->cols, (unsigned)m->bits), ns = m->cols / 32;
    *worst = 0;
    for (int b = 0; b < m->batch; b++)
        for (int k = 0; k < VERIFY_ROWS; k++) {
            int r = m->vrows[k];
            double as, ref;
            const uint16_t *xb = m->hx + (size_t)b * m->cols;
            if (q)
                ref = kern_gemv_q_ref_row(tcodes + k * cb, tscales + k * ns, 0, m->cols,
                                          (unsigned)m->bits, 32, xb, &as);
            else
                ref = kern_gemv_f16_ref_row(m->hw + (size_t)k * m->cols, 0, m->cols, xb, &as);
            double e = fabs(y[(size_t)b * m->rows + r] - ref) / (KERN_GEMV_RTOL * as + 1e-30);
            if (!(e <= *worst))
                *worst = isnan(e) ? INFINITY : e;
        }
    free(y);
    return 0;
}

/* Quantize the sampled rows with the CPU twin into tcodes/tscales and
 * compare with the device's codes and scales bit for bit. */
static int quant_check(struct cctx *C, struct mat *m, uint8_t *tcodes, uint16_t *tscales,
                       bool *ok) {
    size_t cb = kern_quant_code_bytes((size_t)m->cols, (unsigned)m->bits), ns = m->cols / 32;
    uint8_t *dc = (uint8_t *)malloc(cb);
    uint16_t *ds = (uint16_t *)malloc(ns * 2);
    *ok = dc && ds;
    for (int k = 0; *ok && k < VERIFY_ROWS; k++) {
        int r = m->vrows[k];
        kern_quantize_rows_f16(m->hw + (size_t)k * m->cols, m->cols, 0, 1, (unsigned)m->bits, 32,
                               tcodes + k * cb, tscales + k * ns, NULL);
        cudaError_t rc = cudaMemcpy(dc, m->codes + (size_t)r * cb, cb, cudaMemcpyDeviceToHost);
        if (rc == cudaSuccess)
            rc = cudaMemcpy(ds, m->scales + (size_t)r * ns, ns * 2, cudaMemcpyDeviceToHost);
        if (rc != cudaSuccess) {
            free(dc);
            free(ds);
            return cuda_err_record(&C->err, rc, "cudaMemcpy(codes)", __FILE__, __LINE__);
        }
        *ok = memcmp(dc, tcodes + k * cb, cb) == 0 && memcmp(ds, tscales + k * ns, ns * 2) == 0;
    }
    free(dc);
    free(ds);
    return 0;
}

/* Compare the dequantized sampled rows with the twin's. */
static int dequant_check(struct cctx *C, struct mat *m, const uint8_t *tcodes,
                         const uint16_t *tscales, bool *ok) {
    size_t cb = kern_quant_code_bytes((size_t)m->cols, (unsigned)m->bits), ns = m->cols / 32;
    uint16_t *a = (uint16_t *)malloc(m->cols * 2), *b = (uint16_t *)malloc(m->cols * 2);
    *ok = a && b;
    for (int k = 0; *ok && k < VERIFY_ROWS; k++) {
        cudaError_t rc = cudaMemcpy(a, m->deq + (size_t)m->vrows[k] * m->cols, m->cols * 2,
                                    cudaMemcpyDeviceToHost);
        if (rc != cudaSuccess) {
            free(a);
            free(b);
            return cuda_err_record(&C->err, rc, "cudaMemcpy(deq)", __FILE__, __LINE__);
        }
        kern_dequantize_rows_f16(tcodes + k * cb, tscales + k * ns, m->cols, 0, 1,
                                 (unsigned)m->bits, 32, b);
        *ok = memcmp(a, b, m->cols * 2) == 0;
    }
    free(a);
    free(b);
    return 0;
}

/* ---- cuBLAS by dlopen ------------------------------------------------------ */

typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_destroy_fn)(void *);
typedef int (*cublas_stream_fn)(void *, cudaStream_t);
typedef int (*cublas_gemm_fn)(void *, int, int, int, int, int, const void *, const void *, int, int,
                              const void *, int, int, const void *, void *, int, int, int, int);
/* cublas_api.h values, stable across 11..13 */
#define CB_OP_N         0
#define CB_OP_T         1
#define CB_R_16F        2
#define CB_COMPUTE_32F  68
#define CB_GEMM_DEFAULT (-1)

struct cublas {
    void *lib, *h;
    cublas_create_fn create;
    cublas_destroy_fn destroy;
    cublas_stream_fn set_stream;
    cublas_gemm_fn gemm;
};

/* Open libcublas and make a handle; -1 (with reason) when unavailable. */
static int cublas_open(struct cublas *cb, cudaStream_t s, char *why, size_t len) {
    const char *names[] = {
        "libcublas.so.13",
        "libcublas.so.12",
        "libcublas.so",
#ifdef VRAMLAB_CUDA_LIBDIR
        VRAMLAB_CUDA_LIBDIR "/libcublas.so",
#endif
    };
    memset(cb, 0, sizeof *cb);
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !cb->lib; i++)
        cb->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!cb->lib) {
        snprintf(why, len, "libcublas not found (%s)", dlerror());
        return -1;
    }
    cb->create = (cublas_create_fn)dlsym(cb->lib, "cublasCreate_v2");
    cb->destroy = (cublas_destroy_fn)dlsym(cb->lib, "cublasDestroy_v2");
    cb->set_stream = (cublas_stream_fn)dlsym(cb->lib, "cublasSetStream_v2");
    cb->gemm = (cublas_gemm_fn)dlsym(cb->lib, "cublasGemmEx");
    if (!cb->create || !cb->destroy || !cb->set_stream || !cb->gemm || cb->create(&cb->h) != 0 ||
        cb->set_stream(cb->h, s) != 0) {
        snprintf(why, len, "libcublas could not be initialised");
        if (cb->h)
            cb->destroy(cb->h);
        dlclose(cb->lib);
        memset(cb, 0, sizeof *cb);
        return -1;
    }
    return 0;
}

/* Release the handle and the library. */
static void cublas_close(struct cublas *cb) {
    if (cb->h)
        cb->destroy(cb->h);
    if (cb->lib)
        dlclose(cb->lib);
    memset(cb, 0, sizeof *cb);
}

struct gemm_ctx {
    struct cublas *cb;
    struct mat *m;
    uint16_t *X, *Y;
    int nvec;
    int status;
};

/* Launch: Y (N x B, column-major) = W X with W row-major N x K, i.e. the
 * column-major K x N matrix transposed; FP16 in and out, FP32 compute,
 * tensor cores by cuBLAS's default algorithm choice. */
static cudaError_t launch_gemm(void *v, unsigned rep, cudaStream_t s) {
    (void)rep;
    (void)s;
    struct gemm_ctx *g = (struct gemm_ctx *)v;
    const float one = 1.0f, zero = 0.0f;
    g->status = g->cb->gemm(g->cb->h, CB_OP_T, CB_OP_N, g->m->rows, g->nvec, g->m->cols, &one,
                            g->m->w, CB_R_16F, g->m->cols, g->X, CB_R_16F, g->m->cols, &zero, g->Y,
                            CB_R_16F, g->m->rows, CB_COMPUTE_32F, CB_GEMM_DEFAULT);
    return g->status == 0 ? cudaGetLastError() : cudaErrorUnknown;
}

/* The GEMM sweep over 1..4096 vectors. */
static int run_gemm(struct cctx *C, struct mat *m) {
    struct cublas cb;
    char why[256];
    if (cublas_open(&cb, C->s, why, sizeof why) != 0) {
        probe_emit_skip("gemm", why);
        return 0;
    }
    static const int sweep_full[] = {1, 2, 4, 8, 16, 64, 256, 1024, 4096};
    static const int sweep_quick[] = {1, 64, 512};
    const int *sweep = C->o->quick ? sweep_quick : sweep_full;
    int nsweep = C->o->quick ? 3 : 9, maxv = sweep[nsweep - 1];
    struct gemm_ctx g;
    memset(&g, 0, sizeof g);
    g.cb = &cb;
    g.m = m;
    int rc = 0;
    if (pcuda_alloc(C, (void **)&g.X, (size_t)maxv * m->cols * 2) != 0 ||
        pcuda_alloc(C, (void **)&g.Y, (size_t)maxv * m->rows * 2) != 0) {
        cublas_close(&cb);
        return -1;
    }
    uint16_t *xh = (uint16_t *)malloc((size_t)m->cols * 2);
    uint16_t *yh = (uint16_t *)malloc((size_t)m->rows * 2);
    if (!xh || !yh) {
        rc = -1;
        snprintf(C->err.text, sizeof C->err.text, "out of host memory");
        goto out;
    }
    if (kc_fill_f16(g.X, (size_t)maxv * m->cols, XG_SEED, 1.0f, C->sms, C->s) != cudaSuccess) {
        rc = cuda_err_record(&C->err, cudaGetLastError(), "kc_fill_f16", __FILE__, __LINE__);
        goto out;
    }
    for (int i = 0; i < nsweep && rc == 0; i++) {
        g.nvec = sweep[i];
        struct probe_result r;
        memset(&r, 0, sizeof r);
        r.test = "gemm";
        r.method = "cublas";
        r.batch = (unsigned)g.nvec;
        r.rows = (size_t)m->rows;
        r.cols = (size_t)m->cols;
        r.bytes = 2.0 * m->rows * (double)m->cols + 2.0 * m->cols * (double)g.nvec +
                  2.0 * m->rows * (double)g.nvec;
        r.flop = 2.0 * m->rows * (double)m->cols * g.nvec;
        cudaMemsetAsync(g.Y, 0xff, (size_t)g.nvec * m->rows * 2, C->s);
        if (pcuda_time(C, launch_gemm, &g, "gemm", &r.st) != 0) {
            rc = -1;
            break;
        }
        /* check the last vector's outputs on the sampled rows */
        int v = g.nvec - 1;
        cudaError_t e =
            cudaMemcpy(yh, g.Y + (size_t)v * m->rows, (size_t)m->rows * 2, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            rc = cuda_err_record(&C->err, e, "cudaMemcpy(Y)", __FILE__, __LINE__);
            break;
        }
        for (int c = 0; c < m->cols; c++)
            xh[c] = kern_f32_to_f16(kc_value((uint64_t)v * m->cols + c, XG_SEED));
        double worst = 0;
        for (int k = 0; k < VERIFY_ROWS; k++) {
            double as,
                ref = kern_gemv_f16_ref_row(m->hw + (size_t)k * m->cols, 0, m->cols, xh, &as);
            /* FP16 output: one half-ulp of the result on top of the sum bound */
            double tol = KERN_GEMV_RTOL * as + fabs(ref) * 0x1p-10;
            double err = fabs(kern_f16_to_f32(yh[m->vrows[k]]) - ref) / (tol + 1e-30);
            worst = err > worst || isnan(err) ? (isnan(err) ? INFINITY : err) : worst;
        }
        r.max_error = worst;
        r.verified = worst <= 1.0;
        C->bad |= !r.verified;
        probe_emit_result(&r);
    }
out:
    free(xh);
    free(yh);
    pcuda_free(C, g.X);
    pcuda_free(C, g.Y);
    cublas_close(&cb);
    return rc;
}

/* FP16 GEMV, GEMM sweep, quantize/dequantize, W8A16/W4A16 GEMV. */
int cuda_run_matrix(struct cctx *C, size_t free_b) {
    struct mat m;
    memset(&m, 0, sizeof m);
    m.rows = m.cols = C->o->quick ? 2048 : 16384;
    /* sized down to fit: W, its dequantized copy, codes and rings in half
     * of the free memory */
    while (m.rows > 1024 && 5.0 * m.rows * (double)m.cols * 2 > free_b / 2)
        m.rows /= 2;
    size_t n = (size_t)m.rows * m.cols;
    const int max_batch = 16;
    size_t cb_max = kern_quant_code_bytes(n, 8), ns = n / 32;
    size_t rcb = kern_quant_code_bytes((size_t)m.cols, 8);
    uint8_t *tcodes = (uint8_t *)malloc(VERIFY_ROWS * rcb);
    uint16_t *tscales = (uint16_t *)malloc(VERIFY_ROWS * (m.cols / 32) * 2);
    m.hw = (uint16_t *)malloc((size_t)VERIFY_ROWS * m.cols * 2);
    m.hx = (uint16_t *)malloc((size_t)max_batch * m.cols * 2);
    int rc = -1;
    if (!tcodes || !tscales || !m.hw || !m.hx) {
        C->err.code = cudaErrorMemoryAllocation;
        snprintf(C->err.text, sizeof C->err.text, "out of host memory");
        goto out;
    }
    if (pcuda_alloc(C, (void **)&m.w, n * 2) ||
        pcuda_alloc(C, (void **)&m.x, (size_t)max_batch * m.cols * 2) ||
        pcuda_alloc(C, (void **)&m.y, (size_t)max_batch * m.rows * 4) ||
        pcuda_alloc(C, (void **)&m.codes, cb_max) || pcuda_alloc(C, (void **)&m.scales, ns * 2) ||
        pcuda_alloc(C, (void **)&m.deq, n * 2))
        goto out;
    if (kc_fill_f16(m.w, n, W_SEED, W_AMP, C->sms, C->s) != cudaSuccess ||
        kc_fill_f16(m.x, (size_t)max_batch * m.cols, X_SEED, 1.0f, C->sms, C->s) != cudaSuccess) {
        cuda_err_record(&C->err, cudaGetLastError(), "kc_fill_f16", __FILE__, __LINE__);
        goto out;
    }
    for (int k = 0; k < VERIFY_ROWS; k++) {
        m.vrows[k] = (int)((long)k * (m.rows - 1) / (VERIFY_ROWS - 1));
        host_row(&m, m.vrows[k], m.hw + (size_t)k * m.cols);
    }
    for (size_t i = 0; i < (size_t)max_batch * m.cols; i++)
        m.hx[i] = kern_f32_to_f16(kc_value(i, X_SEED));

    if (C->o->want[PROBE_GEMV_FP16]) {
        struct probe_result r;
        memset(&r, 0, sizeof r);
        r.test = "gemv-fp16";
        r.method = "kernel";
        r.batch = 1;
        r.rows = (size_t)m.rows;
        r.cols = (size_t)m.cols;
        r.bytes = 2.0 * n + 2.0 * m.cols + 4.0 * m.rows;
        r.flop = 2.0 * n;
        m.batch = 1;
        if (pcuda_ring_make(C, m.w, n * 2, 0, &m.ring) != 0)
            goto out;
        if (cudaMemsetAsync(m.y, 0xff, (size_t)m.rows * 4, C->s) != cudaSuccess ||
            pcuda_time(C, launch_gemv, &m, "gemv-fp16", &r.st) != 0)
            goto out;
        if (gemv_check(C, &m, false, NULL, NULL, &r.max_error) != 0)
            goto out;
        r.verified = r.max_error <= 1.0;
        C->bad |= !r.verified;
        probe_emit_result(&r);
        pcuda_ring_free(C, &m.ring);
    }
    if (C->o->want[PROBE_GEMM] && run_gemm(C, &m) != 0)
        goto out;

    for (int bits = 4; bits <= 8; bits += 4) {
        m.bits = bits;
        double code_bytes = (double)kern_quant_code_bytes(n, (unsigned)bits);
        double scale_bytes = 2.0 * ns;
        struct probe_result r;
        memset(&r, 0, sizeof r);
        r.method = "kernel";
        r.bits = (unsigned)bits;
        r.group = 32;
        r.rows = (size_t)m.rows;
        r.cols = (size_t)m.cols;
        r.test = "quantize";
        r.bytes = 2.0 * n + code_bytes + scale_bytes;
        if (cudaMemsetAsync(m.codes, 0xff, cb_max, C->s) != cudaSuccess ||
            cudaMemsetAsync(m.scales, 0xff, ns * 2, C->s) != cudaSuccess) {
            cuda_err_record(&C->err, cudaGetLastError(), "cudaMemsetAsync", __FILE__, __LINE__);
            goto out;
        }
        if (C->o->want[PROBE_QUANTIZE]) {
            if (pcuda_time(C, launch_quant, &m, "quantize", &r.st) != 0)
                goto out;
        } else if (launch_quant(&m, 0, C->s) != cudaSuccess) {
            cuda_err_record(&C->err, cudaGetLastError(), "kc_quantize", __FILE__, __LINE__);
            goto out;
        }
        if (cudaStreamSynchronize(C->s) != cudaSuccess) {
            cuda_err_record(&C->err, cudaGetLastError(), "quantize", __FILE__, __LINE__);
            goto out;
        }
        bool qok = false;
        if (quant_check(C, &m, tcodes, tscales, &qok) != 0)
            goto out;
        if (C->o->want[PROBE_QUANTIZE]) {
            r.verified = qok;
            C->bad |= !qok;
            probe_emit_result(&r);
        }
        if (!qok)
            C->bad = true; /* the products below use these codes */
        if (C->o->want[PROBE_DEQUANTIZE]) {
            r.test = "dequantize";
            r.bytes = code_bytes + scale_bytes + 2.0 * n;
            if (cudaMemsetAsync(m.deq, 0xff, n * 2, C->s) != cudaSuccess ||
                pcuda_time(C, launch_dequant, &m, "dequantize", &r.st) != 0)
                goto out;
            if (dequant_check(C, &m, tcodes, tscales, &r.verified) != 0)
                goto out;
            C->bad |= !r.verified;
            probe_emit_result(&r);
        }
        enum probe_test_id id = bits == 8 ? PROBE_W8A16 : PROBE_W4A16;
        if (!C->o->want[id])
            continue;
        /* the scales' ring has as many slots as the codes' (same index) */
        double per_slot = code_bytes + scale_bytes;
        unsigned slots = (unsigned)ceil(4.0 * C->l2 / per_slot);
        slots = slots < 1 ? 1 : slots > RING_MAX ? RING_MAX : slots;
        if (pcuda_ring_make(C, m.codes, (size_t)code_bytes, slots, &m.ring) != 0 ||
            pcuda_ring_make(C, m.scales, ns * 2, slots, &m.sring) != 0)
            goto out;
        static const int batches_full[] = {1, 2, 4, 8, 16}, batches_quick[] = {1, 4};
        const int *batches = C->o->quick ? batches_quick : batches_full;
        int nb = C->o->quick ? 2 : 5;
        for (int bi = 0; bi < nb; bi++) {
            m.batch = batches[bi];
            struct probe_result q;
            memset(&q, 0, sizeof q);
            q.test = probe_tests[id].id;
            q.method = "kernel";
            q.bits = (unsigned)bits;
            q.group = 32;
            q.batch = (unsigned)m.batch;
            q.rows = (size_t)m.rows;
            q.cols = (size_t)m.cols;
            q.bytes = code_bytes + scale_bytes + 2.0 * m.cols * m.batch + 4.0 * m.rows * m.batch;
            q.flop = 2.0 * n * m.batch;
            if (cudaMemsetAsync(m.y, 0xff, (size_t)m.batch * m.rows * 4, C->s) != cudaSuccess ||
                pcuda_time(C, launch_gemv_q, &m, q.test, &q.st) != 0)
                goto out;
            if (gemv_check(C, &m, true, tcodes, tscales, &q.max_error) != 0)
                goto out;
            q.verified = qok && q.max_error <= 1.0;
            C->bad |= !q.verified;
            probe_emit_result(&q);
        }
        pcuda_ring_free(C, &m.ring);
        pcuda_ring_free(C, &m.sring);
    }
    rc = 0;
out:
    free(tcodes);
    free(tscales);
    free(m.hw);
    free(m.hx);
    pcuda_ring_free(C, &m.ring);
    pcuda_ring_free(C, &m.sring);
    pcuda_free(C, m.w);
    pcuda_free(C, m.x);
    pcuda_free(C, m.y);
    pcuda_free(C, m.codes);
    pcuda_free(C, m.scales);
    pcuda_free(C, m.deq);
    return rc;
}
