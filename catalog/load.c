/*
 * load.c: the YAML loader: a document of gpus, models, formats, evidence,
 * cpus and systems, each entry walked with its schema table (walk.c, schema.c).
 *
 * A file is parsed into a scratch catalog; only when it has no error is
 * the scratch merged (entries with a known id replace the old ones), so a
 * bad file adds nothing.
 */
#include "catalog/loader.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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
    case K_SYSTEM: {
        const struct catalog_system *y = catalog_find_system(x->tmp, id);
        if (y)
            first = y->id, idx = (size_t)(y - x->tmp->systems);
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
    case K_SYSTEM:
        rc = catalog_add_system(x->tmp, entry);
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

    /* Each entry is checked against the ones before it (ids are unique):
     * a bound on the entries bounds the time (the shipped files hold 50). */
    if (list->data.sequence.items.top - list->data.sequence.items.start > CATALOG_MAX_ENTRIES) {
        catalog_load_error(x, list->start_mark, key,
                           "expected at most %d entries in one file, found %ld", CATALOG_MAX_ENTRIES,
                           (long)(list->data.sequence.items.top - list->data.sequence.items.start));
        return;
    }
    for (it = list->data.sequence.items.start; it < list->data.sequence.items.top && !x->stop;
         it++) {
        yaml_node_t *item = yaml_document_get_node(x->doc, *it);
        union {
            struct gpu_entry gpu;
            struct engine_model model;
            struct engine_format format;
            struct catalog_evidence evidence;
            struct cpu_entry cpu;
            struct catalog_system system;
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

/* Parse a whole document: a mapping of gpus, models, formats, evidence,
 * cpus, systems. */
static void parse_root(struct load_ctx *x, yaml_node_t *root) {
    static const char *const keys[K_COUNT] = {"gpus",     "models", "formats",
                                              "evidence", "cpus",   "systems"};
    yaml_node_pair_t *pair;
    yaml_node_t *seen[K_COUNT] = {NULL};
    char buf[80];

    if (root->type != YAML_MAPPING_NODE) {
        catalog_load_error(x, root->start_mark, NULL,
                           "expected a mapping of gpus, models, formats, "
                           "evidence, cpus or systems, found %s",
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
                               "models, formats, evidence, cpus or systems");
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
    size_t deep_line, deep_col;
    if (catalog_yaml_depth(text, len, CATALOG_MAX_DEPTH, &deep_line, &deep_col) != 0) {
        yaml_mark_t m = {0, deep_line - 1, deep_col - 1};
        catalog_load_error(&x, m, NULL,
                           "expected lists and mappings nested at most %d deep, found deeper "
                           "(a catalog entry is 3 deep)",
                           CATALOG_MAX_DEPTH);
    } else if (!yaml_parser_load(&parser, &doc)) {
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
