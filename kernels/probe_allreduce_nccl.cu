/*
 * probe_allreduce_nccl.cu: the all-reduce test on GPUs through NCCL (see
 * probe_allreduce.h). NCCL is opened at run time with dlopen, like cuBLAS
 * (kernels/probe_cuda_mat.cu), so the probe builds without NCCL's headers
 * and runs where NCCL is absent (then "NCCL not found", a device error).
 * The few entry points used are declared below from NCCL's documented
 * C API (nccl.h, NCCL 2.x): opaque communicators, a 128-byte unique id
 * passed by value, int-sized enums (ncclSuccess 0, ncclInProgress 7;
 * ncclSum 0; ncclFloat32 7, ncclBfloat16 9, the latter since NCCL 2.10).
 *
 * One process drives every visible GPU with ncclCommInitAll, or, under an
 * MPI launcher, each rank one GPU with ncclCommInitRank over the unique
 * id rank 0 made and MPI broadcast. Buffers are filled and checked on the
 * device (the pattern of probe_allreduce.h); times are CUDA events around
 * back-to-back all-reduces, the slowest device's.
 */
#include "config.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe_allreduce.h"

/* ---- NCCL's ABI, declared from its documentation ---------------------------- */

typedef struct pnccl_opaque_comm *nccl_comm;
typedef int nccl_result; /* ncclResult_t */
typedef struct {
    char internal[128]; /* NCCL_UNIQUE_ID_BYTES */
} nccl_unique_id;
enum { NCCL_SUCCESS = 0, NCCL_IN_PROGRESS = 7 };
enum { NCCL_SUM = 0 };
enum { NCCL_FLOAT32 = 7, NCCL_BFLOAT16 = 9 };

struct nccl_api {
    void *lib;
    nccl_result (*get_version)(int *);
    nccl_result (*get_unique_id)(nccl_unique_id *);
    nccl_result (*comm_init_rank)(nccl_comm *, int, nccl_unique_id, int);
    nccl_result (*comm_init_all)(nccl_comm *, int, const int *);
    nccl_result (*all_reduce)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
    nccl_result (*group_start)(void);
    nccl_result (*group_end)(void);
    nccl_result (*comm_destroy)(nccl_comm);
    nccl_result (*comm_abort)(nccl_comm);
    nccl_result (*comm_get_async_error)(nccl_comm, nccl_result *);
    const char *(*get_error_string)(nccl_result);
};
static struct nccl_api N;

/* Try to open one candidate; true when it has every entry point. */
static bool try_open(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return false;
    struct nccl_api a;
    memset(&a, 0, sizeof a);
    a.lib = h;
#define PNCCL_SYM(field, name) *(void **)(&a.field) = dlsym(h, name)
    PNCCL_SYM(get_version, "ncclGetVersion");
    PNCCL_SYM(get_unique_id, "ncclGetUniqueId");
    PNCCL_SYM(comm_init_rank, "ncclCommInitRank");
    PNCCL_SYM(comm_init_all, "ncclCommInitAll");
    PNCCL_SYM(all_reduce, "ncclAllReduce");
    PNCCL_SYM(group_start, "ncclGroupStart");
    PNCCL_SYM(group_end, "ncclGroupEnd");
    PNCCL_SYM(comm_destroy, "ncclCommDestroy");
    PNCCL_SYM(comm_abort, "ncclCommAbort");
    PNCCL_SYM(comm_get_async_error, "ncclCommGetAsyncError");
    PNCCL_SYM(get_error_string, "ncclGetErrorString");
#undef PNCCL_SYM
    if (!a.get_version || !a.get_unique_id || !a.comm_init_rank || !a.comm_init_all ||
        !a.all_reduce || !a.group_start || !a.group_end || !a.comm_destroy || !a.get_error_string) {
        dlclose(h);
        return false;
    }
    N = a;
    return true;
}

/* The first file a glob pattern names, opened. */
static bool try_glob(const char *pattern) {
    glob_t g;
    bool ok = false;
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && !ok; i++)
            ok = try_open(g.gl_pathv[i]);
    globfree(&g);
    return ok;
}

/* Open libnccl.so.2: $VRAMLAB_NCCL, the loader's path, the CUDA toolkit,
 * then where conda and PyTorch's pip wheels (nvidia-nccl-cu*) put it. */
extern "C" int pnccl_open(char *msg, size_t len) {
    if (N.lib)
        return 0;
    const char *env = getenv("VRAMLAB_NCCL");
    if (env && *env) {
        if (try_open(env))
            return 0;
        snprintf(msg, len, "NCCL not found: VRAMLAB_NCCL=%s cannot be opened (%s)", env, dlerror());
        return -1;
    }
    static const char *const names[] = {
        "libnccl.so.2",
#ifdef VRAMLAB_CUDA_LIBDIR
        VRAMLAB_CUDA_LIBDIR "/libnccl.so.2",
#endif
        "/usr/local/cuda/lib64/libnccl.so.2",
        "/usr/local/cuda/lib/libnccl.so.2",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (try_open(names[i]))
            return 0;
    char pat[1024];
    static const char *const homes[] = {"CONDA_PREFIX", "VIRTUAL_ENV", "HOME"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        const char *h = getenv(homes[i]);
        if (!h || !*h)
            continue;
        snprintf(pat, sizeof pat, "%s/lib/libnccl.so.2", h);
        if (try_glob(pat))
            return 0;
        snprintf(pat, sizeof pat, "%s/%slib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2", h,
                 i == 2 ? ".local/" : "");
        if (try_glob(pat))
            return 0;
    }
    static const char *const sys[] = {
        "/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
        "/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
        "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2",
        "/opt/conda/lib/libnccl.so.2",
    };
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (try_glob(sys[i]))
            return 0;
    snprintf(msg, len,
             "NCCL not found: libnccl.so.2 is not on the loader's path, in the CUDA toolkit, "
             "conda or a PyTorch install (pip's nvidia-nccl); set VRAMLAB_NCCL to its path");
    return -1;
}

/* NCCL's version code. */
extern "C" int pnccl_version(void) {
    int v = 0;
    if (N.lib && N.get_version(&v) != NCCL_SUCCESS)
        v = 0;
    return v;
}

/* A failed NCCL call as text. */
static void nccl_say(nccl_result r, const char *what, char *msg, size_t len) {
    snprintf(msg, len, "%s: %s (NCCL %d)", what, N.get_error_string ? N.get_error_string(r) : "?",
             pnccl_version());
}

/* A failed CUDA call as text; true when it failed. */
static bool cuda_bad(cudaError_t e, const char *what, char *msg, size_t len) {
    if (e == cudaSuccess)
        return false;
    snprintf(msg, len, "%s: %s", what, cudaGetErrorString(e));
    return true;
}

/* Visible devices; the probe's error code of a failure (the codes of
 * kernels/probe_cuda.cu, so that the Measure pane falls back alike). */
extern "C" int pnccl_devices(int *n, const char **code, char *msg, size_t len) {
    int drv = 0;
    *n = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0) {
        *code = PROBE_ERR_NO_DRIVER;
        snprintf(msg, len, "no NVIDIA driver is installed (libcuda.so.1 not found)");
        return -1;
    }
    cudaError_t e = cudaGetDeviceCount(n);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && *n == 0)) {
        *code = PROBE_ERR_NO_DEVICE;
        snprintf(msg, len, "no CUDA device is visible");
        return -1;
    }
    if (e == cudaErrorInsufficientDriver) {
        *code = PROBE_ERR_DRIVER_OLD;
        snprintf(msg, len, "the NVIDIA driver (CUDA %d.%d) is older than this build's CUDA runtime",
                 drv / 1000, drv % 1000 / 10);
        return -1;
    }
    *code = PROBE_ERR_NO_DRIVER;
    return cuda_bad(e, "cudaGetDeviceCount", msg, len) ? -1 : 0;
}

/* A device's name and memory. */
extern "C" void pnccl_device_info(int dev, char *name, size_t len, double *memory_bytes) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
        snprintf(name, len, "%s", p.name);
        *memory_bytes = (double)p.totalGlobalMem;
    } else {
        snprintf(name, len, "CUDA device %d", dev);
        *memory_bytes = 0;
    }
}

/* Free memory of a device. */
extern "C" double pnccl_free_bytes(int dev) {
    size_t fr = 0, tot = 0;
    int old = 0;
    cudaGetDevice(&old);
    if (cudaSetDevice(dev) != cudaSuccess || cudaMemGetInfo(&fr, &tot) != cudaSuccess)
        fr = 0;
    cudaSetDevice(old);
    return (double)fr;
}

/* ---- communicators and buffers ---------------------------------------------- */

#define PNCCL_MAX 64

struct pnccl {
    int n;
    int dev[PNCCL_MAX];
    nccl_comm comm[PNCCL_MAX];
    cudaStream_t s[PNCCL_MAX];
    cudaEvent_t e0[PNCCL_MAX], e1[PNCCL_MAX];
    void *send[PNCCL_MAX], *recv[PNCCL_MAX];
    unsigned long long *dbad[PNCCL_MAX];
    unsigned *dmax[PNCCL_MAX];
    size_t bytes;
};

/* Streams and events of every local device. */
static int make_streams(struct pnccl *p, char *msg, size_t len) {
    for (int i = 0; i < p->n; i++) {
        if (cuda_bad(cudaSetDevice(p->dev[i]), "cudaSetDevice", msg, len) ||
            cuda_bad(cudaStreamCreateWithFlags(&p->s[i], cudaStreamNonBlocking), "cudaStreamCreate",
                     msg, len) ||
            cuda_bad(cudaEventCreate(&p->e0[i]), "cudaEventCreate", msg, len) ||
            cuda_bad(cudaEventCreate(&p->e1[i]), "cudaEventCreate", msg, len) ||
            cuda_bad(cudaMalloc((void **)&p->dbad[i], sizeof(unsigned long long)), "cudaMalloc",
                     msg, len) ||
            cuda_bad(cudaMalloc((void **)&p->dmax[i], sizeof(unsigned)), "cudaMalloc", msg, len))
            return -1;
    }
    return 0;
}

/* The unique id (rank 0). */
extern "C" int pnccl_unique_id(unsigned char id[128], char *msg, size_t len) {
    nccl_unique_id u;
    nccl_result r = N.get_unique_id(&u);
    if (r != NCCL_SUCCESS) {
        nccl_say(r, "ncclGetUniqueId", msg, len);
        return -1;
    }
    memcpy(id, u.internal, sizeof u.internal);
    return 0;
}

/* Every visible device in this process. */
extern "C" struct pnccl *pnccl_init_all(int ndev, char *msg, size_t len) {
    struct pnccl *p = (struct pnccl *)calloc(1, sizeof *p);
    if (!p) {
        snprintf(msg, len, "out of host memory");
        return NULL;
    }
    p->n = ndev < PNCCL_MAX ? ndev : PNCCL_MAX;
    for (int i = 0; i < p->n; i++)
        p->dev[i] = i;
    nccl_result r = N.comm_init_all(p->comm, p->n, p->dev);
    if (r != NCCL_SUCCESS) {
        nccl_say(r, "ncclCommInitAll", msg, len);
        memset(p->comm, 0, sizeof p->comm);
        pnccl_close(p);
        return NULL;
    }
    if (make_streams(p, msg, len) != 0) {
        pnccl_close(p);
        return NULL;
    }
    return p;
}

/* One rank of many processes. */
extern "C" struct pnccl *pnccl_init_rank(int nranks, const unsigned char id[128], int rank,
                                         int device, char *msg, size_t len) {
    struct pnccl *p = (struct pnccl *)calloc(1, sizeof *p);
    if (!p) {
        snprintf(msg, len, "out of host memory");
        return NULL;
    }
    p->n = 1;
    p->dev[0] = device;
    if (cuda_bad(cudaSetDevice(device), "cudaSetDevice", msg, len)) {
        pnccl_close(p);
        return NULL;
    }
    nccl_unique_id u;
    memcpy(u.internal, id, sizeof u.internal);
    nccl_result r = N.comm_init_rank(&p->comm[0], nranks, u, rank);
    if (r != NCCL_SUCCESS) {
        nccl_say(r, "ncclCommInitRank", msg, len);
        p->comm[0] = NULL;
        pnccl_close(p);
        return NULL;
    }
    if (make_streams(p, msg, len) != 0) {
        pnccl_close(p);
        return NULL;
    }
    return p;
}

/* Free the buffers. */
extern "C" void pnccl_free_buffers(struct pnccl *p) {
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        cudaSetDevice(p->dev[i]);
        if (p->send[i])
            cudaFree(p->send[i]);
        if (p->recv[i])
            cudaFree(p->recv[i]);
        p->send[i] = p->recv[i] = NULL;
    }
    p->bytes = 0;
}

/* Send and receive buffers. */
extern "C" int pnccl_alloc(struct pnccl *p, size_t bytes, char *msg, size_t len) {
    pnccl_free_buffers(p);
    for (int i = 0; i < p->n; i++) {
        if (cuda_bad(cudaSetDevice(p->dev[i]), "cudaSetDevice", msg, len) ||
            cuda_bad(cudaMalloc(&p->send[i], bytes), "cudaMalloc (send buffer)", msg, len) ||
            cuda_bad(cudaMalloc(&p->recv[i], bytes), "cudaMalloc (receive buffer)", msg, len)) {
            pnccl_free_buffers(p);
            return -1;
        }
    }
    p->bytes = bytes;
    return 0;
}

/* ---- kernels: the pattern, the poison, the check ---------------------------- */

/* Rank r's contribution ((i + r) mod 3) - 1, and NaN in the receive buffer. */
__global__ void k_fill(void *send, void *recv, size_t count, int rank, int bf16) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        int v = (int)((i + (size_t)rank) % 3) - 1;
        if (bf16) {
            ((unsigned short *)send)[i] = v < 0 ? 0xBF80 : v > 0 ? 0x3F80 : 0;
            ((unsigned short *)recv)[i] = 0x7FC0;
        } else {
            ((float *)send)[i] = (float)v;
            ((unsigned *)recv)[i] = 0x7FC00000u;
        }
    }
}

/* Count the elements off their expected sum e[i mod 3] by more than tol;
 * the largest error (a non-negative float's bits order as unsigned). */
__global__ void k_check(const void *recv, size_t count, int bf16, int e0, int e1, int e2, float tol,
                        unsigned long long *bad, unsigned *maxerr) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long mine = 0;
    float worst = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float v = bf16 ? __uint_as_float((unsigned)((const unsigned short *)recv)[i] << 16)
                       : ((const float *)recv)[i];
        int k = (int)(i % 3);
        float err = fabsf(v - (float)(k == 0 ? e0 : k == 1 ? e1 : e2));
        if (!(err <= tol)) {
            mine++;
            worst = isfinite(err) ? fmaxf(worst, err) : INFINITY;
        }
    }
    if (mine) {
        atomicAdd(bad, mine);
        atomicMax(maxerr, __float_as_uint(worst));
    }
}

/* Fill the send buffers and poison the receive buffers. */
extern "C" int pnccl_fill(struct pnccl *p, enum probe_ar_dtype d, size_t count, int first_rank,
                          char *msg, size_t len) {
    for (int i = 0; i < p->n; i++) {
        if (cuda_bad(cudaSetDevice(p->dev[i]), "cudaSetDevice", msg, len))
            return -1;
        k_fill<<<1024, 256, 0, p->s[i]>>>(p->send[i], p->recv[i], count, first_rank + i,
                                          d == PROBE_AR_BF16);
        if (cuda_bad(cudaGetLastError(), "the fill kernel", msg, len))
            return -1;
    }
    for (int i = 0; i < p->n; i++) {
        cudaSetDevice(p->dev[i]);
        if (cuda_bad(cudaStreamSynchronize(p->s[i]), "the fill kernel", msg, len))
            return -1;
    }
    return 0;
}

/* iters all-reduces back to back on every local device. */
extern "C" double pnccl_allreduce(struct pnccl *p, enum probe_ar_dtype d, size_t count,
                                  unsigned iters, char *msg, size_t len) {
    int type = d == PROBE_AR_BF16 ? NCCL_BFLOAT16 : NCCL_FLOAT32;
    for (int i = 0; i < p->n; i++) {
        cudaSetDevice(p->dev[i]);
        if (cuda_bad(cudaEventRecord(p->e0[i], p->s[i]), "cudaEventRecord", msg, len))
            return -1;
    }
    for (unsigned k = 0; k < iters; k++) {
        nccl_result r = N.group_start();
        for (int i = 0; i < p->n && r == NCCL_SUCCESS; i++)
            r = N.all_reduce(p->send[i], p->recv[i], count, type, NCCL_SUM, p->comm[i], p->s[i]);
        nccl_result g = N.group_end();
        if (r != NCCL_SUCCESS || (g != NCCL_SUCCESS && g != NCCL_IN_PROGRESS)) {
            nccl_say(r != NCCL_SUCCESS ? r : g, "ncclAllReduce", msg, len);
            return -1;
        }
    }
    double worst = 0;
    for (int i = 0; i < p->n; i++) {
        cudaSetDevice(p->dev[i]);
        if (cuda_bad(cudaEventRecord(p->e1[i], p->s[i]), "cudaEventRecord", msg, len) ||
            cuda_bad(cudaEventSynchronize(p->e1[i]), "the all-reduce", msg, len))
            return -1;
        nccl_result ae = NCCL_SUCCESS;
        if (N.comm_get_async_error && N.comm_get_async_error(p->comm[i], &ae) == NCCL_SUCCESS &&
            ae != NCCL_SUCCESS && ae != NCCL_IN_PROGRESS) {
            nccl_say(ae, "ncclAllReduce (asynchronous error)", msg, len);
            return -1;
        }
        float ms = 0;
        if (cuda_bad(cudaEventElapsedTime(&ms, p->e0[i], p->e1[i]), "cudaEventElapsedTime", msg,
                     len))
            return -1;
        worst = ms * 1e-3 > worst ? ms * 1e-3 : worst;
    }
    return worst;
}

/* Check every local receive buffer. */
extern "C" int pnccl_check(struct pnccl *p, enum probe_ar_dtype d, size_t count, int ranks,
                           size_t *bad, double *max_error, char *msg, size_t len) {
    int e[3];
    for (int k = 0; k < 3; k++)
        e[k] = probe_ar_expected((unsigned)ranks, (size_t)k);
    float tol = d == PROBE_AR_BF16 && ranks > 256 ? (float)ranks / 128.0f : 0.0f;
    *bad = 0;
    *max_error = 0;
    for (int i = 0; i < p->n; i++) {
        cudaSetDevice(p->dev[i]);
        if (cuda_bad(cudaMemsetAsync(p->dbad[i], 0, sizeof(unsigned long long), p->s[i]),
                     "cudaMemset", msg, len) ||
            cuda_bad(cudaMemsetAsync(p->dmax[i], 0, sizeof(unsigned), p->s[i]), "cudaMemset", msg,
                     len))
            return -1;
        k_check<<<1024, 256, 0, p->s[i]>>>(p->recv[i], count, d == PROBE_AR_BF16, e[0], e[1], e[2],
                                           tol, p->dbad[i], p->dmax[i]);
        unsigned long long nb = 0;
        unsigned mx = 0;
        if (cuda_bad(cudaGetLastError(), "the check kernel", msg, len) ||
            cuda_bad(cudaMemcpyAsync(&nb, p->dbad[i], sizeof nb, cudaMemcpyDeviceToHost, p->s[i]),
                     "cudaMemcpy", msg, len) ||
            cuda_bad(cudaMemcpyAsync(&mx, p->dmax[i], sizeof mx, cudaMemcpyDeviceToHost, p->s[i]),
                     "cudaMemcpy", msg, len) ||
            cuda_bad(cudaStreamSynchronize(p->s[i]), "the check kernel", msg, len))
            return -1;
        float w;
        memcpy(&w, &mx, sizeof w);
        *bad += (size_t)nb;
        *max_error = w > *max_error ? w : *max_error;
    }
    return 0;
}

/* Destroy the communicators and free everything. */
extern "C" void pnccl_close(struct pnccl *p) {
    if (!p)
        return;
    pnccl_free_buffers(p);
    for (int i = 0; i < p->n; i++) {
        cudaSetDevice(p->dev[i]);
        if (p->comm[i])
            N.comm_destroy(p->comm[i]);
        if (p->s[i])
            cudaStreamDestroy(p->s[i]);
        if (p->e0[i])
            cudaEventDestroy(p->e0[i]);
        if (p->e1[i])
            cudaEventDestroy(p->e1[i]);
        if (p->dbad[i])
            cudaFree(p->dbad[i]);
        if (p->dmax[i])
            cudaFree(p->dmax[i]);
    }
    free(p);
}
