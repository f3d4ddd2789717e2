/*
 * modelfile.c: a model from a GGUF header (see modelfile.h).
 *
 * The architecture comes from llama.cpp's metadata keys (llama-arch.cpp's
 * LLM_KV names, gguf-py's constants.py Keys): `<arch>.block_count` layers,
 * `.embedding_length` hidden, `.feed_forward_length` ffn (a per-layer array:
 * its largest), `.attention.head_count` / `.head_count_kv` (arrays: the
 * largest), `.attention.key_length` head size, `.context_length`,
 * `.attention.sliding_window`, `.expert_count`, `.expert_used_count`,
 * `.expert_shared_count`, `.expert_feed_forward_length`,
 * `.leading_dense_block_count`, MLA's `.attention.q_lora_rank`,
 * `.attention.kv_lora_rank`, `.rope.dimension_count`. What the keys leave
 * implicit is read from the tensor names llama.cpp uses: no `output.weight`
 * means a tied head; `blk.0.ffn_gate*` a gated MLP; `blk.0.attn_q.bias`
 * QKV biases, `blk.0.attn_output.bias` biases everywhere;
 * `blk.0.attn_norm.bias` LayerNorm; `blk.0.attn_q_norm.weight` QK norms.
 *
 * Bytes: every `blk.N.` tensor belongs to layer N, `token_embd` and
 * `position_embd` to the embedding, everything else (output head, final
 * norm, rope tables) to the head; `_exps` tensors are the routed experts.
 */
#include "catalog/modelfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "catalog/gguf.h"
#include "catalog/hfmodel.h"

static const char gguf_source[] = "the model file's GGUF header (metadata and tensor infos)";

#define META_AT 24 /* the metadata follows magic, version and the two counts */

/* <arch>.<suffix> as an unsigned integer; a numeric array gives its largest
 * value. False when absent. */
static bool arch_uint(const struct gguf_file *g, const char *arch, const char *suffix,
                      uint64_t *out) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    const struct gguf_kv *kv = gguf_find(g, key);
    if (kv == NULL)
        return false;
    if (kv->type == GGUF_V_ARRAY) {
        if (kv->values == NULL || kv->count == 0)
            return false;
        double best = 0;
        for (uint64_t i = 0; i < kv->count; i++)
            if (kv->values[i] > best)
                best = kv->values[i];
        if (!(best >= 0 && best < 18446744073709551616.0))
            return false;
        *out = (uint64_t)best;
        return true;
    }
    return gguf_get_uint(g, key, out);
}

static bool has_tensor(const struct gguf_file *g, const char *name) {
    for (size_t i = 0; i < g->n_tensors; i++)
        if (strcmp(g->tensors[i].name, name) == 0)
            return true;
    return false;
}

static const struct gguf_tensor *find_tensor(const struct gguf_file *g, const char *name) {
    for (size_t i = 0; i < g->n_tensors; i++)
        if (strcmp(g->tensors[i].name, name) == 0)
            return &g->tensors[i];
    return NULL;
}

/* Whether some tensor's name starts with prefix. */
static bool has_prefix(const struct gguf_file *g, const char *prefix) {
    size_t n = strlen(prefix);
    for (size_t i = 0; i < g->n_tensors; i++)
        if (strncmp(g->tensors[i].name, prefix, n) == 0)
            return true;
    return false;
}

/* The layer of a "blk.N." name, or -1. */
static long block_of(const char *name) {
    if (strncmp(name, "blk.", 4) != 0)
        return -1;
    const char *p = name + 4;
    long n = 0;
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (*p - '0');
        if (n > 1000000)
            return -1;
        p++;
    }
    return *p == '.' ? n : -1;
}

static int cmp_type_bytes(const void *a, const void *b) {
    const struct catalog_mf_type *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Copy the file's base name without ".gguf" into buf. */
static void base_id(const char *path, char *buf, size_t len) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(buf, len, "%s", b);
    size_t n = strlen(buf);
    if (n > 5 && strcmp(buf + n - 5, ".gguf") == 0)
        buf[n - 5] = '\0';
}

/* A required positive count that fits in 32 bits. */
static int need(const struct gguf_file *g, const char *name, const char *arch, const char *suffix,
                uint32_t *out, char *err, size_t errlen) {
    uint64_t v;
    if (!arch_uint(g, arch, suffix, &v)) {
        snprintf(err, errlen, "%s: byte %d: the metadata has no %s.%s (an unsigned integer)",
                 name, META_AT, arch, suffix);
        return -1;
    }
    if (v == 0 || v > UINT32_MAX) {
        snprintf(err, errlen, "%s: byte %d: %s.%s is %" PRIu64 ", expected 1 to %u", name,
                 META_AT, arch, suffix, v, (unsigned)UINT32_MAX);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* An optional count (0 when absent or out of range). */
static uint32_t opt(const struct gguf_file *g, const char *arch, const char *suffix) {
    uint64_t v;
    return arch_uint(g, arch, suffix, &v) && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static void file_mats(const struct gguf_file *g, const struct engine_model *m,
                      struct catalog_model_file *mf);

static int from_gguf(const struct gguf_file *g, const char *name, struct engine_model *m,
                     struct catalog_model_file *mf, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    memset(mf, 0, sizeof *mf);
    snprintf(mf->path, sizeof mf->path, "%s", name);
    mf->format = "gguf";
    mf->version = g->version;
    mf->file_size = (double)g->file_size;
    const char *arch = gguf_get_str(g, "general.architecture");
    if (arch == NULL || arch[0] == '\0' || strlen(arch) >= sizeof mf->arch) {
        snprintf(err, errlen, "%s: byte %d: the metadata has no general.architecture (a string)",
                 name, META_AT);
        return -1;
    }
    snprintf(mf->arch, sizeof mf->arch, "%s", arch);
    if (need(g, name, arch, "block_count", &m->layers, err, errlen) ||
        need(g, name, arch, "embedding_length", &m->hidden, err, errlen) ||
        need(g, name, arch, "attention.head_count", &m->heads, err, errlen))
        return -1;
    if (m->layers > ENGINE_FILE_LAYERS_MAX) {
        snprintf(err, errlen, "%s: byte %d: %s.block_count is %u, more than the %u layers read",
                 name, META_AT, arch, m->layers, ENGINE_FILE_LAYERS_MAX);
        return -1;
    }
    m->has_arch = true;
    m->source = gguf_source;
    base_id(name, m->id, sizeof m->id);
    const char *gname = gguf_get_str(g, "general.name");
    snprintf(m->name, sizeof m->name, "%s", gname && gname[0] ? gname : m->id);
    snprintf(m->family, sizeof m->family, "%s", arch);
    m->kv_heads = opt(g, arch, "attention.head_count_kv");
    if (m->kv_heads == 0 || m->kv_heads > m->heads)
        m->kv_heads = m->heads;
    m->head_dim = opt(g, arch, "attention.key_length");
    m->ffn = opt(g, arch, "feed_forward_length");
    m->max_context = opt(g, arch, "context_length");
    /* Rope scaling (llama.cpp's convert: <arch>.rope.scaling.type, .factor,
     * .original_context_length): the context before the extension. */
    m->native_context = opt(g, arch, "rope.scaling.original_context_length");
    if (m->native_context) {
        char key[160];
        snprintf(key, sizeof key, "%s.rope.scaling.type", arch);
        const char *type = gguf_get_str(g, key);
        snprintf(m->rope_scaling, sizeof m->rope_scaling, "%s", type ? type : "");
        snprintf(key, sizeof key, "%s.rope.scaling.factor", arch);
        double f;
        if (gguf_get_float(g, key, &f) && f > 0 && f < 1e6)
            m->rope_factor = f;
        if (m->native_context >= m->max_context)
            m->native_context = 0; /* not an extension */
    }
    m->sliding_window = opt(g, arch, "attention.sliding_window");
    if (m->sliding_window) {
        /* Which layers use the window: Gemma 2 alternates (even layers
         * local), Gemma 3 keeps every sixth global (llama.cpp's
         * hparams.set_swa_pattern); others window every layer. */
        if (strcmp(arch, "gemma2") == 0)
            m->sliding_layers = (m->layers + 1) / 2;
        else if (strcmp(arch, "gemma3") == 0)
            m->sliding_layers = m->layers - m->layers / 6;
    }
    m->experts = opt(g, arch, "expert_count");
    if (m->experts) {
        m->active_experts = opt(g, arch, "expert_used_count");
        if (m->active_experts == 0 || m->active_experts > m->experts)
            m->active_experts = m->experts;
        m->shared_experts = opt(g, arch, "expert_shared_count");
        m->moe_ffn = opt(g, arch, "expert_feed_forward_length");
        m->dense_layers = opt(g, arch, "leading_dense_block_count");
        if (m->dense_layers > m->layers)
            m->dense_layers = m->layers;
    }
    m->kv_lora_rank = opt(g, arch, "attention.kv_lora_rank");
    if (m->kv_lora_rank) {
        m->q_lora_rank = opt(g, arch, "attention.q_lora_rank");
        m->rope_dim = opt(g, arch, "rope.dimension_count");
        /* Files converted for absorbed MLA carry the per-head sizes as
         * key_length_mla / value_length_mla. */
        uint32_t qk = opt(g, arch, "attention.key_length_mla");
        uint32_t v = opt(g, arch, "attention.value_length_mla");
        if (qk == 0)
            qk = m->head_dim;
        if (v == 0)
            v = opt(g, arch, "attention.value_length");
        m->nope_dim = qk > m->rope_dim ? qk - m->rope_dim : 0;
        m->v_head_dim = v;
        m->head_dim = qk;
    }
    uint64_t vocab = 0;
    const struct gguf_kv *tok = gguf_find(g, "tokenizer.ggml.tokens");
    if (!arch_uint(g, arch, "vocab_size", &vocab) && tok && tok->type == GGUF_V_ARRAY)
        vocab = tok->count;
    const struct gguf_tensor *emb = find_tensor(g, "token_embd.weight");
    if (vocab == 0 && emb && emb->ndim >= 2)
        vocab = emb->dims[1];
    if (vocab == 0 || vocab > UINT32_MAX) {
        snprintf(err, errlen, "%s: byte %d: no vocabulary size (%s.vocab_size, "
                 "tokenizer.ggml.tokens or token_embd.weight)", name, META_AT, arch);
        return -1;
    }
    m->vocab = (uint32_t)vocab;
    if (m->ffn == 0) {
        const struct gguf_tensor *up = find_tensor(g, "blk.0.ffn_up.weight");
        if (up && up->ndim >= 2 && up->dims[1] <= UINT32_MAX)
            m->ffn = (uint32_t)up->dims[1];
        else if (m->moe_ffn)
            m->ffn = m->moe_ffn;
    }
    m->tied = !has_tensor(g, "output.weight");
    m->gated = has_prefix(g, "blk.0.ffn_gate");
    if (has_tensor(g, "blk.0.attn_output.bias") || has_tensor(g, "blk.0.ffn_down.bias"))
        m->bias = ENGINE_BIAS_ALL;
    else if (has_tensor(g, "blk.0.attn_q.bias") || has_tensor(g, "blk.0.attn_qkv.bias"))
        m->bias = ENGINE_BIAS_QKV;
    m->norm = has_tensor(g, "blk.0.attn_norm.bias") ? ENGINE_NORM_LAYER : ENGINE_NORM_RMS;
    m->qk_norm = has_tensor(g, "blk.0.attn_q_norm.weight");
    const struct gguf_tensor *pe = find_tensor(g, "position_embd.weight");
    if (pe && pe->ndim >= 2 && pe->dims[1] <= UINT32_MAX)
        m->pos_embeddings = (uint32_t)pe->dims[1];

    /* The bytes: per layer, embedding, head; per type. */
    struct catalog_mf_type by[GGUF_TYPE_COUNT];
    memset(by, 0, sizeof by);
    for (size_t i = 0; i < g->n_tensors; i++) {
        const struct gguf_tensor *t = &g->tensors[i];
        double p = (double)t->elements, b = (double)t->bytes;
        long blk = block_of(t->name);
        if (blk >= 0 && (uint64_t)blk < m->layers) {
            m->file_layer_bytes[blk] += b;
            m->file_layer_params += p;
            if (strstr(t->name, "_exps.")) {
                m->file_expert_params += p;
                m->file_expert_bytes += b;
            }
        } else if (strcmp(t->name, "token_embd.weight") == 0 ||
                   strcmp(t->name, "position_embd.weight") == 0) {
            m->file_embed_params += p;
            m->file_embed_bytes += b;
        } else {
            m->file_head_params += p;
            m->file_head_bytes += b;
        }
        m->file_params += p;
        mf->params += p;
        mf->bytes += b;
        by[t->type].tensors++;
        by[t->type].params += p;
        by[t->type].bytes += b;
    }
    m->file_bytes = true;
    m->params_published = m->file_params;
    mf->tensors = g->n_tensors;
    file_mats(g, m, mf);
    for (uint32_t k = 0; k < GGUF_TYPE_COUNT && mf->n_types < CATALOG_MF_TYPES_MAX; k++) {
        if (by[k].tensors == 0)
            continue;
        by[k].name[0] = '\0';
        snprintf(by[k].name, sizeof by[k].name, "%s", gguf_type_info(k)->name);
        mf->types[mf->n_types++] = by[k];
    }
    qsort(mf->types, mf->n_types, sizeof mf->types[0], cmp_type_bytes);
    if (m->file_params <= 0) {
        snprintf(err, errlen, "%s: byte %d: the file has no tensors with elements", name, META_AT);
        return -1;
    }
    return 0;
}

/* Whether a GGUF tensor is a weight matrix a token multiplies
 * (catalog_mf_matrix): every tensor of two or three dimensions but the
 * embeddings' lookups (the token embedding is the head when the file has
 * no output.weight); a tensor of three (routed experts: columns, rows,
 * experts) holds `experts` matrices of which a token uses `used`; head:
 * the output head (a prompt multiplies it for its last token only). */
bool catalog_gguf_matrix(const struct gguf_tensor *t, bool tied, uint32_t active_experts,
                         uint64_t *experts, uint64_t *used, bool *head) {
    if (t->ndim < 2 || t->ndim > 3 || t->dims[0] == 0 || t->dims[1] == 0)
        return false;
    bool embd = strstr(t->name, "_embd.") || strstr(t->name, "_embd_");
    bool tied_head = tied && strcmp(t->name, "token_embd.weight") == 0;
    if (embd && !tied_head)
        return false;
    *head = tied_head || strcmp(t->name, "output.weight") == 0;
    *experts = t->ndim == 3 ? t->dims[2] : 1;
    *used = t->ndim == 3 && active_experts && active_experts < *experts ? active_experts
                                                                          : *experts;
    return *experts > 0;
}

/* The matrices of the file, grouped by type and shape in its order. */
static void file_mats(const struct gguf_file *g, const struct engine_model *m,
                      struct catalog_model_file *mf) {
    mf->n_mats = 0;
    mf->mats_complete = true;
    for (size_t i = 0; i < g->n_tensors; i++) {
        const struct gguf_tensor *t = &g->tensors[i];
        uint64_t experts, n;
        bool head;
        if (!catalog_gguf_matrix(t, m->tied, m->active_experts, &experts, &n, &head))
            continue;
        size_t j = 0;
        while (j < mf->n_mats && !(mf->mats[j].type == t->type && mf->mats[j].rows == t->dims[1] &&
                                   mf->mats[j].cols == t->dims[0]))
            j++;
        if (j == mf->n_mats) {
            if (j == CATALOG_MF_MATS_MAX) {
                mf->mats_complete = false;
                continue;
            }
            mf->mats[j] = (struct catalog_mf_matrix){t->type, t->dims[1], t->dims[0], 0};
            mf->n_mats++;
        }
        mf->mats[j].count += n;
    }
}

/* The file's elements by weight width (engine_model.file_width_params):
 * each type's bits a weight, scales included (Q4_1: 5, Q8_0: 8.5). A CPU
 * dots each class at its own measured rate (engine/core.c). */
static void file_widths(struct engine_model *m, const struct catalog_model_file *mf) {
    for (int k = 0; k < ENGINE_WIDTHS; k++)
        m->file_width_params[k] = 0;
    for (size_t i = 0; i < mf->n_types; i++)
        if (mf->types[i].params > 0)
            m->file_width_params[engine_width_class(mf->types[i].bytes * 8 /
                                                    mf->types[i].params)] += mf->types[i].params;
}

int catalog_model_file_buffer(const char *name, const uint8_t *buf, size_t len,
                              struct engine_model *m, struct catalog_model_file *mf, char *err,
                              size_t errlen) {
    struct gguf_file g;
    if (gguf_parse_buffer(name, buf, len, &g, err, errlen))
        return -1;
    int rc = from_gguf(&g, name, m, mf, err, errlen);
    gguf_close(&g);
    if (rc == 0)
        file_widths(m, mf);
    return rc;
}

static int load_gguf(const char *path, struct engine_model *m, struct catalog_model_file *mf,
                     char *err, size_t errlen) {
    struct gguf_file g;
    if (gguf_open(path, &g, err, errlen))
        return -1;
    int rc = from_gguf(&g, path, m, mf, err, errlen);
    if (rc == 0)
        mf->shards = 1;
    gguf_close(&g);
    return rc;
}

/* Whether a path is read as Hugging Face files: a directory, a
 * .safetensors file or a .json (config.json, the shards' index). */
static bool hf_path(const char *path) {
    struct stat st;
    size_t n = strlen(path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    return (n >= 12 && strcmp(path + n - 12, ".safetensors") == 0) ||
           (n >= 5 && strcmp(path + n - 5, ".json") == 0);
}

int catalog_model_file_load(const char *path, struct engine_model *m,
                            struct catalog_model_file *mf, char *err, size_t errlen) {
    int rc;
    const char *kind = NULL;
    if (hf_path(path)) {
        char gguf[1400];
        rc = catalog_hf_model_load(path, m, mf, gguf, sizeof gguf, err, errlen);
        if (rc > 0)
            rc = load_gguf(gguf, m, mf, err, errlen); /* a folder with one GGUF file */
        /* an index is JSON: its reader's message stands */
        else if (rc != 0 && (kind = catalog_sniff_file(path)) && !strcmp(kind, "JSON text"))
            kind = NULL;
    } else {
        rc = load_gguf(path, m, mf, err, errlen);
        /* a damaged GGUF file: the GGUF reader's message stands */
        if (rc != 0 && (kind = catalog_sniff_file(path)) && !strncmp(kind, "a GGUF", 6))
            kind = NULL;
    }
    /* Not a model file of its kind at all: say what it is rather than what
     * its first bytes are not (issue 27 item 6). */
    if (rc != 0 && kind && !strncmp(kind, "a GGUF", 6))
        snprintf(err, errlen, "%s: not a safetensors file: it is %s; name it .gguf", path, kind);
    else if (rc != 0 && kind)
        snprintf(err, errlen,
                 "%s: not a model file: it is %s; --model-file reads a GGUF file, a safetensors "
                 "file, its index .json or a Hugging Face model folder",
                 path, kind);
    if (rc == 0)
        file_widths(m, mf);
    return rc;
}

const char *catalog_model_file_mix(const struct catalog_model_file *mf, char *buf, size_t len) {
    size_t used = 0;
    double other = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < mf->n_types; i++) {
        double share = mf->bytes > 0 ? 100.0 * mf->types[i].bytes / mf->bytes : 0;
        if (share < 0.5 && i > 0) {
            other += share;
            continue;
        }
        int n = snprintf(buf + used, len - used, "%s%s %.0f%%", used ? ", " : "",
                         mf->types[i].name, share);
        if (n < 0 || (size_t)n >= len - used)
            return buf;
        used += (size_t)n;
    }
    if (other > 0 && used < len) {
        int n = snprintf(buf + used, len - used, ", other %.1f%%", other);
        if (n > 0 && (size_t)n < len - used)
            used += (size_t)n;
    }
    if (used < len)
        snprintf(buf + used, len - used, "; %.2f bits per weight",
                 mf->params > 0 ? mf->bytes * 8.0 / mf->params : 0.0);
    return buf;
}
