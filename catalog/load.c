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
        if (g)
            first = g->id, idx = (size_t)(g - x->tmp->gpus);
        break;
    }
    case K_MODEL: {
        const struct engine_model *m = catalog_find_model(x->tmp, id);
        if (m)
            first = m->id, idx = (size_t)(m - x->tmp->models);
        break;
    }
    case K_FORMAT: {
        const struct engine_format *f = catalog_find_format(x->tmp, id);
        if (f)
            first = f->id, idx = (size_t)(f - x->tmp->formats);
        break;
    }
    case K_CPU: {
        const struct catalog_cpu *c = catalog_find_cpu(x->tmp, id);
        if (c)
            first = c->id, idx = (size_t)(c - x->tmp->cpus);
        break;
    }
    default: {
        const struct catalog_evidence *e = catalog_find_evidence(x->tmp, id);
        if (e)
            first = e->id, idx = (size_t)(e - x->tmp->evidence);
        break;
    }
    }
    if (first == NULL)
        return false;
    catalog_load_error(x, idnode->start_mark, "id",
                       "expected a unique id, found %s again (first at "
                       "line %zu)",
                       catalog_node_describe(idnode, buf, sizeof buf), x->lines[k][idx]);
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
                const char *name =
                    catalog_strdup(x->tmp, catalog_node_text(yaml_document_get_node(x->doc, *it)));
                rc = name ? catalog_add_device_name(x->tmp, e->g.id, name) : -1;
            }
        }
        break;
    }
    case K_CPU: {
        struct cpu_entry *e = entry;
        rc = catalog_add_cpu(x->tmp, &e->c);
        if (rc == 0 && e->device_names != NULL) {
            yaml_node_item_t *it;
            for (it = e->device_names->data.sequence.items.start;
                 it < e->device_names->data.sequence.items.top && rc == 0; it++) {
                const char *name =
                    catalog_strdup(x->tmp, catalog_node_text(yaml_document_get_node(x->doc, *it)));
                rc = name ? catalog_add_cpu_name(x->tmp, e->c.id, name) : -1;
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
            struct cpu_entry cpu;
        } e;
        unsigned before = x->errors;
        struct seen s;
        yaml_node_t *idnode;

        if (item->type != YAML_MAPPING_NODE) {
            catalog_load_error(x, item->start_mark, key,
                               "expected a mapping (check indentation), found %s",
                               catalog_node_describe(item, buf, sizeof buf));
            continue;
        }
        memset(&e, 0, sizeof e);
        if (k == K_MODEL)
            e.model.gated = true; /* SwiGLU/GeGLU unless said otherwise */
        catalog_parse_mapping(x, item, catalog_entry_tables[k], &e, NULL, &s);
        idnode = s.val[0]; /* id is the first field of every table */
        if (x->errors != before || x->oom || idnode == NULL)
            continue;
        if (duplicate_id(x, k, (const char *)&e, idnode))
            continue;
        if (commit(x, k, &e) < 0 || note_line(x, k, item->start_mark.line + 1) < 0)
            x->oom = true;
    }
}

/* Parse a whole document: a mapping of gpus, models, formats, evidence, cpus. */
static void parse_root(struct load_ctx *x, yaml_node_t *root) {
    static const char *const keys[K_COUNT] = {"gpus", "models", "formats", "evidence", "cpus"};
    yaml_node_pair_t *pair;
    yaml_node_t *seen[K_COUNT] = {NULL, NULL, NULL, NULL, NULL};
    char buf[80];

    if (root->type != YAML_MAPPING_NODE) {
        catalog_load_error(x, root->start_mark, NULL,
                           "expected a mapping of gpus, models, formats, "
                           "evidence or cpus, found %s",
                           catalog_node_describe(root, buf, sizeof buf));
        return;
    }
    for (pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top && !x->stop;
         pair++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(x->doc, pair->value);
        int i;

        if (k->type != YAML_SCALAR_NODE) {
            catalog_load_error(x, k->start_mark, NULL, "expected a key name, found %s",
                               catalog_node_describe(k, buf, sizeof buf));
            continue;
        }
        for (i = 0; i < K_COUNT && strcmp(catalog_node_text(k), keys[i]) != 0; i++)
            ;
        if (i == K_COUNT) {
            catalog_load_error(x, k->start_mark, catalog_node_text(k),
                               "unknown key at the top; expected gpus, "
                               "models, formats, evidence or cpus");
            continue;
        }
        if (seen[i] != NULL) {
            catalog_load_error(x, k->start_mark, catalog_node_text(k),
                               "expected each key once, found it again "
                               "(first at line %zu)",
                               seen[i]->start_mark.line + 1);
            continue;
        }
        seen[i] = k;
        if (v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0)
            continue; /* "gpus:" with nothing under it: an empty list */
        if (v->type != YAML_SEQUENCE_NODE) {
            catalog_load_error(x, v->start_mark, catalog_node_text(k),
                               "expected a list of entries ('- id: ...'), "
                               "found %s",
                               catalog_node_describe(v, buf, sizeof buf));
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
            catalog_load_error(x, m, NULL, "YAML syntax: %s %s (from line %zu)",
                               p->problem ? p->problem : "error", p->context,
                               p->context_mark.line + 1);
        else
            catalog_load_error(x, m, NULL, "YAML syntax: %s", p->problem ? p->problem : "error");
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
                    catalog_load_error(&x, next->start_mark, NULL,
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
