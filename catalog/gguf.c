/*
 * gguf.c: the GGUF header reader (see gguf.h for the format and the
 * checks). The file is read through a 64 KiB window refilled with pread,
 * so only the header's bytes are ever read; a file image in memory (tests,
 * the fuzz target) goes through the same code.
 *
 * Block sizes and bytes per block: ggml's type traits (ggml/src/ggml.c
 * type_traits, the block structs of ggml-common.h), the same table as
 * gguf-py's GGML_QUANT_SIZES. Q4_K: 256 weights in 2 + 2 + 12 + 128 = 144
 * bytes (4.5 bits per weight); Q6_K: 256 in 128 + 64 + 16 + 2 = 210 (6.5625).
 */
#include "catalog/gguf.h"
#include "catalog/catalog.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"

#define QK_K 256

static const struct gguf_type_info type_table[GGUF_TYPE_COUNT] = {
    [GGUF_TYPE_F32] = {"F32", 1, 4},
    [GGUF_TYPE_F16] = {"F16", 1, 2},
    [GGUF_TYPE_Q4_0] = {"Q4_0", 32, 2 + 16},
    [GGUF_TYPE_Q4_1] = {"Q4_1", 32, 2 + 2 + 16},
    [GGUF_TYPE_Q5_0] = {"Q5_0", 32, 2 + 4 + 16},
    [GGUF_TYPE_Q5_1] = {"Q5_1", 32, 2 + 2 + 4 + 16},
    [GGUF_TYPE_Q8_0] = {"Q8_0", 32, 2 + 32},
    [GGUF_TYPE_Q8_1] = {"Q8_1", 32, 4 + 4 + 32},
    [GGUF_TYPE_Q2_K] = {"Q2_K", QK_K, 2 + 2 + QK_K / 16 + QK_K / 4},
    [GGUF_TYPE_Q3_K] = {"Q3_K", QK_K, 2 + QK_K / 4 + QK_K / 8 + 12},
    [GGUF_TYPE_Q4_K] = {"Q4_K", QK_K, 2 + 2 + 12 + QK_K / 2},
    [GGUF_TYPE_Q5_K] = {"Q5_K", QK_K, 2 + 2 + 12 + QK_K / 8 + QK_K / 2},
    [GGUF_TYPE_Q6_K] = {"Q6_K", QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16},
    [GGUF_TYPE_Q8_K] = {"Q8_K", QK_K, 4 + QK_K + QK_K / 8},
    [GGUF_TYPE_IQ2_XXS] = {"IQ2_XXS", QK_K, 2 + QK_K / 4},
    [GGUF_TYPE_IQ2_XS] = {"IQ2_XS", QK_K, 2 + QK_K / 4 + QK_K / 32},
    [GGUF_TYPE_IQ3_XXS] = {"IQ3_XXS", QK_K, 2 + QK_K / 4 + QK_K / 8},
    [GGUF_TYPE_IQ1_S] = {"IQ1_S", QK_K, 2 + QK_K / 8 + QK_K / 16},
    [GGUF_TYPE_IQ4_NL] = {"IQ4_NL", 32, 2 + 16},
    [GGUF_TYPE_IQ3_S] = {"IQ3_S", QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4},
    [GGUF_TYPE_IQ2_S] = {"IQ2_S", QK_K, 2 + QK_K / 4 + QK_K / 16},
    [GGUF_TYPE_IQ4_XS] = {"IQ4_XS", QK_K, 2 + 2 + QK_K / 2 + QK_K / 64},
    [GGUF_TYPE_I8] = {"I8", 1, 1},
    [GGUF_TYPE_I16] = {"I16", 1, 2},
    [GGUF_TYPE_I32] = {"I32", 1, 4},
    [GGUF_TYPE_I64] = {"I64", 1, 8},
    [GGUF_TYPE_F64] = {"F64", 1, 8},
    [GGUF_TYPE_IQ1_M] = {"IQ1_M", QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32},
    [GGUF_TYPE_BF16] = {"BF16", 1, 2},
    [GGUF_TYPE_TQ1_0] = {"TQ1_0", QK_K, 2 + 4 * 13},
    [GGUF_TYPE_TQ2_0] = {"TQ2_0", QK_K, 2 + 64},
    [GGUF_TYPE_MXFP4] = {"MXFP4", 32, 1 + 16},
    [GGUF_TYPE_NVFP4] = {"NVFP4", 64, 4 + 32},
    [GGUF_TYPE_Q1_0] = {"Q1_0", 128, 2 + 16},
};

const struct gguf_type_info *gguf_type_info(uint32_t type) {
    if (type >= GGUF_TYPE_COUNT || type_table[type].name == NULL)
        return NULL;
    return &type_table[type];
}

uint64_t gguf_type_bytes(uint32_t type, uint64_t n) {
    const struct gguf_type_info *t = gguf_type_info(type);
    if (t == NULL || n % t->block)
        return 0;
    return n / t->block * t->bytes;
}

static const char *const vtype_names[GGUF_V_COUNT] = {
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
    "bool",  "string", "array", "uint64", "int64", "float64"};
/* Bytes of a fixed-size value type; 0 for string and array. */
static const uint8_t vtype_size[GGUF_V_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* ---- the reader: a window over a file or a buffer ------------------------ */

#define WINDOW (64u << 10)

struct rd {
    const char *name;
    int fd;             /* -1: mem */
    const uint8_t *mem;
    uint64_t size;
    uint64_t pos;
    uint8_t *win;
    uint64_t win_off;
    size_t win_len;
    char *err;
    size_t errlen;
    bool failed;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail_at(struct rd *r, uint64_t at, const char *fmt, ...) {
    if (r->failed)
        return -1;
    r->failed = true;
    int n = snprintf(r->err, r->errlen, "%s: byte %" PRIu64 ": ", r->name, at);
    if (n >= 0 && (size_t)n < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Bytes left after the current position. */
static uint64_t left(const struct rd *r) {
    return r->pos <= r->size ? r->size - r->pos : 0;
}

/* Copy n bytes at the position into out and advance. */
static int rd_bytes(struct rd *r, void *out, size_t n, const char *what) {
    if (n > left(r))
        return fail_at(r, r->pos, "%s: needs %zu bytes, the file ends at byte %" PRIu64, what, n,
                       r->size);
    uint8_t *o = out;
    if (r->fd < 0) {
        memcpy(o, r->mem + r->pos, n);
        r->pos += n;
        return 0;
    }
    while (n > 0) {
        if (r->pos < r->win_off || r->pos >= r->win_off + r->win_len) {
            uint64_t want = left(r) < WINDOW ? left(r) : WINDOW;
            ssize_t got;
            do
                got = pread(r->fd, r->win, (size_t)want, (off_t)r->pos);
            while (got < 0 && errno == EINTR);
            if (got <= 0)
                return fail_at(r, r->pos, "%s: %s", what,
                               got < 0 ? strerror(errno) : "the file shrank while being read");
            r->win_off = r->pos;
            r->win_len = (size_t)got;
        }
        size_t in = (size_t)(r->win_off + r->win_len - r->pos);
        size_t k = n < in ? n : in;
        memcpy(o, r->win + (r->pos - r->win_off), k);
        o += k;
        n -= k;
        r->pos += k;
    }
    return 0;
}

static int rd_skip(struct rd *r, uint64_t n, const char *what) {
    if (n > left(r))
        return fail_at(r, r->pos, "%s: %" PRIu64 " bytes, past the end of the file (%" PRIu64
                                  " bytes left)", what, n, left(r));
    r->pos += n;
    return 0;
}

static uint64_t le(const uint8_t *b, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int rd_u32(struct rd *r, uint32_t *v, const char *what) {
    uint8_t b[4];
    if (rd_bytes(r, b, 4, what))
        return -1;
    *v = (uint32_t)le(b, 4);
    return 0;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *what) {
    uint8_t b[8];
    if (rd_bytes(r, b, 8, what))
        return -1;
    *v = le(b, 8);
    return 0;
}

/* A string's length, checked against the bytes left and a limit (0: none). */
static int rd_strlen(struct rd *r, uint64_t *len, uint64_t max, const char *what) {
    uint64_t at = r->pos;
    if (rd_u64(r, len, what))
        return -1;
    if (*len > left(r))
        return fail_at(r, at, "%s: length %" PRIu64 " runs past the end of the file (%" PRIu64
                              " bytes left)", what, *len, left(r));
    if (max && *len > max)
        return fail_at(r, at, "%s: length %" PRIu64 " exceeds the %" PRIu64 " allowed", what, *len,
                       max);
    return 0;
}

/* A string copied into a new NUL-terminated buffer; embedded NULs refused. */
static int rd_string(struct rd *r, uint64_t len, char **out, const char *what) {
    uint64_t at = r->pos;
    char *s = malloc((size_t)len + 1);
    if (s == NULL)
        return fail_at(r, at, "%s: out of memory", what);
    if (rd_bytes(r, s, (size_t)len, what)) {
        free(s);
        return -1;
    }
    s[len] = '\0';
    if (strlen(s) != len) {
        free(s);
        return fail_at(r, at, "%s: contains a NUL byte", what);
    }
    catalog_text_clean(s, (size_t)len); /* a name may reach a terminal */
    *out = s;
    return 0;
}

/* ---- metadata values -------------------------------------------------- */

static double scalar_value(enum gguf_vtype t, const uint8_t *b, uint64_t *u, int64_t *i,
                           bool *is_int, bool *is_float) {
    uint64_t raw = le(b, vtype_size[t]);
    *is_int = true;
    *is_float = false;
    switch (t) {
    case GGUF_V_I8:
        *i = (int8_t)raw;
        break;
    case GGUF_V_I16:
        *i = (int16_t)raw;
        break;
    case GGUF_V_I32:
        *i = (int32_t)raw;
        break;
    case GGUF_V_I64:
        *i = (int64_t)raw;
        break;
    case GGUF_V_F32: {
        uint32_t w = (uint32_t)raw;
        float x;
        memcpy(&x, &w, 4);
        *is_int = false;
        *is_float = true;
        *u = 0;
        *i = 0;
        return x;
    }
    case GGUF_V_F64: {
        double x;
        memcpy(&x, &raw, 8);
        *is_int = false;
        *is_float = true;
        *u = 0;
        *i = 0;
        return x;
    }
    default: /* unsigned and bool */
        *u = raw;
        *i = raw > INT64_MAX ? INT64_MAX : (int64_t)raw;
        return (double)raw;
    }
    *u = *i < 0 ? 0 : (uint64_t)*i;
    return (double)*i;
}

/* Skip or keep one value of type t (depth: arrays around it). */
static int rd_value(struct rd *r, enum gguf_vtype t, struct gguf_kv *kv, unsigned depth,
                    const char *key) {
    uint64_t at = r->pos;
    if ((unsigned)t >= GGUF_V_COUNT)
        return fail_at(r, at, "%s: unknown value type %u", key, (unsigned)t);
    if (t == GGUF_V_STRING) {
        uint64_t len;
        if (rd_strlen(r, &len, 0, key))
            return -1;
        if (kv && len <= GGUF_MAX_STRING_KEPT) {
            kv->len = len;
            return rd_string(r, len, &kv->str, key);
        }
        if (kv)
            kv->len = len;
        return rd_skip(r, len, key);
    }
    if (t == GGUF_V_ARRAY) {
        uint32_t et;
        uint64_t count;
        if (depth >= GGUF_MAX_DEPTH)
            return fail_at(r, at, "%s: arrays nested more than %u deep", key, GGUF_MAX_DEPTH);
        if (rd_u32(r, &et, key) || rd_u64(r, &count, key))
            return -1;
        if (et >= GGUF_V_COUNT)
            return fail_at(r, at, "%s: array of unknown value type %u", key, et);
        /* Every element takes at least one byte (8 for a string's length,
         * 12 for an array's header): the count cannot exceed what is left. */
        uint64_t min = vtype_size[et] ? vtype_size[et] : (et == GGUF_V_STRING ? 8 : 12);
        if (count > left(r) / min)
            return fail_at(r, at, "%s: array of %" PRIu64 " %s elements needs more than the %" PRIu64
                                  " bytes left in the file", key, count, vtype_names[et], left(r));
        if (kv) {
            kv->elem = (enum gguf_vtype)et;
            kv->count = count;
        }
        if (vtype_size[et]) {
            size_t es = vtype_size[et];
            if (kv && count <= GGUF_MAX_ARRAY_KEPT && count > 0) {
                kv->values = malloc((size_t)count * sizeof(double));
                if (kv->values == NULL)
                    return fail_at(r, at, "%s: out of memory", key);
                for (uint64_t k = 0; k < count; k++) {
                    uint8_t b[8];
                    uint64_t u;
                    int64_t i;
                    bool ii, ff;
                    if (rd_bytes(r, b, es, key))
                        return -1;
                    kv->values[k] = scalar_value((enum gguf_vtype)et, b, &u, &i, &ii, &ff);
                }
                return 0;
            }
            return rd_skip(r, count * es, key);
        }
        for (uint64_t k = 0; k < count; k++)
            if (rd_value(r, (enum gguf_vtype)et, NULL, depth + 1, key))
                return -1;
        return 0;
    }
    uint8_t b[8];
    if (rd_bytes(r, b, vtype_size[t], key))
        return -1;
    if (t == GGUF_V_BOOL && b[0] > 1)
        return fail_at(r, at, "%s: a bool must be 0 or 1, found %u", key, b[0]);
    if (kv)
        kv->f = scalar_value(t, b, &kv->u, &kv->i, &kv->is_int, &kv->is_float);
    return 0;
}

/* ---- the header --------------------------------------------------------- */

bool gguf_is_gguf(const uint8_t *buf, size_t len) {
    return len >= 4 && memcmp(buf, "GGUF", 4) == 0;
}

void gguf_close(struct gguf_file *f) {
    for (size_t i = 0; i < f->n_kv; i++) {
        free(f->kv[i].key);
        free(f->kv[i].str);
        free(f->kv[i].values);
    }
    free(f->kv);
    for (size_t i = 0; i < f->n_tensors; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    memset(f, 0, sizeof *f);
}

const struct gguf_kv *gguf_find(const struct gguf_file *f, const char *key) {
    for (size_t i = 0; i < f->n_kv; i++)
        if (strcmp(f->kv[i].key, key) == 0)
            return &f->kv[i];
    return NULL;
}

bool gguf_get_uint(const struct gguf_file *f, const char *key, uint64_t *out) {
    const struct gguf_kv *kv = gguf_find(f, key);
    if (kv == NULL || kv->type == GGUF_V_ARRAY || kv->type == GGUF_V_STRING || !kv->is_int)
        return false;
    if (kv->i < 0)
        return false;
    *out = kv->u;
    return true;
}

bool gguf_get_float(const struct gguf_file *f, const char *key, double *out) {
    const struct gguf_kv *kv = gguf_find(f, key);
    if (kv == NULL || kv->type == GGUF_V_ARRAY || kv->type == GGUF_V_STRING)
        return false;
    *out = kv->f;
    return true;
}

const char *gguf_get_str(const struct gguf_file *f, const char *key) {
    const struct gguf_kv *kv = gguf_find(f, key);
    return kv && kv->type == GGUF_V_STRING ? kv->str : NULL;
}

static int cmp_name(const void *a, const void *b) {
    const struct gguf_tensor *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

static int cmp_offset(const void *a, const void *b) {
    const struct gguf_tensor *const *x = a, *const *y = b;
    return (*x)->offset < (*y)->offset ? -1 : (*x)->offset > (*y)->offset;
}

static int cmp_key(const void *a, const void *b) {
    const struct gguf_kv *const *x = a, *const *y = b;
    return strcmp((*x)->key, (*y)->key);
}

/* Keys must be unique (sorted, so a million keys take no quadratic time). */
static int check_keys(struct rd *r, struct gguf_file *f) {
    if (f->n_kv < 2)
        return 0;
    struct gguf_kv **p = malloc(f->n_kv * sizeof *p);
    if (p == NULL)
        return fail_at(r, 24, "out of memory");
    for (size_t i = 0; i < f->n_kv; i++)
        p[i] = &f->kv[i];
    qsort(p, f->n_kv, sizeof *p, cmp_key);
    int rc = 0;
    for (size_t i = 1; i < f->n_kv && rc == 0; i++)
        if (strcmp(p[i - 1]->key, p[i]->key) == 0) {
            const struct gguf_kv *later = p[i]->offset > p[i - 1]->offset ? p[i] : p[i - 1];
            rc = fail_at(r, later->offset, "metadata key %s appears twice", later->key);
        }
    free(p);
    return rc;
}

static int read_tensor(struct rd *r, struct gguf_tensor *t, uint64_t index) {
    uint64_t at = r->pos, len;
    char what[64];
    snprintf(what, sizeof what, "tensor %" PRIu64 "'s name", index);
    if (rd_strlen(r, &len, GGUF_MAX_NAME, what) || rd_string(r, len, &t->name, what))
        return -1;
    uint64_t dims_at = r->pos;
    if (rd_u32(r, &t->ndim, t->name))
        return -1;
    if (t->ndim == 0 || t->ndim > GGUF_MAX_DIMS)
        return fail_at(r, dims_at, "tensor %s: %u dimensions (1 to %u allowed)", t->name, t->ndim,
                       GGUF_MAX_DIMS);
    uint64_t n = 1;
    bool overflow = false;
    for (uint32_t d = 0; d < t->ndim; d++) {
        if (rd_u64(r, &t->dims[d], t->name))
            return -1;
        if (t->dims[d] > (uint64_t)INT64_MAX)
            return fail_at(r, dims_at, "tensor %s: dimension %u is %" PRIu64 ", above 2^63",
                           t->name, d, t->dims[d]);
        if (t->dims[d] && n > (uint64_t)INT64_MAX / t->dims[d])
            overflow = true;
        n *= t->dims[d];
    }
    if (overflow)
        return fail_at(r, dims_at, "tensor %s: the product of its dimensions overflows 64 bits",
                       t->name);
    t->elements = n;
    uint64_t type_at = r->pos;
    if (rd_u32(r, &t->type, t->name) || rd_u64(r, &t->offset, t->name))
        return -1;
    const struct gguf_type_info *ti = gguf_type_info(t->type);
    if (ti == NULL)
        return fail_at(r, type_at, "tensor %s: unknown ggml tensor type %u", t->name, t->type);
    if (t->dims[0] % ti->block)
        return fail_at(r, dims_at, "tensor %s: %s rows of %" PRIu64
                                   " elements are not a multiple of its block of %u",
                       t->name, ti->name, t->dims[0], ti->block);
    t->bytes = n / ti->block * ti->bytes;
    (void)at;
    return 0;
}

/* Check names, alignment and the data section; sets f->data_start. */
static int check_tensors(struct rd *r, struct gguf_file *f, uint64_t infos_at) {
    uint64_t a = f->alignment;
    uint64_t end = r->pos;
    uint64_t pad = (a - end % a) % a;
    f->data_start = end + pad;
    if (f->n_tensors == 0)
        return 0;
    struct gguf_tensor **p = malloc(f->n_tensors * sizeof *p);
    if (p == NULL)
        return fail_at(r, infos_at, "out of memory");
    for (size_t i = 0; i < f->n_tensors; i++)
        p[i] = &f->tensors[i];
    qsort(p, f->n_tensors, sizeof *p, cmp_name);
    for (size_t i = 1; i < f->n_tensors; i++)
        if (strcmp(p[i - 1]->name, p[i]->name) == 0) {
            fail_at(r, infos_at, "tensor %s appears twice", p[i]->name);
            free(p);
            return -1;
        }
    qsort(p, f->n_tensors, sizeof *p, cmp_offset);
    uint64_t data_size = f->file_size > f->data_start ? f->file_size - f->data_start : 0;
    int rc = 0;
    for (size_t i = 0; i < f->n_tensors && rc == 0; i++) {
        const struct gguf_tensor *t = p[i];
        if (t->offset % a)
            rc = fail_at(r, infos_at, "tensor %s: data offset %" PRIu64
                                      " is not a multiple of the alignment %" PRIu64,
                         t->name, t->offset, a);
        else if (t->offset > data_size || t->bytes > data_size - t->offset)
            rc = fail_at(r, f->data_start, "tensor %s: its %" PRIu64 " bytes at data offset %" PRIu64
                                           " end past the end of the file (%" PRIu64
                                           " bytes of data)",
                         t->name, t->bytes, t->offset, data_size);
        else if (i + 1 < f->n_tensors && t->offset + t->bytes > p[i + 1]->offset)
            rc = fail_at(r, f->data_start, "tensors %s and %s overlap (data offsets %" PRIu64
                                           " + %" PRIu64 " bytes > %" PRIu64 ")",
                         t->name, p[i + 1]->name, t->offset, t->bytes, p[i + 1]->offset);
    }
    free(p);
    return rc;
}

static int parse(struct rd *r, struct gguf_file *f) {
    uint8_t magic[4];
    memset(f, 0, sizeof *f);
    f->file_size = r->size;
    f->alignment = GGUF_DEFAULT_ALIGNMENT;
    if (r->size < 4 || rd_bytes(r, magic, 4, "magic"))
        return fail_at(r, 0, "not a GGUF file: shorter than its 4-byte magic");
    if (memcmp(magic, "GGUF", 4) != 0)
        return fail_at(r, 0, "not a GGUF file: the magic is not \"GGUF\"");
    if (rd_u32(r, &f->version, "version"))
        return -1;
    if (f->version == 1)
        return fail_at(r, 4, "GGUF version 1 (32-bit counts) is not read; versions 2 and 3 are");
    if ((f->version & 0xFFFFu) == 0 && f->version >> 16)
        return fail_at(r, 4, "a big-endian GGUF file (version 0x%08x); only little-endian is read",
                       f->version);
    if (f->version != 2 && f->version != 3)
        return fail_at(r, 4, "GGUF version %u; versions 2 and 3 are read", f->version);
    uint64_t nt, nkv;
    if (rd_u64(r, &nt, "tensor count") || rd_u64(r, &nkv, "metadata count"))
        return -1;
    /* A key-value takes at least 12 bytes (key length, value type), a tensor
     * info at least 32 (name length, dims, one dimension, type, offset). */
    if (nkv > GGUF_MAX_KV || nkv > left(r) / 12)
        return fail_at(r, 16, "metadata count %" PRIu64 " exceeds what the file can hold", nkv);
    if (nt > GGUF_MAX_TENSORS || nt > (left(r) - nkv * 12) / 32)
        return fail_at(r, 8, "tensor count %" PRIu64 " exceeds what the file can hold", nt);
    if (nkv) {
        f->kv = calloc((size_t)nkv, sizeof *f->kv);
        if (f->kv == NULL)
            return fail_at(r, 16, "out of memory");
    }
    for (uint64_t i = 0; i < nkv; i++) {
        struct gguf_kv *kv = &f->kv[i];
        uint64_t len, at = r->pos;
        uint32_t vt;
        char what[64];
        snprintf(what, sizeof what, "metadata key %" PRIu64, i);
        kv->offset = at;
        if (rd_strlen(r, &len, GGUF_MAX_KEY, what) || rd_string(r, len, &kv->key, what))
            return -1;
        f->n_kv = (size_t)i + 1;
        if (rd_u32(r, &vt, kv->key))
            return -1;
        if (vt >= GGUF_V_COUNT)
            return fail_at(r, r->pos - 4, "%s: unknown value type %u", kv->key, vt);
        kv->type = (enum gguf_vtype)vt;
        if (rd_value(r, kv->type, kv, 0, kv->key))
            return -1;
        if (strcmp(kv->key, "general.alignment") == 0) {
            if (kv->type != GGUF_V_U32 || kv->u == 0 || (kv->u & (kv->u - 1)))
                return fail_at(r, at, "general.alignment must be a uint32 power of two, found %s %" PRIu64,
                               vtype_names[kv->type], kv->u);
            f->alignment = kv->u;
        }
    }
    if (check_keys(r, f))
        return -1;
    uint64_t infos_at = r->pos;
    if (nt > left(r) / 32)
        return fail_at(r, 8, "tensor count %" PRIu64 " exceeds what the file can hold", nt);
    if (nt) {
        f->tensors = calloc((size_t)nt, sizeof *f->tensors);
        if (f->tensors == NULL)
            return fail_at(r, infos_at, "out of memory");
    }
    for (uint64_t i = 0; i < nt; i++) {
        f->n_tensors = (size_t)i + 1;
        if (read_tensor(r, &f->tensors[i], i))
            return -1;
    }
    return check_tensors(r, f, infos_at);
}

int gguf_parse_buffer(const char *name, const uint8_t *buf, size_t len, struct gguf_file *f,
                      char *err, size_t errlen) {
    struct rd r = {.name = name, .fd = -1, .mem = buf, .size = len, .err = err, .errlen = errlen};
    if (errlen)
        err[0] = '\0';
    if (parse(&r, f)) {
        gguf_close(f);
        return -1;
    }
    return 0;
}

int gguf_open(const char *path, struct gguf_file *f, char *err, size_t errlen) {
    uint64_t size;
    memset(f, 0, sizeof *f);
    int fd = catalog_open_regular(path, &size, err, errlen);
    if (fd < 0)
        return -1;
    struct rd r = {.name = path, .fd = fd, .size = size, .err = err,
                   .errlen = errlen};
    r.win = malloc(WINDOW);
    if (r.win == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    int rc = parse(&r, f);
    free(r.win);
    close(fd);
    if (rc)
        gguf_close(f);
    return rc;
}
