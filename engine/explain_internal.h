/*
 * explain_internal.h: what the explanation files share: explain_text.c
 * (the helpers below), explain_memory.c, explain_speed.c and
 * explain_training.c (the values of each figure by concern), and
 * explain.c on top (engine_explain_for, the dispatcher).
 *
 * A figure's values text is a translated template (XT: an English msgid
 * marked for xgettext, with %s for each number) filled with numbers the
 * one formatter wrote in the reader's units and marks (xp_num): "2 * 80
 * layers * ... = 1,25 GiB". Structural integers of a formula's symbols
 * (t=8, 80 layers) print with %u.
 */
#ifndef VRAMLAB_EXPLAIN_INTERNAL_H
#define VRAMLAB_EXPLAIN_INTERNAL_H

#include <stdarg.h>

#include "engine/figures.h"
#include "engine/internal.h"

#define XP_POOL 24
#define XP_WIDTH 64

/* The explanation being written. */
struct xp {
    const struct engine_numfmt *f;
    const struct engine_scenario *sc;
    const struct engine_estimate *e;
    char *v; /* the values text */
    size_t n;
    char pool[XP_POOL][XP_WIDTH]; /* formatted numbers of this text */
    unsigned next;
};

/* Begin a text in buf (n bytes, emptied) for reader f; f NULL: English,
 * kept in *english (which must outlive the text). */
void xp_begin(struct xp *x, struct engine_numfmt *english, const struct engine_numfmt *f,
              const struct engine_scenario *sc, const struct engine_estimate *e, char *buf,
              size_t n);
/* A number in the reader's units and marks (a buffer of the pool, valid
 * for the rest of this text). */
const char *xp_num(struct xp *x, enum engine_unit u, double v);
/* A template or word in the reader's language. */
const char *xp_tr(const struct xp *x, const char *msgid) __attribute__((format_arg(2)));
/* Write the values text (xp_set) or add to it (xp_add); fmt is a
 * translated template. */
void xp_set(struct xp *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xp_add(struct xp *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The template marker (po/Makevars: --keyword=XT) and the formatter's
 * kinds, for brevity in the files below. */
#define XT(s) xp_tr(x, s)
#define XBYTES(v) xp_num(x, ENGINE_UNIT_BYTES, (v))
#define XCOUNT(v) xp_num(x, ENGINE_UNIT_COUNT, (v))
#define XINT(v) xp_num(x, ENGINE_UNIT_INT, (v))
#define XNUM(v) xp_num(x, ENGINE_UNIT_NUMBER, (v))
#define XPLAIN(v) xp_num(x, ENGINE_UNIT_PLAIN, (v))
#define XSECS(v) xp_num(x, ENGINE_UNIT_SECONDS, (v))
#define XBW(v) xp_num(x, ENGINE_UNIT_BYTES_PER_S, (v))
#define XFLOPS(v) xp_num(x, ENGINE_UNIT_FLOP_PER_S, (v))
#define XFLOP(v) xp_num(x, ENGINE_UNIT_FLOP, (v))
#define XTOKS(v) xp_num(x, ENGINE_UNIT_TOKENS_PER_S, (v))
#define XPCT(v) xp_num(x, ENGINE_UNIT_FRACTION, (v))
#define XB(v) xp_num(x, ENGINE_UNIT_BYTE_SIZE, (v))

/* The values of the figures of each concern; false when k is not theirs. */
bool explain_memory(struct xp *x, enum engine_key k);
bool explain_speed(struct xp *x, enum engine_key k);
bool explain_training(struct xp *x, enum engine_key k);

#endif
