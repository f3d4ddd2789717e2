/*
 * probe_allreduce.c: the all-reduce test's driver (issue 15; see
 * probe_allreduce.h for the definitions): the world of ranks, the
 * deadline of every collective, the size loop (check, warm-up, at least
 * 20 timed samples, check again), the result and fit events.
 *
 * Every decision that could part the ranks is agreed collectively (the
 * smallest "ok" over the ranks) so that no rank waits in a collective its
 * peers left; what cannot be agreed (a rank that died, stopped, or a
 * network that hangs) is caught by the deadline: a watchdog thread that
 * ends this process with an error event when one collective outlives it,
 * and the launcher then stops the others. Rank 0 writes the events; a
 * failing rank writes its own error (with "rank" and "host").
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/probe.h"
#include "kernels/probe_allreduce.h"
#include "kernels/probe_cpu_info.h"

static struct probe_ar_world W = {0, 1, 0, 1, false, ""};

/* Whether an MPI launcher started us (Open MPI, MPICH/Hydra, PMIx, MVAPICH). */
bool probe_ar_launched_by_mpi(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return true;
    return false;
}

/* ---- the world's small collectives (identity for one process) ------------ */

/* The deadline around them (below): a rank that stopped must not leave
 * its peers waiting in an agreement either. */
static double ar_deadline_s = PROBE_AR_DEADLINE_S;
static bool wd_guard(void);
static void wd_unguard(bool armed);

static double w_max(double v) {
#ifdef VRAMLAB_PROBE_HAVE_MPI
    if (W.mpi) {
        bool g = wd_guard();
        v = par_mpi_max(v);
        wd_unguard(g);
    }
#endif
    return v;
}

static long w_sum(long v) {
#ifdef VRAMLAB_PROBE_HAVE_MPI
    if (W.mpi) {
        bool g = wd_guard();
        v = par_mpi_sum(v);
        wd_unguard(g);
    }
#endif
    return v;
}

static long w_min(long v) {
#ifdef VRAMLAB_PROBE_HAVE_MPI
    if (W.mpi) {
        bool g = wd_guard();
        v = par_mpi_min(v);
        wd_unguard(g);
    }
#endif
    return v;
}

static void w_barrier(void) {
#ifdef VRAMLAB_PROBE_HAVE_MPI
    if (W.mpi) {
        bool g = wd_guard();
        par_mpi_barrier();
        wd_unguard(g);
    }
#endif
}

/* ---- the deadline ---------------------------------------------------------- */

static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static double wd_at;      /* monotonic seconds; 0: nothing in flight */
static double wd_limit;   /* the deadline armed, seconds */
static char wd_what[160]; /* the collective in flight */
static bool wd_started;

/* Monotonic seconds. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* An error event of this rank: every rank that fails says so with its
 * rank and host; one process alone says it plainly. */
static void ar_error(const char *code, const char *msg) {
    probe_emit_error_at(code, msg, W.mpi ? W.rank : -1, W.mpi ? W.host : NULL);
}

/* Why a rank under a launcher is stopped or sees a collective fail: a
 * peer died or the job was cancelled (the launcher signals every rank).
 * Every path that reports it says so (the signal may reach the watchdog,
 * the sample loop or a failing MPI call first). */
static const char *mpi_why(void) {
    return W.mpi ? " (under an MPI launcher: another rank failed or the job was cancelled)" : "";
}

/* The watchdog: a collective past its deadline, or a signal while one is
 * in flight (the launcher stops every rank when one fails), ends the
 * process at once with an error event; a collective cannot be unwound. */
static void *wd_main(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&wd_mu);
        double at = wd_at, limit = wd_limit;
        char what[sizeof wd_what];
        memcpy(what, wd_what, sizeof what);
        pthread_mutex_unlock(&wd_mu);
        char msg[400];
        if (probe_cancelled()) {
            /* in a collective or not: the launcher may SIGKILL soon */
            int sig = probe_cancel_flag;
            snprintf(msg, sizeof msg, "stopped by signal %d %s %s%s", sig,
                     at > 0 ? "during" : "after", what, mpi_why());
            ar_error(PROBE_ERR_CANCELLED, msg);
            _exit(128 + sig);
        }
        if (at > 0 && now_s() > at) {
            snprintf(msg, sizeof msg,
                     "%s did not finish within %.0f s: a rank stopped or died, or the "
                     "network failed; stopping %s",
                     what, limit, W.mpi ? "the job" : "the probe");
            ar_error("deadline", msg);
            _exit(4);
        }
    }
    return NULL;
}

/* Start the watchdog (once). */
static void wd_start(void) {
    if (!wd_started) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        /* the watchdog must not take the signals the main thread handles */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        wd_started = pthread_create(&t, &a, wd_main, NULL) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&a);
    }
}

/* Arm the deadline for one collective (or a sample of back-to-back ones). */
static void wd_arm(double seconds, const char *what) {
    wd_start();
    pthread_mutex_lock(&wd_mu);
    wd_limit = seconds;
    wd_at = now_s() + seconds;
    snprintf(wd_what, sizeof wd_what, "%s", what);
    pthread_mutex_unlock(&wd_mu);
}

/* Nothing in flight. */
static void wd_disarm(void) {
    pthread_mutex_lock(&wd_mu);
    wd_at = 0;
    pthread_mutex_unlock(&wd_mu);
}

/* Arm the deadline for a small collective unless one is armed already
 * (the message then names the collective it follows); returns whether
 * it armed it. */
static bool wd_guard(void) {
    wd_start();
    pthread_mutex_lock(&wd_mu);
    bool arm = !(wd_at > 0);
    if (arm) {
        wd_limit = ar_deadline_s;
        wd_at = now_s() + ar_deadline_s;
        if (strncmp(wd_what, "the ranks' agreement", 20) != 0) {
            char w[sizeof wd_what];
            memcpy(w, wd_what, sizeof w);
            snprintf(wd_what, sizeof wd_what, "the ranks' agreement after %.130s", w);
        }
    }
    pthread_mutex_unlock(&wd_mu);
    return arm;
}

/* Undo wd_guard. */
static void wd_unguard(bool armed) {
    if (armed)
        wd_disarm();
}

/* ---- transports behind one shape ------------------------------------------- */

struct xport {
    const char *name; /* "mpi", "nccl" */
    unsigned ranks;   /* in the reduction */
    unsigned hosts;
    double target_s; /* one timed sample lasts about this long */
    /* Fill the send buffers with this process's ranks' patterns and poison
     * the receive buffers; 0 or -1 with msg. */
    int (*fill)(struct xport *x, enum probe_ar_dtype d, size_t count, char *msg, size_t len);
    /* iters all-reduces back to back: this process's seconds, -1 on error. */
    double (*run)(struct xport *x, enum probe_ar_dtype d, size_t count, unsigned iters, char *msg,
                  size_t len);
    /* Check the receive buffers: wrong elements, max error; -1 on error. */
    int (*check)(struct xport *x, enum probe_ar_dtype d, size_t count, size_t *bad, double *err,
                 char *msg, size_t len);
    void *send, *recv; /* host buffers (mpi) */
#ifdef VRAMLAB_PROBE_HAVE_CUDA
    struct pnccl *nccl;
    int first_rank;
#endif
};

/* Every rank's verdict: true when all are ok. A failing rank has said why. */
static bool agree(bool ok) {
    return w_min(ok ? 1 : 0) == 1;
}

/* A size as text for messages: "8 B", "64 KiB", "1 GiB". */
static void bytes_text(double b, char *buf, size_t len) {
    static const char *const u[] = {"B", "KiB", "MiB", "GiB"};
    int k = 0;
    while (k < 3 && b >= 1024) {
        b /= 1024;
        k++;
    }
    snprintf(buf, len, b == floor(b) ? "%.0f %s" : "%.3g %s", b, u[k]);
}

/* Check the receive buffers on every rank: 0, 4 (a check failed to run)
 * or 5 (a wrong sum: rank 0 says how many and where first). */
static int verify(struct xport *x, enum probe_ar_dtype d, size_t count, const char *what,
                  const char *when, double *max_error) {
    char msg[400] = "";
    size_t bad = 0;
    double err = 0;
    bool ok = x->check(x, d, count, &bad, &err, msg, sizeof msg) == 0;
    if (!ok)
        ar_error(PROBE_ERR_FAULT, msg);
    if (!agree(ok))
        return 4;
    long wrong = w_sum((long)bad);
    long first = w_min(bad ? W.rank : 1L << 30);
    *max_error = w_max(err);
    if (wrong == 0)
        return 0;
    if (W.rank == 0) {
        snprintf(msg, sizeof msg,
                 "%s gave %ld wrong sums %s (first on rank %ld); nothing is reported for a "
                 "wrong result",
                 what, wrong, when, first);
        ar_error(PROBE_ERR_VERIFY, msg);
    }
    return 5;
}

/* Run iters back to back under the deadline, on every rank: the slowest
 * rank's seconds, or -1 (then every rank gives up: status 4). */
static double timed(struct xport *x, enum probe_ar_dtype d, size_t count, unsigned iters,
                    double deadline, const char *what) {
    char msg[400] = "";
    wd_arm(deadline, what);
    double t = x->run(x, d, count, iters, msg, sizeof msg);
    wd_disarm();
    if (t < 0 && W.mpi) {
        size_t n = strlen(msg);
        snprintf(msg + n, sizeof msg - n, "%s", mpi_why());
    }
    if (t < 0)
        ar_error(probe_cancelled() ? PROBE_ERR_CANCELLED : PROBE_ERR_FAULT, msg);
    if (!agree(t >= 0))
        return -1;
    return w_max(t);
}

/* One size of one dtype: fill, check one run, warm up, time the samples
 * (PROBE_AR_MIN_ITERS or --iters; under a budget as many as fit in it,
 * probe_ar_samples), check the last result again, emit. Returns 0, or the
 * exit status (every rank returns the same one). *median gets the median
 * seconds for the fit; *stop whether the sizes above this one are left
 * out (probe_ar_stop_growing; only asked when more_above: its result
 * then says so in its note). Every decision comes from agreed times
 * (timed: the slowest rank's), so the ranks take the same path. */
static int one_size(struct xport *x, const struct probe_ar_opts *ao, enum probe_ar_dtype d,
                    double bytes, const char *note, bool more_above, double *median, bool *stop) {
    char msg[400] = "", what[160], bt[32];
    size_t count = (size_t)(bytes / (double)probe_ar_dtype_size(d));
    bytes_text(bytes, bt, sizeof bt);
    snprintf(what, sizeof what, "the %s all-reduce of %s over %u ranks (%s)",
             probe_ar_dtype_name(d), bt, x->ranks, x->name);
    *stop = false;
    bool ok = x->fill(x, d, count, msg, sizeof msg) == 0;
    if (!ok)
        ar_error(PROBE_ERR_FAULT, msg);
    if (!agree(ok))
        return 4;
    double err = 0, tw = timed(x, d, count, 1, ao->deadline_s, what);
    if (tw < 0)
        return 4;
    int st = verify(x, d, count, what, "on its first run", &err);
    if (st != 0)
        return st;
    unsigned warm = probe_ar_warmups(ao->budget_s, tw);
    for (unsigned k = 0; k < warm; k++)
        if ((tw = timed(x, d, count, 1, ao->deadline_s, what)) < 0)
            return 4;
    /* back-to-back repetitions so that one sample lasts about target_s */
    unsigned per = tw > 0 ? (unsigned)ceil(x->target_s / tw) : 1;
    per = per < 1 ? 1 : per > 1000 ? 1000 : per;
    unsigned ns = probe_ar_samples(ao->budget_s, per * tw, ao->iters);
    double samples[PROBE_AR_MAX_ITERS];
    for (unsigned s = 0; s < ns; s++) {
        if (probe_cancelled()) {
            snprintf(msg, sizeof msg, "stopped by signal %d between two samples of %s%s",
                     (int)probe_cancel_flag, what, mpi_why());
            ar_error(PROBE_ERR_CANCELLED, msg);
            return 128 + (int)probe_cancel_flag;
        }
        w_barrier();
        /* the collective ends when its slowest rank does (timed: the max) */
        double ts = timed(x, d, count, per, ao->deadline_s + per * tw * 4, what);
        if (ts < 0)
            return 4;
        samples[s] = ts / per;
    }
    /* the last timed result must still be the right one */
    if ((st = verify(x, d, count, what, "after the timed runs", &err)) != 0)
        return st;
    struct probe_ar_result r;
    memset(&r, 0, sizeof r);
    probe_stats_summarise(samples, ns, &r.st);
    r.transport = x->name;
    r.dtype = probe_ar_dtype_name(d);
    r.bytes = bytes;
    r.count = count;
    r.ranks = x->ranks;
    r.hosts = x->hosts;
    r.iterations = per;
    r.note = note;
    r.verified = true;
    r.max_error = err;
    *median = r.st.median_s;
    char why[400];
    if (more_above && probe_ar_stop_growing(ao->budget_s, r.st.median_s)) {
        char ts[32];
        *stop = true;
        snprintf(ts, sizeof ts, r.st.median_s >= 1 ? "%.1f s" : "%.0f ms",
                 r.st.median_s >= 1 ? r.st.median_s : r.st.median_s * 1e3);
        snprintf(why, sizeof why,
                 "%s%sthe %s sizes above %s were left out: one all-reduce of %s takes %s, "
                 "and %d samples of a larger size would outrun the budget of %g s per size "
                 "(--full measures every size)",
                 note ? note : "", note ? "; " : "", r.dtype, bt, bt, ts, PROBE_AR_BUDGET_MIN,
                 ao->budget_s);
        r.note = why;
    }
    if (W.rank == 0)
        probe_emit_allreduce(&r);
    return 0;
}

/* The progress event before a step of the sweep: which of how many, and
 * the time left: the steps to go at the pace so far (the slower of the
 * mean step and the last one: the sizes grow), unknown before the first. */
static void sweep_progress(unsigned done, unsigned steps, double started, double last_s) {
    if (W.rank != 0)
        return;
    double el = now_s() - started;
    double pace = done > 0 ? el / done : -1;
    pace = last_s > pace ? last_s : pace;
    probe_progress_now.count = steps;
    probe_progress_now.index = done < steps ? done + 1 : steps;
    probe_progress_now.eta_s = done > 0 ? pace * (steps - done) : -1;
    probe_emit_progress("allreduce", steps ? (double)done / steps : 1.0);
}

/* The size loop over the dtypes, then one fit per dtype (over the sizes
 * measured). */
static int sweep(struct xport *x, const struct probe_ar_opts *ao, const char *note) {
    unsigned steps = 0, done = 0;
    for (int d = 0; d < PROBE_AR_DTYPES; d++)
        steps += ao->dtype[d] ? ao->sizes.n : 0;
    double started = now_s(), last_s = 0;
    for (int d = 0; d < PROBE_AR_DTYPES; d++) {
        if (!ao->dtype[d])
            continue;
        double b[PROBE_AR_MAX_SIZES], t[PROBE_AR_MAX_SIZES];
        unsigned n = 0;
        double cap = INFINITY; /* sizes above it left out (the budget) */
        for (unsigned i = 0; i < ao->sizes.n; i++) {
            double bytes = ao->sizes.bytes[i];
            if (bytes > cap) {
                done++;
                continue;
            }
            bool above = false, stop = false;
            for (unsigned k = i + 1; k < ao->sizes.n; k++)
                above = above || ao->sizes.bytes[k] > bytes;
            sweep_progress(done, steps, started, last_s);
            double t0 = now_s();
            int st = one_size(x, ao, (enum probe_ar_dtype)d, bytes, note, above, &t[n], &stop);
            if (st != 0)
                return st;
            last_s = now_s() - t0;
            b[n++] = bytes;
            if (stop)
                cap = bytes;
            done++;
        }
        struct probe_ar_fit f;
        probe_ar_fit_points(b, t, n, &f);
        if (W.rank == 0)
            probe_emit_ar_fit(x->name, probe_ar_dtype_name((enum probe_ar_dtype)d), x->ranks,
                              x->hosts, &f);
    }
    sweep_progress(steps, steps, started, 0);
    return 0;
}

/* The largest size asked for. */
static double max_size(const struct probe_ar_opts *ao) {
    double m = 0;
    for (unsigned i = 0; i < ao->sizes.n; i++)
        m = ao->sizes.bytes[i] > m ? ao->sizes.bytes[i] : m;
    return m;
}

/* One rank alone: nothing to reduce. Asked for by name, a usage error; in
 * a list of tests, a visible skip. */
static int one_rank(const struct probe_ar_opts *ao, const char *how) {
    char msg[300];
    snprintf(msg, sizeof msg, "one rank: nothing to reduce (%s)", how);
    if (!ao->explicit_test) {
        if (W.rank == 0)
            probe_emit_skip("allreduce", msg);
        return 0;
    }
    ar_error(PROBE_ERR_USAGE, msg);
    return 2;
}

/* ---- the host transport: MPI_Allreduce --------------------------------------- */

#ifdef VRAMLAB_PROBE_HAVE_MPI
static int mpi_fill(struct xport *x, enum probe_ar_dtype d, size_t count, char *msg, size_t len) {
    (void)msg;
    (void)len;
    probe_ar_fill(x->send, d, count, (unsigned)W.rank);
    probe_ar_poison(x->recv, d, count);
    return 0;
}

static double mpi_run(struct xport *x, enum probe_ar_dtype d, size_t count, unsigned iters,
                      char *msg, size_t len) {
    return par_mpi_allreduce(x->send, x->recv, count, d, iters, msg, len);
}

static int mpi_check(struct xport *x, enum probe_ar_dtype d, size_t count, size_t *bad, double *err,
                     char *msg, size_t len) {
    (void)msg;
    (void)len;
    *bad = probe_ar_check(x->recv, d, count, x->ranks, err);
    return 0;
}
#endif

/* The physical memory of this host, bytes. */
static double host_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* --device cpu: MPI_Allreduce on host buffers. */
static int run_cpu(const struct probe_ar_opts *ao, bool device_sent) {
    char msg[400];
    if (W.size < 2)
        return one_rank(ao, W.mpi ? "the launcher started one process; mpirun -n 2 or more"
                                  : "host buffers are reduced across MPI processes: "
                                    "mpirun -n 2 vramlab-probe --allreduce --device cpu");
#ifndef VRAMLAB_PROBE_HAVE_MPI
    (void)device_sent;
    return 4; /* not reached: without MPI the world is one process */
#else
    double maxb = max_size(ao), mem = host_memory();
    /* send and receive buffers on every rank of this host */
    double need = 2.0 * maxb;
    char bt[32], nt[32];
    bytes_text(maxb, bt, sizeof bt);
    bool ok = true;
    if (mem > 0 && need * (W.size / (W.hosts > 0 ? W.hosts : 1)) > 0.8 * mem) {
        bytes_text(need, nt, sizeof nt);
        snprintf(msg, sizeof msg,
                 "--sizes: %s needs %s per rank (send and receive buffers); %d ranks on %d "
                 "host(s) need more than 80%% of this host's %.1f GB",
                 bt, nt, W.size, W.hosts, mem / 1e9);
        ok = false;
    }
    if (!agree(ok)) {
        if (W.rank == 0)
            ar_error(PROBE_ERR_OOM, msg);
        return 4;
    }
    struct xport x;
    memset(&x, 0, sizeof x);
    x.name = "mpi";
    x.ranks = (unsigned)W.size;
    x.hosts = (unsigned)W.hosts;
    x.target_s = 1e-3;
    x.fill = mpi_fill;
    x.run = mpi_run;
    x.check = mpi_check;
    size_t alloc = ((size_t)maxb + 63) / 64 * 64;
    x.send = aligned_alloc(64, alloc);
    x.recv = aligned_alloc(64, alloc);
    ok = x.send && x.recv;
    if (!ok) {
        snprintf(msg, sizeof msg, "rank %d: cannot allocate 2 x %s of host memory", W.rank, bt);
        ar_error(PROBE_ERR_OOM, msg);
    }
    int st = 4;
    if (agree(ok)) {
        if (W.rank == 0 && !device_sent) {
            struct probe_device dv;
            memset(&dv, 0, sizeof dv);
            dv.backend = "cpu";
            probe_cpu_name(dv.name, sizeof dv.name);
            dv.memory_bytes = mem;
            dv.l2_bytes = probe_llc_bytes();
            probe_emit_device(&dv);
        }
        st = sweep(&x, ao, NULL);
    }
    free(x.send);
    free(x.recv);
    return st;
#endif
}

/* ---- the GPUs: NCCL ------------------------------------------------------------ */

#ifdef VRAMLAB_PROBE_HAVE_CUDA
static int nccl_fill(struct xport *x, enum probe_ar_dtype d, size_t count, char *msg, size_t len) {
    return pnccl_fill(x->nccl, d, count, x->first_rank, msg, len);
}

static double nccl_run(struct xport *x, enum probe_ar_dtype d, size_t count, unsigned iters,
                       char *msg, size_t len) {
    return pnccl_allreduce(x->nccl, d, count, iters, msg, len);
}

static int nccl_check(struct xport *x, enum probe_ar_dtype d, size_t count, size_t *bad,
                      double *err, char *msg, size_t len) {
    return pnccl_check(x->nccl, d, count, (int)x->ranks, bad, err, msg, len);
}
#endif

/* --device cuda: NCCL over the GPUs of this process, or one GPU per rank. */
static int run_cuda(const struct probe_ar_opts *ao, bool device_sent) {
#ifndef VRAMLAB_PROBE_HAVE_CUDA
    (void)ao;
    (void)device_sent;
    ar_error(PROBE_ERR_NO_CUDA, "this vramlab-probe was built without CUDA (configure "
                                "--with-cuda): the GPUs' all-reduce needs NCCL on CUDA");
    return 4;
#else
    char msg[400] = "";
    const char *code = PROBE_ERR_NO_DEVICE;
    int ndev = 0;
    bool ok = pnccl_devices(&ndev, &code, msg, sizeof msg) == 0;
    if (!ok)
        ar_error(code, msg);
    if (!agree(ok))
        return 4;
    ok = pnccl_open(msg, sizeof msg) == 0;
    if (!ok)
        ar_error("no-nccl", msg);
    if (!agree(ok))
        return 4;
    bool multi = W.mpi && W.size > 1;
    int dev = multi ? W.local_rank % ndev : 0;
    unsigned ranks = multi ? (unsigned)W.size : (unsigned)ndev;
    double maxb = max_size(ao);
    char bt[32];
    bytes_text(maxb, bt, sizeof bt);
    /* the largest size's two buffers on each of our devices */
    ok = true;
    for (int k = multi ? dev : 0; k < (multi ? dev + 1 : ndev); k++) {
        double fr = pnccl_free_bytes(k);
        if (fr > 0 && 2.0 * maxb > 0.9 * fr) {
            snprintf(msg, sizeof msg,
                     "--sizes: %s needs twice that on GPU %d (send and receive buffers); it "
                     "has %.1f GB free",
                     bt, k, fr / 1e9);
            ar_error(PROBE_ERR_OOM, msg);
            ok = false;
            break;
        }
    }
    if (!agree(ok))
        return 4;
    struct xport x;
    memset(&x, 0, sizeof x);
    x.name = "nccl";
    x.ranks = ranks;
    x.hosts = (unsigned)W.hosts;
    x.target_s = 2e-3;
    x.fill = nccl_fill;
    x.run = nccl_run;
    x.check = nccl_check;
    x.first_rank = multi ? W.rank : 0;
    char what[160];
    snprintf(what, sizeof what, "the NCCL communicator's set-up over %u ranks", ranks);
    wd_arm(ao->deadline_s * 4, what);
    if (multi) {
        unsigned char id[128];
        memset(id, 0, sizeof id);
        ok = W.rank != 0 || pnccl_unique_id(id, msg, sizeof msg) == 0;
        if (!ok)
            ar_error("nccl", msg);
        if (agree(ok)) {
#ifdef VRAMLAB_PROBE_HAVE_MPI
            par_mpi_bcast(id, sizeof id);
#endif
            x.nccl = pnccl_init_rank((int)ranks, id, W.rank, dev, msg, sizeof msg);
        }
    } else {
        x.nccl = pnccl_init_all(ndev, msg, sizeof msg);
    }
    wd_disarm();
    ok = x.nccl != NULL;
    if (!ok && msg[0])
        ar_error("nccl", msg);
    if (!agree(ok)) {
        pnccl_close(x.nccl);
        return 4;
    }
    ok = pnccl_alloc(x.nccl, (size_t)maxb, msg, sizeof msg) == 0;
    if (!ok)
        ar_error(PROBE_ERR_OOM, msg);
    int st = 4;
    if (agree(ok)) {
        if (W.rank == 0 && !device_sent) {
            struct probe_device dv;
            memset(&dv, 0, sizeof dv);
            dv.backend = "cuda";
            pnccl_device_info(dev, dv.name, sizeof dv.name, &dv.memory_bytes);
            dv.compute_units = ranks;
            probe_emit_device(&dv);
        }
        char note[160] = "";
        if (ranks == 1)
            snprintf(note, sizeof note,
                     "one GPU: n = 1 is degenerate (nothing crosses a link; busbw is 0 and the "
                     "time is NCCL's local copy)");
        st = sweep(&x, ao, note[0] ? note : NULL);
    }
    pnccl_close(x.nccl);
    return st;
#endif
}

/* The test. */
int probe_ar_run(const struct probe_ar_opts *ao, bool cuda, bool device_sent) {
    char msg[400];
    W.rank = 0;
    W.size = 1;
    W.hosts = 1;
    W.mpi = false;
    if (gethostname(W.host, sizeof W.host) != 0)
        snprintf(W.host, sizeof W.host, "?");
    W.host[sizeof W.host - 1] = 0;
    snprintf(wd_what, sizeof wd_what, "the all-reduce test's set-up");
    ar_deadline_s = ao->deadline_s;
    wd_start();
    if (probe_ar_launched_by_mpi()) {
#ifdef VRAMLAB_PROBE_HAVE_MPI
        if (par_mpi_init(&W, msg, sizeof msg) != 0) {
            ar_error("mpi", msg);
            return 4;
        }
#else
        ar_error("no-mpi", "started by an MPI launcher, but this vramlab-probe was built "
                           "without MPI (configure --with-mpi): each rank would measure alone");
        return 4;
#endif
    }
    int st = cuda ? run_cuda(ao, device_sent) : run_cpu(ao, device_sent);
#ifdef VRAMLAB_PROBE_HAVE_MPI
    /* every rank ends the same way; a cancelled one leaves to the launcher */
    if (W.mpi && st < 128)
        par_mpi_finalize();
#endif
    return st;
}
