/*
 * loader.h: what the table walker (walk.c), the schema tables
 * (schema.c) and the YAML loader (load.c) share: the field table types,
 * the load context and the helpers that report errors at libyaml marks.
 * walk.c is below schema.c, which is below load.c. Private to catalog/.
 */
#ifndef VRAMLAB_CATALOG_LOADER_H
#define VRAMLAB_CATALOG_LOADER_H

#include <yaml.h>

#include "catalog/internal.h"

#define MAX_FIELDS 40
#define KEY_MAX    64

enum { F_REQUIRED = 1u << 0, F_POSITIVE = 1u << 1 };
enum entity_kind { K_GPU = 0, K_MODEL, K_FORMAT, K_EVIDENCE, K_CPU, K_SYSTEM, K_COUNT };

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
    size_t size; /* capacity of char arrays; max of integers */
    unsigned flags;
    const void *data; /* nested table, enum names, quantity parser */
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
    void (*check)(struct load_ctx *x, const struct table *t, yaml_node_t *map, const struct seen *s,
                  void *base, const char *prefix);
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
    const char *name; /* file name for messages */
    const char *text; /* the source, to quote lines */
    size_t len;
    yaml_document_t *doc;
    struct catalog *tmp;
    struct catalog_diag *d;
    unsigned errors;
    bool stop; /* too many errors: read no further */
    bool oom;
    /* Line of each entry added to tmp, per kind, for duplicate messages. */
    size_t *lines[K_COUNT];
    size_t n_lines[K_COUNT], cap_lines[K_COUNT];
};

/* A GPU entry as parsed: the GPU and its driver names, stored at commit. */
struct gpu_entry {
    struct engine_gpu g;
    yaml_node_t *device_names;
};

/* A CPU entry as parsed: the CPU and the model names it reports. */
struct cpu_entry {
    struct catalog_cpu c;
    yaml_node_t *device_names;
};

/* The table of each kind of entry, indexed by enum entity_kind (schema.c). */
extern const struct table *const catalog_entry_tables[K_COUNT];

/* The walker (walk.c). Report an error at mark m about key (may be NULL). */
void catalog_load_error(struct load_ctx *x, yaml_mark_t m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The text of a scalar node. */
const char *catalog_node_text(const yaml_node_t *n);
/* Describe a node for "found ...": 'text', nothing, a mapping, a list. */
const char *catalog_node_describe(const yaml_node_t *n, char *buf, size_t len);
/* Walk mapping map with table t into base; key names are prefix.key. */
void catalog_parse_mapping(struct load_ctx *x, yaml_node_t *map, const struct table *t, void *base,
                           const char *prefix, struct seen *s);
/* The value node seen for key in table t, or NULL. */
yaml_node_t *catalog_seen_value(const struct table *t, const struct seen *s, const char *key);

#endif
