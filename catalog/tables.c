/*
 * tables.c: the embedded default catalog from its generated C tables
 * (tables.h): each array's bytes copied, its string pointers set, the
 * result merged as a loaded file would be.
 */
#include "catalog/internal.h"
#include "catalog/tables.h"

#include <stdlib.h>
#include <string.h>

/* A copy of one generated array with its pointers set; NULL when out of
 * memory (or empty). */
static void *table_copy(const struct catalog_tables *t, enum catalog_table_kind k, size_t *n) {
    const struct catalog_table *tb = &t->table[k];
    unsigned char *a;
    *n = 0;
    if (tb->n == 0)
        return NULL;
    a = malloc(tb->n * tb->size);
    if (!a)
        return NULL;
    memcpy(a, tb->image, tb->n * tb->size);
    for (size_t i = 0; i < tb->n_relocs; i++) {
        const struct catalog_table_reloc *r = &tb->relocs[i];
        const char *s = t->strings + r->string;
        memcpy(a + (size_t)r->entry * tb->size + r->offset, &s, sizeof s);
    }
    *n = tb->n;
    return a;
}

/* Load the embedded default catalog into c (adding to what is there). */
int catalog_load_default(struct catalog *c, struct catalog_diag *d) {
    const struct catalog_tables *t = &catalog_default_tables;
    struct catalog tmp;
    bool oom = false;

    catalog_init(&tmp);
#define COPY(kind, arr, count, cap)                                                                \
    do {                                                                                           \
        tmp.arr = table_copy(t, kind, &tmp.count);                                                 \
        tmp.cap = tmp.count;                                                                       \
        oom = oom || (t->table[kind].n > 0 && !tmp.arr);                                           \
    } while (0)
    COPY(CATALOG_T_GPUS, gpus, n_gpus, cap_gpus);
    COPY(CATALOG_T_MODELS, models, n_models, cap_models);
    COPY(CATALOG_T_FORMATS, formats, n_formats, cap_formats);
    COPY(CATALOG_T_EVIDENCE, evidence, n_evidence, cap_evidence);
    COPY(CATALOG_T_DEVICE_NAMES, device_names, n_device_names, cap_device_names);
    COPY(CATALOG_T_CPUS, cpus, n_cpus, cap_cpus);
    COPY(CATALOG_T_CPU_NAMES, cpu_names, n_cpu_names, cap_cpu_names);
    COPY(CATALOG_T_SYSTEMS, systems, n_systems, cap_systems);
#undef COPY
    /* The strings are the program's own (static): tmp owns none. */
    if (oom || catalog_merge(c, &tmp) < 0) {
        catalog_free(&tmp);
        catalog_diag_append(d, "share/catalog: out of memory\n");
        if (d)
            d->errors++;
        return -1;
    }
    return 0;
}
