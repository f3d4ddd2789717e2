/*
 * cpu_device.c: this machine's CPU as a device (see cpu_device.h).
 */
#include "config.h"

#include "tui/cpu_device.h"

#include <errno.h>
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

int cpu_device_path(char *buf, size_t len, bool create, char *err, size_t errlen) {
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
    if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n + sizeof("/" CPU_DEVICE_FILE) > len) {
        snprintf(err, errlen, "%s", _("the state directory's path is too long"));
        return -1;
    }
    if (create && cpu_mkdirs(dir) != 0) {
        snprintf(err, errlen, _("%s: cannot create: %s"), dir, strerror(errno));
        return -1;
    }
    snprintf(buf, len, "%s/%s", dir, CPU_DEVICE_FILE);
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
    if (cpu_device_path(path, sizeof(path), false, err, errlen) != 0)
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
    char path[2300], tmp[2400];
    if (cpu_device_path(path, sizeof(path), true, err, errlen) != 0)
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

/* One quick run of the probe with a test list: its device and result
 * lines into the arrays. Returns 0, 1 when the probe refused the list
 * (an older probe), -1 with err. */
static int cpu_quick_run(const char *tests, json_t *dev, json_t *results, double deadline,
                         bool tty, char *err, size_t errlen) {
    static struct probe_event ev;
    struct probe_client pc;
    char path[1024];
    /* batch 1 for the decode, 16 for the prefill's rate (weights reused) */
    const char *args[] = {"--device", "cpu", "--quick", "--batches", "1,16", "--tests", tests,
                          NULL};
    unsigned n_tests = 1, done = 0;
    for (const char *p = tests; *p; p++)
        n_tests += *p == ',';
    if (probe_client_find(path, sizeof(path), err, errlen) != 0 ||
        probe_client_start(&pc, path, args, err, errlen) != 0)
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
                    fprintf(stderr, _("measuring this CPU for --device cpu (at most %d s): %s, %u "
                                      "results"),
                            CPU_DEVICE_QUICK_S, test, done);
                    fflush(stderr);
                }
            }
        }
    }
    int status = probe_client_finish(&pc);
    if (tty)
        fputs("\r\033[K", stderr);
    (void)n_tests;
    if (refused)
        return 1;
    if (status != 0 && json_array_size(results) == 0) {
        if (!err[0])
            snprintf(err, errlen, _("the probe exited with status %d"), status);
        return -1;
    }
    return 0;
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
    char name[sizeof(d->name) + sizeof(d->isa) + 32];
    if (d->cores)
        snprintf(name, sizeof(name), "CPU: %.30s, %u cores, %s", d->name, d->cores,
                 d->isa[0] ? d->isa : "?");
    else
        snprintf(name, sizeof(name), "CPU: %.40s, %s", d->name, d->isa[0] ? d->isa : "?");
    snprintf(g->name, sizeof(g->name), "%.*s", (int)sizeof(g->name) - 1, name);
    snprintf(g->vendor, sizeof(g->vendor), "cpu");
    g->source = "vramlab measure --device cpu (this machine: the probe's read, fma-peak and "
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
