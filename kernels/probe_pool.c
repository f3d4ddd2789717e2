/*
 * probe_pool.c: the CPU backend's thread pool (see probe_pool.h).
 */
#include "config.h"

#define _GNU_SOURCE 1 /* pthread_setaffinity_np, CPU_SET */
#include "kernels/probe_pool.h"

#include <sched.h>
#include <string.h>

struct probe_worker_arg {
    struct probe_pool *p;
    unsigned tid;
};
static struct probe_worker_arg probe_worker_args[PROBE_POOL_MAX_THREADS];

/* Worker loop: wait for work, run its share, report done. */
static void *probe_pool_worker(void *arg) {
    struct probe_worker_arg *w = arg;
    struct probe_pool *p = w->p;
    for (;;) {
        pthread_barrier_wait(&p->start);
        if (p->quit)
            break;
        if (w->tid < p->active)
            p->fn(p->ctx, w->tid, p->active);
        pthread_barrier_wait(&p->done);
    }
    return NULL;
}

/* Pin thread tid to the tid-th CPU this process may run on (round
 * robin), so a thread keeps its caches and the pages it touched first;
 * returns whether it was pinned. */
static int pin_thread(pthread_t th, unsigned tid) {
#if defined(__linux__) && defined(CPU_SET)
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 0;
    int count = CPU_COUNT(&allowed);
    if (count <= 0)
        return 0;
    int want = (int)(tid % (unsigned)count), seen = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        if (seen++ == want) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            return pthread_setaffinity_np(th, sizeof one, &one) == 0;
        }
    }
#else
    (void)th;
    (void)tid;
#endif
    return 0;
}

/* Start n-1 workers (the caller is thread 0); every thread is pinned. */
int probe_pool_init(struct probe_pool *p, unsigned n) {
    memset(p, 0, sizeof *p);
    p->n = n;
    /* the caller pins itself last: its mask is the one every pin reads */
    pthread_t self = pthread_self();
    if (pthread_barrier_init(&p->start, NULL, n) || pthread_barrier_init(&p->done, NULL, n))
        return -1;
    for (unsigned i = 1; i < n; i++) {
        probe_worker_args[i].p = p;
        probe_worker_args[i].tid = i;
        if (pthread_create(&p->th[i], NULL, probe_pool_worker, &probe_worker_args[i]) != 0) {
            p->n = i; /* only i-1 workers exist: shut them down below */
            return -1;
        }
        p->pinned += pin_thread(p->th[i], i);
    }
    p->pinned += pin_thread(self, 0);
    return 0;
}

/* Run fn on `active` threads (1..n) and wait for all. */
void probe_pool_run(struct probe_pool *p, unsigned active, probe_par_fn fn, void *ctx) {
    p->fn = fn;
    p->ctx = ctx;
    p->active = active;
    if (p->n > 1)
        pthread_barrier_wait(&p->start);
    fn(ctx, 0, active);
    if (p->n > 1)
        pthread_barrier_wait(&p->done);
}

/* Stop the workers. */
void probe_pool_destroy(struct probe_pool *p) {
    if (p->n > 1) {
        p->quit = 1;
        pthread_barrier_wait(&p->start);
        for (unsigned i = 1; i < p->n; i++)
            pthread_join(p->th[i], NULL);
    }
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->done);
}

/* [lo, hi) of thread tid among n over count items, in units of `align`. */
void probe_split(size_t count, size_t align, unsigned tid, unsigned n, size_t *lo, size_t *hi) {
    size_t units = (count + align - 1) / align;
    size_t a = units * tid / n, b = units * (tid + 1) / n;
    *lo = a * align < count ? a * align : count;
    *hi = b * align < count ? b * align : count;
}

/* The cursors at the start of each share. */
static void probe_steal_reset(struct probe_steal *w) {
    for (unsigned t = 0; t < w->n; t++) {
        size_t lo, hi;
        probe_split(w->count, w->align, t, w->n, &lo, &hi);
        __atomic_store_n(&w->s[t].next, lo, __ATOMIC_RELAXED);
        w->s[t].hi = hi;
    }
    __atomic_store_n(&w->finished, 0, __ATOMIC_RELEASE);
}

void probe_steal_init(struct probe_steal *w, size_t count, size_t align, size_t piece, unsigned n) {
    w->count = count;
    w->align = align ? align : 1;
    w->piece = piece < w->align ? w->align : piece / w->align * w->align;
    w->n = n ? n : 1;
    probe_steal_reset(w);
}

int probe_steal_next(struct probe_steal *w, unsigned tid, size_t *lo, size_t *hi) {
    for (unsigned k = 0; k < w->n; k++) {
        struct probe_steal_share *sh = &w->s[(tid + k) % w->n];
        if (__atomic_load_n(&sh->next, __ATOMIC_RELAXED) >= sh->hi)
            continue;
        size_t a = __atomic_fetch_add(&sh->next, w->piece, __ATOMIC_RELAXED);
        if (a < sh->hi) {
            *lo = a;
            *hi = a + w->piece < sh->hi ? a + w->piece : sh->hi;
            return 1;
        }
    }
    return 0;
}

void probe_steal_done(struct probe_steal *w) {
    if (__atomic_add_fetch(&w->finished, 1, __ATOMIC_ACQ_REL) == w->n)
        probe_steal_reset(w);
}
