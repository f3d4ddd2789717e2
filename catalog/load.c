/*
 * load.c: the YAML loader, table driven (after netplan's parse.c).
 *
 * Each mapping of the schema (docs/catalog.md) is a table of fields:
 * {key, expected node type, parser, offset into the entry, flags}. The
 * walker refuses unknown and repeated keys and wrong node types, calls each
 * field's parser, then reports required keys that are missing; a table may
 * add a check across its fields (kv_heads divides heads, and so on).
 *
 * A file is parsed into a scratch catalog; only when it has no error is
 * the scratch merged (entries with a known id replace the old ones), so a
 * bad file adds nothing. Every message is "file:line:col: key: expected
 * ..., found ..." with libyaml's marks made 1-based, then the line quoted.
 */
#include "catalog/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Enum fields are written as int: make sure that is their size. */
_Static_assert(sizeof(enum engine_bias) == sizeof(int), "enum size");
_Static_assert(sizeof(enum engine_norm) == sizeof(int), "enum size");
_Static_assert(sizeof(enum engine_format_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum engine_compute) == sizeof(int), "enum size");

#define MAX_FIELDS 40
#define KEY_MAX 64

enum { F_REQUIRED = 1u << 0, F_POSITIVE = 1u << 1 };
enum entity_kind { K_GPU = 0, K_MODEL, K_FORMAT, K_EVIDENCE, K_COUNT };

struct load_ctx;
struct field;

/* A field parser: val has the field's node type; base is the entry. */
typedef void (*field_fn)(struct load_ctx *x, const struct field *f, const char *key,
                         yaml_node_t *val, void *base);

struct field {
    const char *key;
    yaml_node_type_t type;
    field_fn parse;
    size_t offset;
    size_t size;        /* capacity of char arrays; max of integers */
    unsigned flags;
    const void *data;   /* nested table, enum names, quantity parser */
};

/* Which key of a table held which node, for checks across fields. */
struct seen {
    yaml_node_t *key[MAX_FIELDS];
    yaml_node_t *val[MAX_FIELDS];
};

struct table {
    const char *what; /* "gpus entry", for messages */
    const struct field *fields;
    size_t n;
    /* Optional check across fields, after all keys were read. */
    void (*check)(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                  const struct seen *s, void *base, const char *prefix);
};

/* A unit parser and the noun of its positive-value message. */
struct quantity {
    int (*parse)(const char *s, double *out, char *err, size_t errlen);
    const char *what;
};

/* An enum spelled in YAML: names[i] means values[i]. */
struct enum_def {
    const char *names[8];
    int values[8];
    size_t n;
};

struct load_ctx {
    const char *name;   /* file name for messages */
    const char *text;   /* the source, to quote lines */
    size_t len;
    yaml_document_t *doc;
    struct catalog *tmp;
    struct catalog_diag *d;
    unsigned errors;
    bool stop;          /* too many errors: read no further */
    bool oom;
    /* Line of each entry added to tmp, per kind, for duplicate messages. */
    size_t *lines[K_COUNT];
    size_t n_lines[K_COUNT], cap_lines[K_COUNT];
};

/* Report an error at mark m about key (may be NULL). */
static void error_at(struct load_ctx *x, yaml_mark_t m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void error_at(struct load_ctx *x, yaml_mark_t m, const char *key, const char *fmt, ...) {
    char msg[512];
    va_list ap;

    if (x->stop)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    catalog_diag_error(x->d, x->name, x->text, x->len, m.line + 1, m.column + 1, key, "%s", msg);
    if (++x->errors >= CATALOG_MAX_ERRORS_PER_FILE) {
        catalog_diag_append(x->d, "%s: too many errors, the rest of the file is not read\n",
                            x->name);
        x->stop = true;
    }
}

/* The text of a scalar node. */
static const char *scalar(const yaml_node_t *n) {
    return (const char *)n->data.scalar.value;
}

/* Describe a node for "found ...": 'text', nothing, a mapping, a list. */
static const char *describe(const yaml_node_t *n, char *buf, size_t len) {
    char q[64];

    switch (n->type) {
    case YAML_SCALAR_NODE:
        if (n->data.scalar.length == 0)
            return "nothing";
        catalog_quote(scalar(n), q, sizeof q);
        snprintf(buf, len, "'%s'", q);
        return buf;
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    default:
        return "nothing";
    }
}

/* What a node type is called in "expected ..." messages. */
static const char *expected_type(yaml_node_type_t t) {
    switch (t) {
    case YAML_MAPPING_NODE:
        return "a mapping (check indentation)";
    case YAML_SEQUENCE_NODE:
        return "a list";
    default:
        return "a single value";
    }
}

/* Pointer to the field of entry base at offset. */
static void *at(void *base, const struct field *f) {
    return (char *)base + f->offset;
}

/* Parse an id: [a-z0-9.-], not empty, fits the array. */
static void p_id(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                 void *base) {
    const char *s = scalar(v);
    size_t n = strlen(s), i;
    char buf[80];

    for (i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-'))
            break;
    }
    if (n == 0 || i < n) {
        error_at(x, v->start_mark, key, "expected an id of a-z, 0-9, '.' and '-', found %s",
                 describe(v, buf, sizeof buf));
        return;
    }
    if (n >= f->size) {
        error_at(x, v->start_mark, key, "expected an id of at most %zu characters, found %s",
                 f->size - 1, describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), s, n + 1);
}

/* Parse a short text (a name) into a char array. */
static void p_text(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const char *s = scalar(v);
    size_t n = strlen(s);
    char buf[80];

    if (n == 0 || n >= f->size || n != v->data.scalar.length) {
        error_at(x, v->start_mark, key, "expected text of 1 to %zu bytes, found %s", f->size - 1,
                 describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), s, n + 1);
}

/* Parse a source citation into a string owned by the scratch catalog. */
static void p_source(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                     void *base) {
    const char *s = scalar(v), *copy;

    if (s[0] == '\0' || strlen(s) != v->data.scalar.length) {
        error_at(x, v->start_mark, key, "expected where the figures come from, found nothing");
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
        if (strcmp(scalar(v), e->names[i]) == 0) {
            snprintf(at(base, f), f->size, "%s", e->names[i]);
            return;
        }
    }
    error_at(x, v->start_mark, key, "expected one of %s%s%s%s%s%s%s%s%s, found %s", e->names[0],
             e->n > 1 ? ", " : "", e->n > 1 ? e->names[1] : "", e->n > 2 ? ", " : "",
             e->n > 2 ? e->names[2] : "", e->n > 3 ? ", " : "", e->n > 3 ? e->names[3] : "",
             e->n > 4 ? ", " : "", e->n > 4 ? e->names[4] : "", describe(v, buf, sizeof buf));
}

/* Parse one of a list of words into an int-sized enum. */
static void p_enum(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const struct enum_def *e = f->data;
    char list[160] = "", buf[80];
    size_t i;

    for (i = 0; i < e->n; i++) {
        if (strcmp(scalar(v), e->names[i]) == 0) {
            memcpy(at(base, f), &e->values[i], sizeof(int));
            return;
        }
    }
    for (i = 0; i < e->n; i++) {
        strncat(list, e->names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < e->n)
            strncat(list, i + 2 == e->n ? " or " : ", ", sizeof list - strlen(list) - 1);
    }
    error_at(x, v->start_mark, key, "expected %s, found %s", list, describe(v, buf, sizeof buf));
}

/* Parse a whole number into a uint32_t (f->size: the largest allowed, 0 = any). */
static void p_u32(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                  void *base) {
    uint64_t max = f->size ? f->size : UINT32_MAX, n;
    uint32_t u;
    char err[160], buf[80];

    if (catalog_parse_uint(scalar(v), max, &n, err, sizeof err) < 0) {
        error_at(x, v->start_mark, key, "%s", err);
        return;
    }
    if ((f->flags & F_POSITIVE) && n == 0) {
        error_at(x, v->start_mark, key, "expected a whole number above zero, found %s",
                 describe(v, buf, sizeof buf));
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

    if (strcmp(scalar(v), "true") == 0)
        b = true;
    else if (strcmp(scalar(v), "false") == 0)
        b = false;
    else {
        error_at(x, v->start_mark, key, "expected true or false, found %s",
                 describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), &b, sizeof b);
}

/* Parse a quantity with units (bytes, bandwidth, FLOP/s, price ...) into a double. */
static void p_quantity(struct load_ctx *x, const struct field *f, const char *key,
                       yaml_node_t *v, void *base) {
    const struct quantity *q = f->data;
    char err[200], buf[80];
    double d;

    if (q->parse(scalar(v), &d, err, sizeof err) < 0) {
        error_at(x, v->start_mark, key, "%s", err);
        return;
    }
    if ((f->flags & F_POSITIVE) && !(d > 0)) {
        error_at(x, v->start_mark, key, "expected a %s above zero, found %s", q->what,
                 describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), &d, sizeof d);
}

/* Parse a date YYYY-MM or YYYY-MM-DD into a char array. */
static void p_date(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                   void *base) {
    const char *s = scalar(v);
    size_t n = strlen(s), i;
    char buf[80];
    bool ok = n == 7 || n == 10;

    for (i = 0; ok && i < n; i++)
        ok = (i == 4 || i == 7) ? s[i] == '-' : (s[i] >= '0' && s[i] <= '9');
    if (!ok || n >= f->size) {
        error_at(x, v->start_mark, key, "expected a date like '2026-10', found %s",
                 describe(v, buf, sizeof buf));
        return;
    }
    memcpy(at(base, f), s, n + 1);
}

/* Walk mapping map with table t into base; key names are prefix.key. */
static void parse_mapping(struct load_ctx *x, yaml_node_t *map, const struct table *t,
                          void *base, const char *prefix, struct seen *s);

/* Parse a nested mapping (flops, price, moe, mla) with its own table. */
static void p_map(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                  void *base) {
    struct seen s;
    parse_mapping(x, v, f->data, base, key, &s);
}

/* Keep the node of a list of driver names; the entry's commit stores them. */
static void p_names(struct load_ctx *x, const struct field *f, const char *key, yaml_node_t *v,
                    void *base) {
    yaml_node_item_t *it;
    char buf[80];

    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top && !x->stop; it++) {
        yaml_node_t *n = yaml_document_get_node(x->doc, *it);
        if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0 ||
            n->data.scalar.length > 127 || strlen(scalar(n)) != n->data.scalar.length) {
            error_at(x, n->start_mark, key, "expected a device name of 1 to 127 bytes, found %s",
                     describe(n, buf, sizeof buf));
            return;
        }
    }
    memcpy(at(base, f), &v, sizeof v);
}

/* ---- the schema ----------------------------------------------------------- */

struct gpu_entry {
    struct engine_gpu g;
    yaml_node_t *device_names;
};

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

static const struct enum_def e_vendor = {{"nvidia", "amd", "apple", "google", "intel"}, {0}, 5};
static const struct enum_def e_bias = {
    {"none", "qkv", "all"}, {ENGINE_BIAS_NONE, ENGINE_BIAS_QKV, ENGINE_BIAS_ALL}, 3};
static const struct enum_def e_norm = {{"rms", "layer"}, {ENGINE_NORM_RMS, ENGINE_NORM_LAYER}, 2};
static const struct enum_def e_kind = {
    {"float", "int", "block"}, {ENGINE_FMT_FLOAT, ENGINE_FMT_INT, ENGINE_FMT_BLOCK}, 3};
static const struct enum_def e_compute = {
    {"fp32", "fp16", "bf16", "fp8", "int8", "fp4"},
    {ENGINE_COMPUTE_FP32, ENGINE_COMPUTE_FP16, ENGINE_COMPUTE_BF16, ENGINE_COMPUTE_FP8,
     ENGINE_COMPUTE_INT8, ENGINE_COMPUTE_FP4},
    6};

#define S YAML_SCALAR_NODE
#define M YAML_MAPPING_NODE
#define L YAML_SEQUENCE_NODE
#define G(member) offsetof(struct gpu_entry, g.member)
#define FLOPS(col) (offsetof(struct gpu_entry, g.flops) + (col) * sizeof(double))
#define TABLE(what, fields, check) {what, fields, sizeof(fields) / sizeof(fields[0]), check}

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
    {"bandwidth", S, p_quantity, G(bandwidth_bytes_per_s), 0, F_REQUIRED | F_POSITIVE,
     &q_bandwidth},
    {"flops", M, p_map, 0, 0, F_REQUIRED, &flops_table},
    {"interconnect", S, p_text, G(interconnect), sizeof(((struct engine_gpu *)0)->interconnect),
     0, NULL},
    {"link_bandwidth", S, p_quantity, G(link_bytes_per_s), 0, F_POSITIVE, &q_bandwidth},
    {"gpus_per_node", S, p_u32, G(gpus_per_node), 1024, F_POSITIVE, NULL},
    {"tdp", S, p_quantity, G(tdp_w), 0, F_POSITIVE, &q_power},
    {"unified_memory", S, p_bool, G(unified_memory), 0, 0, NULL},
    {"device_names", L, p_names, offsetof(struct gpu_entry, device_names), 0, 0, NULL},
    {"price", M, p_map, 0, 0, 0, &price_table},
    {"source", S, p_source, G(source), 0, F_REQUIRED, NULL},
};
static const struct table gpu_table = TABLE("gpus entry", gpu_fields, check_gpu);

#define MO(member) offsetof(struct engine_model, member)
#define U32(key, member, flags) {key, S, p_u32, MO(member), 0, flags, NULL}

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
    {"moe", M, p_map, 0, 0, 0, &moe_table},
    {"mla", M, p_map, 0, 0, 0, &mla_table},
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

static void p_points(struct load_ctx *x, const struct field *f, const char *key,
                     yaml_node_t *v, void *base);

static const struct field evidence_fields[] = {
    {"id", S, p_id, EV(id), ENGINE_ID_MAX, F_REQUIRED, NULL},
    {"title", S, p_text, EV(title), sizeof(((struct catalog_evidence *)0)->title), F_REQUIRED,
     NULL},
    {"group", S, p_u32, EV(group), 0, F_REQUIRED | F_POSITIVE, NULL},
    {"points", L, p_points, 0, 0, F_REQUIRED, NULL},
    {"source", S, p_source, EV(source), 0, F_REQUIRED, NULL},
};
static const struct table evidence_table = TABLE("evidence entry", evidence_fields, NULL);

/* ---- the walker --------------------------------------------------------- */

/* Index of key in table t, or -1. */
static int field_index(const struct table *t, const char *key) {
    size_t i;

    for (i = 0; i < t->n; i++) {
        if (strcmp(t->fields[i].key, key) == 0)
            return (int)i;
    }
    return -1;
}

/* The value node seen for key in table t, or NULL. */
static yaml_node_t *seen_val(const struct table *t, const struct seen *s, const char *key) {
    int i = field_index(t, key);
    return i < 0 ? NULL : s->val[i];
}

/* Report key as unknown in table t, suggesting the nearest known key;
 * returns the index of the suggestion, or -1. */
static int unknown_key(struct load_ctx *x, const struct table *t, yaml_node_t *k,
                       const char *full) {
    const char *best = NULL;
    int best_i = -1;
    size_t i, best_d = 3, len = 0;
    char list[400] = "";

    for (i = 0; i < t->n; i++) {
        size_t dist = catalog_edit_distance(scalar(k), t->fields[i].key);
        if (dist < best_d) {
            best_d = dist;
            best = t->fields[i].key;
            best_i = (int)i;
        }
        len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
                                i ? ", " : "", t->fields[i].key);
        if (len >= sizeof list)
            len = sizeof list - 1;
    }
    if (best != NULL)
        error_at(x, k->start_mark, full, "unknown key in a %s (did you mean '%s'?)", t->what,
                 best);
    else
        error_at(x, k->start_mark, full, "unknown key in a %s; expected one of %s", t->what,
                 list);
    return best_i;
}

/* Walk mapping map with table t into base; key names are prefix.key. */
static void parse_mapping(struct load_ctx *x, yaml_node_t *map, const struct table *t,
                          void *base, const char *prefix, struct seen *s) {
    yaml_node_pair_t *pair;
    char full[KEY_MAX], buf[80];
    unsigned before = x->errors;
    bool suggested[MAX_FIELDS] = {false};
    size_t i;

    memset(s, 0, sizeof *s);
    for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top && !x->stop;
         pair++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(x->doc, pair->value);
        const struct field *f;
        int idx;

        if (k->type != YAML_SCALAR_NODE) {
            error_at(x, k->start_mark, prefix, "expected a key name, found %s",
                     describe(k, buf, sizeof buf));
            continue;
        }
        if (prefix != NULL)
            snprintf(full, sizeof full, "%s.%s", prefix, scalar(k));
        else
            snprintf(full, sizeof full, "%s", scalar(k));
        idx = field_index(t, scalar(k));
        if (idx < 0) {
            /* A misspelt required key is one mistake: say it once. */
            int near = unknown_key(x, t, k, full);
            if (near >= 0)
                suggested[near] = true;
            continue;
        }
        f = &t->fields[idx];
        if (s->key[idx] != NULL) {
            error_at(x, k->start_mark, full, "expected each key once, found it again (first at "
                     "line %zu)", s->key[idx]->start_mark.line + 1);
            continue;
        }
        s->key[idx] = k;
        s->val[idx] = v;
        if (v->type != f->type) {
            error_at(x, v->start_mark, full, "expected %s, found %s", expected_type(f->type),
                     describe(v, buf, sizeof buf));
            continue;
        }
        f->parse(x, f, full, v, base);
    }
    for (i = 0; i < t->n && !x->stop; i++) {
        if ((t->fields[i].flags & F_REQUIRED) && s->key[i] == NULL && !suggested[i]) {
            if (prefix != NULL)
                snprintf(full, sizeof full, "%s.%s", prefix, t->fields[i].key);
            else
                snprintf(full, sizeof full, "%s", t->fields[i].key);
            error_at(x, map->start_mark, full, "expected in every %s, found none", t->what);
        }
    }
    if (t->check != NULL && x->errors == before && !x->stop)
        t->check(x, t, map, s, base, prefix);
}

/* Parse the evidence points: a list of {bits, per_group, per_matrix}. */
static void p_points(struct load_ctx *x, const struct field *f, const char *key,
                     yaml_node_t *v, void *base) {
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
            error_at(x, item->start_mark, key, "expected a mapping {bits, per_group, "
                     "per_matrix}, found %s", describe(item, buf, sizeof buf));
            continue;
        }
        if (n == CATALOG_EVIDENCE_MAX_POINTS) {
            error_at(x, item->start_mark, key, "expected at most %d points, found more",
                     CATALOG_EVIDENCE_MAX_POINTS);
            return;
        }
        parse_mapping(x, item, &point_table, &p, key, &s);
        e->bits[n] = p.bits;
        e->loss_per_group[n] = p.per_group;
        e->loss_per_matrix[n] = p.per_matrix;
        n++;
    }
    if (n == 0)
        error_at(x, v->start_mark, key, "expected at least one point, found none");
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
        error_at(x, seen_val(t, s, "flops")->start_mark, "flops",
                 "expected fp16 or bf16 (the dense 16-bit rate), found neither");
    if (e->g.gpus_per_node == 0)
        e->g.gpus_per_node = 1;
}

/* Experts: top-k within the experts. */
static void check_moe(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                      const struct seen *s, void *base, const char *prefix) {
    const struct engine_model *m = base;
    char key[KEY_MAX], buf[80];

    (void)map;
    if (m->active_experts > m->experts) {
        yaml_node_t *v = seen_val(t, s, "active");
        snprintf(key, sizeof key, "%s.active", prefix);
        error_at(x, v->start_mark, key, "expected at most experts (%u), found %s", m->experts,
                 describe(v, buf, sizeof buf));
    }
}

/* A model's shape must hang together; fill the documented defaults. */
static void check_model(struct load_ctx *x, const struct table *t, yaml_node_t *map,
                        const struct seen *s, void *base, const char *prefix) {
    struct engine_model *m = base;
    yaml_node_t *v;
    char buf[80];

    (void)prefix;
    if ((v = seen_val(t, s, "kv_heads")) == NULL)
        m->kv_heads = m->heads;
    else if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
        error_at(x, v->start_mark, "kv_heads", "expected a divisor of heads (%u), found %s",
                 m->heads, describe(v, buf, sizeof buf));
    if (seen_val(t, s, "head_dim") == NULL) {
        if (m->hidden % m->heads != 0)
            error_at(x, map->start_mark, "head_dim", "expected when hidden (%u) is not a "
                     "multiple of heads (%u), found none", m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if ((v = seen_val(t, s, "sliding_layers")) != NULL && m->sliding_layers > m->layers)
        error_at(x, v->start_mark, "sliding_layers", "expected at most layers (%u), found %s",
                 m->layers, describe(v, buf, sizeof buf));
    if ((v = seen_val(t, s, "sliding_layers")) != NULL && m->sliding_window == 0)
        error_at(x, v->start_mark, "sliding_layers", "expected with a sliding_window, found "
                 "none");
    if (m->dense_layers > m->layers)
        error_at(x, seen_val(t, s, "moe")->start_mark, "moe.dense_layers",
                 "expected at most layers (%u), found %u", m->layers, m->dense_layers);
    if (seen_val(t, s, "norms_per_layer") == NULL)
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
        error_at(x, (seen_val(t, s, "scale_bits") ? seen_val(t, s, "scale_bits")
                                                  : seen_val(t, s, "zero_bits"))->start_mark,
                 "block", "expected a block above zero to share the scale, found none");
    if (f->super_scale_bits > 0 && f->super_block == 0)
        error_at(x, seen_val(t, s, "super_scale_bits")->start_mark, "super_block",
                 "expected a super_block above zero to share the super scale, found none");
    if (seen_val(t, s, "compute") == NULL)
        f->compute = ENGINE_COMPUTE_FP16;
}

/* ---- entries and files ---------------------------------------------------- */

/* Refuse an id already used by an entry of this kind in this file. */
static bool duplicate_id(struct load_ctx *x, enum entity_kind k, const char *id,
                         yaml_node_t *idnode) {
    const char *first = NULL;
    char buf[80];
    size_t idx = 0;

    switch (k) {
    case K_GPU: {
        const struct engine_gpu *g = catalog_find_gpu(x->tmp, id);
        if (g) first = g->id, idx = (size_t)(g - x->tmp->gpus);
        break;
    }
    case K_MODEL: {
        const struct engine_model *m = catalog_find_model(x->tmp, id);
        if (m) first = m->id, idx = (size_t)(m - x->tmp->models);
        break;
    }
    case K_FORMAT: {
        const struct engine_format *f = catalog_find_format(x->tmp, id);
        if (f) first = f->id, idx = (size_t)(f - x->tmp->formats);
        break;
    }
    default: {
        const struct catalog_evidence *e = catalog_find_evidence(x->tmp, id);
        if (e) first = e->id, idx = (size_t)(e - x->tmp->evidence);
        break;
    }
    }
    if (first == NULL)
        return false;
    error_at(x, idnode->start_mark, "id", "expected a unique id, found %s again (first at "
             "line %zu)", describe(idnode, buf, sizeof buf), x->lines[k][idx]);
    return true;
}

/* Remember the line of the entry just added to tmp. */
static int note_line(struct load_ctx *x, enum entity_kind k, size_t line) {
    if (x->n_lines[k] == x->cap_lines[k]) {
        size_t cap = x->cap_lines[k] ? x->cap_lines[k] * 2 : 16;
        size_t *p = realloc(x->lines[k], cap * sizeof *p);
        if (p == NULL)
            return -1;
        x->lines[k] = p;
        x->cap_lines[k] = cap;
    }
    x->lines[k][x->n_lines[k]++] = line;
    return 0;
}

/* Add a parsed, checked entry to the scratch catalog. */
static int commit(struct load_ctx *x, enum entity_kind k, void *entry) {
    int rc = 0;

    switch (k) {
    case K_GPU: {
        struct gpu_entry *e = entry;
        rc = catalog_add_gpu(x->tmp, &e->g);
        if (rc == 0 && e->device_names != NULL) {
            yaml_node_item_t *it;
            for (it = e->device_names->data.sequence.items.start;
                 it < e->device_names->data.sequence.items.top && rc == 0; it++) {
                const char *name = catalog_strdup(
                    x->tmp, scalar(yaml_document_get_node(x->doc, *it)));
                rc = name ? catalog_add_device_name(x->tmp, e->g.id, name) : -1;
            }
        }
        break;
    }
    case K_MODEL:
        rc = catalog_add_model(x->tmp, entry);
        break;
    case K_FORMAT:
        rc = catalog_add_format(x->tmp, entry);
        break;
    default:
        rc = catalog_add_evidence(x->tmp, entry);
        break;
    }
    return rc;
}

/* Parse the list under a top-level key: every item one entry of kind k. */
static void parse_entries(struct load_ctx *x, enum entity_kind k, const char *key,
                          yaml_node_t *list) {
    static const struct table *const tables[K_COUNT] = {&gpu_table, &model_table, &format_table,
                                                        &evidence_table};
    yaml_node_item_t *it;
    char buf[80];

    for (it = list->data.sequence.items.start; it < list->data.sequence.items.top && !x->stop;
         it++) {
        yaml_node_t *item = yaml_document_get_node(x->doc, *it);
        union {
            struct gpu_entry gpu;
            struct engine_model model;
            struct engine_format format;
            struct catalog_evidence evidence;
        } e;
        unsigned before = x->errors;
        struct seen s;
        yaml_node_t *idnode;

        if (item->type != YAML_MAPPING_NODE) {
            error_at(x, item->start_mark, key, "expected a mapping (check indentation), found %s",
                     describe(item, buf, sizeof buf));
            continue;
        }
        memset(&e, 0, sizeof e);
        if (k == K_MODEL)
            e.model.gated = true; /* SwiGLU/GeGLU unless said otherwise */
        parse_mapping(x, item, tables[k], &e, NULL, &s);
        idnode = s.val[0]; /* id is the first field of every table */
        if (x->errors != before || x->oom)
            continue;
        if (duplicate_id(x, k, (const char *)&e, idnode))
            continue;
        if (commit(x, k, &e) < 0 || note_line(x, k, item->start_mark.line + 1) < 0)
            x->oom = true;
    }
}

/* Parse a whole document: a mapping of gpus, models, formats, evidence. */
static void parse_root(struct load_ctx *x, yaml_node_t *root) {
    static const char *const keys[K_COUNT] = {"gpus", "models", "formats", "evidence"};
    yaml_node_pair_t *pair;
    yaml_node_t *seen[K_COUNT] = {NULL, NULL, NULL, NULL};
    char buf[80];

    if (root->type != YAML_MAPPING_NODE) {
        error_at(x, root->start_mark, NULL, "expected a mapping of gpus, models, formats or "
                 "evidence, found %s", describe(root, buf, sizeof buf));
        return;
    }
    for (pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top && !x->stop;
         pair++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(x->doc, pair->value);
        int i;

        if (k->type != YAML_SCALAR_NODE) {
            error_at(x, k->start_mark, NULL, "expected a key name, found %s",
                     describe(k, buf, sizeof buf));
            continue;
        }
        for (i = 0; i < K_COUNT && strcmp(scalar(k), keys[i]) != 0; i++)
            ;
        if (i == K_COUNT) {
            error_at(x, k->start_mark, scalar(k), "unknown key at the top; expected gpus, "
                     "models, formats or evidence");
            continue;
        }
        if (seen[i] != NULL) {
            error_at(x, k->start_mark, scalar(k), "expected each key once, found it again "
                     "(first at line %zu)", seen[i]->start_mark.line + 1);
            continue;
        }
        seen[i] = k;
        if (v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0)
            continue; /* "gpus:" with nothing under it: an empty list */
        if (v->type != YAML_SEQUENCE_NODE) {
            error_at(x, v->start_mark, scalar(k), "expected a list of entries ('- id: ...'), "
                     "found %s", describe(v, buf, sizeof buf));
            continue;
        }
        parse_entries(x, (enum entity_kind)i, keys[i], v);
    }
}

/* Report libyaml's own error (syntax, encoding) with its mark. */
static void syntax_error(struct load_ctx *x, const yaml_parser_t *p) {
    size_t line = p->problem_mark.line, col = p->problem_mark.column;

    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry a byte offset, not a mark. */
        size_t i, off = p->problem_offset < x->len ? p->problem_offset : x->len;
        line = col = 0;
        for (i = 0; i < off; i++) {
            if (x->text[i] == '\n')
                line++, col = 0;
            else if (((unsigned char)x->text[i] & 0xc0) != 0x80)
                col++;
        }
    }
    if (p->error == YAML_MEMORY_ERROR) {
        x->oom = true;
        return;
    }
    {
        yaml_mark_t m = p->problem_mark;
        m.line = line;
        m.column = col;
        if (p->context != NULL)
            error_at(x, m, NULL, "YAML syntax: %s %s (from line %zu)",
                     p->problem ? p->problem : "error", p->context, p->context_mark.line + 1);
        else
            error_at(x, m, NULL, "YAML syntax: %s", p->problem ? p->problem : "error");
    }
}

/* Load YAML text already in memory; name is used in messages. */
int catalog_load_buffer(struct catalog *c, const char *name, const char *text, size_t len,
                        struct catalog_diag *d) {
    struct catalog tmp;
    struct load_ctx x;
    yaml_parser_t parser;
    yaml_document_t doc;
    int i, rc = 0;

    memset(&x, 0, sizeof x);
    x.name = name;
    x.text = text;
    x.len = len;
    x.tmp = &tmp;
    x.d = d;
    x.doc = &doc;
    catalog_init(&tmp);
    if (!yaml_parser_initialize(&parser)) {
        catalog_diag_append(d, "%s: out of memory\n", name);
        if (d)
            d->errors++;
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        syntax_error(&x, &parser);
    } else {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (root != NULL)
            parse_root(&x, root);
        yaml_document_delete(&doc);
        /* One document per file; also surfaces errors after the first. */
        if (x.errors == 0 && !x.oom) {
            if (!yaml_parser_load(&parser, &doc)) {
                syntax_error(&x, &parser);
            } else {
                yaml_node_t *next = yaml_document_get_root_node(&doc);
                if (next != NULL)
                    error_at(&x, next->start_mark, NULL,
                             "expected one YAML document, found a second");
                yaml_document_delete(&doc);
            }
        }
    }
    yaml_parser_delete(&parser);
    if (x.oom) {
        catalog_diag_append(d, "%s: out of memory\n", name);
        if (d)
            d->errors++;
        rc = -1;
    } else if (x.errors > 0) {
        rc = -1;
    } else if (catalog_merge(c, &tmp) < 0) {
        catalog_diag_append(d, "%s: out of memory\n", name);
        if (d)
            d->errors++;
        rc = -1;
    }
    catalog_free(&tmp);
    for (i = 0; i < K_COUNT; i++)
        free(x.lines[i]);
    return rc;
}
