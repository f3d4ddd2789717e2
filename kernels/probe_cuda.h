/*
 * probe_cuda.h: CUDA error checking for the probe's CUDA backend.
 *
 * CUDA_CHECK(call) records the failing statement, file and line, the CUDA
 * error name and string into the backend's error slot and jumps to the
 * function's cleanup label (`goto fail`); it never exits (unlike
 * BabelStream's and nvbandwidth's checks, style.md "Errors, by layer").
 */
#ifndef VRAMLAB_PROBE_CUDA_H
#define VRAMLAB_PROBE_CUDA_H

#include <cuda_runtime.h>

#include <stddef.h>

struct cuda_err {
    cudaError_t code;
    char text[400];
};

/* Record a failed call; returns the error (non-zero). */
int cuda_err_record(struct cuda_err *e, cudaError_t code, const char *stmt, const char *file,
                    int line);

#define CUDA_CHECK(E, call)                                                                    \
    do {                                                                                       \
        cudaError_t cuda_check_rc_ = (call);                                                   \
        if (cuda_check_rc_ != cudaSuccess) {                                                   \
            cuda_err_record((E), cuda_check_rc_, #call, __FILE__, __LINE__);                   \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

/* After a launch: the launch error, then (when sync) the execution error. */
#define CUDA_CHECK_LAUNCH(E) CUDA_CHECK((E), cudaGetLastError())

#endif
