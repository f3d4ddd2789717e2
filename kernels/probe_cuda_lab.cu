/*
 * probe_cuda_lab.cu: the error lab on the device: for b = 8..2, one scale
 * per group of 32 and one per matrix, on N(0, 0.02) weights with and
 * without 4 planted at 13 sd (seed 000's median matrix), the codes are
 * compared with the CPU twin bit for bit and the device's statistics
 * (relative error, zero fraction, max/std) with the twin's within 1e-6.
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

/* Quantize on the device per group and per matrix, compare codes with the
 * twin bit for bit and the statistics within 1e-6, emit one row each. */
int cuda_run_error_lab(struct cctx *C) {
    const size_t cols = 1024, rows = C->o->quick ? 32 : 256, n = rows * cols;
    float *wf = (float *)malloc(n * sizeof *wf);
    uint16_t *wh = (uint16_t *)malloc(n * 2);
    uint8_t *tc = (uint8_t *)malloc(kern_quant_code_bytes(n, 8));
    uint8_t *dc = (uint8_t *)malloc(kern_quant_code_bytes(n, 8));
    uint16_t *ts = (uint16_t *)malloc(n / 32 * 2);
    uint16_t *w = NULL, *scales = NULL, *mscale = NULL;
    uint8_t *codes = NULL;
    double *acc = NULL;
    unsigned *amax = NULL;
    int rc = -1;
    unsigned step = 0;
    if (!wf || !wh || !tc || !dc || !ts) {
        C->err.code = cudaErrorMemoryAllocation;
        snprintf(C->err.text, sizeof C->err.text, "out of host memory (error lab)");
        goto out;
    }
    if (pcuda_alloc(C, (void **)&w, n * 2) ||
        pcuda_alloc(C, (void **)&codes, kern_quant_code_bytes(n, 8)) ||
        pcuda_alloc(C, (void **)&scales, n / 32 * 2) || pcuda_alloc(C, (void **)&mscale, 16) ||
        pcuda_alloc(C, (void **)&acc, 4 * sizeof(double)) || pcuda_alloc(C, (void **)&amax, 16))
        goto out;
    for (int kind = 0; kind < 2; kind++) {
        kern_weights_fill(wf, n, PROBE_LAB_SD, kind ? PROBE_LAB_OUTLIERS : 0, 1234);
        for (size_t i = 0; i < n; i++)
            wh[i] = kern_f32_to_f16(wf[i]);
        /* on our stream: a pageable cudaMemcpy may return before the DMA
         * lands, and the legacy stream does not order our kernels */
        if (cudaMemcpyAsync(w, wh, n * 2, cudaMemcpyHostToDevice, C->s) != cudaSuccess ||
            cudaStreamSynchronize(C->s) != cudaSuccess) {
            cuda_err_record(&C->err, cudaGetLastError(), "cudaMemcpy(w)", __FILE__, __LINE__);
            goto out;
        }
        for (int bits = KERN_QBITS_MAX; bits >= KERN_QBITS_MIN; bits--) {
            for (int per_matrix = 0; per_matrix < 2; per_matrix++) {
                if (probe_cancelled()) {
                    C->skipped = true;
                    goto out;
                }
                size_t cb = kern_quant_code_bytes(n, (unsigned)bits);
                const uint16_t *ms = per_matrix ? mscale : NULL;
                cudaError_t e = cudaMemsetAsync(amax, 0, 16, C->s);
                if (e == cudaSuccess && per_matrix)
                    e = kc_amax(w, n, amax, C->sms, C->s);
                if (e == cudaSuccess && per_matrix)
                    e = kc_matrix_scale(amax, bits, mscale, C->s);
                if (e == cudaSuccess)
                    e = kc_quantize(w, n, bits, codes, scales, ms, C->s);
                if (e == cudaSuccess)
                    e = cudaMemsetAsync(acc, 0, 4 * sizeof(double), C->s);
                if (e == cudaSuccess)
                    e = cudaMemsetAsync(amax, 0, 16, C->s);
                if (e == cudaSuccess)
                    e = kc_qstats(w, codes, scales, ms, n, bits, acc, amax, C->sms, C->s);
                double dacc[4] = {0};
                unsigned damax = 0;
                /* cudaMemcpy runs on the legacy stream, which does not wait
                 * for our non-blocking one */
                if (e == cudaSuccess)
                    e = cudaStreamSynchronize(C->s);
                if (e == cudaSuccess)
                    e = cudaMemcpy(dc, codes, cb, cudaMemcpyDeviceToHost);
                if (e == cudaSuccess)
                    e = cudaMemcpy(dacc, acc, sizeof dacc, cudaMemcpyDeviceToHost);
                if (e == cudaSuccess)
                    e = cudaMemcpy(&damax, amax, sizeof damax, cudaMemcpyDeviceToHost);
                if (e != cudaSuccess) {
                    cuda_err_record(&C->err, e, "error lab", __FILE__, __LINE__);
                    goto out;
                }
                struct kern_qstats st;
                memset(&st, 0, sizeof st);
                kern_quantize_f16(wh, rows, cols, (unsigned)bits,
                                  per_matrix ? KERN_GROUP_MATRIX : 32, tc, ts, &st);
                struct kern_qstats ds;
                memset(&ds, 0, sizeof ds);
                ds.sum = dacc[0];
                ds.sum_sq = dacc[1];
                ds.sum_sq_err = dacc[2];
                ds.zeros = (uint64_t)dacc[3];
                ds.n = n;
                float fm;
                memcpy(&fm, &damax, sizeof fm);
                ds.max_abs = fm;
                struct probe_error_row row;
                memset(&row, 0, sizeof row);
                row.bits = (unsigned)bits;
                row.group = per_matrix ? 0 : 32;
                row.weights = kind ? "outliers" : "gaussian";
                row.n = n;
                row.relative_error = kern_qstats_rel_error(&ds);
                row.zero_fraction = kern_qstats_zero_fraction(&ds);
                row.outlier_ratio = kern_qstats_outlier_ratio(&ds);
                double te = kern_qstats_rel_error(&st);
                row.verified = memcmp(dc, tc, cb) == 0 && ds.zeros == st.zeros &&
                               fabs(row.relative_error - te) <= 1e-6 * te + 1e-12 &&
                               ds.max_abs == st.max_abs;
                C->bad |= !row.verified;
                probe_emit_error_row("cuda", &row);
                probe_emit_progress("error", ++step / 28.0);
            }
        }
    }
    rc = 0;
out:
    free(wf);
    free(wh);
    free(tc);
    free(dc);
    free(ts);
    pcuda_free(C, w);
    pcuda_free(C, codes);
    pcuda_free(C, scales);
    pcuda_free(C, mscale);
    pcuda_free(C, acc);
    pcuda_free(C, amax);
    return rc;
}
