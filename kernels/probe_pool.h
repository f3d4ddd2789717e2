/*
 * probe_pool.h: a small thread pool for the CPU backend: every sample pays
 * two barrier waits, not a thread spawn, and the same threads touch the
 * arrays first (first-touch placement, STREAM's rule).
 */
#ifndef VRAMLAB_PROBE_POOL_H
#define VRAMLAB_PROBE_POOL_H

#include <pthread.h>
#include <stddef.h>

#define PROBE_POOL_MAX_THREADS 256

/* The work of thread tid among n. */
typedef void (*probe_par_fn)(void *ctx, unsigned tid, unsigned n);

struct probe_pool {
    unsigned n;
    pthread_t th[PROBE_POOL_MAX_THREADS];
    pthread_barrier_t start, done;
    probe_par_fn fn;
    void *ctx;
    unsigned active;
    int quit;
    unsigned pinned; /* threads pinned to one CPU each */
};

/* Start n-1 workers (the caller is thread 0), each thread pinned to its
 * own CPU of the process's affinity mask where the OS allows; -1 when one
 * cannot start. */
int probe_pool_init(struct probe_pool *p, unsigned n);
/* Run fn on `active` threads (1..n) and wait for all. */
void probe_pool_run(struct probe_pool *p, unsigned active, probe_par_fn fn, void *ctx);
/* Stop the workers. */
void probe_pool_destroy(struct probe_pool *p);
/* [lo, hi) of thread tid among n over count items, in units of `align`. */
void probe_split(size_t count, size_t align, unsigned tid, unsigned n, size_t *lo, size_t *hi);

#endif
