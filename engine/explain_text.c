/*
 * explain_text.c: the helpers the explanation files write their values
 * with (explain_internal.h): numbers through the one formatter, words
 * through the reader's translate function, the text kept in its buffer.
 */
#include <stdio.h>
#include <string.h>

#include "engine/explain_internal.h"

void xp_begin(struct xp *x, struct engine_numfmt *english, const struct engine_numfmt *f,
              const struct engine_scenario *sc, const struct engine_estimate *e, char *buf,
              size_t n) {
    memset(x, 0, sizeof *x);
    if (!f) {
        engine_numfmt_english(english);
        f = english;
    }
    x->f = f;
    x->sc = sc;
    x->e = e;
    x->v = buf;
    x->n = n;
    if (n)
        buf[0] = '\0';
}

const char *xp_num(struct xp *x, enum engine_unit u, double v) {
    char *b = x->pool[x->next++ % XP_POOL];
    engine_format(x->f, u, v, b, XP_WIDTH);
    return b;
}

const char *xp_tr(const struct xp *x, const char *msgid) {
    return engine_numfmt_tr(x->f, msgid);
}

void xp_set(struct xp *x, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->v, x->n, fmt, ap);
    va_end(ap);
}

void xp_add(struct xp *x, const char *fmt, ...) {
    size_t used = strlen(x->v);
    va_list ap;
    if (used + 1 >= x->n)
        return;
    va_start(ap, fmt);
    vsnprintf(x->v + used, x->n - used, fmt, ap);
    va_end(ap);
}

