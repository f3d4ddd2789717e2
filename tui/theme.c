/*
 * theme.c: colour schemes as tables of {foreground, background, attributes}
 * per semantic role, plus the UTF-8 and ASCII glyph tables.
 *
 * Colour pair n+1 belongs to role n. Background -1 is the terminal's own
 * (use_default_colors), so the dark and light schemes sit on whatever the
 * user has; high contrast forces black. The monochrome scheme uses no pairs.
 */
#include "config.h"

#include "tui/theme.h"

#include <curses.h>
#include <string.h>

/* One role in one scheme. */
struct tui_style {
    short fg, bg;
    int attr;
};

#define D (-1)
/* The schemes, one row per role (order of enum tui_role). */
static const struct tui_style tui_schemes[TUI_SCHEME_COUNT][TUI_ROLE_COUNT] = {
    [TUI_SCHEME_DARK] = {
        [TUI_ROLE_NORMAL] = {D, D, 0},
        [TUI_ROLE_TITLE] = {COLOR_BLACK, COLOR_CYAN, A_BOLD},
        [TUI_ROLE_BORDER] = {COLOR_BLUE, D, 0},
        [TUI_ROLE_BORDER_FOCUS] = {COLOR_CYAN, D, A_BOLD},
        [TUI_ROLE_PANE_TITLE] = {COLOR_CYAN, D, A_BOLD},
        [TUI_ROLE_LABEL] = {D, D, 0},
        [TUI_ROLE_VALUE] = {COLOR_WHITE, D, A_BOLD},
        [TUI_ROLE_FIELD_FOCUS] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        [TUI_ROLE_DIM] = {COLOR_WHITE, D, A_DIM},
        [TUI_ROLE_GOOD] = {COLOR_GREEN, D, A_BOLD},
        [TUI_ROLE_BAD] = {COLOR_RED, D, A_BOLD},
        [TUI_ROLE_WARN] = {COLOR_YELLOW, D, 0},
        [TUI_ROLE_BINDING] = {COLOR_YELLOW, D, A_BOLD},
        [TUI_ROLE_SEG_WEIGHTS] = {COLOR_BLUE, D, A_BOLD},
        [TUI_ROLE_SEG_KV] = {COLOR_MAGENTA, D, A_BOLD},
        [TUI_ROLE_SEG_ACT] = {COLOR_YELLOW, D, 0},
        [TUI_ROLE_SEG_GRADS] = {COLOR_RED, D, 0},
        [TUI_ROLE_SEG_MASTER] = {COLOR_CYAN, D, 0},
        [TUI_ROLE_SEG_OPT] = {COLOR_GREEN, D, 0},
        [TUI_ROLE_SEG_RESERVE] = {COLOR_WHITE, D, A_DIM},
        [TUI_ROLE_SEG_OVERHEAD] = {COLOR_CYAN, D, A_DIM},
        [TUI_ROLE_FREE] = {COLOR_WHITE, D, A_DIM},
        [TUI_ROLE_CHART] = {COLOR_CYAN, D, 0},
        [TUI_ROLE_MARKER] = {COLOR_YELLOW, D, A_BOLD},
        [TUI_ROLE_STATUS] = {COLOR_WHITE, COLOR_BLUE, 0},
        [TUI_ROLE_KEY] = {COLOR_YELLOW, COLOR_BLUE, A_BOLD},
        [TUI_ROLE_OVERLAY] = {COLOR_WHITE, COLOR_BLACK, 0},
        [TUI_ROLE_OVERLAY_SEL] = {COLOR_BLACK, COLOR_CYAN, A_BOLD},
        [TUI_ROLE_CITED] = {COLOR_BLACK, COLOR_CYAN, A_BOLD | A_UNDERLINE},
    },
    [TUI_SCHEME_LIGHT] = {
        [TUI_ROLE_NORMAL] = {D, D, 0},
        [TUI_ROLE_TITLE] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
        [TUI_ROLE_BORDER] = {COLOR_BLUE, D, 0},
        [TUI_ROLE_BORDER_FOCUS] = {COLOR_MAGENTA, D, A_BOLD},
        [TUI_ROLE_PANE_TITLE] = {COLOR_BLUE, D, A_BOLD},
        [TUI_ROLE_LABEL] = {D, D, 0},
        [TUI_ROLE_VALUE] = {COLOR_BLACK, D, A_BOLD},
        [TUI_ROLE_FIELD_FOCUS] = {COLOR_WHITE, COLOR_MAGENTA, A_BOLD},
        [TUI_ROLE_DIM] = {COLOR_BLACK, D, A_DIM},
        [TUI_ROLE_GOOD] = {COLOR_GREEN, D, A_BOLD},
        [TUI_ROLE_BAD] = {COLOR_RED, D, A_BOLD},
        [TUI_ROLE_WARN] = {COLOR_RED, D, 0},
        [TUI_ROLE_BINDING] = {COLOR_MAGENTA, D, A_BOLD},
        [TUI_ROLE_SEG_WEIGHTS] = {COLOR_BLUE, D, 0},
        [TUI_ROLE_SEG_KV] = {COLOR_MAGENTA, D, 0},
        [TUI_ROLE_SEG_ACT] = {COLOR_YELLOW, D, 0},
        [TUI_ROLE_SEG_GRADS] = {COLOR_RED, D, 0},
        [TUI_ROLE_SEG_MASTER] = {COLOR_CYAN, D, 0},
        [TUI_ROLE_SEG_OPT] = {COLOR_GREEN, D, 0},
        [TUI_ROLE_SEG_RESERVE] = {COLOR_BLACK, D, A_DIM},
        [TUI_ROLE_SEG_OVERHEAD] = {COLOR_CYAN, D, 0},
        [TUI_ROLE_FREE] = {COLOR_BLACK, D, A_DIM},
        [TUI_ROLE_CHART] = {COLOR_BLUE, D, 0},
        [TUI_ROLE_MARKER] = {COLOR_RED, D, A_BOLD},
        [TUI_ROLE_STATUS] = {COLOR_BLACK, COLOR_CYAN, 0},
        [TUI_ROLE_KEY] = {COLOR_BLUE, COLOR_CYAN, A_BOLD},
        [TUI_ROLE_OVERLAY] = {COLOR_BLACK, COLOR_WHITE, 0},
        [TUI_ROLE_OVERLAY_SEL] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
        [TUI_ROLE_CITED] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD | A_UNDERLINE},
    },
    [TUI_SCHEME_CONTRAST] = {
        [TUI_ROLE_NORMAL] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_TITLE] = {COLOR_BLACK, COLOR_WHITE, A_BOLD},
        [TUI_ROLE_BORDER] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_BORDER_FOCUS] = {COLOR_YELLOW, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_PANE_TITLE] = {COLOR_YELLOW, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_LABEL] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_VALUE] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_FIELD_FOCUS] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        [TUI_ROLE_DIM] = {COLOR_WHITE, COLOR_BLACK, 0},
        [TUI_ROLE_GOOD] = {COLOR_GREEN, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_BAD] = {COLOR_BLACK, COLOR_RED, A_BOLD},
        [TUI_ROLE_WARN] = {COLOR_YELLOW, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_BINDING] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        [TUI_ROLE_SEG_WEIGHTS] = {COLOR_CYAN, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_KV] = {COLOR_MAGENTA, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_ACT] = {COLOR_YELLOW, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_GRADS] = {COLOR_RED, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_MASTER] = {COLOR_BLUE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_OPT] = {COLOR_GREEN, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_RESERVE] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_SEG_OVERHEAD] = {COLOR_CYAN, COLOR_BLACK, 0},
        [TUI_ROLE_FREE] = {COLOR_WHITE, COLOR_BLACK, 0},
        [TUI_ROLE_CHART] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_MARKER] = {COLOR_YELLOW, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_STATUS] = {COLOR_BLACK, COLOR_WHITE, A_BOLD},
        [TUI_ROLE_KEY] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        [TUI_ROLE_OVERLAY] = {COLOR_WHITE, COLOR_BLACK, A_BOLD},
        [TUI_ROLE_OVERLAY_SEL] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD},
        [TUI_ROLE_CITED] = {COLOR_BLACK, COLOR_CYAN, A_BOLD | A_UNDERLINE},
    },
    /* Monochrome: attributes only; fg/bg are ignored. */
    [TUI_SCHEME_MONO] = {
        [TUI_ROLE_NORMAL] = {D, D, A_NORMAL},
        [TUI_ROLE_TITLE] = {D, D, A_REVERSE},
        [TUI_ROLE_BORDER] = {D, D, A_NORMAL},
        [TUI_ROLE_BORDER_FOCUS] = {D, D, A_BOLD},
        [TUI_ROLE_PANE_TITLE] = {D, D, A_BOLD},
        [TUI_ROLE_LABEL] = {D, D, A_NORMAL},
        [TUI_ROLE_VALUE] = {D, D, A_BOLD},
        [TUI_ROLE_FIELD_FOCUS] = {D, D, A_REVERSE},
        [TUI_ROLE_DIM] = {D, D, A_DIM},
        [TUI_ROLE_GOOD] = {D, D, A_BOLD},
        [TUI_ROLE_BAD] = {D, D, A_BOLD | A_UNDERLINE},
        [TUI_ROLE_WARN] = {D, D, A_UNDERLINE},
        [TUI_ROLE_BINDING] = {D, D, A_BOLD | A_UNDERLINE},
        [TUI_ROLE_SEG_WEIGHTS] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_KV] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_ACT] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_GRADS] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_MASTER] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_OPT] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_RESERVE] = {D, D, A_NORMAL},
        [TUI_ROLE_SEG_OVERHEAD] = {D, D, A_NORMAL},
        [TUI_ROLE_FREE] = {D, D, A_DIM},
        [TUI_ROLE_CHART] = {D, D, A_NORMAL},
        [TUI_ROLE_MARKER] = {D, D, A_BOLD},
        [TUI_ROLE_STATUS] = {D, D, A_REVERSE},
        [TUI_ROLE_KEY] = {D, D, A_REVERSE | A_BOLD},
        [TUI_ROLE_OVERLAY] = {D, D, A_NORMAL},
        [TUI_ROLE_OVERLAY_SEL] = {D, D, A_REVERSE},
        [TUI_ROLE_CITED] = {D, D, A_BOLD | A_UNDERLINE},
    },
};
#undef D


static enum tui_scheme tui_active = TUI_SCHEME_MONO;

static const struct tui_glyphs tui_glyphs_utf8 = {
    .utf8 = true,
    .h = "\u2500", .v = "\u2502", .tl = "\u250c", .tr = "\u2510", .bl = "\u2514", .br = "\u2518",
    .full = "\u2588",
    .eighths = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"},
    .seg_mono = {"\u2588", "\u2593", "\u2592", "\u2591", "#", "=", "x", "+"},
    .free = "\u00b7", .over = "!", .cap = "\u2502",
    .left = "\u25c2", .right = "\u25b8", .knob = "\u25cf", .track = "\u2500",
    .ellipsis = "\u2026",
    .times = "\u00d7", .dot = "\u00b7", .enter = "\u23ce", .arrows = "\u2190\u2192",
    .bullet = "\u25cf", .le = "\u2264", .approx = "\u2248", .binds = "\u25c0",
    .spark = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587",
              "\u2588"},
};

static const struct tui_glyphs tui_glyphs_ascii = {
    .utf8 = false,
    .h = "-", .v = "|", .tl = "+", .tr = "+", .bl = "+", .br = "+",
    .full = "#",
    .eighths = {"", "", "", "", "", "", "", ""},
    .seg_mono = {"#", "%", "=", "+", "*", "@", "&", "~"},
    .free = ".", .over = "!", .cap = "|",
    .left = "<", .right = ">", .knob = "O", .track = "-",
    .ellipsis = "...",
    .times = "x", .dot = "-", .enter = "Enter", .arrows = "<>",
    .bullet = "*", .le = "<=", .approx = "~", .binds = "<",
    .spark = {" ", ".", ".", "_", "_", "o", "o", "#", "#"},
};

/* The glyph table for UTF-8 or ASCII output. */
const struct tui_glyphs *tui_glyphs_get(bool utf8) {
    return utf8 ? &tui_glyphs_utf8 : &tui_glyphs_ascii;
}

/* Register one colour pair per role for a colour scheme. */
void tui_theme_init(enum tui_scheme s) {
    tui_active = s;
    if (s == TUI_SCHEME_MONO)
        return;
    for (int r = 0; r < TUI_ROLE_COUNT; r++) {
        const struct tui_style *st = &tui_schemes[s][r];
        init_pair((short)(r + 1), st->fg, st->bg);
    }
}

/* Attributes of a role: its pair plus its attributes (mono: attributes). */
int tui_attr(enum tui_role r) {
    const struct tui_style *st = &tui_schemes[tui_active][r];
    if (tui_active == TUI_SCHEME_MONO)
        return st->attr;
    return (int)COLOR_PAIR(r + 1) | st->attr;
}

/* The active scheme. */
enum tui_scheme tui_theme_scheme(void) {
    return tui_active;
}
