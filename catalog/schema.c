/*
 * schema.c: the catalog schema of docs/catalog.md as tables, one per YAML
 * mapping (after netplan's mapping_entry_handler): each row is a key, the
 * node type it must have, its parser, the offset of its field, and flags
 * (required, positive). Checks across fields (kv_heads divides heads, a
 * scale needs a block) run once a mapping was read without error, and
 * fill the documented defaults.
 */
#include "catalog/loader.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Enum fields are written as int: make sure that is their size. */
_Static_assert(sizeof(enum engine_bias) == sizeof(int), "enum size");
_Static_assert(sizeof(enum engine_norm) == sizeof(int), "enum size");
_Static_assert(sizeof(enum engine_format_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum engine_compute) == sizeof(int), "enum size");

/* Driver names one GPU may list (nvidia-smi spellings of one part). */
#define MAX_DEVICE_NAMES 16

/* Pointer to the field of entry base at offset. */
static void *at(void *base, const struct field *f) {
    return (char *)base + f->offset;
}

/* Parse an id: [a-z0-9.-], not empty, fits the array. */
static void p_id(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                 void *base) {
    const char *s = catalog_node_text(v);
    size_t n = strlen(s), i;
    bool alnum = false;
    char buf[80];

    for (i = 0; i < n; i++) {
        char ch = s[i];
        bool letter = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!letter && ch != '.' && ch != '-')
            break;
        alnum |= letter;
    }
    /* "-" alone would normalise to nothing, and nothing finds it. */
    if (!alnum || i < n) {
        catalog_load_error(x, v->start_mark, key,
                           "expected an id of a-z, 0-9, '.' and '-', found %s",
                           catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    if (n >= f->size) {
        catalog_load_error(x, v->start_mark, key,
                           "expected an id of at most %zu characters, found %s", f->size - 1,
                           catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), s, n + 1);
}

/* Parse a short text (a name) into a char array. */
static void p_text(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const char *s = catalog_node_text(v);
    size_t n = strlen(s);
    char buf[80];

    if (n == 0 || n >= f->size || n != v->data.scalar.length) {
        catalog_load_error(x, v->start_mark, key, "expected text of 1 to %zu bytes, found %s",
                           f->size - 1, catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), s, n + 1);
    catalog_text_clean_str(at(base, f));
}

/* Parse a source citation into a string owned by the scratch catalog. */
static void p_source(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                     void *base) {
    const char *s = catalog_node_text(v), *copy;

    if (s[0] == '\0' || strlen(s) != v->data.scalar.length) {
        catalog_load_error(x, v->start_mark, key,
                           "expected where the figures come from, found nothing");
        return;
    }
    copy = catalog_strdup(x->tmp, s);
    if (copy == NULL) {
        x->oom = true;
        return;
    }
    memcpy(at(base, f), &copy, sizeof copy);
}

/* Parse one of a list of words into a char array (vendor). */
static void p_word(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const struct enum_def *e = f->data;
    char buf[80];
    size_t i;

    for (i = 0; i < e->n; i++) {
        if (strcmp(catalog_node_text(v), e->names[i]) == 0) {
            snprintf(at(base, f), f->size, "%s", e->names[i]);
            return;
        }
    }
    catalog_load_error(x, v->start_mark, key, "expected one of %s%s%s%s%s%s%s%s%s, found %s",
                       e->names[0], e->n > 1 ? ", " : "", e->n > 1 ? e->names[1] : "",
                       e->n > 2 ? ", " : "", e->n > 2 ? e->names[2] : "", e->n > 3 ? ", " : "",
                       e->n > 3 ? e->names[3] : "", e->n > 4 ? ", " : "",
                       e->n > 4 ? e->names[4] : "", catalog_node_describe(v, buf, sizeof buf));
}

/* Parse one of a list of words into an int-sized enum. */
static void p_enum(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const struct enum_def *e = f->data;
    char list[160] = "", buf[80];
    size_t i;

    for (i = 0; i < e->n; i++) {
        if (strcmp(catalog_node_text(v), e->names[i]) == 0) {
            memcpy(at(base, f), &e->values[i], sizeof(int));
            return;
        }
    }
    for (i = 0; i < e->n; i++) {
        strncat(list, e->names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < e->n)
            strncat(list, i + 2 == e->n ? " or " : ", ", sizeof list - strlen(list) - 1);
    }
    catalog_load_error(x, v->start_mark, key, "expected %s, found %s", list,
                       catalog_node_describe(v, buf, sizeof buf));
}

/* Parse a whole number into a uint32_t (f->size: the largest allowed, 0 = any). */
static void p_u32(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                  void *base) {
    uint64_t max = f->size ? f->size : UINT32_MAX, n;
    uint32_t u;
    char err[160], buf[80];

    if (catalog_parse_uint(catalog_node_text(v), max, &n, err, sizeof err) < 0) {
        catalog_load_error(x, v->start_mark, key, "%s", err);
        return;
    }
    if ((f->flags & F_POSITIVE) && n == 0) {
        catalog_load_error(x, v->start_mark, key, "expected a whole number above zero, found %s",
                           catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    u = (uint32_t)n;
    memcpy(at(base, f), &u, sizeof u);
}

/* Parse true or false (nothing else: YAML 1.1's yes/on are typos here). */
static void p_bool(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    char buf[80];
    bool b;

    if (strcmp(catalog_node_text(v), "true") == 0)
        b = true;
    else if (strcmp(catalog_node_text(v), "false") == 0)
        b = false;
    else {
        catalog_load_error(x, v->start_mark, key, "expected true or false, found %s",
                           catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), &b, sizeof b);
}

/* Parse a quantity with units (bytes, bandwidth, FLOP/s, price ...) into a double. */
static void p_quantity(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                       void *base) {
    const struct quantity *q = f->data;
    char err[200], buf[80];
    double d;

    if (q->parse(catalog_node_text(v), &d, err, sizeof err) < 0) {
        catalog_load_error(x, v->start_mark, key, "%s", err);
        return;
    }
    if ((f->flags & F_POSITIVE) && !(d > 0)) {
        catalog_load_error(x, v->start_mark, key, "expected a %s above zero, found %s", q->what,
                           catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), &d, sizeof d);
}

/* Parse a date YYYY-MM or YYYY-MM-DD into a char array. */
static void p_date(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const char *s = catalog_node_text(v);
    size_t n = strlen(s), i;
    char buf[80];
    bool ok = n == 7 || n == 10;

    for (i = 0; ok && i < n; i++)
        ok = (i == 4 || i == 7) ? s[i] == '-' : (s[i] >= '0' && s[i] <= '9');
    if (!ok || n >= f->size) {
        catalog_load_error(x, v->start_mark, key, "expected a date like '2026-10', found %s",
                           catalog_node_describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), s, n + 1);
}

/* Parse a nested mapping (flops, price, moe, mla) with its own table. */
static void p_map(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                  void *base) {
    struct seen s;
    catalog_parse_mapping(x, v, f->data, base, key, &s);
}

/* Keep the node of a list of driver names; the entry's commit stores them. */
static void p_names(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                    void *base) {
    yaml_node_item_t *it;
    char buf[80];

    /* A bound, so aliases of one long list cannot make loading quadratic. */
    if (v->data.sequence.items.top - v->data.sequence.items.start > MAX_DEVICE_NAMES) {
        catalog_load_error(x, v->start_mark, key, "expected at most %d device names, found more",
                           MAX_DEVICE_NAMES);
        return;
    }
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top && !x->stop; it++) {
        yaml_node_t *n = yaml_document_get_node(x->doc, *it);
        if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0 ||
            n->data.scalar.length > 127 || strlen(catalog_node_text(n)) != n->data.scalar.length) {
            catalog_load_error(x, n->start_mark, key,
                               "expected a device name of 1 to 127 bytes, found %s",
                               catalog_node_describe(n, buf, sizeof buf));
            return;
        }
    }
    memcpy(at(base, f), &v, sizeof v);
}

/* ---- the schema ----------------------------------------------------------- */

struct point {
    double bits, per_group, per_matrix;
};

static const struct quantity q_bytes = {catalog_parse_bytes, "size"};
static const struct quantity q_bandwidth = {catalog_parse_bandwidth, "bandwidth"};
static const struct quantity q_flops = {catalog_parse_flops, "FLOP rate"};
static const struct quantity q_price = {catalog_parse_price, "price"};
static const struct quantity q_power = {catalog_parse_power, "power"};
static const struct quantity q_count = {catalog_parse_count, "count"};
static const struct quantity q_number = {catalog_parse_number, "number"};
static const struct quantity q_transfers = {catalog_parse_transfers, "transfer rate"};

static const struct enum_def e_vendor = {{"nvidia", "amd", "apple", "google", "intel"}, {0}, 5};
static const struct enum_def e_bias = {
    {"none", "qkv", "all"}, {ENGINE_BIAS_NONE, ENGINE_BIAS_QKV, ENGINE_BIAS_ALL}, 3};
static const struct enum_def e_norm = {{"rms", "layer"}, {ENGINE_NORM_RMS, ENGINE_NORM_LAYER}, 2};
static const struct enum_def e_kind = {
    {"float", "int", "block"}, {ENGINE_FMT_FLOAT, ENGINE_FMT_INT, ENGINE_FMT_BLOCK}, 3};
static const struct enum_def e_mix = {
    {"q2_k", "q3_k_s", "q3_k_m", "q3_k_l", "q4_k_s", "q4_k_m", "q5_k_s", "q5_k_m"},
    {ENGINE_MIX_Q2_K, ENGINE_MIX_Q3_K_S, ENGINE_MIX_Q3_K_M, ENGINE_MIX_Q3_K_L, ENGINE_MIX_Q4_K_S,
     ENGINE_MIX_Q4_K_M, ENGINE_MIX_Q5_K_S, ENGINE_MIX_Q5_K_M},
    8};
static const struct enum_def e_compute = {{"fp32", "fp16", "bf16", "fp8", "int8", "fp4"},
                                          {ENGINE_COMPUTE_FP32, ENGINE_COMPUTE_FP16,
                                           ENGINE_COMPUTE_BF16, ENGINE_COMPUTE_FP8,
                                           ENGINE_COMPUTE_INT8, ENGINE_COMPUTE_FP4},
                                          6};

#define S          YAML_SCALAR_NODE
#define M          YAML_MAPPING_NODE
#define L          YAML_SEQUENCE_NODE
#define G(member)  offsetof(struct gpu_entry, g.member)
#define FLOPS(col) (offsetof(struct gpu_entry, g.flops) + (col) * sizeof(double))
#define TABLE(what, fields, check)                                                                 \
    { what, fields, sizeof(fields) / sizeof(fields[0]), check }

static const struct field flops_fields[] = {
    {"fp32", S, p_quantity, FLOPS(ENGINE_COMPUTE_FP32), 0, F_POSITIVE, &q_flops},
    {"fp16", S, p_quantity, FLOPS(ENGINE_COMPUTE_FP16), 0, F_POSITIVE, &q_flops},
    {"bf16", S, p_quantity, FLOPS(ENGINE_COMPUTE_BF16), 0, F_POSITIVE, &q_flops},
    {"fp8", S, p_quantity, FLOPS(ENGINE_COMPUTE_FP8), 0, F_POSITIVE, &q_flops},
    {"int8", S, p_quantity, FLOPS(ENGINE_COMPUTE_INT8), 0, F_POSITIVE, &q_flops},
    {"fp4", S, p_quantity, FLOPS(ENGINE_COMPUTE_FP4), 0, F_POSITIVE, &q_flops},
};
static const struct table flops_table = TABLE("flops mapping", flops_fields, NULL);

static const struct field price_fields[] = {
    {"on_demand", S, p_quantity, G(price_per_hour), 0, F_POSITIVE, &q_price},
    {"spot", S, p_quantity, G(spot_price_per_hour), 0, F_POSITIVE, &q_price},
    {"date", S, p_date, G(price_date), sizeof(((struct engine_gpu *)0)->price_date), 0, NULL},
};
static const struct table price_table = TABLE("price mapping", price_fields, NULL);

static void check_gpu(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix);

static const struct field gpu_fields[] = {
    {"id", S, p_id, G(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"name", S, p_text, G(name), ENGINE_NAME_MAX, F_REQUIRED, NULL},
    {"vendor", S, p_word, G(vendor), sizeof(((struct engine_gpu *)0)->vendor), F_REQUIRED,
     &e_vendor},
    {"memory", S, p_quantity, G(memory_bytes), 0, F_REQUIRED | F_POSITIVE, &q_bytes},
    {"memory_reported", S, p_quantity, G(memory_reported_bytes), 0, F_POSITIVE, &q_bytes},
    {"bandwidth", S, p_quantity, G(bandwidth_bytes_per_s), 0, F_REQUIRED | F_POSITIVE,
     &q_bandwidth},
    {"flops", M, p_map, 0, 0, F_REQUIRED, &flops_table},
    {"interconnect", S, p_text, G(interconnect), sizeof(((struct engine_gpu *)0)->interconnect), 0,
     NULL},
    {"link_bandwidth", S, p_quantity, G(link_bytes_per_s), 0, F_POSITIVE, &q_bandwidth},
    {"gpus_per_node", S, p_u32, G(gpus_per_node), 1024, F_POSITIVE, NULL},
    {"tdp", S, p_quantity, G(tdp_w), 0, F_POSITIVE, &q_power},
    {"unified_memory", S, p_bool, G(unified_memory), 0, 0, NULL},
    {"device_names", L, p_names, offsetof(struct gpu_entry, device_names), 0, 0, NULL},
    {"price", M, p_map, 0, 0, 0, &price_table},
    {"source", S, p_source, G(source), 0, F_REQUIRED, NULL},
};
static const struct table gpu_table = TABLE("gpus entry", gpu_fields, check_gpu);

/* ---- cpus ---- */

static const struct enum_def e_cpu_vendor = {{"amd", "intel", "apple", "arm", "qualcomm"}, {0}, 5};
static const struct enum_def e_memory_type = {
    {"ddr4", "ddr5", "lpddr4x", "lpddr5", "lpddr5x"}, {0}, 5};

#define CP(member) offsetof(struct cpu_entry, c.member)
#define CPU_MEMBER_SIZE(member) sizeof(((struct catalog_cpu *)0)->member)

static const struct field cpu_flops_fields[] = {
    {"fp32", S, p_quantity, CP(fp32_flop_per_s), 0, F_POSITIVE, &q_flops},
};
static const struct table cpu_flops_table = TABLE("cpus flops mapping", cpu_flops_fields, NULL);

static void check_cpu(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix);

static const struct field cpu_fields[] = {
    {"id", S, p_id, CP(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"name", S, p_text, CP(name), ENGINE_NAME_MAX, F_REQUIRED, NULL},
    {"vendor", S, p_word, CP(vendor), CPU_MEMBER_SIZE(vendor), F_REQUIRED, &e_cpu_vendor},
    {"cores", S, p_u32, CP(cores), 65536, F_REQUIRED | F_POSITIVE, NULL},
    {"threads", S, p_u32, CP(threads), 65536, F_POSITIVE, NULL},
    {"memory_type", S, p_word, CP(memory_type), CPU_MEMBER_SIZE(memory_type), F_REQUIRED,
     &e_memory_type},
    {"memory_speed", S, p_quantity, CP(memory_transfers_per_s), 0, F_REQUIRED | F_POSITIVE,
     &q_transfers},
    {"memory_channels", S, p_u32, CP(memory_channels), 64, F_REQUIRED | F_POSITIVE, NULL},
    {"channel_width", S, p_u32, CP(channel_bits), 1024, F_POSITIVE, NULL},
    {"flops", M, p_map, 0, 0, 0, &cpu_flops_table},
    {"device_names", L, p_names, offsetof(struct cpu_entry, device_names), 0, 0, NULL},
    {"source", S, p_source, CP(source), 0, F_REQUIRED, NULL},
};
static const struct table cpu_table = TABLE("cpus entry", cpu_fields, check_cpu);
_Static_assert(sizeof cpu_fields / sizeof cpu_fields[0] <= MAX_FIELDS, "MAX_FIELDS");

/* ---- systems ---- */

#define SY(member) offsetof(struct catalog_system, member)

static void check_system(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                         const struct seen *s, void *base, const char *prefix);

static const struct field system_fields[] = {
    {"id", S, p_id, SY(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"name", S, p_text, SY(name), ENGINE_NAME_MAX, F_REQUIRED, NULL},
    {"gpu", S, p_id, SY(gpu), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"gpus", S, p_u32, SY(gpus), 1u << 20, F_REQUIRED | F_POSITIVE, NULL},
    {"nvlink_domain", S, p_u32, SY(nvlink_domain), 1u << 20, F_POSITIVE, NULL},
    {"link_bandwidth", S, p_quantity, SY(link_bytes_per_s), 0, F_REQUIRED | F_POSITIVE,
     &q_bandwidth},
    {"network_bandwidth", S, p_quantity, SY(network_bytes_per_s), 0, F_POSITIVE, &q_bandwidth},
    {"power", S, p_quantity, SY(power_w), 0, F_REQUIRED | F_POSITIVE, &q_power},
    {"source", S, p_source, SY(source), 0, F_REQUIRED, NULL},
};
static const struct table system_table = TABLE("systems entry", system_fields, check_system);

#define MO(member) offsetof(struct engine_model, member)
#define U32(key, member, flags)                                                                    \
    { key, S, p_u32, MO(member), 0, flags, NULL }

static const struct field moe_fields[] = {
    U32("experts", experts, F_REQUIRED | F_POSITIVE),
    U32("active", active_experts, F_REQUIRED | F_POSITIVE),
    U32("shared", shared_experts, 0),
    U32("ffn", moe_ffn, F_POSITIVE),
    U32("dense_layers", dense_layers, 0),
};
static void check_moe(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix);
static const struct table moe_table = TABLE("moe mapping", moe_fields, check_moe);

static const struct field mla_fields[] = {
    U32("q_lora_rank", q_lora_rank, 0),
    U32("kv_lora_rank", kv_lora_rank, F_REQUIRED | F_POSITIVE),
    U32("rope_dim", rope_dim, F_REQUIRED | F_POSITIVE),
    U32("nope_dim", nope_dim, F_REQUIRED | F_POSITIVE),
    U32("v_head_dim", v_head_dim, F_REQUIRED | F_POSITIVE),
};
static const struct table mla_table = TABLE("mla mapping", mla_fields, NULL);

/* rope_scaling: {type: yarn, factor: 4, native_context: 32768}: the context
 * the model was trained at before its rope scaling extended it. */
static const struct field rope_fields[] = {
    {"type", S, p_text, MO(rope_scaling), sizeof(((struct engine_model *)0)->rope_scaling), 0,
     NULL},
    {"factor", S, p_quantity, MO(rope_factor), 0, F_POSITIVE, &q_number},
    U32("native_context", native_context, F_REQUIRED | F_POSITIVE),
};
static const struct table rope_table = TABLE("rope_scaling mapping", rope_fields, NULL);

static void check_model(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                        const struct seen *s, void *base, const char *prefix);

static const struct field model_fields[] = {
    {"id", S, p_id, MO(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"name", S, p_text, MO(name), ENGINE_NAME_MAX, F_REQUIRED, NULL},
    {"family", S, p_id, MO(family), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"params", S, p_quantity, MO(params_published), 0, F_REQUIRED | F_POSITIVE, &q_count},
    U32("layers", layers, F_REQUIRED | F_POSITIVE),
    U32("hidden", hidden, F_REQUIRED | F_POSITIVE),
    U32("ffn", ffn, F_REQUIRED | F_POSITIVE),
    U32("heads", heads, F_REQUIRED | F_POSITIVE),
    U32("kv_heads", kv_heads, F_POSITIVE),
    U32("head_dim", head_dim, F_POSITIVE),
    U32("vocab", vocab, F_REQUIRED | F_POSITIVE),
    {"tied", S, p_bool, MO(tied), 0, 0, NULL},
    {"gated", S, p_bool, MO(gated), 0, 0, NULL},
    {"bias", S, p_enum, MO(bias), 0, 0, &e_bias},
    {"norm", S, p_enum, MO(norm), 0, 0, &e_norm},
    {"norms_per_layer", S, p_u32, MO(norms_per_layer), 8, F_POSITIVE, NULL},
    {"qk_norm", S, p_bool, MO(qk_norm), 0, 0, NULL},
    U32("pos_embeddings", pos_embeddings, 0),
    U32("max_context", max_context, F_REQUIRED | F_POSITIVE),
    U32("sliding_window", sliding_window, 0),
    U32("sliding_layers", sliding_layers, 0),
    {"global_batch_tokens", S, p_quantity, MO(global_batch_tokens), 0, F_POSITIVE, &q_count},
    {"moe", M, p_map, 0, 0, 0, &moe_table},
    {"mla", M, p_map, 0, 0, 0, &mla_table},
    {"rope_scaling", M, p_map, 0, 0, 0, &rope_table},
    {"source", S, p_source, MO(source), 0, F_REQUIRED, NULL},
};
static const struct table model_table = TABLE("models entry", model_fields, check_model);
_Static_assert(sizeof model_fields / sizeof model_fields[0] <= MAX_FIELDS, "MAX_FIELDS");
_Static_assert(sizeof gpu_fields / sizeof gpu_fields[0] <= MAX_FIELDS, "MAX_FIELDS");

#define FO(member) offsetof(struct engine_format, member)

static void check_format(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                         const struct seen *s, void *base, const char *prefix);

static const struct field format_fields[] = {
    {"id", S, p_id, FO(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"name", S, p_text, FO(name), ENGINE_NAME_MAX, F_REQUIRED, NULL},
    {"kind", S, p_enum, FO(kind), 0, F_REQUIRED, &e_kind},
    {"bits", S, p_quantity, FO(bits), 0, F_REQUIRED | F_POSITIVE, &q_number},
    {"block", S, p_u32, FO(block), 0, 0, NULL},
    {"scale_bits", S, p_quantity, FO(scale_bits), 0, 0, &q_number},
    {"zero_bits", S, p_quantity, FO(zero_bits), 0, 0, &q_number},
    {"super_block", S, p_u32, FO(super_block), 0, 0, NULL},
    {"super_scale_bits", S, p_quantity, FO(super_scale_bits), 0, 0, &q_number},
    {"compute", S, p_enum, FO(compute), 0, 0, &e_compute},
    {"mix", S, p_enum, FO(mix), 0, 0, &e_mix},
    {"sign", S, p_u32, FO(sign_bits), 1, 0, NULL},
    {"exponent", S, p_u32, FO(exponent_bits), 64, 0, NULL},
    {"mantissa", S, p_u32, FO(mantissa_bits), 256, 0, NULL},
    {"digits", S, p_quantity, FO(decimal_digits), 0, F_POSITIVE, &q_number},
    {"max", S, p_quantity, FO(max_value), 0, F_POSITIVE, &q_number},
    {"source", S, p_source, FO(source), 0, F_REQUIRED, NULL},
};
static const struct table format_table = TABLE("formats entry", format_fields, check_format);
_Static_assert(sizeof format_fields / sizeof format_fields[0] <= MAX_FIELDS, "MAX_FIELDS");

#define EV(member) offsetof(struct catalog_evidence, member)
#define PT(member) offsetof(struct point, member)

static const struct field point_fields[] = {
    {"bits", S, p_quantity, PT(bits), 0, F_REQUIRED | F_POSITIVE, &q_number},
    {"per_group", S, p_quantity, PT(per_group), 0, F_REQUIRED | F_POSITIVE, &q_number},
    {"per_matrix", S, p_quantity, PT(per_matrix), 0, F_REQUIRED | F_POSITIVE, &q_number},
};
static const struct table point_table = TABLE("points entry", point_fields, NULL);

static void p_points(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                     void *base);

static const struct field evidence_fields[] = {
    {"id", S, p_id, EV(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"title", S, p_text, EV(title), sizeof(((struct catalog_evidence *)0)->title), F_REQUIRED,
     NULL},
    {"group", S, p_u32, EV(group), 0, F_REQUIRED | F_POSITIVE, NULL},
    {"points", L, p_points, 0, 0, F_REQUIRED, NULL},
    {"source", S, p_source, EV(source), 0, F_REQUIRED, NULL},
};
static const struct table evidence_table = TABLE("evidence entry", evidence_fields, NULL);

/* Parse the evidence points: a list of {bits, per_group, per_matrix}. */
static void p_points(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                     void *base) {
    struct catalog_evidence *e = base;
    yaml_node_item_t *it;
    char buf[80];
    size_t n = 0;

    (void)f;
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top && !x->stop; it++) {
        yaml_node_t *item = yaml_document_get_node(x->doc, *it);
        struct point p = {0, 0, 0};
        struct seen s;
        if (item->type != YAML_MAPPING_NODE) {
            catalog_load_error(x, item->start_mark, key,
                               "expected a mapping {bits, per_group, "
                               "per_matrix}, found %s",
                               catalog_node_describe(item, buf, sizeof buf));
            continue;
        }
        if (n == CATALOG_EVIDENCE_MAX_POINTS) {
            catalog_load_error(x, item->start_mark, key, "expected at most %d points, found more",
                               CATALOG_EVIDENCE_MAX_POINTS);
            return;
        }
        catalog_parse_mapping(x, item, &point_table, &p, key, &s);
        e->bits[n] = p.bits;
        e->loss_per_group[n] = p.per_group;
        e->loss_per_matrix[n] = p.per_matrix;
        n++;
    }
    if (n == 0)
        catalog_load_error(x, v->start_mark, key, "expected at least one point, found none");
    e->n_points = n;
}

/* ---- checks across fields ------------------------------------------------ */

/* A GPU needs a 16-bit dense rate; nodes hold at least one GPU. */
static void check_gpu(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix) {
    struct gpu_entry *e = base;

    (void)map;
    (void)prefix;
    if (!(e->g.flops[ENGINE_COMPUTE_FP16] > 0) && !(e->g.flops[ENGINE_COMPUTE_BF16] > 0))
        catalog_load_error(x, catalog_seen_value(t, s, "flops")->start_mark, "flops",
                           "expected fp16 or bf16 (the dense 16-bit rate), found neither");
    if (e->g.gpus_per_node == 0)
        e->g.gpus_per_node = 1;
    /* What CUDA reports is the data sheet's less what ECC and the driver
     * keep: at most the memory, and not below half of it (a unit slip). */
    if (e->g.memory_reported_bytes > 0 && (e->g.memory_reported_bytes > e->g.memory_bytes ||
                                           e->g.memory_reported_bytes < e->g.memory_bytes / 2))
        catalog_load_error(x, catalog_seen_value(t, s, "memory_reported")->start_mark,
                           "memory_reported",
                           "expected at most the memory and at least half of it (what CUDA "
                           "reports of the data sheet's memory)");
}

/* Memory transfer rates a real part runs at: DDR4-1600 to beyond
 * LPDDR5X-10700; outside, a unit typo (4800 GT/s). */
#define CPU_MIN_TRANSFERS 400e6
#define CPU_MAX_TRANSFERS 20e9

/* A CPU: threads at least the cores, a channel width of whole bytes, a
 * real transfer rate; fill the defaults and the data-sheet bandwidth. */
static void check_cpu(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix) {
    struct cpu_entry *e = base;
    yaml_node_t *v;
    char buf[80];

    (void)map;
    (void)prefix;
    if ((v = catalog_seen_value(t, s, "threads")) == NULL)
        e->c.threads = e->c.cores;
    else if (e->c.threads < e->c.cores)
        catalog_load_error(x, v->start_mark, "threads", "expected at least cores (%u), found %s",
                           e->c.cores, catalog_node_describe(v, buf, sizeof buf));
    if ((v = catalog_seen_value(t, s, "channel_width")) == NULL)
        e->c.channel_bits = 64;
    else if (e->c.channel_bits % 8 != 0)
        catalog_load_error(x, v->start_mark, "channel_width",
                           "expected whole bytes in bits (16, 32, 64), found %s",
                           catalog_node_describe(v, buf, sizeof buf));
    v = catalog_seen_value(t, s, "memory_speed");
    if (e->c.memory_transfers_per_s < CPU_MIN_TRANSFERS ||
        e->c.memory_transfers_per_s > CPU_MAX_TRANSFERS)
        catalog_load_error(x, v->start_mark, "memory_speed",
                           "expected 400 to 20000 MT/s (DDR5-4800 is 4800 MT/s), found %s",
                           catalog_node_describe(v, buf, sizeof buf));
    e->c.bandwidth_bytes_per_s = catalog_memory_bandwidth(
        e->c.memory_channels, e->c.channel_bits, e->c.memory_transfers_per_s);
}

/* A system: its NVLink domain divides its GPUs or spans whole systems
 * (an NVLink switch across racks); the GPUs unless said. */
static void check_system(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                         const struct seen *s, void *base, const char *prefix) {
    struct catalog_system *y = base;
    yaml_node_t *v;
    char buf[80];

    (void)map;
    (void)prefix;
    if ((v = catalog_seen_value(t, s, "nvlink_domain")) == NULL)
        y->nvlink_domain = y->gpus;
    else if (y->gpus % y->nvlink_domain != 0 && y->nvlink_domain % y->gpus != 0)
        catalog_load_error(x, v->start_mark, "nvlink_domain",
                           "expected a divisor or a multiple of gpus (%u), found %s", y->gpus,
                           catalog_node_describe(v, buf, sizeof buf));
}

/* Experts: top-k within the experts. */
static void check_moe(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix) {
    const struct engine_model *m = base;
    char key[KEY_MAX], buf[80];

    (void)map;
    if (m->active_experts > m->experts) {
        yaml_node_t *v = catalog_seen_value(t, s, "active");
        snprintf(key, sizeof key, "%s.active", prefix);
        catalog_load_error(x, v->start_mark, key, "expected at most experts (%u), found %s",
                           m->experts, catalog_node_describe(v, buf, sizeof buf));
    }
}

/* A model's shape must hang together; fill the documented defaults. */
static void check_model(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                        const struct seen *s, void *base, const char *prefix) {
    struct engine_model *m = base;
    yaml_node_t *v;
    char buf[80];

    (void)prefix;
    if ((v = catalog_seen_value(t, s, "kv_heads")) == NULL)
        m->kv_heads = m->heads;
    else if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
        catalog_load_error(x, v->start_mark, "kv_heads",
                           "expected a divisor of heads (%u), found %s", m->heads,
                           catalog_node_describe(v, buf, sizeof buf));
    if (catalog_seen_value(t, s, "head_dim") == NULL) {
        if (m->hidden % m->heads != 0)
            catalog_load_error(x, map->start_mark, "head_dim",
                               "expected when hidden (%u) is not a "
                               "multiple of heads (%u), found none",
                               m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if ((v = catalog_seen_value(t, s, "sliding_layers")) != NULL && m->sliding_layers > m->layers)
        catalog_load_error(x, v->start_mark, "sliding_layers",
                           "expected at most layers (%u), found %s", m->layers,
                           catalog_node_describe(v, buf, sizeof buf));
    if ((v = catalog_seen_value(t, s, "sliding_layers")) != NULL && m->sliding_window == 0)
        catalog_load_error(x, v->start_mark, "sliding_layers",
                           "expected with a sliding_window, found "
                           "none");
    if ((v = catalog_seen_value(t, s, "rope_scaling")) != NULL &&
        m->native_context >= m->max_context)
        catalog_load_error(x, v->start_mark, "rope_scaling.native_context",
                           "expected below max_context (%u): the context before the extension",
                           m->max_context);
    if (m->dense_layers > m->layers)
        catalog_load_error(x, catalog_seen_value(t, s, "moe")->start_mark, "moe.dense_layers",
                           "expected at most layers (%u), found %u", m->layers, m->dense_layers);
    if (catalog_seen_value(t, s, "norms_per_layer") == NULL)
        m->norms_per_layer = 2;
    m->has_arch = true;
}

/* Scales need a block to be shared by; a super scale needs a super block. */
static void check_format(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                         const struct seen *s, void *base, const char *prefix) {
    struct engine_format *f = base;

    (void)map;
    (void)prefix;
    if ((f->scale_bits > 0 || f->zero_bits > 0) && f->block == 0)
        catalog_load_error(x,
                           (catalog_seen_value(t, s, "scale_bits")
                                ? catalog_seen_value(t, s, "scale_bits")
                                : catalog_seen_value(t, s, "zero_bits"))
                               ->start_mark,
                           "block", "expected a block above zero to share the scale, found none");
    if (f->super_scale_bits > 0 && f->super_block == 0)
        catalog_load_error(
            x, catalog_seen_value(t, s, "super_scale_bits")->start_mark, "super_block",
            "expected a super_block above zero to share the super scale, found none");
    if (catalog_seen_value(t, s, "compute") == NULL)
        f->compute = ENGINE_COMPUTE_FP16;
}

const struct table *const catalog_entry_tables[K_COUNT] = {
    &gpu_table, &model_table, &format_table, &evidence_table, &cpu_table, &system_table};
