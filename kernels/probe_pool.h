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

/*
 * Shares with stealing: each of n threads takes pieces of its own share
 * (probe_split's, so the data it touched first stays mostly with it), then
 * what is left of the others' shares, so a thread that a busy core slows
 * down is helped by the rest instead of holding them at the barrier (a
 * shared machine; llama.cpp's threads take chunks the same way). Each
 * share's cursor has its own cache line. Set up once per shape and thread
 * count; every thread of a run calls probe_steal_next until it returns 0,
 * then probe_steal_done: the last one resets the cursors for the next run.
 */
struct probe_steal_share {
    size_t next, hi; /* next: atomic */
    char pad[64 - 2 * sizeof(size_t)];
};
struct probe_steal {
    struct probe_steal_share s[PROBE_POOL_MAX_THREADS];
    size_t count, align, piece;
    unsigned n, finished; /* finished: atomic */
};
/* Shares of count items in units of align, taken piece items at a time
 * (piece a multiple of align). */
void probe_steal_init(struct probe_steal *w, size_t count, size_t align, size_t piece, unsigned n);
/* The next piece for thread tid: 1 with [lo, hi), 0 when none is left. */
int probe_steal_next(struct probe_steal *w, unsigned tid, size_t *lo, size_t *hi);
/* Thread done with this run (the last of the n resets the cursors). */
void probe_steal_done(struct probe_steal *w);

#endif
