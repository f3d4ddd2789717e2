/*
 * hf.c: import a Hugging Face config.json as a model shape, and print it
 * back as a models.yaml entry.
 *
 * jansson reads the JSON (catalog/json.c, which also walks the members
 * in the order of the file for their line and column in messages). HF
 * configs carry many keys we do not need: unknown keys are ignored here,
 * unlike the catalog.
 * The keys we read are a table {names, kind, slot}; several spellings
 * (n_layer, num_hidden_layers) fill one slot. Multimodal configs nest the
 * language model under text_config (Gemma 3), whose values win.
 *
 * What a config leaves implicit comes from the model_type (transformers'
 * modeling code): whether the MLP is gated, which linears carry biases,
 * LayerNorm or RMSNorm, learned positions, norms per layer, whether the
 * head is tied when tie_word_embeddings is absent (PretrainedConfig's
 * default is tied; LlamaConfig's is not).
 */
#include "catalog/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/json.h"

enum hf_slot {
    H_LAYERS = 0,
    H_HIDDEN,
    H_FFN,
    H_HEADS,
    H_KV_HEADS,
    H_HEAD_DIM,
    H_VOCAB,
    H_MAX_POS,
    H_N_INNER,
    H_EXPERTS,
    H_ACTIVE,
    H_SHARED,
    H_MOE_FFN,
    H_SHARED_FFN,
    H_DENSE_LAYERS,
    H_Q_LORA,
    H_KV_LORA,
    H_ROPE_DIM,
    H_NOPE_DIM,
    H_V_HEAD_DIM,
    H_WINDOW,
    H_WINDOW_PATTERN,
    H_N_INT,
    /* booleans */
    H_TIED = H_N_INT,
    H_ATTN_BIAS,
    H_USE_WINDOW,
    H_MULTI_QUERY,
    H_NEW_ARCH,
    H_PARALLEL_ATTN,
    H_BIAS,
    H_ENABLE_BIAS,
    H_N_SLOTS
};

enum hf_kind { HK_INT, HK_BOOL, HK_TYPE, HK_ACT, HK_NAME, HK_ARCH, HK_LAYER_TYPES, HK_TEXT, HK_ROPE };

/* One config key and where its value goes. */
struct hf_key {
    const char *key;
    enum hf_kind kind;
    int slot;
};

static const struct hf_key hf_keys[] = {
    {"num_hidden_layers", HK_INT, H_LAYERS},
    {"n_layer", HK_INT, H_LAYERS},
    {"hidden_size", HK_INT, H_HIDDEN},
    {"n_embd", HK_INT, H_HIDDEN},
    {"intermediate_size", HK_INT, H_FFN},
    {"ffn_dim", HK_INT, H_FFN},
    {"ffn_hidden_size", HK_INT, H_FFN},
    {"n_inner", HK_INT, H_N_INNER},
    {"num_attention_heads", HK_INT, H_HEADS},
    {"n_head", HK_INT, H_HEADS},
    {"num_key_value_heads", HK_INT, H_KV_HEADS},
    {"num_kv_heads", HK_INT, H_KV_HEADS},
    {"head_dim", HK_INT, H_HEAD_DIM},
    {"vocab_size", HK_INT, H_VOCAB},
    {"max_position_embeddings", HK_INT, H_MAX_POS},
    {"n_positions", HK_INT, H_MAX_POS},
    {"n_routed_experts", HK_INT, H_EXPERTS},
    {"num_local_experts", HK_INT, H_EXPERTS},
    {"num_experts", HK_INT, H_EXPERTS},
    {"num_experts_per_tok", HK_INT, H_ACTIVE},
    {"n_shared_experts", HK_INT, H_SHARED},
    {"moe_intermediate_size", HK_INT, H_MOE_FFN},
    {"shared_expert_intermediate_size", HK_INT, H_SHARED_FFN},
    {"first_k_dense_replace", HK_INT, H_DENSE_LAYERS},
    {"q_lora_rank", HK_INT, H_Q_LORA},
    {"kv_lora_rank", HK_INT, H_KV_LORA},
    {"qk_rope_head_dim", HK_INT, H_ROPE_DIM},
    {"qk_nope_head_dim", HK_INT, H_NOPE_DIM},
    {"v_head_dim", HK_INT, H_V_HEAD_DIM},
    {"sliding_window", HK_INT, H_WINDOW},
    {"sliding_window_pattern", HK_INT, H_WINDOW_PATTERN},
    {"tie_word_embeddings", HK_BOOL, H_TIED},
    {"attention_bias", HK_BOOL, H_ATTN_BIAS},
    {"use_sliding_window", HK_BOOL, H_USE_WINDOW},
    {"multi_query", HK_BOOL, H_MULTI_QUERY},
    {"new_decoder_architecture", HK_BOOL, H_NEW_ARCH},
    {"parallel_attn", HK_BOOL, H_PARALLEL_ATTN},
    {"bias", HK_BOOL, H_BIAS},
    {"enable_bias", HK_BOOL, H_ENABLE_BIAS},
    {"model_type", HK_TYPE, 0},
    {"hidden_act", HK_ACT, 0},
    {"hidden_activation", HK_ACT, 0},
    {"activation_function", HK_ACT, 0},
    {"_name_or_path", HK_NAME, 0},
    {"architectures", HK_ARCH, 0},
    {"layer_types", HK_LAYER_TYPES, 0},
    {"text_config", HK_TEXT, 0},
    {"rope_scaling", HK_ROPE, 0},
};

/* What the config said: -1 in a slot means absent (or null). */
struct hf_config {
    long long v[H_N_SLOTS];
    char model_type[32];
    char act[32];
    char name[128];
    char arch[64];
    long long sliding_layer_types; /* layers marked sliding_attention; -1 absent */
    size_t at[H_N_SLOTS];               /* the offset of the value that filled each slot */
    /* rope_scaling: original_max_position_embeddings (0 absent), factor, type. */
    long long rope_original;
    double rope_factor;
    char rope_type[16];
    const char *key[H_N_SLOTS];         /* and its key, for messages */
};

/* What the model_type implies about the parts a config leaves out. */
struct hf_family {
    const char *type;
    bool gated;
    enum engine_bias bias;
    enum engine_norm norm;
    bool tied;        /* when tie_word_embeddings is absent */
    bool learned_pos; /* learned absolute positions */
    uint32_t norms_per_layer;
    bool qk_norm;
};

static const struct hf_family hf_families[] = {
    {"llama", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, false},
    {"mistral", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, false},
    {"mixtral", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, false},
    {"qwen2", true, ENGINE_BIAS_QKV, ENGINE_NORM_RMS, false, false, 2, false},
    {"qwen2_moe", true, ENGINE_BIAS_QKV, ENGINE_NORM_RMS, false, false, 2, false},
    {"qwen3", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, true},
    {"qwen3_moe", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, true},
    {"gemma", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, true, false, 2, false},
    {"gemma2", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, true, false, 4, false},
    {"gemma3", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, true, false, 4, true},
    {"gemma3_text", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, true, false, 4, true},
    {"deepseek_v2", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, false},
    {"deepseek_v3", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, false},
    {"phi3", true, ENGINE_BIAS_NONE, ENGINE_NORM_RMS, false, false, 2, false},
    {"gpt_neox", false, ENGINE_BIAS_ALL, ENGINE_NORM_LAYER, false, false, 2, false},
    {"gpt2", false, ENGINE_BIAS_ALL, ENGINE_NORM_LAYER, true, true, 2, false},
    {"opt", false, ENGINE_BIAS_ALL, ENGINE_NORM_LAYER, true, true, 2, false},
    {"falcon", false, ENGINE_BIAS_NONE, ENGINE_NORM_LAYER, true, false, 2, false},
    {"phi", false, ENGINE_BIAS_ALL, ENGINE_NORM_LAYER, false, false, 1, false},
};

/* model_type by the class in "architectures", for configs without one. */
static const struct {
    const char *prefix, *type;
} hf_arch_types[] = {
    {"LlamaFor", "llama"},   {"MistralFor", "mistral"}, {"MixtralFor", "mixtral"},
    {"Qwen2For", "qwen2"},   {"Qwen3For", "qwen3"},     {"GemmaFor", "gemma"},
    {"Gemma2For", "gemma2"}, {"Gemma3For", "gemma3"},   {"GPTNeoXFor", "gpt_neox"},
    {"GPT2LMHead", "gpt2"},  {"OPTFor", "opt"},         {"FalconFor", "falcon"},
    {"PhiFor", "phi"},       {"Phi3For", "phi3"},
};

/* Values a model class assumes when its config.json leaves them out
 * (transformers' Gemma3TextConfig: gemma-3-4b's config omits heads, vocab). */
static const struct {
    const char *type;
    int slot;
    long long value;
} hf_defaults[] = {
    {"gemma3_text", H_LAYERS, 26},    {"gemma3_text", H_HIDDEN, 2304},
    {"gemma3_text", H_FFN, 9216},     {"gemma3_text", H_HEADS, 8},
    {"gemma3_text", H_KV_HEADS, 4},   {"gemma3_text", H_HEAD_DIM, 256},
    {"gemma3_text", H_VOCAB, 262208}, {"gemma3_text", H_MAX_POS, 131072},
    {"gemma3_text", H_WINDOW, 4096},  {"gemma3_text", H_WINDOW_PATTERN, 6},
};

/* The family of a config: by model_type, else by architectures; NULL when unknown. */
static const struct hf_family *find_family(const char *type, const char *arch) {
    size_t i;

    for (i = 0;
         type[0] == '\0' && arch[0] != '\0' && i < sizeof hf_arch_types / sizeof hf_arch_types[0];
         i++) {
        if (strncmp(arch, hf_arch_types[i].prefix, strlen(hf_arch_types[i].prefix)) == 0)
            type = hf_arch_types[i].type;
    }
    for (i = 0; i < sizeof hf_families / sizeof hf_families[0]; i++) {
        if (strcmp(hf_families[i].type, type) == 0)
            return &hf_families[i];
    }
    return NULL;
}

/* Fill the slots a config left out with its class's defaults. */
static void apply_defaults(struct hf_config *c) {
    size_t i;

    for (i = 0; i < sizeof hf_defaults / sizeof hf_defaults[0]; i++) {
        if (strcmp(hf_defaults[i].type, c->model_type) == 0 && c->v[hf_defaults[i].slot] < 0)
            c->v[hf_defaults[i].slot] = hf_defaults[i].value;
    }
}

/* State of one import: the document and where messages go. */
struct hf_ctx {
    const char *name;
    const char *text;
    size_t len;
    struct catalog_json *doc;
    struct catalog_diag *d;
    unsigned errors;
};

#define HF_NONE ((size_t)-1) /* no offset: the slot was not filled */

/* Report an error at offset at of the text. */
static void hf_error(struct hf_ctx *x, size_t at, const char *key, const char *msg) {
    size_t line, col;
    catalog_json_line_col(x->doc, at, &line, &col);
    catalog_diag_error(x->d, x->name, x->text, x->len, line, col, key, "%s", msg);
    x->errors++;
}

/* Copy a string value into buf; false (and an error) when it is a
 * structure. A number or a boolean is taken as its text. */
static bool take_string(struct hf_ctx *x, const json_t *v, size_t at, const char *key, char *buf,
                        size_t len) {
    if (json_is_null(v))
        return false;
    if (json_is_object(v) || json_is_array(v)) {
        hf_error(x, at, key, "expected a string, found a structure");
        return false;
    }
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else
        catalog_json_raw(x->doc, at, buf, len);
    catalog_text_clean_str(buf); /* a name may reach a terminal */
    return true;
}

/* rope_scaling {"rope_type"|"type": "yarn", "factor": 4.0,
 * "original_max_position_embeddings": 32768} at offset obj_at: the context
 * the model had before its extension (a bad value is an error at its place). */
static void read_rope(struct hf_ctx *x, const json_t *map, size_t obj_at, struct hf_config *c) {
    struct catalog_json_members it;
    char key[40];
    bool cut;
    size_t kat, vat;

    catalog_json_members_begin(&it, x->doc, obj_at);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, &kat, &vat) == 1) {
        const json_t *v = cut ? NULL : json_object_get(map, key);
        if (v == NULL || json_is_null(v))
            continue;
        if (strcmp(key, "rope_type") == 0 || strcmp(key, "type") == 0) {
            take_string(x, v, vat, key, c->rope_type, sizeof c->rope_type);
        } else if (strcmp(key, "factor") == 0) {
            double f = json_is_number(v) ? json_number_value(v) : 0;
            if (!(f > 0 && f < 1e6))
                hf_error(x, vat, "rope_scaling.factor", "expected a positive number");
            else
                c->rope_factor = f;
        } else if (strcmp(key, "original_max_position_embeddings") == 0) {
            uint64_t n;
            char err[160], raw[64];
            if (!json_is_number(v) && !json_is_boolean(v)) {
                hf_error(x, vat, "rope_scaling.original_max_position_embeddings",
                         "expected a whole number");
                continue;
            }
            catalog_json_raw(x->doc, vat, raw, sizeof raw);
            if (catalog_parse_uint(raw, UINT32_MAX, &n, err, sizeof err) < 0)
                hf_error(x, vat, "rope_scaling.original_max_position_embeddings", err);
            else
                c->rope_original = (long long)n;
        }
    }
}

/* Read the keys we know from one object (the top level or text_config)
 * at offset obj_at, its members in the order of the file. */
static void read_mapping(struct hf_ctx *x, const json_t *map, size_t obj_at, struct hf_config *c,
                         bool top) {
    const json_t *text_config = NULL;
    size_t text_config_at = 0;
    struct catalog_json_members it;
    char key[64];
    bool cut;
    size_t kat, vat;
    /* The key of each known key seen in this object: JSON objects with a
     * repeated key would silently keep the last value. */
    size_t seen[sizeof hf_keys / sizeof hf_keys[0]];
    for (size_t i = 0; i < sizeof hf_keys / sizeof hf_keys[0]; i++)
        seen[i] = HF_NONE;

    catalog_json_members_begin(&it, x->doc, obj_at);
    while (catalog_json_members_next(&it, key, sizeof key, &cut, &kat, &vat) == 1) {
        const json_t *v;
        char err[200];
        size_t i;

        if (cut)
            continue; /* longer than any key we know */
        for (i = 0; i < sizeof hf_keys / sizeof hf_keys[0]; i++) {
            if (strcmp(hf_keys[i].key, key) == 0)
                break;
        }
        if (i == sizeof hf_keys / sizeof hf_keys[0])
            continue; /* HF configs carry many keys we do not need */
        if (seen[i] != HF_NONE) {
            size_t line, col;
            catalog_json_line_col(x->doc, seen[i], &line, &col);
            snprintf(err, sizeof err,
                     "expected each key once, found it again (first at line %zu, column %zu)",
                     line, col);
            hf_error(x, kat, key, err);
            continue;
        }
        seen[i] = kat;
        v = json_object_get(map, key);
        switch (hf_keys[i].kind) {
        case HK_INT: {
            uint64_t n;
            char raw[64];
            if (json_is_null(v))
                break;
            if (json_is_object(v) || json_is_array(v)) {
                hf_error(x, vat, key, "expected a whole number, found a structure");
                break;
            }
            /* "4096" in quotes is a JSON string, not a number. */
            if (json_is_string(v)) {
                char q[64];
                catalog_quote(json_string_value(v), q, sizeof q);
                snprintf(err, sizeof err, "expected a whole number, found the string \"%s\"", q);
                hf_error(x, vat, key, err);
                break;
            }
            /* the number as the file writes it: -5, 4096.0, 1e3, true */
            catalog_json_raw(x->doc, vat, raw, sizeof raw);
            if (catalog_parse_uint(raw, UINT32_MAX, &n, err, sizeof err) < 0) {
                hf_error(x, vat, key, err);
                break;
            }
            c->v[hf_keys[i].slot] = (long long)n;
            c->at[hf_keys[i].slot] = vat;
            c->key[hf_keys[i].slot] = hf_keys[i].key;
            break;
        }
        case HK_BOOL:
            if (json_is_null(v))
                break;
            if (json_is_string(v))
                hf_error(x, vat, key, "expected true or false, found a string");
            else if (json_is_true(v))
                c->v[hf_keys[i].slot] = 1;
            else if (json_is_false(v))
                c->v[hf_keys[i].slot] = 0;
            else
                hf_error(x, vat, key, "expected true or false");
            break;
        case HK_TYPE:
            take_string(x, v, vat, key, c->model_type, sizeof c->model_type);
            break;
        case HK_ACT:
            take_string(x, v, vat, key, c->act, sizeof c->act);
            break;
        case HK_NAME:
            take_string(x, v, vat, key, c->name, sizeof c->name);
            break;
        case HK_ARCH: {
            size_t first_at;
            struct catalog_json_members items;
            if (!json_is_array(v) || json_array_size(v) == 0)
                break;
            catalog_json_members_begin(&items, x->doc, vat);
            if (catalog_json_members_next(&items, NULL, 0, NULL, NULL, &first_at) == 1)
                take_string(x, json_array_get(v, 0), first_at, key, c->arch, sizeof c->arch);
            break;
        }
        case HK_LAYER_TYPES:
            if (json_is_array(v)) {
                size_t k;
                const json_t *n;
                c->sliding_layer_types = 0;
                json_array_foreach(v, k, n) {
                    if (json_is_string(n) &&
                        strcmp(json_string_value(n), "sliding_attention") == 0)
                        c->sliding_layer_types++;
                }
            }
            break;
        case HK_TEXT:
            if (top && json_is_object(v)) {
                text_config = v;
                text_config_at = vat;
            }
            break;
        case HK_ROPE:
            if (json_is_object(v))
                read_rope(x, v, vat, c);
            break;
        }
    }
    /* The language model of a multimodal config: its values win. */
    if (text_config != NULL)
        read_mapping(x, text_config, text_config_at, c, false);
}

/* A config value, or fallback when absent. */
static uint32_t val(const struct hf_config *c, int slot, long long fallback) {
    long long v = c->v[slot] >= 0 ? c->v[slot] : fallback;
    return v < 0 ? 0 : (uint32_t)v;
}

/* Make an id ([a-z0-9.-]) from free text: lower case, other runs become '-'. */
static void make_id(const char *in, char *out, size_t len) {
    size_t n = 0;
    bool dash = false;

    for (; *in != '\0' && n + 1 < len; in++) {
        char ch = *in;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.') {
            if (dash && n > 0 && n + 2 < len)
                out[n++] = '-';
            out[n++] = ch;
            dash = false;
        } else {
            dash = true;
        }
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, len, "imported");
}

/* A note (not an error) in d when the config does not name a family
 * vramlab knows: what its shape was taken as (issue 27 item 6). */
static void say_assumed(struct hf_ctx *x, const struct hf_config *c,
                        const struct hf_family *fam) {
    bool gated = strcmp(c->act, "silu") == 0 || strcmp(c->act, "swiglu") == 0;
    if (fam != NULL && c->model_type[0] != '\0')
        return;
    if (fam != NULL) {
        catalog_diag_append(x->d, "%s: note: no model_type; taken as %s, from architectures (%s)\n",
                            x->name, fam->type, c->arch);
        return;
    }
    if (c->model_type[0] != '\0')
        catalog_diag_append(x->d, "%s: note: model_type '%s' is not one vramlab knows;", x->name,
                            c->model_type);
    else
        catalog_diag_append(x->d, "%s: note: no model_type%s%s%s;", x->name,
                            c->arch[0] ? " and architectures (" : "", c->arch,
                            c->arch[0] ? ") not one vramlab knows" : " nor architectures");
    catalog_diag_append(x->d, " assumed %s MLP (hidden_act %s), RMSNorm, no biases%s; check "
                        "them against the model's code\n",
                        gated ? "a gated (SwiGLU)" : "a plain", c->act[0] ? c->act : "not given",
                        c->v[H_TIED] < 0 ? ", tied embeddings" : "");
}

/* Turn what the config said into the model's exact shape. */
static void build_model(struct hf_ctx *x, size_t root, const struct hf_config *c,
                        const char *fallback_name, struct engine_model *m) {
    const struct hf_family *fam = find_family(c->model_type, c->arch);
    static const char *const required[][2] = {{"num_hidden_layers", "layers"},
                                              {"hidden_size", "hidden"},
                                              {"num_attention_heads", "heads"},
                                              {"vocab_size", "vocab"}};
    const int req_slot[] = {H_LAYERS, H_HIDDEN, H_HEADS, H_VOCAB};
    const char *name, *slash;
    size_t i;

    for (i = 0; i < 4; i++) {
        if (c->v[req_slot[i]] < 0) {
            char msg[160];
            snprintf(msg, sizeof msg, "expected in a config.json (the model's %s), found none",
                     required[i][1]);
            hf_error(x, root, required[i][0], msg);
        }
    }
    /* Given, a count must be positive (0 heads is not "no heads given"). */
    static const int positive[] = {H_LAYERS, H_HIDDEN, H_HEADS, H_KV_HEADS, H_HEAD_DIM,
                                   H_VOCAB,  H_FFN,    H_MAX_POS};
    for (i = 0; i < sizeof positive / sizeof positive[0]; i++) {
        int slot = positive[i];
        if (c->v[slot] == 0 && c->at[slot] != HF_NONE)
            hf_error(x, c->at[slot], c->key[slot], "expected a positive whole number, found 0");
    }
    if (x->errors > 0)
        return;
    /* The command line's checks: KV heads divide the heads (grouped-query
     * attention shares each K/V head among heads / kv_heads), and without
     * head_dim the heads divide the hidden size. */
    if (c->v[H_KV_HEADS] > 0 && c->v[H_HEADS] % c->v[H_KV_HEADS] != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "expected a divisor of %s (%lld), found %lld",
                 c->key[H_HEADS] ? c->key[H_HEADS] : "num_attention_heads", c->v[H_HEADS],
                 c->v[H_KV_HEADS]);
        hf_error(x, c->at[H_KV_HEADS] != HF_NONE ? c->at[H_KV_HEADS] : root,
                 c->key[H_KV_HEADS] ? c->key[H_KV_HEADS] : "num_key_value_heads", msg);
    }
    /* Multi-head latent attention (kv_lora_rank) needs its head widths. */
    if (c->v[H_KV_LORA] > 0) {
        static const int mla[] = {H_ROPE_DIM, H_NOPE_DIM, H_V_HEAD_DIM};
        static const char *const mla_key[] = {"qk_rope_head_dim", "qk_nope_head_dim",
                                              "v_head_dim"};
        for (i = 0; i < 3; i++) {
            if (c->v[mla[i]] > 0)
                continue;
            if (c->v[mla[i]] == 0 && c->at[mla[i]] != HF_NONE)
                hf_error(x, c->at[mla[i]], c->key[mla[i]],
                         "expected a positive whole number, found 0");
            else
                hf_error(x, root, mla_key[i],
                         "expected in a config.json with kv_lora_rank (multi-head latent "
                         "attention's head widths), found none");
        }
    }
    /* A token is routed to one expert at least and to every expert at
     * most (issue 27 item 6); a dense model's 0 is no routing. */
    if (c->v[H_EXPERTS] > 0 && c->v[H_ACTIVE] == 0 && c->at[H_ACTIVE] != HF_NONE)
        hf_error(x, c->at[H_ACTIVE], c->key[H_ACTIVE],
                 "expected a positive whole number, found 0");
    if (c->v[H_EXPERTS] > 0 && c->v[H_ACTIVE] > c->v[H_EXPERTS]) {
        char msg[160];
        snprintf(msg, sizeof msg, "expected at most %s (%lld), found %lld",
                 c->key[H_EXPERTS] ? c->key[H_EXPERTS] : "num_experts", c->v[H_EXPERTS],
                 c->v[H_ACTIVE]);
        hf_error(x, c->at[H_ACTIVE] != HF_NONE ? c->at[H_ACTIVE] : root,
                 c->key[H_ACTIVE] ? c->key[H_ACTIVE] : "num_experts_per_tok", msg);
    }
    if (c->v[H_HEAD_DIM] < 0 && c->v[H_HIDDEN] % c->v[H_HEADS] != 0) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "expected a divisor of %s (%lld), found %lld (or give head_dim)",
                 c->key[H_HIDDEN] ? c->key[H_HIDDEN] : "hidden_size", c->v[H_HIDDEN],
                 c->v[H_HEADS]);
        hf_error(x, c->at[H_HEADS] != HF_NONE ? c->at[H_HEADS] : root,
                 c->key[H_HEADS] ? c->key[H_HEADS] : "num_attention_heads", msg);
    }
    if (x->errors > 0)
        return;
    say_assumed(x, c, fam);

    memset(m, 0, sizeof *m);
    name = c->name[0] != '\0' ? c->name : fallback_name;
    slash = strrchr(name, '/');
    name = slash != NULL && slash[1] != '\0' ? slash + 1 : name;
    snprintf(m->name, sizeof m->name, "%.*s", (int)sizeof m->name - 1, name);
    make_id(name, m->id, sizeof m->id);
    make_id(c->model_type[0] ? c->model_type : "unknown", m->family, sizeof m->family);
    m->has_arch = true;

    m->layers = val(c, H_LAYERS, 0);
    m->hidden = val(c, H_HIDDEN, 0);
    m->heads = val(c, H_HEADS, 0);
    m->vocab = val(c, H_VOCAB, 0);
    m->kv_heads = val(c, H_KV_HEADS, m->heads);
    if (c->v[H_MULTI_QUERY] == 1 && c->v[H_NEW_ARCH] != 1)
        m->kv_heads = 1; /* Falcon-7B: one shared K/V head */
    m->head_dim = val(c, H_HEAD_DIM, m->hidden / m->heads);
    /* MLP width: GPT-2's n_inner (null = 4h); Falcon's is 4h, unstated. */
    m->ffn = val(c, H_FFN, val(c, H_N_INNER, 4LL * m->hidden));
    m->max_context = val(c, H_MAX_POS, 0);
    /* Rope scaling: the native context is the original one; the extended
     * one max_position_embeddings, or original x factor when that is more
     * (a YaRN block added to a 32k config, as Qwen's model cards say). */
    if (c->rope_original > 0 && c->rope_factor > 1) {
        double ext = c->rope_original * c->rope_factor;
        m->native_context = (uint32_t)c->rope_original;
        m->rope_factor = c->rope_factor;
        snprintf(m->rope_scaling, sizeof m->rope_scaling, "%s", c->rope_type);
        if (ext > m->max_context && ext <= UINT32_MAX &&
            strcmp(c->rope_type, "llama3") != 0)
            m->max_context = (uint32_t)ext;
        if (m->native_context >= m->max_context)
            m->native_context = 0;
    }

    if (fam != NULL) {
        m->gated = fam->gated;
        m->bias = fam->bias;
        m->norm = fam->norm;
        m->tied = fam->tied;
        m->norms_per_layer = fam->norms_per_layer;
        m->qk_norm = fam->qk_norm;
    } else {
        /* Unknown family: SiLU MLPs are SwiGLU in practice; HF ties by default. */
        m->gated = strcmp(c->act, "silu") == 0 || strcmp(c->act, "swiglu") == 0;
        m->bias = ENGINE_BIAS_NONE;
        m->norm = ENGINE_NORM_RMS;
        m->tied = true;
        m->norms_per_layer = 2;
    }
    if (c->v[H_TIED] >= 0)
        m->tied = c->v[H_TIED] == 1;
    if (c->v[H_ATTN_BIAS] == 1 && m->bias == ENGINE_BIAS_NONE)
        m->bias = ENGINE_BIAS_QKV;
    if (c->v[H_BIAS] == 1 || c->v[H_ENABLE_BIAS] == 1)
        m->bias = ENGINE_BIAS_ALL;
    if (c->v[H_ENABLE_BIAS] == 0 && fam != NULL && strcmp(fam->type, "opt") == 0)
        m->bias = ENGINE_BIAS_NONE;
    if (fam != NULL && strcmp(fam->type, "falcon") == 0)
        m->norms_per_layer = c->v[H_PARALLEL_ATTN] != 0 && c->v[H_NEW_ARCH] != 1 ? 1 : 2;
    if (fam != NULL && fam->learned_pos) {
        /* OPT's learned positions keep 2 extra rows (an offset of 2). */
        m->pos_embeddings = m->max_context + (strcmp(fam->type, "opt") == 0 ? 2 : 0);
    }

    m->experts = val(c, H_EXPERTS, 0);
    if (m->experts > 0) {
        m->active_experts = val(c, H_ACTIVE, 1);
        m->moe_ffn = val(c, H_MOE_FFN, 0);
        m->shared_experts = val(c, H_SHARED, 0);
        /* Qwen2-MoE: one wide shared expert, counted in experts' widths. */
        if (m->shared_experts == 0 && c->v[H_SHARED_FFN] > 0 && m->moe_ffn > 0 &&
            c->v[H_SHARED_FFN] % m->moe_ffn == 0)
            m->shared_experts = (uint32_t)(c->v[H_SHARED_FFN] / m->moe_ffn);
        m->dense_layers = val(c, H_DENSE_LAYERS, 0);
    }
    if (c->v[H_KV_LORA] > 0) {
        m->q_lora_rank = val(c, H_Q_LORA, 0);
        m->kv_lora_rank = val(c, H_KV_LORA, 0);
        m->rope_dim = val(c, H_ROPE_DIM, 0);
        m->nope_dim = val(c, H_NOPE_DIM, 0);
        m->v_head_dim = val(c, H_V_HEAD_DIM, 0);
    }
    if (c->v[H_WINDOW] > 0 && c->v[H_USE_WINDOW] != 0) {
        m->sliding_window = val(c, H_WINDOW, 0);
        if (c->sliding_layer_types >= 0)
            m->sliding_layers = (uint32_t)c->sliding_layer_types;
        else if (c->v[H_WINDOW_PATTERN] > 0) /* Gemma 3: every p-th layer is global */
            m->sliding_layers = m->layers - m->layers / val(c, H_WINDOW_PATTERN, 1);
        else if (fam != NULL && strcmp(fam->type, "gemma2") == 0) /* alternating */
            m->sliding_layers = m->layers / 2;
    }
}

/* Import config.json text: msg_name in messages, model_name when it has none. */
static int import_text(const char *msg_name, const char *text, size_t len, const char *model_name,
                       struct engine_model *m, struct catalog_diag *d) {
    struct hf_ctx x = {msg_name, text, len, NULL, d, 0};
    struct hf_config c;
    struct catalog_json doc;
    char msg[512];
    size_t i, line, col, root;

    memset(&c, 0, sizeof c);
    for (i = 0; i < H_N_SLOTS; i++) {
        c.v[i] = -1;
        c.at[i] = HF_NONE;
    }
    c.sliding_layer_types = -1;
    memset(&doc, 0, sizeof doc);
    doc.text = text;
    doc.len = len;
    x.doc = &doc;
    root = catalog_json_root_at(&doc);
    if (root >= len) {
        catalog_diag_error(d, msg_name, text, len, 1, 1, NULL,
                           "expected a JSON object (a config.json), found nothing");
        return -1;
    }
    /* A config.json is 5 deep; the catalogue's limit keeps hostile nesting
     * out (the root counts as one level, as in the YAML catalogue). */
    if (catalog_json_parse(&doc, text, len, 0, CATALOG_MAX_DEPTH - 1, 0, msg, sizeof msg) != 0) {
        catalog_json_line_col(&doc, doc.error_at, &line, &col);
        if (doc.error == CATALOG_JSON_DEEP)
            catalog_diag_error(d, msg_name, text, len, line, col, NULL,
                               "expected objects and arrays nested at most %d deep, found deeper "
                               "(a config.json is 5 deep)",
                               CATALOG_MAX_DEPTH);
        else if (text[root] != '{' && text[root] != '[') /* jansson wants one of them on top */
            catalog_diag_error(d, msg_name, text, len, 1, 1, NULL,
                               "expected a JSON object (a config.json), found another value");
        else
            catalog_diag_error(d, msg_name, text, len, line, col, NULL, "%s", doc.error_what);
        return -1;
    }
    if (!json_is_object(doc.root)) {
        catalog_diag_error(d, msg_name, text, len, 1, 1, NULL,
                           "expected a JSON object (a config.json), found another value");
        x.errors++;
    } else {
        read_mapping(&x, doc.root, root, &c, true);
        apply_defaults(&c);
        if (x.errors == 0)
            build_model(&x, root, &c, model_name, m);
    }
    catalog_json_free(&doc);
    return x.errors > 0 ? -1 : 0;
}

/* Import a config.json held in memory; name is used in messages. */
int catalog_import_hf_buffer(const char *name, const char *text, size_t len, struct engine_model *m,
                             struct catalog_diag *d) {
    return import_text(name, text, len, name, m, d);
}

/* Import a config.json file; without _name_or_path the model is named
 * after its directory (".../Llama-3.1-8B/config.json": Llama-3.1-8B). */
int catalog_import_hf_config(const char *path, struct engine_model *m, struct catalog_diag *d) {
    char dir[256], *text, *slash, why[160];
    size_t len = 0;
    int rc;

    text = catalog_read_regular(path, CATALOG_MAX_FILE_BYTES, &len, why, sizeof why);
    if (text == NULL) {
        catalog_diag_append(d, "%s: cannot read: %s\n", path, why);
        if (d != NULL)
            d->errors++;
        return -1;
    }
    snprintf(dir, sizeof dir, "%s", path);
    slash = strrchr(dir, '/');
    if (slash != NULL && strcmp(slash + 1, "config.json") == 0) {
        *slash = '\0';
        slash = strrchr(dir, '/');
        if (slash != NULL)
            memmove(dir, slash + 1, strlen(slash + 1) + 1);
    }
    rc = import_text(path, text, len, dir, m, d);
    free(text);
    return rc;
}

/* Append to buf at *n what fmt says, tracking the length even past len. */
static void out(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void out(char *buf, size_t len, size_t *n, const char *fmt, ...) {
    va_list ap;
    int k;

    va_start(ap, fmt);
    k = vsnprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n += (size_t)k;
}

/* s as a double-quoted YAML string (backslash and quote escaped) into buf. */
static const char *yaml_quoted(const char *s, char *buf, size_t len) {
    size_t n = 0;

    buf[n++] = '"';
    for (; *s != '\0' && n + 3 < len; s++) {
        if (*s == '"' || *s == '\\')
            buf[n++] = '\\';
        buf[n++] = (unsigned char)*s < 0x20 ? ' ' : *s;
    }
    buf[n++] = '"';
    buf[n] = '\0';
    return buf;
}

/* Print a ready models.yaml entry for m (with the computed count) to buf;
 * returns its length, or -1 when buf is too small. */
int catalog_format_model_yaml(const struct engine_model *m, char *buf, size_t len) {
    static const char *const bias[] = {"none", "qkv", "all"};
    char q[300];
    size_t n = 0;

    out(buf, len, &n, "  - id: %s\n", m->id);
    out(buf, len, &n, "    name: %s\n", yaml_quoted(m->name, q, sizeof q));
    out(buf, len, &n, "    family: %s\n", m->family[0] ? m->family : m->id);
    out(buf, len, &n, "    params: %.0f\n", engine_params_total(m));
    out(buf, len, &n, "    layers: %u\n    hidden: %u\n    ffn: %u\n", m->layers, m->hidden,
        m->ffn);
    out(buf, len, &n, "    heads: %u\n    kv_heads: %u\n    head_dim: %u\n", m->heads,
        m->kv_heads ? m->kv_heads : m->heads, m->head_dim ? m->head_dim : m->hidden / m->heads);
    out(buf, len, &n, "    vocab: %u\n    tied: %s\n    gated: %s\n", m->vocab,
        m->tied ? "true" : "false", m->gated ? "true" : "false");
    out(buf, len, &n, "    bias: %s\n    norm: %s\n    norms_per_layer: %u\n",
        bias[m->bias <= ENGINE_BIAS_ALL ? m->bias : 0],
        m->norm == ENGINE_NORM_LAYER ? "layer" : "rms",
        m->norms_per_layer ? m->norms_per_layer : 2);
    out(buf, len, &n, "    qk_norm: %s\n    pos_embeddings: %u\n    max_context: %u\n",
        m->qk_norm ? "true" : "false", m->pos_embeddings, m->max_context);
    if (m->native_context) /* the type quoted: it is the config's text ("}yarn" too) */
        out(buf, len, &n, "    rope_scaling: {type: %s, factor: %g, native_context: %u}\n",
            yaml_quoted(m->rope_scaling[0] ? m->rope_scaling : "unknown", q, sizeof q),
            m->rope_factor, m->native_context);
    if (m->sliding_window > 0)
        out(buf, len, &n, "    sliding_window: %u\n    sliding_layers: %u\n", m->sliding_window,
            m->sliding_layers);
    if (m->experts > 0)
        out(buf, len, &n,
            "    moe:\n      experts: %u\n      active: %u\n      shared: %u\n"
            "      ffn: %u\n      dense_layers: %u\n",
            m->experts, m->active_experts, m->shared_experts, m->moe_ffn ? m->moe_ffn : m->ffn,
            m->dense_layers);
    if (m->kv_lora_rank > 0)
        out(buf, len, &n,
            "    mla:\n      q_lora_rank: %u\n      kv_lora_rank: %u\n      rope_dim: %u\n"
            "      nope_dim: %u\n      v_head_dim: %u\n",
            m->q_lora_rank, m->kv_lora_rank, m->rope_dim, m->nope_dim, m->v_head_dim);
    out(buf, len, &n, "    source: %s\n",
        yaml_quoted(m->source ? m->source
                              : "Hugging Face config.json; params counted by vramlab from the "
                                "shape",
                    q, sizeof q));
    if (n >= len)
        return -1;
    return (int)n;
}
