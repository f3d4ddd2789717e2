/*
 * probe_allreduce.h: the probe's all-reduce test (issue 15): NCCL across
 * the GPUs of one process (ncclCommInitAll) or across MPI processes (one
 * communicator bootstrapped through MPI), MPI_Allreduce on host buffers
 * for --device cpu. vramlab never brings a transport of its own.
 *
 * Definitions (those of nccl-tests' all_reduce_perf, so that figures
 * compare): for a message of `bytes` (the buffer each rank contributes)
 * reduced in t seconds over n ranks,
 *   algbw = bytes / t
 *   busbw = algbw x 2(n-1)/n
 * busbw is what every link of a ring carries, comparable with a link's
 * one-way bandwidth whatever n is. The latency-bandwidth fit is
 *   t(bytes) = alpha + bytes / beta
 * by least squares on the relative error of each point (weights 1/t^2: a
 * plain fit on seconds would be all 1 GiB and no latency); beta is then
 * an algorithm bandwidth and beta x 2(n-1)/n the link bandwidth the ring
 * model of the engine (engine.md: 2(n-1)/n x bytes / BW + latency) uses.
 * residual = the root mean square of (t - fit) / t over the points.
 *
 * Checks: rank r contributes x_r[i] = ((i + r) mod 3) - 1, so every sum is
 * a small integer, exact in FP32 and (up to 256 ranks) in BF16 whatever
 * order the transport adds in; the reduced buffer is compared with the
 * closed-form sum on every rank, before and after the timed runs, and the
 * verdict of every rank is reduced before anything is printed.
 *
 * Valid C and C++ (the NCCL part includes it).
 */
#ifndef VRAMLAB_PROBE_ALLREDUCE_H
#define VRAMLAB_PROBE_ALLREDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/probe.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROBE_AR_MAX_SIZES  48
#define PROBE_AR_MIN_ITERS  20 /* --iters: timed samples per size, at least */
#define PROBE_AR_MAX_ITERS  64 /* PROBE_MAX_SAMPLES */
#define PROBE_AR_WARMUP     5  /* as all_reduce_perf's default */
#define PROBE_AR_DEADLINE_S 30 /* default deadline of one collective */
/* The default sweep: 10 sizes by 8, each size's samples within a time
 * budget (probe_ar_samples), the larger sizes left out once one
 * all-reduce alone outruns it (probe_ar_stop_growing): about a minute on
 * a 2-core host under MPI, the whole range on GPUs. --full: every size by
 * 4, PROBE_AR_MIN_ITERS samples after PROBE_AR_WARMUP warm-ups each. */
#define PROBE_AR_DEFAULT    "8-1Gx8"
#define PROBE_AR_FULL       "8-1G"
#define PROBE_AR_QUICK      "8-64M"
#define PROBE_AR_BUDGET_S   1.0 /* seconds of timed samples per size (default) */
#define PROBE_AR_BUDGET_MIN 5   /* timed samples per size under a budget, at least */
#define PROBE_AR_MAX_BYTES  (64.0 * 1024 * 1024 * 1024) /* 64 GiB: a typo, not a size */

enum probe_ar_dtype { PROBE_AR_FP32 = 0, PROBE_AR_BF16, PROBE_AR_DTYPES };

/* "fp32", "bf16". */
const char *probe_ar_dtype_name(enum probe_ar_dtype d);
/* 4, 2. */
size_t probe_ar_dtype_size(enum probe_ar_dtype d);

/* Message sizes in bytes, in the order given. */
struct probe_ar_sizes {
    unsigned n;
    double bytes[PROBE_AR_MAX_SIZES];
};

/* Parse --sizes: a comma-separated list of sizes (8, 64K, 1M, 1G, 4KiB:
 * K = 1024) and ranges MIN-MAX or MIN-MAXxF (powers of F from MIN, F = 2,
 * 4, 8 or 16, default 4, MAX always included). Every size must be a whole number
 * of elements of every dtype asked for (elem: the largest element size)
 * and at most PROBE_AR_MAX_BYTES. Returns 0, or -1 with a message naming
 * the bad part. */
int probe_ar_parse_sizes(const char *s, size_t elem, struct probe_ar_sizes *out, char *msg,
                         size_t len);

/* Parse --dtypes ("fp32,bf16"); -1 with a message on an unknown name. */
int probe_ar_parse_dtypes(const char *s, bool want[PROBE_AR_DTYPES], char *msg, size_t len);

/* 2(n-1)/n: the bus factor of an all-reduce (0 for n <= 1). */
double probe_ar_bus_factor(unsigned ranks);
/* bytes / seconds (NAN unless both positive). */
double probe_ar_algbw(double bytes, double seconds);
/* algbw x 2(n-1)/n. */
double probe_ar_busbw(double algbw, unsigned ranks);

/* The latency-bandwidth fit (see above). ok is false with fewer than two
 * distinct sizes or when the times do not grow with the size (then beta
 * is NAN); alpha is never negative (a negative intercept is refitted
 * through 0). */
struct probe_ar_fit {
    double alpha_s, beta_bytes_per_s, residual;
    unsigned points;
    bool ok;
};
void probe_ar_fit_points(const double *bytes, const double *seconds, unsigned n,
                         struct probe_ar_fit *out);

/* The time budget of one size (budget_s > 0; 0: none, the full sweep):
 * first_s is the seconds of its first (checked) all-reduce. Warm-ups:
 * PROBE_AR_WARMUP, or under a budget as many as fit in a quarter of it
 * (1..PROBE_AR_WARMUP). */
unsigned probe_ar_warmups(double budget_s, double first_s);
/* Timed samples of one size, each sample_s long: iters, or under a
 * budget as many as fit in it, PROBE_AR_BUDGET_MIN..iters. */
unsigned probe_ar_samples(double budget_s, double sample_s, unsigned iters);
/* Under a budget, whether the sizes above one whose single all-reduce
 * took op_s are left out: its PROBE_AR_BUDGET_MIN samples alone outran
 * the budget (a larger size would take longer still). */
bool probe_ar_stop_growing(double budget_s, double op_s);

/* Rank r's element i: ((i + r) mod 3) - 1. */
int probe_ar_pattern(unsigned rank, size_t i);
/* The sum of element i over ranks 0..n-1 (closed form). */
int probe_ar_expected(unsigned ranks, size_t i);
/* Fill count elements of rank r's contribution (fp32 or bf16). */
void probe_ar_fill(void *buf, enum probe_ar_dtype d, size_t count, unsigned rank);
/* Fill with NaN (the poison a result must overwrite). */
void probe_ar_poison(void *buf, enum probe_ar_dtype d, size_t count);
/* Compare a reduced buffer with the expected sums: the number of wrong
 * elements (exact for FP32 and BF16 up to 256 ranks; beyond, BF16 allows
 * ranks/128 of absolute error), and the largest error seen. */
size_t probe_ar_check(const void *buf, enum probe_ar_dtype d, size_t count, unsigned ranks,
                      double *max_error);

/* Options of the test. */
struct probe_ar_opts {
    struct probe_ar_sizes sizes;
    bool dtype[PROBE_AR_DTYPES];
    unsigned iters;     /* timed samples per size (>= PROBE_AR_MIN_ITERS; the most) */
    double budget_s;    /* seconds of timed samples per size; 0: none (--full) */
    double deadline_s;  /* per collective */
    bool explicit_test; /* asked for by name (--allreduce, --tests allreduce) */
};

/* One measured size (an `allreduce` result event, kernels/probe_main.c):
 * the median of the samples, each the slowest rank's time of
 * `iterations` back-to-back all-reduces divided by that number. */
struct probe_ar_result {
    const char *transport; /* "nccl", "mpi" */
    const char *dtype;     /* "fp32", "bf16" */
    double bytes;          /* per rank */
    size_t count;          /* elements */
    unsigned ranks, hosts, iterations;
    struct probe_stats st;
    bool verified;
    double max_error;
    const char *note; /* or NULL */
};
void probe_emit_allreduce(const struct probe_ar_result *r);
/* The fit of one dtype: {"event":"fit","test":"allreduce", ...}. */
void probe_emit_ar_fit(const char *transport, const char *dtype, unsigned ranks, unsigned hosts,
                       const struct probe_ar_fit *f);
/* An error event with the failing rank and host (rank < 0: neither). */
void probe_emit_error_at(const char *code, const char *msg, int rank, const char *host);

/* ---- the probe's driver (kernels/probe_allreduce.c) ------------------------ */

/* Whether the probe was started by an MPI launcher (mpirun, srun, hydra):
 * then MPI is initialised and only the all-reduce runs. */
bool probe_ar_launched_by_mpi(void);

/* Run the test. cuda: --device cuda; device_sent: a device event was
 * written already (by the backend). Writes its own events (rank 0; a
 * failing rank writes its error with its rank) and returns the exit
 * status: 0, 2 usage (one rank: nothing to reduce), 4 device or transport
 * error, 5 a wrong sum, 128 + N cancelled. A skip (the test not asked for
 * by name, nothing to reduce here) is a `skip` event and 0. */
int probe_ar_run(const struct probe_ar_opts *ao, bool cuda, bool device_sent);

/* ---- transports ------------------------------------------------------------ */

/* The processes of the run: MPI's world, or this process alone. */
struct probe_ar_world {
    int rank, size;
    int local_rank; /* among the ranks of this host */
    int hosts;      /* distinct host names */
    bool mpi;
    char host[64];
};

#ifdef VRAMLAB_PROBE_HAVE_MPI
/* kernels/probe_allreduce_mpi.c */
int par_mpi_init(struct probe_ar_world *w, char *msg, size_t len);
void par_mpi_finalize(void);
void par_mpi_abort(int status);
double par_mpi_max(double v);
long par_mpi_sum(long v);
long par_mpi_min(long v);
void par_mpi_barrier(void);
void par_mpi_bcast(void *buf, size_t len);
/* The host transport: MPI_Allreduce (FP32: MPI_FLOAT and MPI_SUM; BF16: a
 * user-defined sum over 16-bit words) of count elements, iters times
 * back to back; returns this rank's seconds, or -1 with a message. */
double par_mpi_allreduce(const void *send, void *recv, size_t count, enum probe_ar_dtype d,
                         unsigned iters, char *msg, size_t len);
#endif

#ifdef VRAMLAB_PROBE_HAVE_CUDA
/* kernels/probe_allreduce_nccl.cu: NCCL opened with dlopen. */
struct pnccl;
/* Open libnccl.so.2 (the usual places); -1 with what was tried. */
int pnccl_open(char *msg, size_t len);
/* NCCL's version as 22803, or 0. */
int pnccl_version(void);
/* Visible CUDA devices; -1 with a code (PROBE_ERR_NO_DRIVER, ..._NO_DEVICE,
 * ..._DRIVER_OLD) and a message. */
int pnccl_devices(int *n, const char **code, char *msg, size_t len);
/* A device's name and memory. */
void pnccl_device_info(int dev, char *name, size_t len, double *memory_bytes);
/* The free memory of a device (bytes), 0 when unknown. */
double pnccl_free_bytes(int dev);
/* The 128-byte unique id (rank 0 makes it, MPI broadcasts it). */
int pnccl_unique_id(unsigned char id[128], char *msg, size_t len);
/* One communicator per visible device of this process (ncclCommInitAll),
 * or one rank of many processes (ncclCommInitRank). */
struct pnccl *pnccl_init_all(int ndev, char *msg, size_t len);
struct pnccl *pnccl_init_rank(int nranks, const unsigned char id[128], int rank, int device,
                              char *msg, size_t len);
/* Send and receive buffers of bytes on every device of this process. */
int pnccl_alloc(struct pnccl *p, size_t bytes, char *msg, size_t len);
/* Fill the send buffers (local device k is rank first_rank + k) and
 * poison the receive buffers. */
int pnccl_fill(struct pnccl *p, enum probe_ar_dtype d, size_t count, int first_rank, char *msg,
               size_t len);
/* iters all-reduces back to back on every local device, timed by CUDA
 * events: the slowest device's seconds, or -1 with a message. */
double pnccl_allreduce(struct pnccl *p, enum probe_ar_dtype d, size_t count, unsigned iters,
                       char *msg, size_t len);
/* Check every local receive buffer: wrong elements (summed), max error. */
int pnccl_check(struct pnccl *p, enum probe_ar_dtype d, size_t count, int ranks, size_t *bad,
                double *max_error, char *msg, size_t len);
/* Free the buffers (pnccl_alloc again for another size). */
void pnccl_free_buffers(struct pnccl *p);
/* Destroy the communicators and free everything. */
void pnccl_close(struct pnccl *p);
#endif

#ifdef __cplusplus
}
#endif

#endif
