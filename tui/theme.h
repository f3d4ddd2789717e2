/*
 * theme.h: semantic colour roles, colour schemes and glyph sets.
 *
 * Drawing code never names a colour: it asks for a role (TUI_ROLE_VALUE,
 * TUI_ROLE_SEG_WEIGHTS, ...) and gets curses attributes for the active
 * scheme. The monochrome scheme is a full table of its own (bold, reverse,
 * underline), used when the terminal has no colours, NO_COLOR is set or
 * --no-color is given; bar segments then differ by fill character.
 *
 * Glyphs come from two parallel tables chosen once: UTF-8 (box drawing,
 * eighth blocks, braille) and plain ASCII, so that with LANG=C not one
 * non-ASCII byte reaches the terminal.
 */
#ifndef VRAMLAB_TUI_THEME_H
#define VRAMLAB_TUI_THEME_H

#include <stdbool.h>

/* What a piece of the screen means; each scheme maps every role. */
enum tui_role {
    TUI_ROLE_NORMAL = 0,
    TUI_ROLE_TITLE,       /* top bar */
    TUI_ROLE_BORDER,
    TUI_ROLE_BORDER_FOCUS,
    TUI_ROLE_PANE_TITLE,
    TUI_ROLE_LABEL,       /* "weights", "batch" */
    TUI_ROLE_VALUE,       /* a number or a pick */
    TUI_ROLE_FIELD_FOCUS, /* the focused field's value */
    TUI_ROLE_DIM,         /* not applicable, derived, hints */
    TUI_ROLE_GOOD,        /* fits */
    TUI_ROLE_BAD,         /* does not fit, invalid */
    TUI_ROLE_WARN,
    TUI_ROLE_BINDING,     /* the ceiling that binds */
    TUI_ROLE_SEG_WEIGHTS, /* bar segments, in struct engine_memory order */
    TUI_ROLE_SEG_KV,
    TUI_ROLE_SEG_ACT,
    TUI_ROLE_SEG_GRADS,
    TUI_ROLE_SEG_MASTER,
    TUI_ROLE_SEG_OPT,
    TUI_ROLE_SEG_RESERVE,
    TUI_ROLE_SEG_OVERHEAD, /* the runtime's buffers */
    TUI_ROLE_FREE,        /* unused capacity */
    TUI_ROLE_CHART,
    TUI_ROLE_MARKER,      /* "you are here" */
    TUI_ROLE_STATUS,      /* bottom bar */
    TUI_ROLE_KEY,         /* a key name in hints */
    TUI_ROLE_OVERLAY,
    TUI_ROLE_OVERLAY_SEL,
    TUI_ROLE_CITED,       /* a figure the lesson step's caption cites */
    TUI_ROLE_COUNT
};

#define TUI_SEGMENTS 8

enum tui_scheme {
    TUI_SCHEME_DARK = 0,
    TUI_SCHEME_LIGHT,
    TUI_SCHEME_CONTRAST,
    TUI_SCHEME_MONO,
    TUI_SCHEME_COUNT
};

/* Every string the drawing code needs that is not plain text. */
struct tui_glyphs {
    bool utf8;
    const char *h, *v, *tl, *tr, *bl, *br; /* box */
    const char *full, *eighths[8];         /* eighths[k]: k/8 of a cell, [0] unused */
    const char *seg_mono[TUI_SEGMENTS];    /* fill per segment, monochrome */
    const char *free;                      /* free capacity in a bar */
    const char *over;                      /* shortfall past capacity */
    const char *cap;                       /* capacity marker */
    const char *left, *right;              /* slider arrows */
    const char *knob, *track;              /* slider */
    const char *times, *dot, *enter, *arrows, *bullet, *le, *approx;
    const char *binds;                     /* marks the binding ceiling (+ "binds") */
    const char *spark[9];                  /* spark[k]: k/8 high column, [0] blank */
    const char *ellipsis;                  /* the last cell of cut text */
};

/* Choose the glyph table (utf8 or ASCII). */
const struct tui_glyphs *tui_glyphs_get(bool utf8);

/* Initialise colour pairs for a scheme (call after start_color(); mono
 * needs no pairs). */
void tui_theme_init(enum tui_scheme s);
/* Curses attributes of a role in the active scheme. */
int tui_attr(enum tui_role r);
/* The active scheme. */
enum tui_scheme tui_theme_scheme(void);

#endif
