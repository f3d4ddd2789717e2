/*
 * safetensors.c: the bounds-checked safetensors reader (see safetensors.h).
 */
#include "catalog/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/internal.h"
#include "catalog/json.h"

/* huggingface/safetensors' Dtype and its bitsize(). */
static const struct {
    const char *name;
    unsigned bits;
} dtypes[KERN_ST_DTYPE_COUNT] = {
    [KERN_ST_BOOL] = {"BOOL", 8},       [KERN_ST_U8] = {"U8", 8},
    [KERN_ST_I8] = {"I8", 8},           [KERN_ST_F8_E4M3] = {"F8_E4M3", 8},
    [KERN_ST_F8_E5M2] = {"F8_E5M2", 8}, [KERN_ST_I16] = {"I16", 16},
    [KERN_ST_U16] = {"U16", 16},        [KERN_ST_F16] = {"F16", 16},
    [KERN_ST_BF16] = {"BF16", 16},      [KERN_ST_I32] = {"I32", 32},
    [KERN_ST_U32] = {"U32", 32},        [KERN_ST_F32] = {"F32", 32},
    [KERN_ST_F64] = {"F64", 64},        [KERN_ST_I64] = {"I64", 64},
    [KERN_ST_U64] = {"U64", 64},        [KERN_ST_F4] = {"F4", 4},
    [KERN_ST_F6_E2M3] = {"F6_E2M3", 6}, [KERN_ST_F6_E3M2] = {"F6_E3M2", 6},
    [KERN_ST_F8_E8M0] = {"F8_E8M0", 8}, [KERN_ST_C64] = {"C64", 64},
};

/* Name of a dtype. */
const char *kern_st_dtype_name(enum kern_st_dtype d) {
    return (unsigned)d < KERN_ST_DTYPE_COUNT ? dtypes[d].name : "?";
}

/* Element size of a dtype in bytes (0 below a byte). */
size_t kern_st_dtype_size(enum kern_st_dtype d) {
    return (unsigned)d < KERN_ST_DTYPE_COUNT ? dtypes[d].bits / 8 : 0;
}

unsigned kern_st_dtype_bits(enum kern_st_dtype d) {
    return (unsigned)d < KERN_ST_DTYPE_COUNT ? dtypes[d].bits : 0;
}

/* Order tensors by their first byte. */
static int cmp_begin(const void *a, const void *b) {
    const struct kern_st_tensor *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* Order tensors by name for the duplicate check. */
static int cmp_name(const void *a, const void *b) {
    const struct kern_st_tensor *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* A non-negative whole number. */
static bool st_uint(const json_t *v, uint64_t *out) {
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

/* A list of whole numbers: [a, b, ...], at most max of them; the count,
 * -1 when it is not one, -2 when there were more than max. */
static int read_uints(const json_t *v, uint64_t *out, unsigned max) {
    size_t i;
    const json_t *x;
    if (!json_is_array(v))
        return -1;
    if (json_array_size(v) > max)
        return -2;
    json_array_foreach(v, i, x) {
        if (!st_uint(x, &out[i]))
            return -1;
    }
    return (int)json_array_size(v);
}

/* One tensor's object at offset at of the header: dtype, shape,
 * data_offsets (other members skipped). */
static int read_tensor(const struct catalog_json *d, const json_t *obj, size_t at,
                       struct kern_st_tensor *t, uint64_t data_len, char *err, size_t errlen) {
    const char *nm = t->name;
    char key[32];
    bool cut, have_dtype = false, have_shape = false, have_off = false;
    size_t kat, vat, off_at = 0;
    size_t hat = (size_t)(t->header_at - d->base);
    struct catalog_json_members it;
    if (!json_is_object(obj))
        return catalog_json_fail(d, at, err, errlen,
                       "tensor '%s': expected an object (dtype, shape, data_offsets)", nm);
    catalog_json_members_begin(&it, d, at);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, &kat, &vat) == 1) {
        const json_t *v = cut ? NULL : json_object_get(obj, key);
        if (cut)
            continue;
        if (strcmp(key, "dtype") == 0) {
            if (have_dtype)
                return catalog_json_fail(d, kat, err, errlen, "tensor '%s': dtype given twice", nm);
            if (!json_is_string(v))
                return catalog_json_fail(d, vat, err, errlen, "tensor '%s': unknown dtype (not a string)",
                               nm);
            /* A long name is simply not a dtype. */
            const char *dt = json_string_value(v);
            if (json_string_length(v) >= 16)
                return catalog_json_fail(d, vat, err, errlen, "tensor '%s': unknown dtype (a long string)",
                               nm);
            int found = -1;
            for (int i = 0; i < KERN_ST_DTYPE_COUNT; i++)
                if (strcmp(dtypes[i].name, dt) == 0)
                    found = i;
            if (found < 0) {
                char q[40], dc[16];
                snprintf(dc, sizeof dc, "%s", dt);
                catalog_text_clean_str(dc);
                catalog_quote(dc, q, sizeof q);
                return catalog_json_fail(d, vat, err, errlen, "tensor '%s': unknown dtype '%s'", nm, q);
            }
            t->dtype = (enum kern_st_dtype)found;
            have_dtype = true;
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape)
                return catalog_json_fail(d, kat, err, errlen, "tensor '%s': shape given twice", nm);
            int nd = read_uints(v, t->shape, KERN_ST_MAX_DIMS);
            if (nd == -2)
                return catalog_json_fail(d, vat, err, errlen, "tensor '%s': more than %d dimensions", nm,
                               KERN_ST_MAX_DIMS);
            if (nd < 0)
                return catalog_json_fail(d, vat, err, errlen,
                               "tensor '%s': shape must be a list of non-negative integers "
                               "(max %d dimensions)", nm, KERN_ST_MAX_DIMS);
            t->ndim = (unsigned)nd;
            have_shape = true;
        } else if (strcmp(key, "data_offsets") == 0) {
            uint64_t off[2];
            off_at = vat;
            if (have_off)
                return catalog_json_fail(d, kat, err, errlen, "tensor '%s': data_offsets given twice", nm);
            if (read_uints(v, off, 2) != 2)
                return catalog_json_fail(d, vat, err, errlen,
                               "tensor '%s': data_offsets must be [begin, end] (two whole "
                               "numbers)", nm);
            t->begin = off[0];
            t->end = off[1];
            have_off = true;
        }
    }
    if (!have_dtype || !have_shape || !have_off)
        return catalog_json_fail(d, hat, err, errlen, "tensor '%s': missing %s", nm,
                       !have_dtype   ? "dtype"
                       : !have_shape ? "shape"
                                     : "data_offsets");
    uint64_t el = 1;
    bool zero = false;
    for (unsigned i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0)
            zero = true;
        else if (el > UINT64_MAX / t->shape[i])
            return catalog_json_fail(d, hat, err, errlen, "tensor '%s': shape overflows 64 bits", nm);
        else
            el *= t->shape[i];
    }
    if (zero)
        el = 0;
    unsigned bits = dtypes[t->dtype].bits;
    if (el > UINT64_MAX / bits)
        return catalog_json_fail(d, hat, err, errlen, "tensor '%s': byte size overflows 64 bits", nm);
    if (el * bits % 8)
        return catalog_json_fail(d, hat, err, errlen,
                       "tensor '%s': %" PRIu64 " elements of %s (%u bits) are not whole bytes",
                       nm, el, dtypes[t->dtype].name, bits);
    t->elements = el;
    uint64_t bytes = el * bits / 8;
    if (t->begin > t->end || t->end > data_len)
        return catalog_json_fail(d, off_at, err, errlen,
                       "tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64
                       "] out of range: past the end of the file (data section is %" PRIu64
                       " bytes)", nm, t->begin, t->end, data_len);
    if (t->end - t->begin != bytes)
        return catalog_json_fail(d, off_at, err, errlen,
                       "tensor '%s': shape and dtype give %" PRIu64
                       " bytes but data_offsets span %" PRIu64, nm, bytes, t->end - t->begin);
    return 0;
}

/* Parse the JSON header hdr (hlen bytes at byte 8 of a file of file_size
 * bytes) into f->tensors; "byte N: what" in err. jansson reads it; the
 * members are walked in the order of the text (json.h), so that every
 * message has its byte and a name given twice is seen twice. */
static int parse_header(const char *hdr, uint64_t hlen, uint64_t file_size, struct kern_st_file *f,
                        char *err, size_t errlen) {
    struct catalog_json d;
    struct catalog_json_members it;
    char name[KERN_ST_MAX_NAME + 1];
    bool cut;
    size_t cap = 0, kat, vat;
    int rc = -1;
    uint64_t data_len = file_size - 8 - hlen;
    memset(&d, 0, sizeof d);
    d.text = hdr;
    d.len = (size_t)hlen;
    d.base = 8;
    size_t r0 = catalog_json_root_at(&d);
    char c0 = r0 < d.len ? hdr[r0] : '\0';
    if (c0 != '{') {
        if (c0 == '[' || c0 == '"')
            return catalog_json_fail(&d, r0, err, errlen,
                           "the header must be a JSON object, found another value");
        return catalog_json_fail(&d, r0, err, errlen, "the header is not valid JSON: expected an object");
    }
    if (catalog_json_parse(&d, hdr, (size_t)hlen, 8, 0, 0, err, errlen) != 0) {
        /* a syntax error: say where it is */
        if (errlen && strstr(err, "JSON syntax") != NULL) {
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, " (in the header)");
        }
        return -1;
    }
    catalog_json_members_begin(&it, &d, r0);
    while (catalog_json_members_next(&it, name, sizeof name, &cut, &kat, &vat) == 1) {
        if (cut) {
            catalog_json_fail(&d, kat, err, errlen, "a tensor name longer than the %d bytes allowed",
                    KERN_ST_MAX_NAME);
            goto out;
        }
        if (strcmp(name, "__metadata__") == 0)
            continue;
        if (name[0] == '\0') {
            catalog_json_fail(&d, kat, err, errlen, "a tensor name is empty");
            goto out;
        }
        if (f->n >= KERN_ST_MAX_TENSORS) {
            catalog_json_fail(&d, kat, err, errlen, "more than %u tensors in one file",
                    KERN_ST_MAX_TENSORS);
            goto out;
        }
        if (f->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            struct kern_st_tensor *nt = realloc(f->tensors, nc * sizeof *nt);
            if (nt == NULL) {
                catalog_json_fail(&d, kat, err, errlen, "out of memory");
                goto out;
            }
            f->tensors = nt;
            cap = nc;
        }
        struct kern_st_tensor *t = &f->tensors[f->n];
        memset(t, 0, sizeof *t);
        t->name = strdup(name);
        if (t->name == NULL) {
            catalog_json_fail(&d, kat, err, errlen, "out of memory");
            goto out;
        }
        catalog_text_clean_str(t->name); /* a name may reach a terminal */
        t->header_at = d.base + kat;
        f->n++;
        if (read_tensor(&d, json_object_get(d.root, name), vat, t, data_len, err, errlen))
            goto out;
    }
    if (f->n > 1) {
        struct kern_st_tensor **p = malloc(f->n * sizeof *p);
        if (p == NULL) {
            catalog_json_fail(&d, 0, err, errlen, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < f->n; i++)
            p[i] = &f->tensors[i];
        qsort(p, f->n, sizeof *p, cmp_name);
        for (size_t i = 1; i < f->n; i++)
            if (strcmp(p[i - 1]->name, p[i]->name) == 0) {
                const struct kern_st_tensor *a = p[i - 1]->header_at < p[i]->header_at ? p[i] : p[i - 1];
                catalog_json_fail(&d, (size_t)(a->header_at - d.base), err, errlen,
                        "tensor '%.200s' appears twice", a->name);
                free(p);
                goto out;
            }
        free(p);
    }
    /* no two tensors share a byte */
    if (f->n > 1)
        qsort(f->tensors, f->n, sizeof *f->tensors, cmp_begin);
    for (size_t i = 1; i < f->n; i++)
        if (f->tensors[i].begin < f->tensors[i - 1].end) {
            catalog_json_fail(&d, (size_t)(f->tensors[i].header_at - d.base), err, errlen,
                    "tensor '%.200s' overlaps tensor '%.200s' in the data section "
                    "(data_offsets %" PRIu64 " < %" PRIu64 ")",
                    f->tensors[i].name, f->tensors[i - 1].name, f->tensors[i].begin,
                    f->tensors[i - 1].end);
            goto out;
        }
    rc = 0;
out:
    catalog_json_free(&d);
    return rc;
}

/* Check the 8-byte length of a file of size bytes. */
static int check_length(uint64_t hlen, uint64_t size, char *err, size_t errlen) {
    if (hlen > size - 8) {
        snprintf(err, errlen,
                 "byte 0: header length %" PRIu64 " runs past the end of the file (%" PRIu64
                 " bytes)", hlen, size);
        return -1;
    }
    if (hlen > KERN_ST_MAX_HEADER || hlen < 2) {
        snprintf(err, errlen, "byte 0: header length %" PRIu64 " is not plausible (2 .. %u bytes)",
                 hlen, KERN_ST_MAX_HEADER);
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
        snprintf(err, errlen, "byte 0: file too short for a safetensors header (%zu bytes)", size);
        return -1;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | buf[i];
    if (check_length(hlen, size, err, errlen))
        return -1;
    f->header_len = hlen;
    if (parse_header((const char *)buf + 8, hlen, size, f, err, errlen) != 0) {
        kern_st_close(f);
        f->base = buf;
        f->size = size;
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        f->tensors[i].data = buf + 8 + hlen + f->tensors[i].begin;
    return 0;
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
    char msg[1536];
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

/* n bytes at off through pread; 0, or -1 (errno set; 0 at an early end). */
static int pread_all(int fd, void *buf, size_t n, uint64_t off) {
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t got = pread(fd, p, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0)
                errno = 0;
            return -1;
        }
        p += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return 0;
}

int kern_st_read_header(const char *path, struct kern_st_file *f, char *err, size_t errlen) {
    char msg[1536];
    uint8_t len8[8];
    uint64_t size;
    memset(f, 0, sizeof *f);
    int fd = catalog_open_regular(path, &size, err, errlen);
    if (fd < 0)
        return -1;
    if (size < 8) {
        snprintf(err, errlen, "%s: byte 0: file too short for a safetensors header (%" PRIu64
                 " bytes)", path, size);
        close(fd);
        return -1;
    }
    if (pread_all(fd, len8, 8, 0) != 0) {
        snprintf(err, errlen, "%s: byte 0: %s", path,
                 errno ? strerror(errno) : "the file shrank while being read");
        close(fd);
        return -1;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | len8[i];
    if (check_length(hlen, size, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", path, msg);
        close(fd);
        return -1;
    }
    char *hdr = malloc((size_t)hlen);
    if (hdr == NULL) {
        snprintf(err, errlen, "%s: byte 8: out of memory for a %" PRIu64 "-byte header", path,
                 hlen);
        close(fd);
        return -1;
    }
    if (pread_all(fd, hdr, (size_t)hlen, 8) != 0) {
        snprintf(err, errlen, "%s: byte 8: %s", path,
                 errno ? strerror(errno) : "the file shrank while being read");
        free(hdr);
        close(fd);
        return -1;
    }
    close(fd);
    f->size = (size_t)size;
    f->header_len = hlen;
    int rc = parse_header(hdr, hlen, size, f, msg, sizeof msg);
    free(hdr);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        kern_st_close(f);
        return -1;
    }
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
