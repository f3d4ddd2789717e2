/*
 * walk.c: the table walker of the YAML loader (after netplan's parse.c),
 * below both the schema tables (schema.c, whose nested tables it walks) and
 * the loader (load.c, which walks each entry with the schema's tables).
 *
 * Each mapping of the schema (docs/catalog.md) is a table of fields:
 * {key, expected node type, parser, offset into the entry, flags}. The
 * walker refuses unknown and repeated keys and wrong node types, calls each
 * field's parser, then reports required keys that are missing; a table may
 * add a check across its fields (kv_heads divides heads, and so on). Every
 * message is "file:line:col: key: expected ..., found ..." with libyaml's
 * marks made 1-based, then the line quoted.
 */
#include "catalog/loader.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Report an error at mark m about key (may be NULL). */
void catalog_load_error(struct load_ctx *x, yaml_mark_t m, const char *key, const char *fmt, ...) {
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
const char *catalog_node_text(const yaml_node_t *n) {
    return (const char *)n->data.scalar.value;
}

/* Describe a node for "found ...": 'text', nothing, a mapping, a list. */
const char *catalog_node_describe(const yaml_node_t *n, char *buf, size_t len) {
    char q[64];

    switch (n->type) {
    case YAML_SCALAR_NODE:
        if (n->data.scalar.length == 0)
            return "nothing";
        catalog_quote(catalog_node_text(n), q, sizeof q);
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
yaml_node_t *catalog_seen_value(const struct table *t, const struct seen *s, const char *key) {
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
        size_t dist = catalog_edit_distance(catalog_node_text(k), t->fields[i].key);
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
        catalog_load_error(x, k->start_mark, full, "unknown key in a %s (did you mean '%s'?)",
                           t->what, best);
    else
        catalog_load_error(x, k->start_mark, full, "unknown key in a %s; expected one of %s",
                           t->what, list);
    return best_i;
}

/* Walk mapping map with table t into base; key names are prefix.key. */
void catalog_parse_mapping(struct load_ctx *x, yaml_node_t *map, const struct table *t, void *base,
                           const char *prefix, struct seen *s) {
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
            catalog_load_error(x, k->start_mark, prefix, "expected a key name, found %s",
                               catalog_node_describe(k, buf, sizeof buf));
            continue;
        }
        if (prefix != NULL)
            snprintf(full, sizeof full, "%s.%s", prefix, catalog_node_text(k));
        else
            snprintf(full, sizeof full, "%s", catalog_node_text(k));
        idx = field_index(t, catalog_node_text(k));
        if (idx < 0) {
            /* A misspelt required key is one mistake: say it once. */
            int near = unknown_key(x, t, k, full);
            if (near >= 0)
                suggested[near] = true;
            continue;
        }
        f = &t->fields[idx];
        if (s->key[idx] != NULL) {
            catalog_load_error(x, k->start_mark, full,
                               "expected each key once, found it again (first at "
                               "line %zu)",
                               s->key[idx]->start_mark.line + 1);
            continue;
        }
        s->key[idx] = k;
        s->val[idx] = v;
        if (v->type != f->type) {
            catalog_load_error(x, v->start_mark, full, "expected %s, found %s",
                               expected_type(f->type), catalog_node_describe(v, buf, sizeof buf));
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
            catalog_load_error(x, map->start_mark, full, "expected in every %s, found none",
                               t->what);
        }
    }
    if (t->check != NULL && x->errors == before && !x->stop)
        t->check(x, t, map, s, base, prefix);
}

/* ---- nesting depth ----------------------------------------------------------- */

/* Check the nesting depth of YAML text (see catalog.h). The event parser
 * stops at the first opening too deep: libyaml's document loader and its
 * scanner's simple-key list take time quadratic in the depth (80 KB of '['
 * took seconds), the event stream up to depth max does not. */
int catalog_yaml_depth(const char *text, size_t len, unsigned max, size_t *line, size_t *col) {
    yaml_parser_t p;
    yaml_event_t e;
    unsigned depth = 0;
    int rc = 0;

    if (!yaml_parser_initialize(&p))
        return 0; /* out of memory: the loader says so */
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    for (;;) {
        if (!yaml_parser_parse(&p, &e))
            break; /* a syntax error: the loader reports it */
        yaml_event_type_t t = e.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > max) {
                *line = e.start_mark.line + 1;
                *col = e.start_mark.column + 1;
                rc = -1;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&e);
        if (rc != 0 || t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}
