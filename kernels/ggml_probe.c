/*
 * ggml_probe.c: vramlab-ggml, the probe of a runtime's own kernels (issue
 * 26). It loads a llama.cpp build's ggml (libggml-base.so, libggml-cpu.so
 * in --lib DIR) with dlopen and times its CPU MUL_MAT over the matrices it
 * is given, each in its own ggml type and shape, at each batch: what
 * llama.cpp (llama-server, llama-bench, llama-cli) computes for a token's
 * weight products on this machine. `vramlab plan --device cpu` on a GGUF
 * file gives it the file's matrices (tui/cpu_runtime.c), so the core-bound
 * decode and the prefill follow llama.cpp's kernels, which are slower than
 * the probe's on some types (Q4_1 has no repacked or tinyBLAS path).
 *
 * Our code calling ggml's public C API, resolved by name at run time;
 * nothing of ggml is in this repository or linked in. It is its own
 * process so that a foreign library's crash or abort cannot take vramlab
 * with it. The struct passed by value (ggml_init_params) and the type
 * numbers (the GGUF tensor types) are ggml's stable ABI; tensors are only
 * handled through functions (ggml_get_data, ggml_row_size).
 *
 * usage: vramlab-ggml --lib DIR --file GGUF --mat TYPE:ROWS:COLS:OFFSET[:1][,...]
 *                     [--threads N] [--batches 1,512] [--budget SECONDS]
 * Each --mat entry is one matrix of the file: its GGUF/ggml type number (2 =
 * Q4_0, 3 = Q4_1, 8 = Q8_0, 1 = F16, 12 = Q4_K ...), its rows and columns,
 * and the byte where its data begins in the file, and ":1" for the head
 * (a prompt multiplies it for its last token only); the caller says which
 * tensors a token multiplies (catalog_gguf_matrix). The file's own bytes are
 * read into the graph: the kernels' speed depends on the weights they are
 * given (SmolLM2-135M Q4_1's products took 1.5x as long on its own bytes
 * as on made-up values of the same types and shapes at one thread, 1.2x
 * at two; its tied Q8_0 head 1.5x; docs/benchmarks.md). For each type and
 * batch it builds one graph of that type's matrices in the order given (x:
 * F32, batch columns; ggml quantizes it as llama.cpp does), sampled as
 * gp_sample says, and prints JSON Lines:
 *   {"event":"device","backend":"ggml","lib":DIR,"threads":N}
 *   {"event":"result","test":"ggml-mul-mat","type":3,"batch":1,
 *    "weights":W,"seconds":S,"weights_per_s":R,"repacked":B}   (R: weights
 *    a second, each weight used by `batch` vectors; S the least of the
 *    repetitions; B: in llama.cpp's repack buffer, as it loads them)
 *   {"event":"error","code":...,"message":...}    (exit 1; 2 for usage)
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/argv.h"

#define GGML_PROBE_MATS  (1 << 16)
#define GGML_PROBE_BYTES ((double)(192u << 20)) /* weights a batch-1 graph holds */
#define GGML_PROBE_MACS  8e9                    /* work of a larger batch's graph */
#define GGML_PROBE_ROWS  256                    /* a cut matrix keeps at least these rows */
#define GGML_PROBE_NODES 4096

/* ggml's init parameters, as ggml.h declares them (stable since 2023). */
struct gp_init_params {
    size_t mem_size;
    void *mem_buffer;
    bool no_alloc;
};

/* The functions of ggml this program calls. */
struct gp_api {
    void *(*init)(struct gp_init_params);
    void (*free_ctx)(void *ctx);
    void *(*new_tensor_2d)(void *ctx, int type, int64_t ne0, int64_t ne1);
    void *(*mul_mat)(void *ctx, void *a, void *b);
    void *(*new_graph_custom)(void *ctx, size_t size, bool grads);
    void (*build_forward_expand)(void *graph, void *tensor);
    int (*graph_compute_with_ctx)(void *ctx, void *graph, int n_threads);
    void *(*get_data)(const void *tensor);
    size_t (*row_size)(int type, int64_t ne);
    int64_t (*blck_size)(int type);
    void (*cpu_init)(void);
    /* the CPU backend's extra buffer types, where llama.cpp repacks the
     * weights it has a faster layout for (Q4_0, Q4_K, IQ4_NL on x86:
     * ggml-cpu/repack.cpp) at load; all NULL where this ggml has none */
    void *(*cpu_reg)(void);
    void *(*reg_dev_get)(void *reg, size_t index);
    void *(*reg_get_proc_address)(void *reg, const char *name);
    void *(*alloc_ctx_tensors_from_buft)(void *ctx, void *buft);
    void (*tensor_set)(void *tensor, const void *data, size_t offset, size_t size);
    bool (*dev_supports_op)(void *dev, const void *op);
    void (*buffer_free)(void *buffer);
    size_t (*tensor_overhead)(void);
    void *repack_buft, *dev; /* found at load */
};

struct gp_mat {
    int type;
    int64_t rows, cols, offset;
    bool once; /* the head: a prompt multiplies it for its last token only */
};

struct gp_args {
    const char *lib, *file;
    struct gp_mat *mat;
    size_t n_mat, cap_mat;
    int threads;
    int64_t batch[4];
    size_t n_batch;
    double budget;
    char *msg;
    size_t len;
};

enum { GP_HELP = 0, GP_LIB, GP_FILE, GP_MAT, GP_THREADS, GP_BATCHES, GP_BUDGET, GP_COUNT };
static const struct argv_option gp_options[GP_COUNT] = {
    [GP_HELP] = {"help", ARGV_NONE, NULL},
    [GP_LIB] = {"lib", ARGV_REQUIRED, "DIR"},
    [GP_FILE] = {"file", ARGV_REQUIRED, "GGUF"},
    [GP_MAT] = {"mat", ARGV_REQUIRED, "TYPE:ROWS:COLS:OFFSET,..."},
    [GP_THREADS] = {"threads", ARGV_REQUIRED, "N"},
    [GP_BATCHES] = {"batches", ARGV_REQUIRED, "LIST"},
    [GP_BUDGET] = {"budget", ARGV_REQUIRED, "SECONDS"},
};
static const struct argv_spec gp_spec = {gp_options, GP_COUNT, false, false, NULL};

/* The matrices' array, freed at exit whichever way main returns. */
static struct gp_mat *gp_mats;
static void gp_free(void) {
    free(gp_mats);
}

static double gp_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A JSON string's text (the library path; messages): quotes, backslashes
 * and control characters escaped. */
static void gp_json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static int gp_fail(const char *code, const char *message) {
    printf("{\"event\":\"error\",\"code\":\"%s\",\"message\":", code);
    gp_json_str(message);
    printf("}\n");
    fflush(stdout);
    return 1;
}

static int gp_visit(void *ctx, int index, const char *v) {
    struct gp_args *a = ctx;
    char *end;
    switch (index) {
    case GP_HELP:
        return 2;
    case GP_LIB:
        a->lib = v;
        return 0;
    case GP_FILE:
        a->file = v;
        return 0;
    case GP_MAT:
        for (const char *p = v; *p;) {
            long long f[5] = {0};
            int nf = 0;
            for (int i = 0; i < 5; i++) {
                errno = 0;
                f[i] = strtoll(p, &end, 10);
                nf = i + 1;
                bool last = !*end || *end == ',';
                if (end == p || errno || f[i] < (i == 0 || i >= 3 ? 0 : 1) ||
                    f[i] > (i == 4 ? 1 : 1ll << 50) || (i < 3 && *end != ':') ||
                    (i >= 3 && !last && *end != ':') || (i == 4 && !last)) {
                    argv_error_value(&gp_spec, a->msg, a->len, "mat",
                                     "TYPE:ROWS:COLS:OFFSET[:1] entries, whole numbers", v);
                    return -1;
                }
                p = end + (*end ? 1 : 0);
                if (i >= 3 && last)
                    break;
            }
            if (nf < 4) {
                argv_error_value(&gp_spec, a->msg, a->len, "mat",
                                 "TYPE:ROWS:COLS:OFFSET[:1] entries, whole numbers", v);
                return -1;
            }
            if (a->n_mat == GGML_PROBE_MATS) {
                argv_error_value(&gp_spec, a->msg, a->len, "mat", "at most 65536 matrices", v);
                return -1;
            }
            if (a->n_mat == a->cap_mat) {
                size_t cap = a->cap_mat ? 2 * a->cap_mat : 256;
                struct gp_mat *m = realloc(a->mat, cap * sizeof *m);
                if (!m) {
                    snprintf(a->msg, a->len, "out of memory");
                    return -1;
                }
                a->mat = gp_mats = m, a->cap_mat = cap;
            }
            a->mat[a->n_mat++] = (struct gp_mat){(int)f[0], f[1], f[2], f[3], f[4] == 1};
        }
        return 0;
    case GP_THREADS:
        errno = 0;
        a->threads = (int)strtol(v, &end, 10);
        if (end == v || *end || errno || a->threads < 1 || a->threads > 1024) {
            argv_error_value(&gp_spec, a->msg, a->len, "threads", "a whole number from 1 to 1024",
                             v);
            return -1;
        }
        return 0;
    case GP_BATCHES:
        a->n_batch = 0;
        for (const char *p = v; *p;) {
            errno = 0;
            long long b = strtoll(p, &end, 10);
            if (end == p || errno || b < 1 || b > 65536 || (*end && *end != ',') ||
                a->n_batch == 4) {
                argv_error_value(&gp_spec, a->msg, a->len, "batches",
                                 "up to 4 whole numbers from 1 to 65536", v);
                return -1;
            }
            a->batch[a->n_batch++] = b;
            p = end + (*end ? 1 : 0);
        }
        return 0;
    case GP_BUDGET:
        errno = 0;
        a->budget = strtod(v, &end);
        if (end == v || *end || errno || !(a->budget >= 0.1 && a->budget <= 3600)) {
            argv_error_value(&gp_spec, a->msg, a->len, "budget", "0.1 to 3600 seconds", v);
            return -1;
        }
        return 0;
    }
    return 0;
}

/* Resolve ggml's functions in the libraries of dir: 0, or -1 with msg. */
static int gp_load(const char *dir, struct gp_api *g, char *msg, size_t len) {
    static const char *const libs[] = {"libggml-base.so", "libggml-cpu.so"};
    void *h[2];
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, libs[i]);
        h[i] = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (!h[i]) {
            const char *e = dlerror();
            snprintf(msg, len, "cannot load %.600s: %.300s", path, e ? e : "?");
            return -1;
        }
    }
    struct {
        void **fn;
        const char *name;
        int lib; /* 0 base, 1 cpu */
        bool optional;
    } want[] = {
        {(void **)&g->init, "ggml_init", 0, false},
        {(void **)&g->free_ctx, "ggml_free", 0, false},
        {(void **)&g->new_tensor_2d, "ggml_new_tensor_2d", 0, false},
        {(void **)&g->mul_mat, "ggml_mul_mat", 0, false},
        {(void **)&g->new_graph_custom, "ggml_new_graph_custom", 0, false},
        {(void **)&g->build_forward_expand, "ggml_build_forward_expand", 0, false},
        {(void **)&g->get_data, "ggml_get_data", 0, false},
        {(void **)&g->row_size, "ggml_row_size", 0, false},
        {(void **)&g->blck_size, "ggml_blck_size", 0, false},
        {(void **)&g->graph_compute_with_ctx, "ggml_graph_compute_with_ctx", 1, false},
        {(void **)&g->cpu_init, "ggml_cpu_init", 1, true},
        {(void **)&g->cpu_reg, "ggml_backend_cpu_reg", 1, true},
        {(void **)&g->reg_dev_get, "ggml_backend_reg_dev_get", 0, true},
        {(void **)&g->reg_get_proc_address, "ggml_backend_reg_get_proc_address", 0, true},
        {(void **)&g->alloc_ctx_tensors_from_buft, "ggml_backend_alloc_ctx_tensors_from_buft", 0,
         true},
        {(void **)&g->tensor_set, "ggml_backend_tensor_set", 0, true},
        {(void **)&g->dev_supports_op, "ggml_backend_dev_supports_op", 0, true},
        {(void **)&g->buffer_free, "ggml_backend_buffer_free", 0, true},
        {(void **)&g->tensor_overhead, "ggml_tensor_overhead", 0, true},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        void *f = dlsym(h[want[i].lib], want[i].name);
        if (!f && !want[i].optional) {
            snprintf(msg, len, "%s/%s has no %s (not a llama.cpp ggml build?)", dir,
                     libs[want[i].lib], want[i].name);
            return -1;
        }
        memcpy(want[i].fn, &f, sizeof f);
    }
    /* the repack buffer type: the CPU device's first extra buffer type
     * (ggml_backend_dev_get_extra_bufts, a NULL-ended list) */
    g->repack_buft = g->dev = NULL;
    if (g->cpu_reg && g->reg_dev_get && g->reg_get_proc_address && g->alloc_ctx_tensors_from_buft &&
        g->tensor_set && g->dev_supports_op && g->buffer_free && g->tensor_overhead) {
        void *reg = g->cpu_reg();
        void *dev = reg ? g->reg_dev_get(reg, 0) : NULL;
        void **(*extra)(void *) = NULL;
        void *f = reg ? g->reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts") : NULL;
        memcpy(&extra, &f, sizeof f);
        void **bufts = extra && dev ? extra(dev) : NULL;
        if (bufts && bufts[0])
            g->repack_buft = bufts[0], g->dev = dev;
    }
    return 0;
}

/* Whether llama.cpp would repack a weight of this type and shape at load:
 * the CPU device supports a product with it in the repack buffer (what
 * llama-model.cpp's weight_buft_supported asks). */
static bool gp_repacks(const struct gp_api *g, int type, int64_t rows, int64_t cols) {
    if (!g->repack_buft)
        return false;
    struct gp_init_params ip = {g->tensor_overhead() * 4 + 4096, NULL, true};
    void *ctx = g->init(ip);
    if (!ctx)
        return false;
    void *w = g->new_tensor_2d(ctx, type, cols, rows);
    void *buf = g->alloc_ctx_tensors_from_buft(ctx, g->repack_buft);
    bool ok = false;
    if (buf) {
        void *x = g->new_tensor_2d(ctx, 0 /* F32 */, cols, 1);
        ok = g->dev_supports_op(g->dev, g->mul_mat(ctx, w, x));
        g->buffer_free(buf);
    }
    g->free_ctx(ctx);
    return ok;
}

/* Read a matrix's first `rows` rows from the file into dst. */
static int gp_read(const struct gp_api *g, int fd, void *dst, const struct gp_mat *m, int64_t rows,
                   char *msg, size_t len) {
    size_t want = g->row_size(m->type, m->cols) * (size_t)rows;
    char *d = dst;
    for (size_t got = 0; got < want;) {
        ssize_t k = pread(fd, d + got, want - got, (off_t)(m->offset + (int64_t)got));
        if (k <= 0) {
            snprintf(msg, len, "the file ends before byte %lld (a matrix of %lld x %lld)",
                     (long long)(m->offset + (int64_t)want), (long long)m->rows,
                     (long long)m->cols);
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

/* The sample of one type's matrices at one batch: their indices into
 * pick and the rows each keeps into rows (room for GGML_PROBE_NODES);
 * returns how many.
 *
 * A token's decode (batch 1, and a few sequences at once while the work
 * stays within GGML_PROBE_MACS): the type's matrices in order, again and
 * again until the graph holds as many bytes as all the file's matrices (up
 * to GGML_PROBE_BYTES): a token streams the whole model, so neither a type
 * of a few megabytes nor a batch of a few vectors is timed from a cache it
 * would not sit in. A prompt's batch (more work than that): one of each
 * shape, the head left out (a prompt multiplies it for one token) unless
 * the type has nothing else, its rows cut to the work's budget (not below
 * GGML_PROBE_ROWS). */
static size_t gp_sample(const struct gp_api *g, const struct gp_args *a, int type, int64_t batch,
                        size_t *pick, int64_t *rows) {
    size_t np = 0;
    double macs = 0, held = 0, target = 0;
    bool only_once = true;
    for (size_t i = 0; i < a->n_mat; i++) {
        target += (double)g->row_size(a->mat[i].type, a->mat[i].cols) * (double)a->mat[i].rows;
        if (a->mat[i].type == type && !a->mat[i].once)
            only_once = false;
    }
    target = target < GGML_PROBE_BYTES ? target : GGML_PROBE_BYTES;
    for (int pass = 0; np < GGML_PROBE_NODES / 2; pass++) {
        size_t before = np;
        for (size_t i = 0; i < a->n_mat && np < GGML_PROBE_NODES / 2; i++) {
            const struct gp_mat *m = &a->mat[i];
            if (m->type != type)
                continue;
            double b = (double)g->row_size(type, m->cols) * (double)m->rows;
            if (np > 0 && (held >= target || held + b > GGML_PROBE_BYTES))
                break;
            held += b;
            rows[np] = m->rows;
            pick[np++] = i;
            macs += (double)m->rows * (double)m->cols * (double)batch;
        }
        if (np == before || held >= target || held >= GGML_PROBE_BYTES)
            break;
    }
    if (batch == 1 || macs <= GGML_PROBE_MACS)
        return np;
    /* a prompt's batch */
    np = 0, macs = 0;
    for (size_t i = 0; i < a->n_mat; i++) {
        const struct gp_mat *m = &a->mat[i];
        if (m->type != type || (m->once && !only_once))
            continue;
        bool seen = false;
        for (size_t j = 0; j < np && !seen; j++)
            seen = a->mat[pick[j]].rows == m->rows && a->mat[pick[j]].cols == m->cols;
        if (seen || np == GGML_PROBE_NODES / 2)
            continue;
        rows[np] = m->rows;
        pick[np++] = i;
        macs += (double)m->rows * (double)m->cols * (double)batch;
    }
    if (macs <= GGML_PROBE_MACS)
        return np;
    double share = GGML_PROBE_MACS / macs;
    for (size_t j = 0; j < np; j++) {
        int64_t full = a->mat[pick[j]].rows, r = (int64_t)((double)full * share);
        int64_t floor = full < GGML_PROBE_ROWS ? full : GGML_PROBE_ROWS;
        rows[j] = r < floor ? floor : r;
    }
    return np;
}

/* Which of the sample's matrices llama.cpp repacks (asked of each shape,
 * the first 16 shapes: the rest as the file stores them) into repack;
 * returns how many. */
static size_t gp_repack_marks(const struct gp_api *g, const struct gp_args *a, int type,
                              const size_t *pick, const int64_t *rows, size_t np, bool *repack) {
    struct {
        int64_t rows, cols;
        bool yes;
    } asked[16];
    size_t nasked = 0, n = 0;
    for (size_t j = 0; g->repack_buft && j < np; j++) {
        const struct gp_mat *m = &a->mat[pick[j]];
        size_t q = 0;
        while (q < nasked && !(asked[q].rows == rows[j] && asked[q].cols == m->cols))
            q++;
        if (q == nasked) {
            if (nasked == 16)
                continue;
            asked[q].rows = rows[j], asked[q].cols = m->cols;
            asked[q].yes = gp_repacks(g, type, rows[j], m->cols);
            nasked++;
        }
        repack[j] = asked[q].yes;
        n += repack[j];
    }
    return n;
}

/* Time one type's matrices at one batch: the least wall time of the
 * repetitions (the first, which faults the pages in and starts the
 * threads, not counted). 0, or -1 with msg. */
static int gp_time(const struct gp_api *g, const struct gp_args *a, int fd, int type, int64_t batch,
                   bool *repacked, double deadline, double *weights, double *seconds, char *msg,
                   size_t len) {
    *repacked = false;
    size_t *pick = malloc(GGML_PROBE_NODES * sizeof *pick);
    int64_t *rows = malloc(GGML_PROBE_NODES * sizeof *rows);
    if (!pick || !rows) {
        free(pick);
        free(rows);
        snprintf(msg, len, "out of memory");
        return -1;
    }
    size_t np = gp_sample(g, a, type, batch, pick, rows);
    double mem = 64 << 20;
    int64_t cols_max = 0;
    for (size_t j = 0; j < np; j++) {
        const struct gp_mat *m = &a->mat[pick[j]];
        mem += (double)g->row_size(type, m->cols) * (double)rows[j] +
               (double)rows[j] * (double)batch * 4 + 4096;
        cols_max = m->cols > cols_max ? m->cols : cols_max;
    }
    mem += (double)cols_max * (double)batch * 4 * 4 + (double)(np + 8) * 4096;
    struct gp_init_params ip = {(size_t)mem, NULL, false};
    void *ctx = np ? g->init(ip) : NULL;
    if (!ctx) {
        free(pick);
        free(rows);
        if (!np)
            return 0;
        snprintf(msg, len, "ggml_init of %.0f bytes failed", mem);
        return -1;
    }
    void *gf = g->new_graph_custom(ctx, GGML_PROBE_NODES, false);
    /* weights llama.cpp repacks: made in a context of their own, put in
     * the repack buffer once all are made, then given the file's bytes */
    bool *repack = calloc(np ? np : 1, sizeof *repack);
    size_t nrepack = repack ? gp_repack_marks(g, a, type, pick, rows, np, repack) : 0;
    /* (nrepack > 0 only where the repack functions were all found) */
    struct gp_init_params rp = {nrepack ? g->tensor_overhead() * (nrepack + 4) + 4096 : 0, NULL,
                                true};
    void *ctx_r = nrepack ? g->init(rp) : NULL, *buf_r = NULL;
    void **pend = nrepack ? calloc(np, sizeof *pend) : NULL;
    if (nrepack && (!ctx_r || !pend)) {
        for (size_t j = 0; j < np; j++)
            repack[j] = false;
        nrepack = 0;
    }
    /* one x per distinct dot length, shared by the products as a layer's
     * input is */
    struct {
        int64_t cols;
        void *x;
    } xs[16];
    size_t nx = 0;
    double w = 0;
    int rc = 0;
    for (size_t j = 0; j < np && rc == 0; j++) {
        const struct gp_mat *m = &a->mat[pick[j]];
        size_t k = 0;
        while (k < nx && xs[k].cols != m->cols)
            k++;
        if (k == nx && nx == 16)
            k = 0, xs[0].cols = m->cols, xs[0].x = NULL;
        if (k == nx || !xs[k].x) {
            xs[k].cols = m->cols;
            xs[k].x = g->new_tensor_2d(ctx, 0 /* F32 */, m->cols, batch);
            float *xd = g->get_data(xs[k].x);
            for (int64_t i = 0; i < m->cols * batch; i++)
                xd[i] = (float)((double)((unsigned)i * 40503u % 2001) / 1000.0 - 1.0);
            nx += k == nx;
        }
        void *wt;
        if (repack && repack[j]) {
            wt = pend[j] = g->new_tensor_2d(ctx_r, type, m->cols, rows[j]);
        } else {
            wt = g->new_tensor_2d(ctx, type, m->cols, rows[j]);
            rc = gp_read(g, fd, g->get_data(wt), m, rows[j], msg, len);
        }
        g->build_forward_expand(gf, g->mul_mat(ctx, wt, xs[k].x));
        w += (double)rows[j] * (double)m->cols;
    }
    if (nrepack && rc == 0) {
        buf_r = g->alloc_ctx_tensors_from_buft(ctx_r, g->repack_buft);
        size_t most = 0;
        for (size_t j = 0; j < np; j++) {
            size_t b = g->row_size(type, a->mat[pick[j]].cols) * (size_t)rows[j];
            most = repack[j] && b > most ? b : most;
        }
        char *tmp = buf_r ? malloc(most) : NULL;
        if (!tmp) {
            snprintf(msg, len, "the repack buffer of %zu matrices could not be made", np);
            rc = -1;
        }
        for (size_t j = 0; j < np && rc == 0; j++) {
            const struct gp_mat *m = &a->mat[pick[j]];
            if (!repack[j])
                continue;
            rc = gp_read(g, fd, tmp, m, rows[j], msg, len);
            if (rc == 0)
                g->tensor_set(pend[j], tmp, 0, g->row_size(type, m->cols) * (size_t)rows[j]);
        }
        free(tmp);
    }
    free(pend);
    free(repack);
    free(pick);
    free(rows);
    double best = 1e30;
    for (int rep = 0; rep < 12 && rc == 0; rep++) {
        double t0 = gp_now();
        if (g->graph_compute_with_ctx(ctx, gf, a->threads) != 0) {
            snprintf(msg, len, "ggml_graph_compute failed on type %d", type);
            rc = -1;
            break;
        }
        double t = gp_now() - t0;
        if (rep > 0 && t < best)
            best = t;
        if (rep >= 2 && gp_now() > deadline)
            break;
    }
    g->free_ctx(ctx);
    if (buf_r)
        g->buffer_free(buf_r);
    if (ctx_r)
        g->free_ctx(ctx_r);
    *weights = w;
    *seconds = best;
    *repacked = nrepack > 0;
    return rc;
}

int main(int argc, char **argv) {
    char msg[1024];
    struct gp_args a = {
        .threads = 1, .batch = {1, 512}, .n_batch = 2, .budget = 8, .msg = msg, .len = sizeof msg};
    atexit(gp_free);
    int rc = argv_scan(&gp_spec, argc, argv, gp_visit, &a, msg, sizeof msg);
    if (rc == 2) {
        printf("usage: vramlab-ggml --lib DIR --file GGUF --mat TYPE:ROWS:COLS:OFFSET[:1][,...]\n"
               "                    [--threads N] [--batches 1,512] [--budget SECONDS]\n"
               "Times llama.cpp's CPU MUL_MAT (ggml in DIR) over the file's matrices given; "
               "JSON Lines.\n");
        return 0;
    }
    if (rc != 0)
        return gp_fail("usage", msg) + 1;
    if (!a.lib || !a.file || a.n_mat == 0)
        return gp_fail("usage", "--lib DIR, --file GGUF and --mat are needed (see --help)") + 1;
    for (size_t i = 0; i < a.n_mat; i++)
        if (a.mat[i].type > 63)
            return gp_fail("usage", "--mat: a type is a ggml type number below 64") + 1;
    int fd = open(a.file, O_RDONLY);
    if (fd < 0) {
        snprintf(msg, sizeof msg, "%.900s: %s", a.file, strerror(errno));
        return gp_fail("file", msg);
    }
    struct gp_api g;
    if (gp_load(a.lib, &g, msg, sizeof msg) != 0)
        return gp_fail("load", msg);
    for (size_t i = 0; i < a.n_mat; i++) {
        int64_t bs = g.blck_size(a.mat[i].type);
        if (bs < 1 || a.mat[i].cols % bs != 0) {
            snprintf(msg, sizeof msg, "--mat: type %d needs rows of a multiple of %lld elements",
                     a.mat[i].type, (long long)bs);
            return gp_fail("usage", msg) + 1;
        }
    }
    if (g.cpu_init)
        g.cpu_init();
    printf("{\"event\":\"device\",\"backend\":\"ggml\",\"lib\":");
    gp_json_str(a.lib);
    printf(",\"threads\":%d}\n", a.threads);
    fflush(stdout);
    /* the types, in the order given */
    int types[64]; /* type numbers are below 64 (checked above) */
    size_t ntypes = 0;
    for (size_t i = 0; i < a.n_mat; i++) {
        size_t j = 0;
        while (j < ntypes && types[j] != a.mat[i].type)
            j++;
        if (j == ntypes)
            types[ntypes++] = a.mat[i].type;
    }
    double start = gp_now(), slots = (double)(ntypes * a.n_batch);
    size_t slot = 0;
    for (size_t t = 0; t < ntypes; t++)
        for (size_t b = 0; b < a.n_batch; b++, slot++) {
            double deadline = start + a.budget * (double)(slot + 1) / slots, w = 0, s = 0;
            bool repacked = false;
            if (gp_time(&g, &a, fd, types[t], a.batch[b], &repacked, deadline, &w, &s, msg,
                        sizeof msg) != 0)
                return gp_fail("compute", msg);
            printf("{\"event\":\"result\",\"test\":\"ggml-mul-mat\",\"type\":%d,\"batch\":%lld,"
                   "\"weights\":%.0f,\"seconds\":%.9g,\"weights_per_s\":%.9g,\"repacked\":%s}\n",
                   types[t], (long long)a.batch[b], w, s, s > 0 ? w / s : 0,
                   repacked ? "true" : "false");
            fflush(stdout);
        }
    return 0;
}
