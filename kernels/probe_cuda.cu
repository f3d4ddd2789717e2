/* placeholder: the CUDA backend is being written */
#include "config.h"
#include "kernels/probe.h"
#include "kernels/probe_cuda.h"
#include <stdio.h>

int cuda_err_record(struct cuda_err *e, cudaError_t code, const char *stmt, const char *file,
                    int line) {
    e->code = code;
    snprintf(e->text, sizeof e->text, "%s:%d: %s: %s (%s)", file, line, stmt,
             cudaGetErrorString(code), cudaGetErrorName(code));
    return (int)code;
}

static int cuda_run(const struct probe_opts *o, const char **code, char *msg, size_t len) {
    (void)o;
    *code = PROBE_ERR_NO_DEVICE;
    snprintf(msg, len, "CUDA backend not finished");
    return -1;
}

extern "C" const struct probe_backend probe_backend_cuda = {"cuda", cuda_run, NULL};
