/*
 * gen_tables.c: the build tool that turns the shipped catalog into C
 * tables (tables.h says why and how). It loads the embedded YAML files
 * with catalog_load_buffer, exactly as the program once did at start-up:
 * any error is printed as file:line:col and fails the build. Then it
 * writes, to stdout, each array of the loaded catalog as bytes, its string
 * pointers as relocations into one string table.
 *
 * Every pointer field of the catalog's structs is listed in ptr_fields
 * below. A pointer the list misses would be written as this process's
 * address: the tool looks for one (a word equal to a string the catalog
 * owns) and fails the build naming the struct and the offset.
 */
#include "catalog/internal.h"
#include "catalog/tables.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pointer fields of each array's struct. */
struct kind_info {
    const char *name, *type;
    size_t size;
    size_t ptrs[2];
    size_t n_ptrs;
};
static const struct kind_info kinds[CATALOG_T_COUNT] = {
    [CATALOG_T_GPUS] = {"gpus", "struct engine_gpu", sizeof(struct engine_gpu),
                        {offsetof(struct engine_gpu, source)}, 1},
    [CATALOG_T_MODELS] = {"models", "struct engine_model", sizeof(struct engine_model),
                          {offsetof(struct engine_model, source)}, 1},
    [CATALOG_T_FORMATS] = {"formats", "struct engine_format", sizeof(struct engine_format),
                           {offsetof(struct engine_format, source)}, 1},
    [CATALOG_T_EVIDENCE] = {"evidence", "struct catalog_evidence", sizeof(struct catalog_evidence),
                            {offsetof(struct catalog_evidence, source)}, 1},
    [CATALOG_T_DEVICE_NAMES] = {"device_names", "struct catalog_device_name",
                                sizeof(struct catalog_device_name),
                                {offsetof(struct catalog_device_name, name)}, 1},
    [CATALOG_T_CPUS] = {"cpus", "struct catalog_cpu", sizeof(struct catalog_cpu),
                        {offsetof(struct catalog_cpu, source)}, 1},
    [CATALOG_T_CPU_NAMES] = {"cpu_names", "struct catalog_device_name",
                             sizeof(struct catalog_device_name),
                             {offsetof(struct catalog_device_name, name)}, 1},
    [CATALOG_T_SYSTEMS] = {"systems", "struct catalog_system", sizeof(struct catalog_system),
                           {offsetof(struct catalog_system, source)}, 1},
};

/* The string table being built: every distinct string once. */
struct strtab {
    char *text;
    size_t len, cap;
};

/* The offset of s in the table, adding it when new; SIZE_MAX when out of memory. */
static size_t strtab_add(struct strtab *t, const char *s) {
    size_t n = strlen(s);
    for (size_t off = 0; off < t->len; off += strlen(t->text + off) + 1)
        if (strcmp(t->text + off, s) == 0)
            return off;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->text, cap);
        if (!p)
            return SIZE_MAX;
        t->text = p;
        t->cap = cap;
    }
    memcpy(t->text + t->len, s, n + 1);
    t->len += n + 1;
    return t->len - n - 1;
}

/* Bytes as a C initializer, 24 to a line. */
static void put_bytes(const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        printf("%s%u,%s", i % 24 ? "" : "    ", b[i], i % 24 == 23 || i + 1 == n ? "\n" : "");
}

/* Whether a word of the entry holds the address of a string the catalog
 * owns (a pointer field ptr_fields does not list). */
static long stray_pointer(const struct catalog *c, const unsigned char *e, size_t size) {
    for (size_t off = 0; off + sizeof(void *) <= size; off += alignof(void *)) {
        const char *w;
        memcpy(&w, e + off, sizeof w);
        for (size_t i = 0; w && i < c->n_strings; i++)
            if (w == c->strings[i])
                return (long)off;
    }
    return -1;
}

/* Write one array: its image (pointers zeroed) and its relocations. */
static int put_kind(const struct catalog *c, enum catalog_table_kind k, const void *arr, size_t n,
                    struct strtab *st) {
    const struct kind_info *ki = &kinds[k];
    unsigned char *img = n ? malloc(n * ki->size) : NULL;
    struct catalog_table_reloc *rel = n ? calloc(n * ki->n_ptrs, sizeof *rel) : NULL;
    size_t n_rel = 0;
    if (n && (!img || !rel)) {
        fprintf(stderr, "gen-tables: out of memory\n");
        return -1;
    }
    if (n)
        memcpy(img, arr, n * ki->size);
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = img + i * ki->size;
        for (size_t p = 0; p < ki->n_ptrs; p++) {
            const char *s;
            memcpy(&s, e + ki->ptrs[p], sizeof s);
            if (s) {
                size_t off = strtab_add(st, s);
                if (off == SIZE_MAX) {
                    fprintf(stderr, "gen-tables: out of memory\n");
                    return -1;
                }
                rel[n_rel++] = (struct catalog_table_reloc){(uint32_t)i, (uint32_t)ki->ptrs[p],
                                                            (uint32_t)off};
            }
            memset(e + ki->ptrs[p], 0, sizeof s);
        }
        long stray = stray_pointer(c, e, ki->size);
        if (stray >= 0) {
            fprintf(stderr,
                    "gen-tables: %s has a pointer at byte %ld that catalog/gen_tables.c does "
                    "not list: add it to kinds[]\n",
                    ki->type, stray);
            return -1;
        }
    }
    printf("_Static_assert(sizeof(%s) == %zu, \"catalog_tables.c is stale: rebuild it\");\n",
           ki->type, ki->size);
    printf("static const unsigned char img_%s[] = {\n", ki->name);
    if (n)
        put_bytes(img, n * ki->size);
    else
        printf("    0\n");
    printf("};\nstatic const struct catalog_table_reloc rel_%s[] = {\n", ki->name);
    for (size_t i = 0; i < n_rel; i++)
        printf("    {%u, %u, %u},\n", rel[i].entry, rel[i].offset, rel[i].string);
    if (!n_rel)
        printf("    {0, 0, 0}\n");
    printf("};\n\n");
    free(img);
    free(rel);
    return (int)n_rel;
}

int main(void) {
    struct catalog c;
    struct catalog_diag d = {0};
    struct strtab st = {0};
    int n_rel[CATALOG_T_COUNT], bad = 0;
    catalog_init(&c);
    for (size_t i = 0; i < catalog_embedded_count; i++) {
        const struct catalog_embedded_file *f = &catalog_embedded_files[i];
        if (catalog_load_buffer(&c, f->name, f->text, f->len, &d) < 0)
            bad = 1;
    }
    if (bad || d.errors) {
        fprintf(stderr, "%s", d.text ? d.text : "gen-tables: the shipped catalog did not load\n");
        return 1;
    }
    const void *arr[CATALOG_T_COUNT] = {c.gpus,         c.models, c.formats,   c.evidence,
                                        c.device_names, c.cpus,   c.cpu_names, c.systems};
    const size_t n[CATALOG_T_COUNT] = {c.n_gpus,         c.n_models, c.n_formats,   c.n_evidence,
                                       c.n_device_names, c.n_cpus,   c.n_cpu_names, c.n_systems};
    printf("/* Generated by catalog/gen-tables from share/catalog: do not edit. */\n"
           "#include \"catalog/tables.h\"\n\n");
    for (int k = 0; k < CATALOG_T_COUNT; k++) {
        n_rel[k] = put_kind(&c, (enum catalog_table_kind)k, arr[k], n[k], &st);
        if (n_rel[k] < 0)
            return 1;
    }
    printf("static const char strings[] = {\n");
    put_bytes((const unsigned char *)st.text, st.len);
    printf("    0};\n\nconst struct catalog_tables catalog_default_tables = {\n"
           "    strings,\n    {\n");
    for (int k = 0; k < CATALOG_T_COUNT; k++)
        printf("        {img_%s, %zu, sizeof(%s), rel_%s, %d},\n", kinds[k].name, n[k],
               kinds[k].type, kinds[k].name, n_rel[k]);
    printf("    },\n};\n");
    free(st.text);
    catalog_free(&c);
    catalog_diag_free(&d);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
