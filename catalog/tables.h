/*
 * tables.h: the default catalog as C tables, generated at build time.
 *
 * catalog/gen_tables.c (a build tool) loads the shipped YAML with the real
 * loader (catalog_load_buffer: every check, errors as file:line:col, so a
 * bad shipped file still fails the build), and writes each array of the
 * loaded catalog as the bytes of its structs, with the string pointers
 * (sources, device names) as offsets into one string table: the
 * relocations. catalog_load_default (tables.c) copies the bytes and sets
 * the pointers; libyaml never runs for the default catalog. User files and
 * --catalog FILE still go through libyaml.
 *
 * The bytes are this build's struct layout: the generated file asserts
 * each struct's size, and the generator is built and run by the same
 * compiler as the program (a native build; a cross build would need the
 * generator built for the build machine).
 */
#ifndef VRAMLAB_CATALOG_TABLES_H
#define VRAMLAB_CATALOG_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

/* The arrays of struct catalog, in this order. */
enum catalog_table_kind {
    CATALOG_T_GPUS = 0,
    CATALOG_T_MODELS,
    CATALOG_T_FORMATS,
    CATALOG_T_EVIDENCE,
    CATALOG_T_DEVICE_NAMES,
    CATALOG_T_CPUS,
    CATALOG_T_CPU_NAMES,
    CATALOG_T_SYSTEMS,
    CATALOG_T_COUNT
};

/* One pointer to set: entry, the field's offset in it, the string's offset
 * in the string table. */
struct catalog_table_reloc {
    uint32_t entry, offset, string;
};

struct catalog_table {
    const unsigned char *image; /* n entries of size bytes, pointers zero */
    size_t n, size;
    const struct catalog_table_reloc *relocs;
    size_t n_relocs;
};

struct catalog_tables {
    const char *strings;
    struct catalog_table table[CATALOG_T_COUNT];
};

/* The generated default catalog (catalog_tables.c). */
extern const struct catalog_tables catalog_default_tables;

#endif
