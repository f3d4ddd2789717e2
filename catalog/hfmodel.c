/*
 * hfmodel.c: a model from Hugging Face files (see hfmodel.h).
 *
 * What a folder holds, in the order transformers' from_pretrained looks
 * (modeling_utils: SAFE_WEIGHTS_INDEX_NAME, SAFE_WEIGHTS_NAME):
 * model.safetensors.index.json (its weight_map names every tensor's
 * shard), else model.safetensors, else shards named
 * "<prefix>-NNNNN-of-MMMMM.safetensors" (all M of them must be there),
 * else a single *.safetensors file; a folder with no safetensors and one
 * .gguf file is that GGUF file. One shard of a set given by name stands for
 * the whole set (the question is whether the model fits).
 *
 * Layers by name: the number after a "layers", "h", "blocks", "layer" or
 * "block" component (model.layers.N., transformer.h.N., gpt_neox.layers.N.);
 * the token and position embeddings by their names (embed_tokens, wte,
 * wpe, embed_in, word_embeddings, tok_embeddings, embed_positions); every
 * other tensor (lm_head, the final norm, a layer past num_hidden_layers
 * such as DeepSeek-V3's MTP module, a vision tower) goes with the head.
 * Routed experts: ".experts." in the name.
 */
#include "catalog/hfmodel.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/internal.h"
#include "catalog/json.h"
#include "catalog/safetensors.h"

#define MAX_SHARDS     4096
#define MAX_DIR_FILES  100000
#define MAX_INDEX_BYTES (256u << 20) /* DeepSeek-V3's index is 9 MB */
#define MAX_ALL_TENSORS (1u << 22)

static const char hf_source[] =
    "the model's config.json (shape) and its safetensors headers (exact tensor bytes)";

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- quantization_config -------------------------------------------- */

/* A whole number member (at offset at): 0 with *v, or -1 with the error. */
static int quant_int(const struct catalog_json *d, const json_t *x, size_t at, const char *key,
                     int64_t *v, char *msg, size_t len) {
    char raw[40];
    if (json_is_integer(x)) {
        *v = (int64_t)json_integer_value(x);
        return 0;
    }
    catalog_json_raw(d, at, raw, sizeof raw);
    return catalog_json_fail(d, at, msg, len, "%s: expected a whole number, found %s", key, raw);
}

/* Copy a string member into buf (at most len - 1 bytes, else an error). */
static int quant_str(const struct catalog_json *d, const json_t *x, size_t at, const char *key,
                     char *buf, size_t cap, char *msg, size_t len) {
    if (json_string_length(x) >= cap)
        return catalog_json_fail(d, at, msg, len, "%s: a string longer than the %zu bytes allowed", key,
                     cap - 1);
    snprintf(buf, cap, "%s", json_string_value(x));
    catalog_text_clean_str(buf); /* it may reach a terminal */
    return 0;
}

/* One member of a quantization config object (its value x at offset at). */
static int quant_member(const struct catalog_json *d, const char *key, const json_t *x, size_t at,
                        struct catalog_hf_quant *q, char *msg, size_t len) {
    int64_t v = 0;
    bool num = json_is_number(x);
    if (strcmp(key, "quant_method") == 0 && json_is_string(x)) {
        if (quant_str(d, x, at, key, q->method, sizeof q->method, msg, len))
            return -1;
        for (char *p = q->method; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        return 0;
    }
    if (strcmp(key, "format") == 0 && json_is_string(x))
        return quant_str(d, x, at, key, q->format, sizeof q->format, msg, len);
    if ((strcmp(key, "bits") == 0 || strcmp(key, "w_bit") == 0 ||
         strcmp(key, "num_bits") == 0) && num) {
        if (quant_int(d, x, at, key, &v, msg, len))
            return -1;
        if (v < 1 || v > 16)
            return catalog_json_fail(d, at, msg, len, "%s: expected 1 to 16 bits, found %" PRId64, key, v);
        q->bits = (unsigned)v;
        return 0;
    }
    if ((strcmp(key, "group_size") == 0 || strcmp(key, "q_group_size") == 0) && num) {
        if (quant_int(d, x, at, key, &v, msg, len))
            return -1;
        if (v < -1 || v == 0 || v > (1 << 24))
            return catalog_json_fail(d, at, msg, len,
                         "%s: expected -1 (per channel) or a positive group, found %" PRId64, key,
                         v);
        q->group = (long)v;
        return 0;
    }
    if (strcmp(key, "type") == 0 && json_is_string(x))
        return quant_str(d, x, at, key, q->type, sizeof q->type, msg, len);
    return 0;
}

/* The members of the object obj at offset at, in the order of the file. */
static int quant_members(const struct catalog_json *d, const json_t *obj, size_t at,
                         struct catalog_hf_quant *q, char *msg, size_t len) {
    struct catalog_json_members it;
    char key[128];
    bool cut;
    size_t vat;
    catalog_json_members_begin(&it, d, at);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, NULL, &vat) == 1)
        if (!cut && quant_member(d, key, json_object_get(obj, key), vat, q, msg, len))
            return -1;
    return 0;
}

/* compressed-tensors' config_groups: {"group_0": {"weights": {...}}}; the
 * first group's weights (in the file's order) give bits, group and type. */
static int quant_groups(const struct catalog_json *d, const json_t *groups, size_t at,
                        struct catalog_hf_quant *q, char *msg, size_t len) {
    struct catalog_json_members it;
    char key[128];
    bool cut;
    size_t vat, wat;
    catalog_json_members_begin(&it, d, at);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, NULL, &vat) == 1) {
        const json_t *g = cut ? NULL : json_object_get(groups, key);
        const json_t *w = json_object_get(g, "weights");
        if (!json_is_object(w) || catalog_json_member_at(d, vat, "weights", 0, NULL, &wat) != 0)
            continue;
        return quant_members(d, w, wat, q, msg, len);
    }
    return 0;
}

/* A quantization_config object at offset at. */
static int quant_object(const struct catalog_json *d, const json_t *obj, size_t at,
                        struct catalog_hf_quant *q, char *msg, size_t len) {
    struct catalog_json_members it;
    char key[128];
    bool cut;
    size_t vat;
    if (!json_is_object(obj))
        return catalog_json_fail(d, at, msg, len, "quantization_config: expected an object, found %s",
                     catalog_json_kind(obj));
    catalog_json_members_begin(&it, d, at);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, NULL, &vat) == 1) {
        const json_t *x = cut ? NULL : json_object_get(obj, key);
        if (cut)
            continue;
        if (strcmp(key, "config_groups") == 0 && json_is_object(x)) {
            if (quant_groups(d, x, vat, q, msg, len))
                return -1;
        } else if (quant_member(d, key, x, vat, q, msg, len)) {
            return -1;
        }
    }
    return 0;
}

int catalog_hf_quant_parse(const char *name, const char *text, size_t len, int top,
                           struct catalog_hf_quant *q, char *err, size_t errlen) {
    struct catalog_json d;
    char msg[512];
    int r = -1;
    memset(q, 0, sizeof *q);
    if (catalog_json_parse(&d, text, len, 0, 0, 0, msg, sizeof msg) != 0)
        return fail(err, errlen, "%s: %s", name, msg);
    size_t at = catalog_json_root_at(&d);
    if (!top) {
        r = quant_object(&d, d.root, at, q, msg, sizeof msg);
        if (r == 0 && q->method[0] == '\0')
            snprintf(q->method, sizeof q->method, "gptq"); /* quantize_config.json: AutoGPTQ */
    } else if (!json_is_object(d.root)) {
        r = catalog_json_fail(&d, at, msg, sizeof msg, "config.json: expected an object, found %s",
                  catalog_json_kind(d.root));
    } else {
        const json_t *qc = json_object_get(d.root, "quantization_config");
        size_t qat;
        r = 0;
        if (json_is_object(qc) &&
            catalog_json_member_at(&d, at, "quantization_config", 0, NULL, &qat) == 0)
            r = quant_object(&d, qc, qat, q, msg, sizeof msg);
    }
    catalog_json_free(&d);
    if (r < 0)
        return fail(err, errlen, "%s: %s", name, msg);
    return 0;
}

/* ---- the files of a model ------------------------------------------- */

struct shard {
    char *name; /* inside dir */
    struct kern_st_file st;
    bool read;
};

struct idx_entry {
    char *tensor;
    size_t shard;
    uint64_t at; /* byte of the index file */
};

struct hfset {
    char dir[1024];
    bool here; /* a bare file name was given: paths without "./" */
    char index[1200]; /* the index file's path; "" without one */
    struct shard *shards;
    size_t n_shards;
    struct idx_entry *idx;
    size_t n_idx;
};

static void set_free(struct hfset *s) {
    for (size_t i = 0; i < s->n_shards; i++) {
        free(s->shards[i].name);
        if (s->shards[i].read)
            kern_st_close(&s->shards[i].st);
    }
    free(s->shards);
    for (size_t i = 0; i < s->n_idx; i++)
        free(s->idx[i].tensor);
    free(s->idx);
    memset(s, 0, sizeof *s);
}

/* Add a shard name (deduplicated); its index in *at. */
static int add_shard(struct hfset *s, const char *name, size_t *at) {
    for (size_t i = 0; i < s->n_shards; i++)
        if (strcmp(s->shards[i].name, name) == 0) {
            *at = i;
            return 0;
        }
    if (s->n_shards >= MAX_SHARDS)
        return -1;
    struct shard *n = realloc(s->shards, (s->n_shards + 1) * sizeof *n);
    if (n == NULL)
        return -1;
    s->shards = n;
    memset(&n[s->n_shards], 0, sizeof n[0]);
    n[s->n_shards].name = strdup(name);
    if (n[s->n_shards].name == NULL)
        return -1;
    *at = s->n_shards++;
    return 0;
}

/* A shard name must be a plain file of the same directory. */
static bool plain_name(const char *n) {
    return n[0] != '\0' && strchr(n, '/') == NULL && strcmp(n, ".") != 0 && strcmp(n, "..") != 0;
}

/* Read model.safetensors.index.json: the shards and where each tensor is. */
static int read_index(struct hfset *s, char *err, size_t errlen) {
    char why[160], msg[1024], key[KERN_ST_MAX_NAME + 1], file[512];
    size_t len = 0;
    char *text = catalog_read_regular(s->index, MAX_INDEX_BYTES, &len, why, sizeof why);
    if (text == NULL)
        return fail(err, errlen, "%s: cannot read: %s", s->index, why);
    struct catalog_json d;
    struct catalog_json_members it;
    bool cut;
    size_t kat, vat, mat, cap = 0;
    int rc = -1;
    if (catalog_json_parse(&d, text, len, 0, 0, 0, msg, sizeof msg) != 0)
        goto out;
    size_t at = catalog_json_root_at(&d);
    const json_t *map = json_object_get(d.root, "weight_map");
    if (!json_is_object(d.root)) {
        catalog_json_fail(&d, at, msg, sizeof msg, "the index: expected an object, found %s",
              catalog_json_kind(d.root));
        goto out;
    }
    if (map == NULL || catalog_json_member_at(&d, at, "weight_map", 0, NULL, &mat) != 0) {
        catalog_json_fail(&d, 0, msg, sizeof msg, "the index has no weight_map (tensor name -> shard file)");
        goto out;
    }
    if (!json_is_object(map)) {
        catalog_json_fail(&d, mat, msg, sizeof msg, "weight_map: expected an object, found %s",
              catalog_json_kind(map));
        goto out;
    }
    catalog_json_members_begin(&it, &d, mat);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, &kat, &vat) == 1) {
        const json_t *f = cut ? NULL : json_object_get(map, key);
        if (cut) {
            catalog_json_fail(&d, kat, msg, sizeof msg, "a tensor name longer than the %d bytes allowed",
                  KERN_ST_MAX_NAME);
            goto out;
        }
        if (!json_is_string(f)) {
            catalog_json_fail(&d, vat, msg, sizeof msg, "%s: expected a string, found %s", key,
                  catalog_json_kind(f));
            goto out;
        }
        if (json_string_length(f) >= sizeof file) {
            catalog_json_fail(&d, vat, msg, sizeof msg, "%s: a string longer than the %zu bytes allowed", key,
                  sizeof file - 1);
            goto out;
        }
        snprintf(file, sizeof file, "%s", json_string_value(f));
        catalog_text_clean_str(key); /* both may reach a terminal */
        catalog_text_clean_str(file);
        if (!plain_name(file)) {
            catalog_json_fail(&d, vat, msg, sizeof msg,
                  "tensor '%s': shard \"%.200s\" is not a file name of this directory", key, file);
            goto out;
        }
        if (s->n_idx >= MAX_ALL_TENSORS) {
            catalog_json_fail(&d, kat, msg, sizeof msg, "more than %u tensors", MAX_ALL_TENSORS);
            goto out;
        }
        if (s->n_idx == cap) {
            size_t nc = cap ? cap * 2 : 256;
            struct idx_entry *n = realloc(s->idx, nc * sizeof *n);
            if (n == NULL) {
                catalog_json_fail(&d, kat, msg, sizeof msg, "out of memory");
                goto out;
            }
            s->idx = n;
            cap = nc;
        }
        struct idx_entry *e = &s->idx[s->n_idx];
        e->at = kat;
        e->tensor = strdup(key);
        if (e->tensor == NULL || add_shard(s, file, &e->shard) != 0) {
            free(e->tensor);
            catalog_json_fail(&d, vat, msg, sizeof msg, "too many shards (at most %d) or out of memory",
                  MAX_SHARDS);
            goto out;
        }
        s->n_idx++;
    }
    if (s->n_shards == 0) {
        catalog_json_fail(&d, 0, msg, sizeof msg, "the index's weight_map is empty");
        goto out;
    }
    rc = 0;
out:
    if (rc)
        fail(err, errlen, "%s: %s", s->index, msg);
    catalog_json_free(&d);
    free(text);
    return rc;
}

/* "<prefix>-NNNNN-of-MMMMM.safetensors": M, and the prefix's length. */
static unsigned shard_pattern(const char *name, size_t *prefix) {
    size_t n = strlen(name);
    const char *suf = ".safetensors";
    size_t k = strlen(suf);
    /* -00001-of-00004.safetensors: 1 + 5 + 4 + 5 */
    if (n < k + 15 || strcmp(name + n - k, suf) != 0)
        return 0;
    const char *p = name + n - k - 15;
    if (p[0] != '-' || strncmp(p + 6, "-of-", 4) != 0)
        return 0;
    unsigned i = 0, m = 0;
    for (int d = 0; d < 5; d++) {
        if (p[1 + d] < '0' || p[1 + d] > '9' || p[10 + d] < '0' || p[10 + d] > '9')
            return 0;
        i = i * 10 + (unsigned)(p[1 + d] - '0');
        m = m * 10 + (unsigned)(p[10 + d] - '0');
    }
    if (i < 1 || m < 1 || i > m)
        return 0;
    *prefix = (size_t)(p - name);
    return m;
}

/* The set of "<prefix>-NNNNN-of-MMMMM.safetensors" for one name of it. */
static int pattern_set(struct hfset *s, const char *one, char *err, size_t errlen) {
    size_t prefix, at;
    unsigned m = shard_pattern(one, &prefix);
    if (m > MAX_SHARDS)
        return fail(err, errlen, "%s/%s: a set of %u shards, more than the %d read", s->dir, one,
                    m, MAX_SHARDS);
    for (unsigned i = 1; i <= m; i++) {
        char name[600];
        snprintf(name, sizeof name, "%.*s-%05u-of-%05u.safetensors", (int)prefix, one, i, m);
        if (add_shard(s, name, &at) != 0)
            return fail(err, errlen, "%s: out of memory", s->dir);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Choose the files of a folder. Returns 0, 1 (one GGUF file: its path in
 * gguf) or -1. */
static int scan_dir(struct hfset *s, char *gguf, size_t gguflen, char *err, size_t errlen) {
    char p[1400];
    size_t at;
    snprintf(s->index, sizeof s->index, "%s/model.safetensors.index.json", s->dir);
    if (exists(s->index))
        return read_index(s, err, errlen);
    s->index[0] = '\0';
    snprintf(p, sizeof p, "%s/model.safetensors", s->dir);
    if (exists(p))
        return add_shard(s, "model.safetensors", &at) ? fail(err, errlen, "out of memory") : 0;
    DIR *d = opendir(s->dir);
    if (d == NULL)
        return fail(err, errlen, "%s: %s", s->dir, strerror(errno));
    char **st = NULL, **gg = NULL;
    size_t nst = 0, ngg = 0, seen = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL && seen++ < MAX_DIR_FILES) {
        char ***list = ends_with(e->d_name, ".safetensors") ? &st
                       : ends_with(e->d_name, ".gguf")      ? &gg
                                                            : NULL;
        size_t *n = list == &st ? &nst : &ngg;
        if (list == NULL || e->d_name[0] == '.')
            continue;
        char **grown = realloc(*list, (*n + 1) * sizeof **list);
        if (grown == NULL || (grown[*n] = strdup(e->d_name)) == NULL) {
            if (grown)
                *list = grown;
            rc = fail(err, errlen, "%s: out of memory", s->dir);
            break;
        }
        *list = grown;
        (*n)++;
    }
    closedir(d);
    if (rc == 0) {
        if (nst)
            qsort(st, nst, sizeof *st, cmp_str);
        size_t prefix;
        if (nst > 0 && shard_pattern(st[0], &prefix)) {
            rc = pattern_set(s, st[0], err, errlen);
        } else if (nst == 1) {
            rc = add_shard(s, st[0], &at) ? fail(err, errlen, "out of memory") : 0;
        } else if (nst > 1) {
            rc = fail(err, errlen,
                      "%s: %zu safetensors files (%s, %s%s) and no model.safetensors.index.json "
                      "to say which belong to the model: give one file or add the index",
                      s->dir, nst, st[0], st[1], nst > 2 ? ", ..." : "");
        } else if (ngg == 1) {
            snprintf(gguf, gguflen, "%s/%s", s->dir, gg[0]);
            rc = 1;
        } else if (ngg > 1) {
            rc = fail(err, errlen, "%s: %zu GGUF files and no safetensors: give one file", s->dir,
                      ngg);
        } else {
            rc = fail(err, errlen,
                      "%s: no model in this directory (expected config.json with "
                      "model.safetensors, model.safetensors.index.json and its shards, or "
                      "one .gguf file)", s->dir);
        }
    }
    for (size_t i = 0; i < nst; i++)
        free(st[i]);
    for (size_t i = 0; i < ngg; i++)
        free(gg[i]);
    free(st);
    free(gg);
    return rc;
}

/* The path of a file of the set. */
static void file_path(const struct hfset *s, const char *name, char *buf, size_t len) {
    if (s->here)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "%s/%s", s->dir, name);
}

/* Say which shards are missing, then read every shard's header. */
static int read_shards(struct hfset *s, char *err, size_t errlen) {
    char p[1400];
    size_t missing = 0, used = 0;
    char list[900];
    list[0] = '\0';
    for (size_t i = 0; i < s->n_shards; i++) {
        file_path(s, s->shards[i].name, p, sizeof p);
        if (exists(p))
            continue;
        if (used < sizeof list - 8) {
            int k = snprintf(list + used, sizeof list - used, "%s%s", missing ? ", " : "",
                             s->shards[i].name);
            if (k > 0)
                used += (size_t)k;
            if (used >= sizeof list - 8) {
                used = sizeof list - 8;
                snprintf(list + used, sizeof list - used, ", ...");
            }
        }
        missing++;
    }
    if (missing)
        return fail(err, errlen, "%s: %zu of %zu shards %s missing: %s%s%s", s->dir, missing,
                    s->n_shards, missing == 1 ? "is" : "are", list,
                    s->index[0] ? " (named by " : "",
                    s->index[0] ? "model.safetensors.index.json)" : "");
    for (size_t i = 0; i < s->n_shards; i++) {
        file_path(s, s->shards[i].name, p, sizeof p);
        if (kern_st_read_header(p, &s->shards[i].st, err, errlen) != 0)
            return -1;
        s->shards[i].read = true;
    }
    return 0;
}

/* ---- tensors -------------------------------------------------------- */

struct ref {
    const struct kern_st_tensor *t;
    size_t shard;
};

static int cmp_ref(const void *a, const void *b) {
    return strcmp(((const struct ref *)a)->t->name, ((const struct ref *)b)->t->name);
}

static const struct ref *find_ref(const struct ref *r, size_t n, const char *name) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r[mid].t->name, name);
        if (c == 0)
            return &r[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The sibling named base + suffix, or NULL. */
static const struct ref *sibling(const struct ref *r, size_t n, const char *name, size_t base,
                                 const char *suffix) {
    char b[KERN_ST_MAX_NAME + 40];
    if (base + strlen(suffix) >= sizeof b)
        return NULL;
    snprintf(b, sizeof b, "%.*s%s", (int)base, name, suffix);
    return find_ref(r, n, b);
}

/* Scale and zero tensors: they count no parameters. */
static const char *const aux_suffix[] = {
    ".scales",           ".qzeros",           ".g_idx",         ".weight_scale_inv",
    ".weight_scale",     ".weight_zero_point", ".weight_g_idx",  ".weight_shape",
    ".weight_global_scale", ".input_global_scale", ".input_scale", ".output_scale",
    ".k_scale",          ".v_scale",          ".q_scale",       "_scales",
};
/* What an aux tensor belongs to: the quantized weight beside it. */
static const char *const weight_suffix[] = {".qweight", ".weight_packed", ".weight", "_blocks"};

/* The layer of a name, or -1: the number after a layers/h/blocks part. */
static long layer_of(const char *name) {
    static const char *const skip[] = {"vision", "visual", "image", "audio", "speech",
                                       "mm_projector", "multi_modal", "mtp"};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strstr(name, skip[i]))
            return -1;
    const char *p = name;
    while (*p) {
        const char *dot = strchr(p, '.');
        if (dot == NULL)
            break;
        size_t n = (size_t)(dot - p);
        if ((n == 6 && strncmp(p, "layers", 6) == 0) || (n == 1 && p[0] == 'h') ||
            (n == 6 && strncmp(p, "blocks", 6) == 0) || (n == 5 && strncmp(p, "layer", 5) == 0) ||
            (n == 5 && strncmp(p, "block", 5) == 0)) {
            const char *q = dot + 1;
            long v = 0;
            if (*q < '0' || *q > '9')
                return -1;
            while (*q >= '0' && *q <= '9') {
                v = v * 10 + (*q - '0');
                if (v > 1000000)
                    return -1;
                q++;
            }
            return *q == '.' || *q == '\0' ? v : -1;
        }
        p = dot + 1;
    }
    return -1;
}

static bool is_embedding(const char *name) {
    static const char *const emb[] = {"embed_tokens.weight", "wte.weight", "wpe.weight",
                                      "embed_in.weight", "word_embeddings.weight",
                                      "tok_embeddings.weight", "embed_positions.weight",
                                      "position_embeddings.weight"};
    if (strstr(name, "vision") || strstr(name, "visual") || strstr(name, "audio"))
        return false;
    for (size_t i = 0; i < sizeof emb / sizeof emb[0]; i++) {
        size_t k = strlen(emb[i]), n = strlen(name);
        if (n >= k && strcmp(name + n - k, emb[i]) == 0 && (n == k || name[n - k - 1] == '.'))
            return true;
    }
    return false;
}

/* The bits of a packed weight (config first, then its shapes); 0 unknown.
 * GPTQ: qweight [in x bits/32, out], g_idx [in]; AWQ: qweight
 * [in, out x bits/32], scales [in/group, out]. */
static unsigned packed_bits(const struct catalog_hf_quant *q, const struct ref *r, size_t n,
                            const struct kern_st_tensor *t, size_t base, bool *awq) {
    const struct ref *sc = sibling(r, n, t->name, base, ".scales");
    const struct ref *gi = sibling(r, n, t->name, base, ".g_idx");
    *awq = strcmp(q->method, "awq") == 0;
    if (q->method[0] == '\0' && sc && t->ndim == 2 && sc->t->ndim == 2)
        *awq = sc->t->shape[1] != t->shape[1];
    if (q->bits)
        return q->bits;
    if (t->ndim != 2)
        return 0;
    if (!*awq && gi && gi->t->elements > 0 && (32 * t->shape[0]) % gi->t->elements == 0)
        return (unsigned)(32 * t->shape[0] / gi->t->elements);
    if (*awq && sc && sc->t->ndim == 2 && sc->t->shape[1] > 0 &&
        (32 * t->shape[1]) % sc->t->shape[1] == 0)
        return (unsigned)(32 * t->shape[1] / sc->t->shape[1]);
    return 0;
}

/* The type name of a packed weight. */
static void packed_name(const struct catalog_hf_quant *q, bool awq, bool ct, unsigned bits,
                        char *buf, size_t len) {
    char g[24] = "";
    if (q->group > 0)
        snprintf(g, sizeof g, "_G%ld", q->group);
    if (ct) {
        if (strcmp(q->type, "float") == 0 && bits == 4 && strstr(q->format, "nvfp4"))
            snprintf(buf, len, "NVFP4");
        else
            snprintf(buf, len, "%s%u%s", strcmp(q->type, "float") == 0 ? "FP" : "INT", bits, g);
    } else {
        snprintf(buf, len, "%s_INT%u%s", awq ? "AWQ" : "GPTQ", bits, g);
    }
}

struct acc {
    struct catalog_mf_type types[CATALOG_MF_TYPES_MAX];
    size_t n;
};

static void add_type(struct acc *a, const char *name, double params, double bytes) {
    size_t i;
    for (i = 0; i < a->n; i++)
        if (strcmp(a->types[i].name, name) == 0)
            break;
    if (i == a->n) {
        if (a->n == CATALOG_MF_TYPES_MAX)
            i = a->n - 1; /* the last slot gathers the rest */
        else {
            memset(&a->types[i], 0, sizeof a->types[i]);
            snprintf(a->types[i].name, sizeof a->types[i].name, "%s", name);
            a->n++;
        }
    }
    a->types[i].tensors++;
    a->types[i].params += params;
    a->types[i].bytes += bytes;
}

static int cmp_type(const void *a, const void *b) {
    const struct catalog_mf_type *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The type and parameters of one tensor (a weight or plain tensor). */
static int classify(const struct catalog_hf_quant *q, const struct ref *r, size_t n,
                    const struct kern_st_tensor *t, char *type, size_t tlen, double *params,
                    char *err, size_t errlen, const char *file) {
    const char *nm = t->name;
    size_t len = strlen(nm);
    *params = (double)t->elements;
    snprintf(type, tlen, "%s", kern_st_dtype_name(t->dtype));
    bool qw = ends_with(nm, ".qweight"), wp = ends_with(nm, ".weight_packed");
    if ((qw || wp) && t->dtype != KERN_ST_I32 && t->dtype != KERN_ST_U32 &&
        t->dtype != KERN_ST_I8 && t->dtype != KERN_ST_U8)
        return fail(err, errlen, "%s: byte %" PRIu64 ": tensor '%s': a packed weight of dtype %s "
                    "(expected I32, U32, I8 or U8 words)", file, t->header_at, nm,
                    kern_st_dtype_name(t->dtype));
    if (qw) {
        bool awq;
        size_t base = len - strlen(".qweight");
        unsigned bits = packed_bits(q, r, n, t, base, &awq);
        if (bits == 0)
            return fail(err, errlen, "%s: byte %" PRIu64 ": tensor '%s': its bits per weight are "
                        "unknown (config.json has no quantization_config with bits, and no "
                        "g_idx or scales give them)", file, t->header_at, nm);
        *params = (double)t->elements * kern_st_dtype_bits(t->dtype) / bits;
        packed_name(q, awq, false, bits, type, tlen);
    } else if (wp) {
        unsigned bits = q->bits;
        if (bits == 0)
            return fail(err, errlen, "%s: byte %" PRIu64 ": tensor '%s': its bits per weight are "
                        "unknown (config.json's quantization_config has no config_groups "
                        "weights num_bits)", file, t->header_at, nm);
        *params = (double)t->elements * kern_st_dtype_bits(t->dtype) / bits;
        packed_name(q, false, true, bits, type, tlen);
    } else if (ends_with(nm, "_blocks") && (t->dtype == KERN_ST_U8 || t->dtype == KERN_ST_I8) &&
               sibling(r, n, nm, len - strlen("_blocks"), "_scales")) {
        /* gpt-oss: MXFP4 blocks of 32 weights in 16 bytes, E8M0 scales */
        *params = (double)t->elements * 2;
        snprintf(type, tlen, "MXFP4");
    } else if (t->dtype == KERN_ST_F4) {
        snprintf(type, tlen, "F4");
    }
    return 0;
}

/* Sum the tensors into the model and the summary. */
static int count(const struct hfset *s, const struct catalog_hf_quant *q, struct engine_model *m,
                 struct catalog_model_file *mf, char *err, size_t errlen) {
    size_t total = 0;
    for (size_t i = 0; i < s->n_shards; i++)
        total += s->shards[i].st.n;
    if (total > MAX_ALL_TENSORS)
        return fail(err, errlen, "%s: %zu tensors, more than the %u read", s->dir, total,
                    MAX_ALL_TENSORS);
    struct ref *r = malloc((total ? total : 1) * sizeof *r);
    struct acc *a = calloc(1, sizeof *a);
    int rc = -1;
    char file[1400];
    if (r == NULL || a == NULL) {
        fail(err, errlen, "%s: out of memory", s->dir);
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n_shards; i++)
        for (size_t j = 0; j < s->shards[i].st.n; j++) {
            r[k].t = &s->shards[i].st.tensors[j];
            r[k].shard = i;
            k++;
        }
    qsort(r, total, sizeof *r, cmp_ref);
    for (size_t i = 1; i < total; i++)
        if (strcmp(r[i - 1].t->name, r[i].t->name) == 0) {
            file_path(s, s->shards[r[i].shard].name, file, sizeof file);
            fail(err, errlen, "%s: byte %" PRIu64 ": tensor '%.300s' appears twice: also in %s",
                 file, r[i].t->header_at, r[i].t->name,
                 s->shards[r[i - 1].shard].name);
            goto out;
        }
    /* The index says where each tensor is: it must be there. */
    for (size_t i = 0; i < s->n_idx; i++) {
        const struct ref *f = find_ref(r, total, s->idx[i].tensor);
        if (f == NULL || f->shard != s->idx[i].shard) {
            fail(err, errlen, "%s: byte %" PRIu64 ": tensor '%.300s': the index puts it in %s, "
                 "which has no such tensor%s%s", s->index, s->idx[i].at, s->idx[i].tensor,
                 s->shards[s->idx[i].shard].name, f ? "; it is in " : "",
                 f ? s->shards[f->shard].name : "");
            goto out;
        }
    }
    for (size_t i = 0; i < total; i++) {
        const struct kern_st_tensor *t = r[i].t;
        const char *nm = t->name;
        double bytes = (double)(t->end - t->begin), params;
        char type[16];
        file_path(s, s->shards[r[i].shard].name, file, sizeof file);
        /* A scale or zero tensor: no parameters, the type of its weight. */
        const char *aux = NULL;
        size_t base = 0;
        for (size_t a2 = 0; a2 < sizeof aux_suffix / sizeof aux_suffix[0] && !aux; a2++)
            if (ends_with(nm, aux_suffix[a2])) {
                aux = aux_suffix[a2];
                base = strlen(nm) - strlen(aux);
            }
        const struct ref *owner = NULL;
        for (size_t w = 0; aux && w < sizeof weight_suffix / sizeof weight_suffix[0] && !owner; w++)
            owner = sibling(r, total, nm, base, weight_suffix[w]);
        bool kv_scale = aux && (strcmp(aux, ".k_scale") == 0 || strcmp(aux, ".v_scale") == 0 ||
                                strcmp(aux, ".q_scale") == 0 || strcmp(aux, ".input_scale") == 0 ||
                                strcmp(aux, ".output_scale") == 0);
        if (owner && owner->t != t) {
            if (classify(q, r, total, owner->t, type, sizeof type, &params, err, errlen, file))
                goto out;
            params = 0;
        } else if (kv_scale) {
            snprintf(type, sizeof type, "%s", kern_st_dtype_name(t->dtype));
            params = 0;
        } else if (classify(q, r, total, t, type, sizeof type, &params, err, errlen, file)) {
            goto out;
        }
        long layer = layer_of(nm);
        if (layer >= 0 && (uint64_t)layer < m->layers) {
            m->file_layer_bytes[layer] += bytes;
            m->file_layer_params += params;
            if (strstr(nm, ".experts.")) {
                m->file_expert_params += params;
                m->file_expert_bytes += bytes;
            }
        } else if (is_embedding(nm)) {
            m->file_embed_params += params;
            m->file_embed_bytes += bytes;
        } else {
            m->file_head_params += params;
            m->file_head_bytes += bytes;
        }
        m->file_params += params;
        mf->params += params;
        mf->bytes += bytes;
        add_type(a, type, params, bytes);
    }
    if (!(m->file_params > 0)) {
        fail(err, errlen, "%s: the safetensors files hold no tensors with elements", s->dir);
        goto out;
    }
    memcpy(mf->types, a->types, a->n * sizeof a->types[0]);
    mf->n_types = a->n;
    qsort(mf->types, mf->n_types, sizeof mf->types[0], cmp_type);
    mf->tensors = total;
    rc = 0;
out:
    free(r);
    free(a);
    return rc;
}

/* ---- config.json ---------------------------------------------------- */

static int read_config(const char *dir, const char *given, struct engine_model *m,
                       struct catalog_hf_quant *q, char *err, size_t errlen) {
    char path[1400], why[160];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!exists(path))
        return fail(err, errlen,
                    "%s: no config.json %s: a safetensors header holds no architecture (layers, "
                    "heads, KV heads); put the model's config.json beside its safetensors",
                    given, is_dir(given) ? "in it" : "beside it");
    struct catalog_diag d = {0};
    if (catalog_import_hf_config(path, m, &d) != 0) {
        size_t n = d.text ? strlen(d.text) : 0;
        while (n > 0 && d.text[n - 1] == '\n')
            n--;
        fail(err, errlen, "%.*s", (int)(n < 1200 ? n : 1200), d.text ? d.text : path);
        catalog_diag_free(&d);
        return -1;
    }
    catalog_diag_free(&d);
    char *text = catalog_read_regular(path, CATALOG_MAX_FILE_BYTES, &len, why, sizeof why);
    if (text == NULL)
        return fail(err, errlen, "%s: cannot read: %s", path, why);
    int rc = catalog_hf_quant_parse(path, text, len, 1, q, err, errlen);
    free(text);
    if (rc == 0 && q->method[0] == '\0') {
        /* AutoGPTQ's quantize_config.json, AutoAWQ's quant_config.json */
        static const char *const extra[] = {"quantize_config.json", "quant_config.json"};
        for (size_t i = 0; i < 2 && rc == 0 && q->method[0] == '\0'; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, extra[i]);
            if (!exists(path))
                continue;
            text = catalog_read_regular(path, CATALOG_MAX_FILE_BYTES, &len, why, sizeof why);
            if (text == NULL)
                return fail(err, errlen, "%s: cannot read: %s", path, why);
            rc = catalog_hf_quant_parse(path, text, len, 0, q, err, errlen);
            if (rc == 0 && i == 1)
                snprintf(q->method, sizeof q->method, "awq");
            free(text);
        }
    }
    return rc;
}

/* ---- the whole model ------------------------------------------------ */

int catalog_hf_model_load(const char *path, struct engine_model *m, struct catalog_model_file *mf,
                          char *gguf, size_t gguflen, char *err, size_t errlen) {
    struct hfset s;
    struct catalog_hf_quant q;
    char why[160];
    int rc;
    memset(&s, 0, sizeof s);
    memset(mf, 0, sizeof *mf);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (is_dir(path)) {
        snprintf(s.dir, sizeof s.dir, "%s", path);
        size_t n = strlen(s.dir);
        while (n > 1 && s.dir[n - 1] == '/')
            s.dir[--n] = '\0';
        rc = scan_dir(&s, gguf, gguflen, err, errlen);
    } else {
        if (!catalog_file_check(path, 0, why, sizeof why))
            return fail(err, errlen, "%s: %s", path, why);
        if (slash)
            snprintf(s.dir, sizeof s.dir, "%.*s", (int)(slash - path), path);
        else {
            snprintf(s.dir, sizeof s.dir, ".");
            s.here = true;
        }
        if (s.dir[0] == '\0')
            snprintf(s.dir, sizeof s.dir, "/");
        size_t at, prefix;
        if (strcmp(base, "config.json") == 0) {
            rc = scan_dir(&s, gguf, gguflen, err, errlen);
        } else if (ends_with(base, ".json")) {
            snprintf(s.index, sizeof s.index, "%s", path);
            rc = read_index(&s, err, errlen);
        } else if (shard_pattern(base, &prefix) > 1) {
            rc = pattern_set(&s, base, err, errlen);
        } else {
            rc = add_shard(&s, base, &at) ? fail(err, errlen, "%s: out of memory", path) : 0;
        }
    }
    if (rc != 0) {
        set_free(&s);
        return rc;
    }
    if (read_shards(&s, err, errlen) || read_config(s.dir, path, m, &q, err, errlen)) {
        set_free(&s);
        return -1;
    }
    if (m->layers > ENGINE_FILE_LAYERS_MAX) {
        fail(err, errlen, "%s/config.json: %u layers, more than the %u read", s.dir, m->layers,
             ENGINE_FILE_LAYERS_MAX);
        set_free(&s);
        return -1;
    }
    snprintf(mf->path, sizeof mf->path, "%s", path);
    mf->format = "safetensors";
    snprintf(mf->arch, sizeof mf->arch, "%s", m->family);
    mf->shards = (uint32_t)s.n_shards;
    for (size_t i = 0; i < s.n_shards; i++)
        mf->file_size += (double)s.shards[i].st.size;
    if (q.method[0]) {
        size_t n = (size_t)snprintf(mf->quant, sizeof mf->quant, "%s", q.method);
        if (q.bits && n < sizeof mf->quant)
            n += (size_t)snprintf(mf->quant + n, sizeof mf->quant - n, " %u-bit", q.bits);
        if (q.group > 0 && n < sizeof mf->quant)
            snprintf(mf->quant + n, sizeof mf->quant - n, ", group %ld", q.group);
        else if (q.group < 0 && n < sizeof mf->quant)
            snprintf(mf->quant + n, sizeof mf->quant - n, ", per channel");
    }
    rc = count(&s, &q, m, mf, err, errlen);
    set_free(&s);
    if (rc)
        return -1;
    m->source = hf_source;
    m->file_bytes = true;
    m->params_published = m->file_params;
    return 0;
}
