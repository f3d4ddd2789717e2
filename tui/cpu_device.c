/*
 * cpu_device.c: this machine's CPU as a device (see cpu_device.h).
 */
#include "config.h"

#include "tui/cpu_device.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "catalog/gguf.h"
#include "catalog/modelfile.h"
#include "tui/i18n.h"
#include "tui/probe_client.h"

/* The probe's GEMV tests and the width class each measures; a8: x in 8
 * bits (what llama.cpp's quantized products run). */
static const struct {
    const char *test;
    int width;
    bool a8;
} cpu_kernels[] = {
    {"gemv-fp16", ENGINE_WIDTH_16, false}, {"w8a16", ENGINE_WIDTH_8, false},
    {"w4a16", ENGINE_WIDTH_4, false},      {"w8a8", ENGINE_WIDTH_8, true},
    {"w4a8", ENGINE_WIDTH_4, true},
};
#define CPU_N_KERNELS (sizeof(cpu_kernels) / sizeof(cpu_kernels[0]))

/* The tests the quick measurement runs (the A8 ones dropped for a probe
 * that does not know them). */
#define CPU_QUICK_TESTS    "read,fma-peak,gemv-fp16,w8a16,w4a16,w8a8,w4a8"
#define CPU_QUICK_TESTS_A16 "read,fma-peak,gemv-fp16,w8a16,w4a16"

/* mkdir -p (0700 for the parts made). */
static int cpu_mkdirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int bad = mkdir(path, 0700) != 0 && errno != EEXIST;
        *p = '/';
        if (bad)
            return -1;
    }
    return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

int cpu_device_path(const char *file, char *buf, size_t len, bool create, char *err,
                    size_t errlen) {
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char dir[2048];
    int n;
    /* the XDG spec: a relative XDG_STATE_HOME is ignored */
    if (xdg && xdg[0] == '/') {
        n = snprintf(dir, sizeof(dir), "%s/vramlab", xdg);
    } else {
        if (!home || home[0] != '/') {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home || home[0] != '/') {
            snprintf(err, errlen, "%s", _("no state directory: set XDG_STATE_HOME or HOME"));
            return -1;
        }
        n = snprintf(dir, sizeof(dir), "%s/.local/state/vramlab", home);
    }
    if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n + strlen(file) + 2 > len) {
        snprintf(err, errlen, "%s", _("the state directory's path is too long"));
        return -1;
    }
    if (create && cpu_mkdirs(dir) != 0) {
        snprintf(err, errlen, _("%s: cannot create: %s"), dir, strerror(errno));
        return -1;
    }
    snprintf(buf, len, "%s/%s", dir, file);
    return 0;
}

/* A number member, or 0. */
static double cpu_num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* Weights per second of a GEMV result: the probe's own figure, else its
 * bytes rate times the weights a byte holds (W of rows x cols in `bytes`,
 * x and y included), else 8 / (bits + an FP16 scale per 32). */
static double cpu_weights_per_s(const json_t *r) {
    double w = cpu_num(r, "weights_per_s");
    if (w > 0)
        return w;
    double bps = cpu_num(r, "bytes_per_s"), rows = cpu_num(r, "rows"), cols = cpu_num(r, "cols");
    double bytes = cpu_num(r, "bytes"), bits = cpu_num(r, "bits");
    if (bps > 0 && rows > 0 && cols > 0 && bytes > 0)
        return bps * rows * cols / bytes;
    if (bps > 0)
        return bps * 8.0 / (bits > 0 ? bits + 0.5 : 16.0);
    return 0;
}

/* Put (batch, rate) into class k's list, kept in increasing batch order. */
static void cpu_add_rate(struct engine_core_rates *c, int k, uint32_t batch, double rate) {
    int n = 0;
    while (n < ENGINE_CORE_BATCHES && c->batch[k][n] > 0) {
        if (c->batch[k][n] == batch) { /* a repeat: the faster */
            if (rate > c->weights_per_s[k][n])
                c->weights_per_s[k][n] = rate;
            return;
        }
        n++;
    }
    if (n == ENGINE_CORE_BATCHES)
        return;
    int i = n;
    while (i > 0 && c->batch[k][i - 1] > batch) {
        c->batch[k][i] = c->batch[k][i - 1];
        c->weights_per_s[k][i] = c->weights_per_s[k][i - 1];
        i--;
    }
    c->batch[k][i] = batch;
    c->weights_per_s[k][i] = rate;
}

int cpu_device_parse(struct cpu_device *d, const char *text, size_t len, bool a8, char *err,
                     size_t errlen) {
    json_error_t e;
    memset(d, 0, sizeof(*d));
    json_t *root = json_loadb(text, len, 0, &e);
    if (!json_is_object(root)) {
        snprintf(err, errlen, _("line %d: %s"), e.line, root ? _("expected an object") : e.text);
        json_decref(root);
        return -1;
    }
    const json_t *dev = json_object_get(root, "device"), *res = json_object_get(root, "results");
    const char *backend = json_string_value(json_object_get(dev, "backend"));
    if (!json_is_object(dev) || !backend || strcmp(backend, "cpu") != 0 || !json_is_array(res)) {
        snprintf(err, errlen, "%s", _("not a measurement of a CPU (device.backend \"cpu\", results[])"));
        json_decref(root);
        return -1;
    }
    const char *name = json_string_value(json_object_get(dev, "name"));
    const char *isa = json_string_value(json_object_get(dev, "isa"));
    snprintf(d->name, sizeof(d->name), "%s", name ? name : "CPU");
    snprintf(d->isa, sizeof(d->isa), "%s", isa ? isa : "");
    catalog_text_clean_str(d->name);
    catalog_text_clean_str(d->isa);
    d->cores = (unsigned)cpu_num(dev, "compute_units");
    /* the rates with all threads: the most threads any result used */
    size_t i;
    const json_t *r;
    json_array_foreach(res, i, r) {
        if (cpu_num(r, "threads") > d->threads)
            d->threads = (unsigned)cpu_num(r, "threads");
    }
    bool have_a8[ENGINE_WIDTHS] = {false};
    json_array_foreach(res, i, r) {
        const char *t = json_string_value(json_object_get(r, "test"));
        if (!t || cpu_num(r, "threads") != d->threads)
            continue;
        if (json_is_false(json_object_get(r, "verified")))
            continue; /* a wrong answer is no rate */
        for (size_t k = 0; k < CPU_N_KERNELS; k++)
            if (strcmp(t, cpu_kernels[k].test) == 0 && cpu_kernels[k].a8 && a8 &&
                cpu_weights_per_s(r) > 0)
                have_a8[cpu_kernels[k].width] = true;
    }
    json_array_foreach(res, i, r) {
        const char *t = json_string_value(json_object_get(r, "test"));
        if (!t || cpu_num(r, "threads") != d->threads ||
            json_is_false(json_object_get(r, "verified")))
            continue;
        if (strcmp(t, "read") == 0 && cpu_num(r, "bytes_per_s") > d->read_bytes_per_s)
            d->read_bytes_per_s = cpu_num(r, "bytes_per_s");
        else if (strcmp(t, "copy") == 0 && cpu_num(r, "bytes_per_s") > d->copy_bytes_per_s)
            d->copy_bytes_per_s = cpu_num(r, "bytes_per_s");
        else if (strcmp(t, "fma-peak") == 0 && cpu_num(r, "flop_per_s") > d->fma_flop_per_s)
            d->fma_flop_per_s = cpu_num(r, "flop_per_s");
        for (size_t k = 0; k < CPU_N_KERNELS; k++) {
            int w = cpu_kernels[k].width;
            double rate = cpu_weights_per_s(r);
            /* A8 where the runtime runs it and it was measured, else A16 */
            if (strcmp(t, cpu_kernels[k].test) != 0 || cpu_kernels[k].a8 != have_a8[w] ||
                !(rate > 0))
                continue;
            uint32_t b = cpu_num(r, "batch") > 0 ? (uint32_t)cpu_num(r, "batch") : 1;
            cpu_add_rate(&d->core, w, b, rate);
            snprintf(d->core.kernel[w], sizeof(d->core.kernel[w]), "%s", t);
        }
    }
    d->core.threads = d->threads;
    json_decref(root);
    if (!(d->read_bytes_per_s > 0 || d->copy_bytes_per_s > 0) || !(d->fma_flop_per_s > 0)) {
        snprintf(err, errlen, "%s",
                 _("the measurement lacks the read bandwidth or the FMA peak (run vramlab "
                   "measure --device cpu)"));
        return -1;
    }
    if (d->read_bytes_per_s <= 0)
        d->read_bytes_per_s = d->copy_bytes_per_s;
    return 0;
}

/* Read a whole (small) file. */
static char *cpu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 4096 > cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!nb || cap > (16u << 20)) {
                free(nb ? nb : buf);
                fclose(f);
                errno = EFBIG;
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

int cpu_device_load(struct cpu_device *d, bool a8, char *err, size_t errlen) {
    char path[2300], why[300];
    size_t len = 0;
    struct stat st;
    if (cpu_device_path(CPU_DEVICE_FILE, path, sizeof(path), false, err, errlen) != 0)
        return -1;
    char *text = cpu_read_file(path, &len);
    if (!text) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = cpu_device_parse(d, text, len, a8, why, sizeof(why));
    free(text);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    if (stat(path, &st) == 0) {
        struct tm tm;
        char when[24];
        localtime_r(&st.st_mtime, &tm);
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
        snprintf(d->when, sizeof(d->when), "saved %s", when);
    }
    return 0;
}

int cpu_device_save(const char *text, size_t len, char *err, size_t errlen) {
    return cpu_device_save_as(CPU_DEVICE_FILE, text, len, err, errlen);
}

int cpu_device_save_as(const char *file, const char *text, size_t len, char *err,
                       size_t errlen) {
    char path[2300], tmp[2400];
    if (cpu_device_path(file, path, sizeof(path), true, err, errlen) != 0)
        return -1;
    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    int bad = !f || fwrite(text, 1, len, f) != len;
    bad |= f ? fclose(f) != 0 : close(fd) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Seconds on the monotonic clock. */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One quick run of a probe program (vramlab-probe, vramlab-ggml) with its
 * arguments: its device and result lines into the arrays, a progress line
 * (what: "this CPU", "llama.cpp's kernels") on a terminal. Returns 0, 1
 * when the program refused the arguments (an older probe), -1 with err. */
static int cpu_probe_run(const char *path, const char *const *args, const char *what,
                         json_t *dev, json_t *results, double deadline, bool tty, char *err,
                         size_t errlen) {
    static struct probe_event ev;
    struct probe_client pc;
    unsigned done = 0;
    if (probe_client_start(&pc, path, args, err, errlen) != 0)
        return -1;
    int refused = 0;
    while (!pc.eof) {
        double left = deadline - cpu_now();
        if (left <= 0) {
            probe_client_cancel(&pc, 200);
            if (tty)
                fputs("\r\033[K", stderr);
            return json_array_size(results) > 0 ? 0 : -1;
        }
        struct pollfd pf = {probe_client_fd(&pc), POLLIN, 0};
        poll(&pf, 1, (int)(left * 1000) + 1);
        probe_client_read(&pc);
        while (probe_client_next(&pc, &ev) > 0) {
            const char *test = probe_json_str(&ev.j, "test");
            if (ev.kind == PROBE_EV_ERROR) {
                const char *code = probe_json_str(&ev.j, "code");
                if (code && strcmp(code, "usage") == 0)
                    refused = 1;
                else
                    snprintf(err, errlen, _("the probe: %s"),
                             probe_json_str(&ev.j, "message") ? probe_json_str(&ev.j, "message")
                                                              : "an error");
                continue;
            }
            if (ev.kind == PROBE_EV_DEVICE || ev.kind == PROBE_EV_RESULT) {
                json_t *o = json_object();
                for (size_t k = 0; k < ev.j.n; k++) {
                    const struct probe_json_field *f = &ev.j.f[k];
                    json_t *v = f->type == PROBE_JSON_STR    ? json_string(f->str)
                                : f->type == PROBE_JSON_NUM  ? json_real(f->num)
                                : f->type == PROBE_JSON_BOOL ? json_boolean(f->b)
                                                             : NULL;
                    if (v)
                        json_object_set_new(o, f->key, v);
                }
                if (ev.kind == PROBE_EV_DEVICE)
                    json_object_update(dev, o);
                else
                    json_array_append(results, o);
                json_decref(o);
            }
            if (ev.kind == PROBE_EV_RESULT && test) {
                done++;
                if (tty) {
                    fputs("\r\033[K", stderr);
                    fprintf(stderr, _("measuring %s for --device cpu (at most %d s): %s, %u "
                                      "results"),
                            what, CPU_DEVICE_QUICK_S, test, done);
                    fflush(stderr);
                }
            }
        }
    }
    int status = probe_client_finish(&pc);
    if (tty)
        fputs("\r\033[K", stderr);
    if (refused)
        return 1;
    if (status != 0 && json_array_size(results) == 0) {
        if (!err[0])
            snprintf(err, errlen, _("the probe exited with status %d"), status);
        return -1;
    }
    return 0;
}

/* The quick run of vramlab-probe with a test list. */
static int cpu_quick_run(const char *tests, json_t *dev, json_t *results, double deadline,
                         bool tty, char *err, size_t errlen) {
    char path[1024];
    /* batch 1 for the decode, 16 for the prefill's rate (weights reused) */
    const char *args[] = {"--device", "cpu", "--quick", "--batches", "1,16", "--tests", tests,
                          NULL};
    if (probe_client_find(path, sizeof(path), err, errlen) != 0)
        return -1;
    return cpu_probe_run(path, args, _("this CPU"), dev, results, deadline, tty, err, errlen);
}

int cpu_device_measure(struct cpu_device *d, bool a8, char *err, size_t errlen) {
    bool tty = isatty(STDERR_FILENO);
    double deadline = cpu_now() + CPU_DEVICE_QUICK_S;
    json_t *root = json_object(), *dev = json_object(), *results = json_array();
    err[0] = '\0';
    if (tty) {
        fprintf(stderr, _("measuring this CPU for --device cpu (at most %d s)"), CPU_DEVICE_QUICK_S);
        fflush(stderr);
    } else {
        fprintf(stderr,
                _("vramlab: --device cpu: no saved measurement; measuring this CPU (at most %d s; "
                  "vramlab measure --device cpu saves a fuller one)\n"),
                CPU_DEVICE_QUICK_S);
    }
    int rc = cpu_quick_run(CPU_QUICK_TESTS, dev, results, deadline, tty, err, errlen);
    if (rc == 1) { /* a probe without the A8 kernels */
        json_array_clear(results);
        rc = cpu_quick_run(CPU_QUICK_TESTS_A16, dev, results, deadline, tty, err, errlen);
    }
    if (rc != 0) {
        json_decref(root);
        json_decref(dev);
        json_decref(results);
        if (!err[0])
            snprintf(err, errlen, "%s", _("the quick measurement did not finish"));
        return -1;
    }
    json_object_del(dev, "event");
    json_object_set_new(root, "device", dev);
    json_object_set_new(root, "results", results);
    json_object_set_new(root, "complete", json_true());
    char *text = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char why[300];
    rc = cpu_device_parse(d, text, strlen(text), a8, err, errlen);
    if (rc == 0 && cpu_device_save(text, strlen(text), why, sizeof(why)) != 0)
        fprintf(stderr, _("vramlab: --device cpu: not saved: %s\n"), why);
    free(text);
    if (rc == 0)
        snprintf(d->when, sizeof(d->when), "measured now");
    return rc;
}

int cpu_device_get(struct cpu_device *d, bool a8, char *err, size_t errlen) {
    int rc = cpu_device_load(d, a8, err, errlen);
    if (rc <= 0)
        return rc;
    return cpu_device_measure(d, a8, err, errlen);
}

/* Read once per run: the same device (a scenario saved and loaded again,
 * the explorer's estimates) has the same capacity throughout the run. */
double cpu_device_available_memory(void) {
    static double once;
    if (once > 0)
        return once;
    FILE *f = fopen("/proc/meminfo", "r");
    char line[160];
    double kb = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    once = kb > 0 ? kb * 1024.0
                  : (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    return once;
}

void cpu_device_gpu(const struct cpu_device *d, struct engine_gpu *g) {
    memset(g, 0, sizeof(*g));
    snprintf(g->id, sizeof(g->id), "cpu");
    char name[sizeof(d->name) + sizeof(d->isa) + 48];
    /* the machine's cores; the threads the rates were measured with when fewer */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cores = online > (long)d->cores ? (unsigned)online : d->cores;
    if (cores && d->threads && d->threads < cores)
        snprintf(name, sizeof(name), "CPU: %.24s, %u cores (%u measured), %s", d->name, cores,
                 d->threads, d->isa[0] ? d->isa : "?");
    else if (cores)
        snprintf(name, sizeof(name), "CPU: %.30s, %u cores, %s", d->name, cores,
                 d->isa[0] ? d->isa : "?");
    else
        snprintf(name, sizeof(name), "CPU: %.40s, %s", d->name, d->isa[0] ? d->isa : "?");
    snprintf(g->name, sizeof(g->name), "%.*s", (int)sizeof(g->name) - 1, name);
    snprintf(g->vendor, sizeof(g->vendor), "cpu");
    g->source = d->rates_from[0]
                    ? d->rates_from
                    : "vramlab measure --device cpu (this machine: the probe's read, fma-peak and "
                      "GEMVs, all threads); memory: MemAvailable";
    g->memory_bytes = cpu_device_available_memory();
    g->bandwidth_bytes_per_s = d->read_bytes_per_s;
    for (int c = 0; c < ENGINE_COMPUTE_COUNT; c++)
        g->flops[c] = d->fma_flop_per_s;
    g->gpus_per_node = 1;
    g->unified_memory = true;
    g->cpu = true;
    g->core = d->core;
}

/* ---- llama.cpp's own kernels (vramlab-ggml) -------------------------------- */

/* Whether dir holds a ggml build's CPU libraries. */
static bool cpu_ggml_ok(const char *dir) {
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/libggml-cpu.so", dir);
    snprintf(b, sizeof b, "%s/libggml-base.so", dir);
    return access(a, R_OK) == 0 && access(b, R_OK) == 0;
}

/* The directory of a program on PATH (its link followed), or false. */
static bool cpu_path_dir(const char *prog, char *out, size_t len) {
    const char *path = getenv("PATH");
    char cand[4200], real[PATH_MAX];
    for (const char *p = path ? path : ""; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, prog);
        if (n && access(cand, X_OK) == 0 && realpath(cand, real)) {
            char *slash = strrchr(real, '/');
            if (slash)
                *slash = '\0';
            snprintf(out, len, "%s", real);
            return true;
        }
        p += n + (e ? 1 : 0);
    }
    return false;
}

int cpu_device_ggml_dir(char *dir, size_t len) {
    const char *env = getenv("VRAMLAB_GGML_DIR");
    if (env && *env) {
        snprintf(dir, len, "%s", env);
        return cpu_ggml_ok(dir) ? 0 : -1;
    }
    /* scripts/llama-server's build in the cache (any version) */
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char pat[2300];
    glob_t gl;
    if (xdg && xdg[0] == '/')
        snprintf(pat, sizeof pat, "%s/vramlab/llama.cpp-*/lib", xdg);
    else
        snprintf(pat, sizeof pat, "%s/.cache/vramlab/llama.cpp-*/lib", home ? home : "");
    if (glob(pat, 0, NULL, &gl) == 0) {
        for (size_t i = gl.gl_pathc; i-- > 0;) /* the newest version last in the sort */
            if (cpu_ggml_ok(gl.gl_pathv[i])) {
                snprintf(dir, len, "%s", gl.gl_pathv[i]);
                globfree(&gl);
                return 0;
            }
        globfree(&gl);
    }
    /* an installed llama.cpp: its programs' directory, or ../lib beside it */
    static const char *const progs[] = {"llama-server", "llama-cli", "llama-bench"};
    char bin[PATH_MAX], cand[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        if (!cpu_path_dir(progs[i], bin, sizeof bin))
            continue;
        static const char *const rel[] = {"", "/../lib", "/../lib64"};
        for (size_t k = 0; k < 3; k++) {
            snprintf(cand, sizeof cand, "%s%s", bin, rel[k]);
            if (cpu_ggml_ok(cand)) {
                snprintf(dir, len, "%s", cand);
                return 0;
            }
        }
    }
    if (cpu_ggml_ok("/usr/local/lib")) {
        snprintf(dir, len, "/usr/local/lib");
        return 0;
    }
    return 1;
}

/* The file's matrices as vramlab-ggml's --mat list, each with the byte its
 * data begins at (a routed expert tensor: the experts a token uses, its
 * first ones) and ":1" on the head; the same rule as mf->mats
 * (catalog_gguf_matrix). A string
 * to free, or NULL with why. */
static char *cpu_ggml_mats(const struct catalog_model_file *mf, const struct engine_model *m,
                           char *why, size_t whylen) {
    struct gguf_file g;
    if (gguf_open(mf->path, &g, why, whylen) != 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t i = 0; buf && i < g.n_tensors; i++) {
        const struct gguf_tensor *t = &g.tensors[i];
        uint64_t experts, used;
        bool head;
        if (!catalog_gguf_matrix(t, m->tied, m->active_experts, &experts, &used, &head))
            continue;
        uint64_t slice = t->bytes / experts;
        for (uint64_t e = 0; e < used && buf; e++) {
            if (cap - n < 96) {
                char *nb = realloc(buf, cap * 2);
                if (!nb) {
                    free(buf);
                    buf = NULL;
                    break;
                }
                buf = nb, cap *= 2;
            }
            n += (size_t)snprintf(buf + n, cap - n, "%s%u:%llu:%llu:%llu%s", n ? "," : "",
                                  t->type, (unsigned long long)t->dims[1],
                                  (unsigned long long)t->dims[0],
                                  (unsigned long long)(g.data_start + t->offset + e * slice),
                                  head ? ":1" : "");
        }
    }
    gguf_close(&g);
    if (!buf)
        snprintf(why, whylen, "out of memory");
    return buf;
}

/* FNV-1a of a text, for the saved measurement's name. */
static unsigned long long cpu_fnv(const char *s) {
    unsigned long long h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The rate of a type at a batch among vramlab-ggml's results, or 0. */
static double cpu_ggml_rate(const json_t *results, unsigned type, unsigned batch) {
    size_t i;
    const json_t *r;
    json_array_foreach(results, i, r) {
        if ((unsigned)cpu_num(r, "type") == type && (unsigned)cpu_num(r, "batch") == batch)
            return cpu_num(r, "weights_per_s");
    }
    return 0;
}

/* Each width class's rate from the types' results: the seconds of the
 * file's matrices of the class over its weights, at each batch. */
static int cpu_ggml_core(const struct catalog_model_file *mf, const json_t *results,
                         unsigned threads, struct engine_core_rates *core) {
    static const unsigned batch[ENGINE_CORE_BATCHES] = CPU_DEVICE_GGML_BATCHES;
    double w[ENGINE_WIDTHS] = {0}, secs[ENGINE_WIDTHS][ENGINE_CORE_BATCHES] = {{0}},
           top[ENGINE_WIDTHS] = {0}, by_type[GGUF_TYPE_COUNT] = {0};
    unsigned dominant[ENGINE_WIDTHS] = {0};
    for (size_t i = 0; i < mf->n_mats; i++)
        if (mf->mats[i].type < GGUF_TYPE_COUNT)
            by_type[mf->mats[i].type] +=
                (double)mf->mats[i].rows * (double)mf->mats[i].cols * (double)mf->mats[i].count;
    for (size_t i = 0; i < mf->n_mats; i++) {
        const struct catalog_mf_matrix *m = &mf->mats[i];
        const struct gguf_type_info *ti = gguf_type_info(m->type);
        if (!ti || !ti->block)
            return -1;
        int k = engine_width_class(8.0 * ti->bytes / ti->block);
        double wi = (double)m->rows * (double)m->cols * (double)m->count;
        for (int b = 0; b < ENGINE_CORE_BATCHES; b++) {
            double r = cpu_ggml_rate(results, m->type, batch[b]);
            if (!(r > 0))
                return -1;
            secs[k][b] += wi / r;
        }
        w[k] += wi;
        /* the class's name: its type with the most weights */
        if (by_type[m->type] > top[k])
            top[k] = by_type[m->type], dominant[k] = m->type;
    }
    memset(core, 0, sizeof *core);
    for (int k = 0; k < ENGINE_WIDTHS; k++) {
        if (!(w[k] > 0))
            continue;
        for (int b = 0; b < ENGINE_CORE_BATCHES; b++) {
            core->weights_per_s[k][b] = w[k] / secs[k][b];
            core->batch[k][b] = batch[b];
        }
        snprintf(core->kernel[k], sizeof core->kernel[k], "llama.cpp %s",
                 gguf_type_info(dominant[k])->name);
    }
    core->threads = threads;
    return 0;
}

int cpu_device_runtime(struct cpu_device *d, const struct catalog_model_file *mf,
                       const struct engine_model *model, bool measure, char *why,
                       size_t whylen) {
    char dir[PATH_MAX], key[2 * PATH_MAX + 200], file[64], path[2300], prog[1024];
    why[0] = '\0';
    if (!mf || !mf->format || strcmp(mf->format, "gguf") != 0 || mf->n_mats == 0 ||
        !mf->mats_complete)
        return 1;
    int found = cpu_device_ggml_dir(dir, sizeof dir);
    if (found != 0) {
        if (found < 0)
            snprintf(why, whylen, _("VRAMLAB_GGML_DIR=%s has no libggml-cpu.so and "
                                    "libggml-base.so"),
                     dir);
        else
            snprintf(why, whylen, "%s",
                     _("llama.cpp's ggml libraries were not found (scripts/llama-server builds "
                       "them; or set VRAMLAB_GGML_DIR)"));
        return found < 0 ? -1 : 1;
    }
    unsigned threads = d->threads ? d->threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    char threads_s[16], budget_s[16], batches_s[32];
    snprintf(threads_s, sizeof threads_s, "%u", threads ? threads : 1);
    snprintf(budget_s, sizeof budget_s, "%d", CPU_DEVICE_QUICK_S - 2);
    snprintf(batches_s, sizeof batches_s, "%s", CPU_DEVICE_GGML_BATCHES_TEXT);
    /* the saved measurement is keyed by the library and the model file
     * (each by path, size and time) and the threads */
    struct stat ls, fs;
    snprintf(key, sizeof key, "%s/libggml-cpu.so", dir);
    if (stat(key, &ls) != 0)
        memset(&ls, 0, sizeof ls);
    if (stat(mf->path, &fs) != 0)
        memset(&fs, 0, sizeof fs);
    snprintf(key, sizeof key, "%s|%lld|%lld|%s|%lld|%lld|%s|%s", dir, (long long)ls.st_size,
             (long long)ls.st_mtime, mf->path, (long long)fs.st_size, (long long)fs.st_mtime,
             threads_s, batches_s);
    snprintf(file, sizeof file, "ggml-%016llx.json", cpu_fnv(key));
    json_t *saved = NULL, *results = NULL;
    if (cpu_device_path(file, path, sizeof path, false, why, whylen) == 0) {
        saved = json_load_file(path, 0, NULL);
        const json_t *k = json_object_get(saved, "key");
        if (!json_is_string(k) || strcmp(json_string_value(k), key) != 0) {
            json_decref(saved);
            saved = NULL;
        }
    }
    why[0] = '\0';
    bool measured_now = false;
    if (saved) {
        results = json_incref(json_object_get(saved, "results"));
    } else if (!measure) {
        return 1;
    } else {
        char *mats = cpu_ggml_mats(mf, model, why, whylen);
        if (!mats)
            return -1;
        const char *args[] = {"--lib",     dir,        "--file",    mf->path, "--mat",
                              mats,        "--threads", threads_s,  "--batches", batches_s,
                              "--budget",  budget_s,   NULL};
        json_t *dev = json_object();
        results = json_array();
        bool tty = isatty(STDERR_FILENO);
        if (!tty)
            fprintf(stderr,
                    _("vramlab: --device cpu: timing llama.cpp's kernels on this file's "
                      "matrices (%s, at most %d s)\n"),
                    dir, CPU_DEVICE_QUICK_S);
        int rc = probe_client_find_program("vramlab-ggml", "VRAMLAB_GGML_PROBE", prog,
                                           sizeof prog, why, whylen);
        if (rc == 0)
            rc = cpu_probe_run(prog, args, _("llama.cpp's kernels"), dev, results,
                               cpu_now() + CPU_DEVICE_GGML_LIMIT_S, tty, why, whylen);
        free(mats);
        json_decref(dev);
        if (rc != 0) {
            if (!why[0])
                snprintf(why, whylen, "%s", _("vramlab-ggml refused the file's matrices"));
            json_decref(results);
            return -1;
        }
        measured_now = true;
    }
    json_decref(saved);
    struct engine_core_rates core;
    if (cpu_ggml_core(mf, results, threads, &core) != 0) {
        snprintf(why, whylen, "%s", _("vramlab-ggml did not time every type of the file"));
        json_decref(results);
        return -1;
    }
    if (measured_now) {
        json_t *o = json_pack("{s:s, s:s, s:O}", "key", key, "lib", dir, "results", results);
        char *text = o ? json_dumps(o, JSON_INDENT(2)) : NULL, err[300];
        if (text && cpu_device_save_as(file, text, strlen(text), err, sizeof err) != 0)
            fprintf(stderr, _("vramlab: --device cpu: not saved: %s\n"), err);
        free(text);
        json_decref(o);
    }
    json_decref(results);
    d->core = core;
    d->threads = threads;
    snprintf(d->rates_from, sizeof d->rates_from,
             "llama.cpp's MUL_MAT (%.200s/libggml-cpu.so) timed by vramlab-ggml on the model "
             "file's own matrices, %u threads, batches %s; bandwidth and FMA peak: vramlab "
             "measure --device cpu; memory: MemAvailable",
             dir, threads, CPU_DEVICE_GGML_BATCHES_TEXT);
    return 0;
}
