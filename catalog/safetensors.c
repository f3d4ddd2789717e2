/*
 * safetensors.c: the bounds-checked safetensors reader (see safetensors.h).
 */
#include "catalog/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "kernels/kern_half.h"

static const struct {
    const char *name;
    size_t size;
} dtypes[KERN_ST_DTYPE_COUNT] = {
    [KERN_ST_BOOL] = {"BOOL", 1},       [KERN_ST_U8] = {"U8", 1},
    [KERN_ST_I8] = {"I8", 1},           [KERN_ST_F8_E4M3] = {"F8_E4M3", 1},
    [KERN_ST_F8_E5M2] = {"F8_E5M2", 1}, [KERN_ST_I16] = {"I16", 2},
    [KERN_ST_U16] = {"U16", 2},         [KERN_ST_F16] = {"F16", 2},
    [KERN_ST_BF16] = {"BF16", 2},       [KERN_ST_I32] = {"I32", 4},
    [KERN_ST_U32] = {"U32", 4},         [KERN_ST_F32] = {"F32", 4},
    [KERN_ST_F64] = {"F64", 8},         [KERN_ST_I64] = {"I64", 8},
    [KERN_ST_U64] = {"U64", 8},
};

/* Name of a dtype. */
const char *kern_st_dtype_name(enum kern_st_dtype d) {
    return (unsigned)d < KERN_ST_DTYPE_COUNT ? dtypes[d].name : "?";
}

/* Element size of a dtype in bytes. */
size_t kern_st_dtype_size(enum kern_st_dtype d) {
    return (unsigned)d < KERN_ST_DTYPE_COUNT ? dtypes[d].size : 0;
}

/* A scalar node's text, or NULL when the node is not a scalar. */
static const char *scalar(yaml_document_t *doc, int id, size_t *len) {
    yaml_node_t *n = yaml_document_get_node(doc, id);
    if (!n || n->type != YAML_SCALAR_NODE)
        return NULL;
    if (len)
        *len = n->data.scalar.length;
    return (const char *)n->data.scalar.value;
}

/* Parse a non-negative decimal integer scalar strictly (digits only, no
 * overflow). Returns 0 or -1. */
static int parse_u64(yaml_document_t *doc, int id, uint64_t *out) {
    size_t len;
    const char *s = scalar(doc, id, &len);
    if (!s || len == 0 || len > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Read a sequence of up to max integers; returns the count or -1. */
static int parse_u64_seq(yaml_document_t *doc, int id, uint64_t *out, unsigned max) {
    yaml_node_t *n = yaml_document_get_node(doc, id);
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return -1;
    unsigned k = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        if (k >= max)
            return -2;
        if (parse_u64(doc, *it, &out[k]) != 0)
            return -1;
        k++;
    }
    return (int)k;
}

/* Order tensors by their first byte. */
static int cmp_begin(const void *a, const void *b) {
    const struct kern_st_tensor *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* Order names for the duplicate check. */
static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fill one tensor from its mapping node; -1 with a message naming it. */
static int parse_tensor(yaml_document_t *doc, yaml_node_t *val, struct kern_st_tensor *t,
                        uint64_t data_len, char *err, size_t errlen) {
    const char *nm = t->name;
    if (val->type != YAML_MAPPING_NODE) {
        snprintf(err, errlen, "tensor '%s': expected an object", nm);
        return -1;
    }
    int have_dtype = 0, have_shape = 0, have_off = 0;
    for (yaml_node_pair_t *p = val->data.mapping.pairs.start; p < val->data.mapping.pairs.top;
         p++) {
        const char *k = scalar(doc, p->key, NULL);
        if (!k)
            continue;
        if (strcmp(k, "dtype") == 0) {
            size_t len;
            const char *d = scalar(doc, p->value, &len);
            int found = -1;
            for (int i = 0; d && i < KERN_ST_DTYPE_COUNT; i++)
                if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, d, len) == 0)
                    found = i;
            if (found < 0) {
                snprintf(err, errlen, "tensor '%s': unknown dtype '%.32s'", nm,
                         d ? d : "(not a string)");
                return -1;
            }
            t->dtype = (enum kern_st_dtype)found;
            have_dtype = 1;
        } else if (strcmp(k, "shape") == 0) {
            int nd = parse_u64_seq(doc, p->value, t->shape, KERN_ST_MAX_DIMS);
            if (nd < 0) {
                snprintf(err, errlen,
                         nd == -2 ? "tensor '%s': more than %d dimensions"
                                  : "tensor '%s': shape must be a list of non-negative "
                                    "integers (max %d dimensions)",
                         nm, KERN_ST_MAX_DIMS);
                return -1;
            }
            t->ndim = (unsigned)nd;
            have_shape = 1;
        } else if (strcmp(k, "data_offsets") == 0) {
            uint64_t off[2];
            if (parse_u64_seq(doc, p->value, off, 2) != 2) {
                snprintf(err, errlen, "tensor '%s': data_offsets must be [begin, end]", nm);
                return -1;
            }
            t->begin = off[0];
            t->end = off[1];
            have_off = 1;
        }
    }
    if (!have_dtype || !have_shape || !have_off) {
        snprintf(err, errlen, "tensor '%s': missing %s", nm,
                 !have_dtype   ? "dtype"
                 : !have_shape ? "shape"
                               : "data_offsets");
        return -1;
    }
    uint64_t el = 1;
    for (unsigned i = 0; i < t->ndim; i++) {
        if (t->shape[i] != 0 && el > UINT64_MAX / t->shape[i]) {
            snprintf(err, errlen, "tensor '%s': shape overflows 64 bits", nm);
            return -1;
        }
        el *= t->shape[i];
    }
    uint64_t es = dtypes[t->dtype].size;
    if (el > UINT64_MAX / es) {
        snprintf(err, errlen, "tensor '%s': byte size overflows 64 bits", nm);
        return -1;
    }
    t->elements = el;
    if (t->begin > t->end || t->end > data_len) {
        snprintf(err, errlen,
                 "tensor '%s': data_offsets [%llu, %llu] out of range (data section is %llu "
                 "bytes)",
                 nm, (unsigned long long)t->begin, (unsigned long long)t->end,
                 (unsigned long long)data_len);
        return -1;
    }
    if (t->end - t->begin != el * es) {
        snprintf(err, errlen,
                 "tensor '%s': shape and dtype give %llu bytes but data_offsets span %llu", nm,
                 (unsigned long long)(el * es), (unsigned long long)(t->end - t->begin));
        return -1;
    }
    return 0;
}

/* Parse a file image in memory. */
int kern_st_parse(const uint8_t *buf, size_t size, struct kern_st_file *f, char *err,
                  size_t errlen) {
    memset(f, 0, sizeof *f);
    f->base = buf;
    f->size = size;
    if (size < 8) {
        snprintf(err, errlen, "file too short for a safetensors header (%zu bytes)", size);
        return -1;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | buf[i];
    if (hlen > size - 8) {
        snprintf(err, errlen, "header length %llu runs past the end of the file (%zu bytes)",
                 (unsigned long long)hlen, size);
        return -1;
    }
    if (hlen > KERN_ST_MAX_HEADER || hlen < 2) {
        snprintf(err, errlen, "header length %llu is not plausible (2 .. %u bytes)",
                 (unsigned long long)hlen, KERN_ST_MAX_HEADER);
        return -1;
    }
    uint64_t data_len = size - 8 - hlen;

    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&parser, buf + 8, (size_t)hlen);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "header is not valid JSON: %s at byte %zu",
                 parser.problem ? parser.problem : "syntax error", parser.problem_mark.index);
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_parser_delete(&parser);
    int rc = -1;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        snprintf(err, errlen, "header must be a JSON object");
        goto out;
    }
    size_t npairs = (size_t)(root->data.mapping.pairs.top - root->data.mapping.pairs.start);
    f->tensors = calloc(npairs ? npairs : 1, sizeof *f->tensors);
    if (!f->tensors) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        size_t klen;
        const char *k = scalar(&doc, p->key, &klen);
        if (!k) {
            snprintf(err, errlen, "header keys must be strings");
            goto out;
        }
        if (strcmp(k, "__metadata__") == 0)
            continue;
        if (klen == 0 || klen > 1024 || memchr(k, 0, klen)) {
            snprintf(err, errlen, "a tensor name is empty, too long or holds a NUL byte");
            goto out;
        }
        struct kern_st_tensor *t = &f->tensors[f->n];
        t->name = strdup(k);
        if (!t->name) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        f->n++;
        if (parse_tensor(&doc, yaml_document_get_node(&doc, p->value), t, data_len, err, errlen) !=
            0)
            goto out;
        t->data = buf + 8 + hlen + t->begin;
    }
    /* names unique */
    if (f->n > 1) {
        char **names = malloc(f->n * sizeof *names);
        if (!names) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < f->n; i++)
            names[i] = f->tensors[i].name;
        qsort(names, f->n, sizeof *names, cmp_name);
        for (size_t i = 1; i < f->n; i++)
            if (strcmp(names[i - 1], names[i]) == 0) {
                snprintf(err, errlen, "tensor '%.200s' appears twice", names[i]);
                free(names);
                goto out;
            }
        free(names);
    }
    /* no two tensors share a byte */
    qsort(f->tensors, f->n, sizeof *f->tensors, cmp_begin);
    for (size_t i = 1; i < f->n; i++)
        if (f->tensors[i].begin < f->tensors[i - 1].end) {
            snprintf(err, errlen, "tensor '%.200s' overlaps tensor '%.200s' in the data section",
                     f->tensors[i].name, f->tensors[i - 1].name);
            goto out;
        }
    rc = 0;
out:
    yaml_document_delete(&doc);
    if (rc != 0) {
        const uint8_t *b = f->base;
        size_t s = f->size;
        kern_st_close(f);
        f->base = b;
        f->size = s;
    }
    return rc;
}

/* Map and parse a file. */
int kern_st_open(const char *path, struct kern_st_file *f, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    void *map = NULL;
    if (size > 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
    }
    close(fd);
    char msg[512];
    if (kern_st_parse(map ? map : (const uint8_t *)"", size, f, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        if (map)
            munmap(map, size);
        memset(f, 0, sizeof *f);
        return -1;
    }
    f->map = map;
    return 0;
}

/* Release the tensors and the mapping. */
void kern_st_close(struct kern_st_file *f) {
    for (size_t i = 0; i < f->n; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    if (f->map)
        munmap(f->map, f->size);
    memset(f, 0, sizeof *f);
}

/* Widen n elements starting at i0 to float (memcpy: data may be unaligned). */
int kern_st_read_f32(const struct kern_st_tensor *t, uint64_t i0, size_t n, float *out) {
    if (i0 > t->elements || n > t->elements - i0)
        return -1;
    const uint8_t *p = t->data + i0 * kern_st_dtype_size(t->dtype);
    switch (t->dtype) {
    case KERN_ST_F32:
        memcpy(out, p, n * sizeof(float));
        return 0;
    case KERN_ST_F16: {
        const float *tab = kern_f16_table();
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            out[i] = tab[h];
        }
        return 0;
    }
    case KERN_ST_BF16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            out[i] = kern_bf16_to_f32(h);
        }
        return 0;
    default:
        return -1;
    }
}
