/*
 * fuzz_util.h: what the fuzz targets of tests/fuzz/ share (issue 27 item
 * 9): a message or a name a reader gives back must be safe to print.
 */
#ifndef VRAMLAB_FUZZ_UTIL_H
#define VRAMLAB_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "catalog/catalog.h"

/* Whether s has no C0 control but newline (and tab when tab_ok), no DEL,
 * no C1 control and is valid UTF-8: what catalog_text_clean leaves. */
static inline bool fuzz_printable(const char *s, bool tab_ok) {
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        unsigned c = *u;
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n' && !(tab_ok && c == '\t')) || c == 0x7f)
                return false;
            u++;
            continue;
        }
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
        if (len == 0 || c > 0xf4)
            return false;
        unsigned v = c & (0x3f >> (len - 1));
        for (size_t i = 1; i < len; i++) {
            if ((u[i] & 0xc0) != 0x80)
                return false;
            v = (v << 6) | (u[i] & 0x3f);
        }
        if (v >= 0x80 && v <= 0x9f)
            return false;
        u += len;
    }
    return true;
}

/* Abort (a fuzz finding) unless s is printable. */
#define FUZZ_PRINTABLE(s, tab_ok)                                                                  \
    do {                                                                                           \
        if (!fuzz_printable((s), (tab_ok)))                                                        \
            abort();                                                                               \
    } while (0)

/* The built-in catalogue, loaded once for every input (ids resolve). */
static inline const struct catalog *fuzz_catalog(void) {
    static struct catalog cat;
    static int have;
    if (!have) {
        struct catalog_diag d = {0};
        catalog_init(&cat);
        if (catalog_load_default(&cat, &d) != 0)
            abort();
        catalog_diag_free(&d);
        have = 1;
    }
    return &cat;
}

#endif
