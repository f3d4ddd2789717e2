/*
 * internal.h: what the catalog's own files share and nobody else needs.
 *
 * Diagnostics with file:line:col and the quoted line (diag.c), the store
 * and merge of entries (catalog.c), the embedded default files (generated
 * embedded_catalog.c), and the number parsers used by loader and importer.
 */
#ifndef VRAMLAB_CATALOG_INTERNAL_H
#define VRAMLAB_CATALOG_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>

#include "catalog/catalog.h"

/* Most messages one file may add before the loader stops reading it. */
#define CATALOG_MAX_ERRORS_PER_FILE 20

/* One file of share/catalog compiled in: its name as in the source tree. */
struct catalog_embedded_file {
    const char *name; /* "share/catalog/gpus.yaml" */
    const char *text;
    size_t len;
};
extern const struct catalog_embedded_file catalog_embedded_files[];
extern const size_t catalog_embedded_count;


/* Copy s for a message: at most 40 bytes, control characters as '?'. */
void catalog_quote(const char *s, char *buf, size_t len);

/* A whole number 0..max without unit or sign; -1 with "expected ..., found ...". */
int catalog_parse_uint(const char *s, uint64_t max, uint64_t *out, char *err, size_t errlen);

/* Levenshtein distance of a and b (each cut to 127 bytes). */
size_t catalog_edit_distance(const char *a, const char *b);

/* Append formatted text to d (d may be NULL: the text is dropped). */
void catalog_diag_append(struct catalog_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Add one error: "name:line:col: key: message", then the source line
 * (line and col 1-based; text may be NULL, then no line is quoted).
 */
void catalog_diag_error(struct catalog_diag *d, const char *name, const char *text, size_t len,
                        size_t line, size_t col, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* Keep a copy of s owned by c (freed by catalog_free); NULL when out of memory. */
const char *catalog_strdup(struct catalog *c, const char *s);

/* Move every entry of from into c, replacing entries with the same id;
 * from is left empty. Returns 0, or -1 when out of memory (c unchanged). */
int catalog_merge(struct catalog *c, struct catalog *from);

/* Append one entry to c (no id check); 0, or -1 when out of memory. */
int catalog_add_model(struct catalog *c, const struct engine_model *m);
int catalog_add_format(struct catalog *c, const struct engine_format *f);
int catalog_add_evidence(struct catalog *c, const struct catalog_evidence *e);
int catalog_add_device_name(struct catalog *c, const char *gpu_id, const char *name);
int catalog_add_cpu(struct catalog *c, const struct catalog_cpu *cpu);
int catalog_add_cpu_name(struct catalog *c, const char *cpu_id, const char *name);
int catalog_add_system(struct catalog *c, const struct catalog_system *sys);

#endif
