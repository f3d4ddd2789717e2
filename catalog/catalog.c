/*
 * catalog.c: the in-memory catalog: storage, merge by id, lookups,
 * "did you mean" suggestions, driver-name matching and diagnostics.
 *
 * Ids compare after normalisation (lower case; '-', '_', ' ', '.' dropped),
 * always whole: "h100" never finds "h100-sxm", because a PCIe card's
 * figures must never stand in for an SXM part. Suggestions rank ids by edit
 * distance, with a prefix counted as distance 1 so "h100" still suggests
 * both H100 entries, and so is a query found inside an id ("3060" suggests
 * rtx-3060 before b300, which is fewer edits away).
 */
#include "catalog/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NORM_MAX 128

/* An empty catalog. */
void catalog_init(struct catalog *c) {
    memset(c, 0, sizeof *c);
}

/* Free everything c owns and leave it empty. */
void catalog_free(struct catalog *c) {
    size_t i;

    for (i = 0; i < c->n_strings; i++)
        free(c->strings[i]);
    free(c->strings);
    free(c->gpus);
    free(c->models);
    free(c->formats);
    free(c->evidence);
    free(c->device_names);
    free(c->cpus);
    free(c->cpu_names);
    free(c->systems);
    catalog_init(c);
}

/* Free the text of a diagnostics buffer. */
void catalog_diag_free(struct catalog_diag *d) {
    free(d->text);
    memset(d, 0, sizeof *d);
}

/* Append formatted text to d (d may be NULL: the text is dropped). */
void catalog_diag_append(struct catalog_diag *d, const char *fmt, ...) {
    va_list ap;
    int n;

    if (d == NULL)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (d->len + (size_t)n + 1 > d->cap) {
        size_t cap = d->cap ? d->cap : 256;
        char *p;
        while (cap < d->len + (size_t)n + 1)
            cap *= 2;
        p = realloc(d->text, cap);
        if (p == NULL)
            return; /* the message is lost, the error count still says it */
        d->text = p;
        d->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(d->text + d->len, d->cap - d->len, fmt, ap);
    va_end(ap);
    d->len += (size_t)n;
}

/* Append line (1-based) of text, and a caret under col, indented by four. */
static void diag_quote_line(struct catalog_diag *d, const char *text, size_t len, size_t line,
                            size_t col) {
    const char *p = text, *end = text + len, *eol;
    char pad[128];
    size_t i, n = 0, chars = 0;

    for (i = 1; i < line && p < end; i++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            return;
        p = nl + 1;
    }
    if (p >= end)
        return;
    eol = memchr(p, '\n', (size_t)(end - p));
    if (eol == NULL)
        eol = end;
    if (eol > p && eol[-1] == '\r')
        eol--;
    if (eol - p > 200) {
        eol = p + 200;
        while (eol > p && ((unsigned char)*eol & 0xc0) == 0x80)
            eol--; /* do not cut a UTF-8 character */
    }
    /* The caret counts characters, as libyaml's column does; tabs stay tabs. */
    for (i = 0; p + i < eol && chars + 1 < col && n + 1 < sizeof pad; i++) {
        unsigned char ch = (unsigned char)p[i];
        if ((ch & 0xc0) == 0x80)
            continue;
        pad[n++] = ch == '\t' ? '\t' : ' ';
        chars++;
    }
    pad[n] = '\0';
    /* The line as a terminal may show it: its tabs kept for the caret, any
     * other control byte or bad UTF-8 made '?' (one for one: the caret
     * still points at the same column). */
    char shown[256];
    size_t k = 0;
    for (const char *q = p; q < eol && k + 1 < sizeof shown;) {
        const char *tab = memchr(q, '\t', (size_t)(eol - q));
        size_t run = (size_t)((tab ? tab : eol) - q);
        if (run > sizeof shown - 1 - k)
            run = sizeof shown - 1 - k;
        memcpy(shown + k, q, run);
        k += catalog_text_clean(shown + k, run);
        q += run;
        if (tab && q == tab && k + 1 < sizeof shown) {
            shown[k++] = '\t';
            q++;
        }
    }
    shown[k] = '\0';
    catalog_diag_append(d, "    %s\n    %s^\n", shown, pad);
}

/* Add one error: "name:line:col: key: message", then the source line. */
void catalog_diag_error(struct catalog_diag *d, const char *name, const char *text, size_t len,
                        size_t line, size_t col, const char *key, const char *fmt, ...) {
    char msg[512];
    va_list ap;

    if (d == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    catalog_text_clean_str(msg); /* it may quote the file */
    d->errors++;
    if (key != NULL && key[0] != '\0')
        catalog_diag_append(d, "%s:%zu:%zu: %s: %s\n", name, line, col, key, msg);
    else
        catalog_diag_append(d, "%s:%zu:%zu: %s\n", name, line, col, msg);
    if (text != NULL)
        diag_quote_line(d, text, len, line, col);
}

/* Normalise an id or a device name for comparison into buf. */
void catalog_normalise(const char *in, char *buf, size_t len) {
    size_t n = 0;

    if (len == 0)
        return;
    for (; in != NULL && *in != '\0' && n + 1 < len; in++) {
        unsigned char ch = (unsigned char)*in;
        if (ch == '-' || ch == '_' || ch == ' ' || ch == '.' || ch == '\t')
            continue;
        buf[n++] = ch < 0x80 ? (char)tolower(ch) : (char)ch;
    }
    buf[n] = '\0';
}

/* Whether two ids are the same after normalisation. */
static bool same_id(const char *a, const char *b) {
    char na[NORM_MAX], nb[NORM_MAX];

    catalog_normalise(a, na, sizeof na);
    catalog_normalise(b, nb, sizeof nb);
    return strcmp(na, nb) == 0;
}

/* Grow an array so one more element of size fits; 0, or -1 when out of memory. */
static int grow(void **arr, size_t *cap, size_t n, size_t size) {
    size_t ncap;
    void *p;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 16;
    p = realloc(*arr, ncap * size);
    if (p == NULL)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Keep a copy of s owned by c (freed by catalog_free); NULL when out of memory. */
const char *catalog_strdup(struct catalog *c, const char *s) {
    size_t n = strlen(s) + 1;
    char *p;

    if (grow((void **)&c->strings, &c->cap_strings, c->n_strings, sizeof *c->strings) < 0)
        return NULL;
    p = malloc(n);
    if (p == NULL)
        return NULL;
    memcpy(p, s, n);
    catalog_text_clean_str(p); /* "\e" in a quoted YAML string is an ESC */
    c->strings[c->n_strings++] = p;
    return p;
}

/* Append a GPU to c; 0, or -1 when out of memory. */
int catalog_add_gpu(struct catalog *c, const struct engine_gpu *g) {
    if (grow((void **)&c->gpus, &c->cap_gpus, c->n_gpus, sizeof *g) < 0)
        return -1;
    c->gpus[c->n_gpus++] = *g;
    return 0;
}

/* Append a model to c; 0, or -1 when out of memory. */
int catalog_add_model(struct catalog *c, const struct engine_model *m) {
    if (grow((void **)&c->models, &c->cap_models, c->n_models, sizeof *m) < 0)
        return -1;
    c->models[c->n_models++] = *m;
    return 0;
}

/* Append a format to c; 0, or -1 when out of memory. */
int catalog_add_format(struct catalog *c, const struct engine_format *f) {
    if (grow((void **)&c->formats, &c->cap_formats, c->n_formats, sizeof *f) < 0)
        return -1;
    c->formats[c->n_formats++] = *f;
    return 0;
}

/* Append an evidence table to c; 0, or -1 when out of memory. */
int catalog_add_evidence(struct catalog *c, const struct catalog_evidence *e) {
    if (grow((void **)&c->evidence, &c->cap_evidence, c->n_evidence, sizeof *e) < 0)
        return -1;
    c->evidence[c->n_evidence++] = *e;
    return 0;
}

/* Record a driver name of a GPU; name must already be owned by c. */
int catalog_add_device_name(struct catalog *c, const char *gpu_id, const char *name) {
    struct catalog_device_name *dn;

    if (grow((void **)&c->device_names, &c->cap_device_names, c->n_device_names, sizeof *dn) < 0)
        return -1;
    dn = &c->device_names[c->n_device_names++];
    memset(dn, 0, sizeof *dn); /* every byte defined: the tables copy them */
    snprintf(dn->gpu_id, sizeof dn->gpu_id, "%s", gpu_id);
    dn->name = name;
    return 0;
}

/* Append a CPU to c; 0, or -1 when out of memory. */
int catalog_add_cpu(struct catalog *c, const struct catalog_cpu *cpu) {
    if (grow((void **)&c->cpus, &c->cap_cpus, c->n_cpus, sizeof *cpu) < 0)
        return -1;
    c->cpus[c->n_cpus++] = *cpu;
    return 0;
}

/* Append a system to c; 0, or -1 when out of memory. */
int catalog_add_system(struct catalog *c, const struct catalog_system *sys) {
    if (grow((void **)&c->systems, &c->cap_systems, c->n_systems, sizeof *sys) < 0)
        return -1;
    c->systems[c->n_systems++] = *sys;
    return 0;
}

/* Record a model name a CPU reports; name must already be owned by c. */
int catalog_add_cpu_name(struct catalog *c, const char *cpu_id, const char *name) {
    struct catalog_device_name *dn;

    if (grow((void **)&c->cpu_names, &c->cap_cpu_names, c->n_cpu_names, sizeof *dn) < 0)
        return -1;
    dn = &c->cpu_names[c->n_cpu_names++];
    memset(dn, 0, sizeof *dn); /* every byte defined: the tables copy them */
    snprintf(dn->gpu_id, sizeof dn->gpu_id, "%s", cpu_id);
    dn->name = name;
    return 0;
}

/* Index of the entry with this id in an array of entries whose id is at
 * the start (every entity struct begins with char id[]); -1 when none. */
static long find_index(const void *arr, size_t n, size_t size, const char *id) {
    char want[NORM_MAX], have[NORM_MAX];
    size_t i;

    catalog_normalise(id, want, sizeof want);
    if (want[0] == '\0')
        return -1;
    for (i = 0; i < n; i++) {
        catalog_normalise((const char *)arr + i * size, have, sizeof have);
        if (strcmp(want, have) == 0)
            return (long)i;
    }
    return -1;
}

/* Drop the names recorded for id from a list of device names. */
static void drop_names(struct catalog_device_name *names, size_t *n, const char *id) {
    size_t i, k = 0;

    for (i = 0; i < *n; i++) {
        if (!same_id(names[i].gpu_id, id))
            names[k++] = names[i];
    }
    *n = k;
}

/* Reserve room for n more of each array of c, so a merge cannot fail halfway. */
static int reserve_for(struct catalog *c, const struct catalog *from) {
    struct {
        void **arr;
        size_t *cap, n, more, size;
    } r[] = {
        {(void **)&c->gpus, &c->cap_gpus, c->n_gpus, from->n_gpus, sizeof *c->gpus},
        {(void **)&c->models, &c->cap_models, c->n_models, from->n_models, sizeof *c->models},
        {(void **)&c->formats, &c->cap_formats, c->n_formats, from->n_formats, sizeof *c->formats},
        {(void **)&c->evidence, &c->cap_evidence, c->n_evidence, from->n_evidence,
         sizeof *c->evidence},
        {(void **)&c->device_names, &c->cap_device_names, c->n_device_names, from->n_device_names,
         sizeof *c->device_names},
        {(void **)&c->cpus, &c->cap_cpus, c->n_cpus, from->n_cpus, sizeof *c->cpus},
        {(void **)&c->cpu_names, &c->cap_cpu_names, c->n_cpu_names, from->n_cpu_names,
         sizeof *c->cpu_names},
        {(void **)&c->systems, &c->cap_systems, c->n_systems, from->n_systems,
         sizeof *c->systems},
        {(void **)&c->strings, &c->cap_strings, c->n_strings, from->n_strings, sizeof *c->strings},
    };
    size_t i;

    for (i = 0; i < sizeof r / sizeof r[0]; i++) {
        size_t need = r[i].n + r[i].more, cap = *r[i].cap ? *r[i].cap : 16;
        void *p;
        if (need <= *r[i].cap)
            continue;
        while (cap < need)
            cap *= 2;
        p = realloc(*r[i].arr, cap * r[i].size);
        if (p == NULL)
            return -1;
        *r[i].arr = p;
        *r[i].cap = cap;
    }
    return 0;
}

/* Put entry e (of size bytes, id first) into arr: replace same id or append. */
static void merge_one(void *arr, size_t *n, size_t size, const void *e) {
    long at = find_index(arr, *n, size, (const char *)e);

    if (at < 0)
        at = (long)(*n)++;
    memcpy((char *)arr + (size_t)at * size, e, size);
}

/* Move every entry of from into c, replacing entries with the same id. */
int catalog_merge(struct catalog *c, struct catalog *from) {
    size_t i;

    if (reserve_for(c, from) < 0)
        return -1;
    for (i = 0; i < from->n_gpus; i++) {
        drop_names(c->device_names, &c->n_device_names, from->gpus[i].id);
        merge_one(c->gpus, &c->n_gpus, sizeof *c->gpus, &from->gpus[i]);
    }
    for (i = 0; i < from->n_models; i++)
        merge_one(c->models, &c->n_models, sizeof *c->models, &from->models[i]);
    for (i = 0; i < from->n_formats; i++)
        merge_one(c->formats, &c->n_formats, sizeof *c->formats, &from->formats[i]);
    for (i = 0; i < from->n_evidence; i++)
        merge_one(c->evidence, &c->n_evidence, sizeof *c->evidence, &from->evidence[i]);
    for (i = 0; i < from->n_device_names; i++)
        c->device_names[c->n_device_names++] = from->device_names[i];
    for (i = 0; i < from->n_cpus; i++) {
        drop_names(c->cpu_names, &c->n_cpu_names, from->cpus[i].id);
        merge_one(c->cpus, &c->n_cpus, sizeof *c->cpus, &from->cpus[i]);
    }
    for (i = 0; i < from->n_cpu_names; i++)
        c->cpu_names[c->n_cpu_names++] = from->cpu_names[i];
    for (i = 0; i < from->n_systems; i++)
        merge_one(c->systems, &c->n_systems, sizeof *c->systems, &from->systems[i]);
    /* Strings change owner; replaced entries' strings stay until catalog_free. */
    if (from->n_strings > 0)
        memcpy(c->strings + c->n_strings, from->strings, from->n_strings * sizeof *c->strings);
    c->n_strings += from->n_strings;
    from->n_strings = 0;
    catalog_free(from);
    return 0;
}

/* Exact lookup of a GPU by normalised id. */
const struct engine_gpu *catalog_find_gpu(const struct catalog *c, const char *id) {
    long i = find_index(c->gpus, c->n_gpus, sizeof *c->gpus, id);
    return i < 0 ? NULL : &c->gpus[i];
}

/* Exact lookup of a model by normalised id. */
const struct engine_model *catalog_find_model(const struct catalog *c, const char *id) {
    long i = find_index(c->models, c->n_models, sizeof *c->models, id);
    return i < 0 ? NULL : &c->models[i];
}

/* Exact lookup of a format by normalised id. */
const struct engine_format *catalog_find_format(const struct catalog *c, const char *id) {
    long i = find_index(c->formats, c->n_formats, sizeof *c->formats, id);
    return i < 0 ? NULL : &c->formats[i];
}

/* Whether a format is for the KV cache only (see catalog.h). */
bool catalog_format_kv_only(const struct engine_format *f) {
    return strstr(f->name, "KV cache") != NULL || strstr(f->name, "KV-cache") != NULL;
}

/* The weight format stored like a KV-only one (see catalog.h). */
const struct engine_format *catalog_format_for_weights(const struct catalog *c,
                                                       const struct engine_format *kv) {
    for (size_t i = 0; i < c->n_formats; i++) {
        const struct engine_format *f = &c->formats[i];
        if (!catalog_format_kv_only(f) && f->kind == kv->kind && f->bits == kv->bits &&
            f->block == kv->block && f->scale_bits == kv->scale_bits &&
            f->zero_bits == kv->zero_bits && f->super_block == kv->super_block)
            return f;
    }
    return NULL;
}

/* Exact lookup of an evidence table by normalised id. */
const struct catalog_evidence *catalog_find_evidence(const struct catalog *c, const char *id) {
    long i = find_index(c->evidence, c->n_evidence, sizeof *c->evidence, id);
    return i < 0 ? NULL : &c->evidence[i];
}

/* Exact lookup of a CPU by normalised id. */
const struct catalog_cpu *catalog_find_cpu(const struct catalog *c, const char *id) {
    long i = find_index(c->cpus, c->n_cpus, sizeof *c->cpus, id);
    return i < 0 ? NULL : &c->cpus[i];
}

/* Exact lookup of a system by normalised id. */
const struct catalog_system *catalog_find_system(const struct catalog *c, const char *id) {
    long i = find_index(c->systems, c->n_systems, sizeof *c->systems, id);
    return i < 0 ? NULL : &c->systems[i];
}

/* Levenshtein distance of a and b (each cut to 127 bytes), with two rows. */
size_t catalog_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row0[NORM_MAX], row1[NORM_MAX], *prev = row0, *cur = row1, *t;

    la = la < NORM_MAX - 1 ? la : NORM_MAX - 1;
    lb = lb < NORM_MAX - 1 ? lb : NORM_MAX - 1;

    for (j = 0; j <= lb; j++)
        prev[j] = j;
    for (i = 1; i <= la; i++) {
        cur[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        t = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

/* Write up to n closest ids of the given kind into out; returns how many. */
size_t catalog_suggest(const struct catalog *c, enum catalog_kind kind, const char *id,
                       const char **out, size_t n) {
    char want[NORM_MAX], have[NORM_MAX];
    size_t count, size, i, k = 0, limit, best_d[16];
    const char *base;

    switch (kind) {
    case CATALOG_GPU:
        base = (const char *)c->gpus, count = c->n_gpus, size = sizeof *c->gpus;
        break;
    case CATALOG_MODEL:
        base = (const char *)c->models, count = c->n_models, size = sizeof *c->models;
        break;
    case CATALOG_FORMAT:
        base = (const char *)c->formats, count = c->n_formats, size = sizeof *c->formats;
        break;
    default:
        return 0;
    }
    if (n > 16)
        n = 16;
    catalog_normalise(id, want, sizeof want);
    if (want[0] == '\0')
        return 0;
    /* A third of the query may be wrong, at least 2 edits. */
    limit = strlen(want) / 3 > 2 ? strlen(want) / 3 : 2;
    for (i = 0; i < count; i++) {
        const char *cand = base + i * size;
        size_t dist, j;
        catalog_normalise(cand, have, sizeof have);
        dist = catalog_edit_distance(want, have);
        if (strncmp(have, want, strlen(want)) == 0 || strncmp(want, have, strlen(have)) == 0 ||
            (strlen(want) >= 3 && strstr(have, want) != NULL))
            dist = dist < 1 ? dist : 1; /* a prefix either way, or the number of a name
                                         * ("3060" in rtx-3060), is nearly a hit */
        if (dist > limit)
            continue;
        /* Insertion into the sorted top n: by distance, then by id. */
        for (j = k; j > 0; j--) {
            if (best_d[j - 1] < dist || (best_d[j - 1] == dist && strcmp(out[j - 1], cand) <= 0))
                break;
            if (j < n) {
                best_d[j] = best_d[j - 1];
                out[j] = out[j - 1];
            }
        }
        if (j < n) {
            best_d[j] = dist;
            out[j] = cand;
            if (k < n)
                k++;
        }
    }
    return k;
}

/* Find the catalog GPU whose id, name or a device name equals device_name. */
const struct engine_gpu *catalog_match_device(const struct catalog *c, const char *device_name) {
    char want[NORM_MAX], have[NORM_MAX];
    size_t i;

    catalog_normalise(device_name, want, sizeof want);
    if (want[0] == '\0')
        return NULL;
    for (i = 0; i < c->n_device_names; i++) {
        catalog_normalise(c->device_names[i].name, have, sizeof have);
        if (strcmp(want, have) == 0)
            return catalog_find_gpu(c, c->device_names[i].gpu_id);
    }
    for (i = 0; i < c->n_gpus; i++) {
        catalog_normalise(c->gpus[i].name, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &c->gpus[i];
        catalog_normalise(c->gpus[i].id, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &c->gpus[i];
    }
    return NULL;
}

/* Find the catalog CPU whose model name, name or id equals model_name. */
const struct catalog_cpu *catalog_match_cpu(const struct catalog *c, const char *model_name) {
    char want[NORM_MAX], have[NORM_MAX];
    size_t i;

    catalog_normalise(model_name, want, sizeof want);
    if (want[0] == '\0')
        return NULL;
    for (i = 0; i < c->n_cpu_names; i++) {
        catalog_normalise(c->cpu_names[i].name, have, sizeof have);
        if (strcmp(want, have) == 0)
            return catalog_find_cpu(c, c->cpu_names[i].gpu_id);
    }
    for (i = 0; i < c->n_cpus; i++) {
        catalog_normalise(c->cpus[i].name, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &c->cpus[i];
        catalog_normalise(c->cpus[i].id, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &c->cpus[i];
    }
    return NULL;
}

/* Data-sheet bandwidth: channels x channel_bits / 8 x transfers/s. */
double catalog_memory_bandwidth(uint32_t channels, uint32_t channel_bits,
                                double transfers_per_s) {
    if (channels == 0 || channel_bits == 0 || !(transfers_per_s > 0))
        return 0;
    /* 12 x 64 bits = 96 bytes per transfer; x 4.8e9 = 460.8e9 exactly as
     * decimals go: the product of whole numbers first, one rounding */
    return (double)channels * channel_bits / 8.0 * transfers_per_s;
}

/* The device names of a catalog GPU: fills up to n, returns how many exist. */
size_t catalog_device_names(const struct catalog *c, const char *gpu_id, const char **out,
                            size_t n) {
    size_t i, k = 0;

    for (i = 0; i < c->n_device_names; i++) {
        if (!same_id(c->device_names[i].gpu_id, gpu_id))
            continue;
        if (k < n)
            out[k] = c->device_names[i].name;
        k++;
    }
    return k;
}
