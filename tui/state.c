/*
 * state.c: focus, overlays and key dispatch of the explorer (the pickers
 * are in state_picker.c).
 *
 * Keys go first to the open overlay (picker, explain, help), then to the
 * global bindings (q, Tab, u, t, e, ?, /, m), then to the focused field:
 * up/down move between the fields of the focused pane, left/right (h/l)
 * change an editable field or move between read-outs, PgUp/PgDn take big
 * steps, Enter opens the field's picker (or its explanation). Every handler
 * returns dirty flags; nothing here draws.
 */
#include "config.h"

#include "tui/state.h"
#include "tui/i18n.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Index of an entry with this id in an array of n structs, or -1. */
#define FIND_ID(arr, n, want)                                                                  \
    do {                                                                                       \
        for (size_t i_ = 0; i_ < (n); i_++)                                                    \
            if (strcmp((arr)[i_].id, (want)) == 0)                                             \
                return (int)i_;                                                                \
        return -1;                                                                             \
    } while (0)

/* Catalog index of a model id, or -1. */
static int find_model(const struct catalog *c, const char *id) {
    if (!c)
        return -1;
    FIND_ID(c->models, c->n_models, id);
}

/* Catalog index of a format id, or -1. */
static int find_format(const struct catalog *c, const char *id) {
    if (!c)
        return -1;
    FIND_ID(c->formats, c->n_formats, id);
}

/* Catalog index of a GPU id, or -1. */
static int find_gpu(const struct catalog *c, const char *id) {
    if (!c)
        return -1;
    FIND_ID(c->gpus, c->n_gpus, id);
}

/* Fill in a model, formats and a GPU where the options left none, so the
 * explorer always opens on something (an empty catalog included). */
static void fill_defaults(struct tui_state *st) {
    struct engine_scenario *sc = &st->opt.sc;
    const struct catalog *c = st->cat;
    if (sc->model.params_published <= 0 && sc->model.params_size <= 0 && !sc->model.has_arch) {
        int i = find_model(c, "llama-3.1-8b");
        if (i < 0 && c && c->n_models > 0)
            i = 0;
        if (i >= 0)
            sc->model = c->models[i];
        else
            engine_model_from_size(&sc->model, 8e9);
    }
    if (!(sc->weight_format.bits > 0)) {
        int i = find_format(c, "fp16");
        if (i < 0 && c && c->n_formats > 0)
            i = 0;
        if (i >= 0)
            sc->weight_format = c->formats[i];
        else {
            snprintf(sc->weight_format.id, sizeof(sc->weight_format.id), "fp16");
            snprintf(sc->weight_format.name, sizeof(sc->weight_format.name), "FP16");
            sc->weight_format.bits = 16;
        }
    }
    if (!(sc->kv_format.bits > 0))
        sc->kv_format = sc->weight_format;
    if (!(sc->gpu.memory_bytes > 0)) {
        int i = find_gpu(c, "h100-sxm");
        if (i < 0 && c && c->n_gpus > 0)
            i = 0;
        if (i >= 0) {
            sc->gpu = c->gpus[i];
        } else {
            /* No catalog at all: an H100-like device so the panes still read. */
            snprintf(sc->gpu.id, sizeof(sc->gpu.id), "generic");
            snprintf(sc->gpu.name, sizeof(sc->gpu.name), "generic 80 GiB");
            sc->gpu.memory_bytes = 80.0 * 1073741824.0;
            sc->gpu.bandwidth_bytes_per_s = 3.35e12;
            sc->gpu.flops[ENGINE_COMPUTE_FP16] = 989e12;
            sc->gpu.flops[ENGINE_COMPUTE_BF16] = 989e12;
            sc->gpu.gpus_per_node = 8;
        }
    }
    if (sc->batch == 0)
        sc->batch = 1;
    if (sc->context == 0)
        sc->context = 4096;
    if (sc->micro_batches == 0)
        sc->micro_batches = 1;
    if (sc->tp * sc->pp * sc->dp != sc->gpus) {
        uint32_t g = sc->gpus ? sc->gpus : 1;
        if (sc->tp * sc->pp > 0 && g % (sc->tp * sc->pp) == 0) {
            sc->dp = g / (sc->tp * sc->pp);
        } else {
            sc->tp = sc->pp = 1;
            sc->dp = g;
        }
    }
    tui_state_fix_layout_within(st, UINT32_MAX);
}

/* Set up the state from options and catalog, then compute. */
void tui_state_init(struct tui_state *st, const struct options *o, const struct catalog *cat) {
    memset(st, 0, sizeof(*st));
    st->opt = *o;
    st->cat = cat;
    fill_defaults(st);
    st->model_index = st->opt.model_custom ? -1 : find_model(cat, st->opt.sc.model.id);
    st->wfmt_index = find_format(cat, st->opt.sc.weight_format.id);
    st->kvfmt_index = find_format(cat, st->opt.sc.kv_format.id);
    st->gpu_index = st->opt.gpu_custom ? -1 : find_gpu(cat, st->opt.sc.gpu.id);
    st->size_step = tui_step_of_size(engine_params_total(&st->opt.sc.model));
    for (int p = 0; p < TUI_PANE_COUNT; p++)
        st->focus[p] = TUI_F_COUNT;
    tui_state_fix_focus(st);
    st->focus_pane = TUI_PANE_MODEL;
    st->last_input = TUI_PANE_MODEL;
    st->explain_key = -1;
    tui_state_recompute(st);
}

/* Whether a pane takes part in Tab order now. */
static bool pane_usable(const struct tui_state *st, enum tui_pane p) {
    if (st->compact && (p == TUI_PANE_ROOF || p == TUI_PANE_MEASURE))
        return false;
    return tui_field_first(st, p) != TUI_F_COUNT;
}

/* Move focus to the next (dir 1) or previous (-1) usable pane. */
static unsigned focus_pane_step(struct tui_state *st, int dir) {
    int p = st->focus_pane;
    for (int n = 0; n < TUI_PANE_COUNT; n++) {
        p = (p + dir + TUI_PANE_COUNT) % TUI_PANE_COUNT;
        if (pane_usable(st, (enum tui_pane)p))
            break;
    }
    st->focus_pane = (enum tui_pane)p;
    if (p < TUI_INPUT_PANES) {
        bool moved = st->last_input != (enum tui_pane)p;
        st->last_input = (enum tui_pane)p;
        if (moved && st->compact)
            return TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
    }
    return TUI_DIRTY_REPAINT;
}

/* Move the focused field within its pane by dir; false at the ends. */
static bool field_move(struct tui_state *st, int dir) {
    enum tui_pane p = st->focus_pane;
    int f = st->focus[p];
    for (;;) {
        f += dir;
        if (f < 0 || f >= TUI_F_COUNT)
            return false;
        if (tui_field_info((enum tui_field)f)->pane == p && tui_field_applies(st, f)) {
            st->focus[p] = (enum tui_field)f;
            return true;
        }
    }
}

/* Focus a field directly (mouse). */
unsigned tui_state_focus(struct tui_state *st, enum tui_field f) {
    if ((unsigned)f >= TUI_F_COUNT || !tui_field_applies(st, f))
        return 0;
    enum tui_pane p = tui_field_info(f)->pane;
    st->focus_pane = p;
    st->focus[p] = f;
    if (p < TUI_INPUT_PANES)
        st->last_input = p;
    return TUI_DIRTY_REPAINT;
}

/* Whether the focused pane holds read-outs rather than editable fields. */
static bool pane_readout(enum tui_pane p) {
    return p == TUI_PANE_MEMORY || p == TUI_PANE_SPEED || p == TUI_PANE_ROOF ||
           p == TUI_PANE_MEASURE;
}

/* Change the focused field by delta (wheel; arrows go through here). */
unsigned tui_state_change(struct tui_state *st, int delta) {
    enum tui_field f = st->focus[st->focus_pane];
    unsigned dirty = 0;
    if (f >= TUI_F_COUNT)
        return 0;
    if (pane_readout(st->focus_pane))
        return field_move(st, delta > 0 ? 1 : -1) ? TUI_DIRTY_REPAINT : 0;
    for (int n = delta > 0 ? delta : -delta; n > 0; n--)
        dirty |= tui_field_step(st, f, delta > 0 ? 1 : -1, false);
    tui_state_fix_focus(st);
    return dirty;
}

/* Scroll help or explain: arrows (j k) by a line, PgUp PgDn (Space) by a
 * page, Home End; the app tells the most it can scroll after each frame. */
static unsigned overlay_scroll_key(struct tui_state *st, int key) {
    unsigned s = st->overlay_scroll, max = st->overlay_scroll_max;
    unsigned page = st->overlay_page > 1 ? st->overlay_page - 1 : 1;
    switch (key) {
    case TUI_KEY_DOWN:
    case 'j':
        s = s < max ? s + 1 : max;
        break;
    case TUI_KEY_UP:
    case 'k':
        s = s > 0 ? s - 1 : 0;
        break;
    case TUI_KEY_PGDN:
    case ' ':
        s = s + page < max ? s + page : max;
        break;
    case TUI_KEY_PGUP:
        s = s > page ? s - page : 0;
        break;
    case TUI_KEY_HOME:
        s = 0;
        break;
    case TUI_KEY_END:
        s = max;
        break;
    default:
        return 0;
    }
    if (s == st->overlay_scroll)
        return 0;
    st->overlay_scroll = s;
    return TUI_DIRTY_REPAINT;
}

/* ---- the key dispatcher -------------------------------------------------- */

/* Handle one key; returns the dirty flags. */
unsigned tui_state_key(struct tui_state *st, int key) {
    enum tui_field f = st->focus[st->focus_pane];
    unsigned dirty = 0;

    if (key == TUI_KEY_RESIZE)
        return TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
    if (st->overlay == TUI_OVERLAY_PICKER)
        return tui_picker_key(st, key);
    if (st->overlay == TUI_OVERLAY_FILE)
        return tui_file_key(st, key);
    if (st->overlay != TUI_OVERLAY_NONE) {
        /* Help and explain: the keys that opened them, q and Esc close. */
        if (key == TUI_KEY_ESC || key == 'q' || key == 'e' || key == '?' || key == TUI_KEY_F1 ||
            key == TUI_KEY_ENTER) {
            st->overlay = TUI_OVERLAY_NONE;
            st->explain_key = -1;
            return TUI_DIRTY_REPAINT;
        }
        if (st->overlay == TUI_OVERLAY_EXPLAIN && (key == TUI_KEY_LEFT || key == TUI_KEY_RIGHT ||
                                                   key == 'h' || key == 'l')) {
            /* Walk the fields of the pane while explaining. */
            st->explain_key = -1;
            field_move(st, key == TUI_KEY_LEFT || key == 'h' ? -1 : 1);
            st->overlay_scroll = 0;
            return TUI_DIRTY_REPAINT;
        }
        return overlay_scroll_key(st, key);
    }
    st->message[0] = '\0';
    switch (key) {
    case TUI_KEY_ESC:
        if (st->measure.status == TUI_MEASURE_RUNNING ||
            st->measure.rt.status == TUI_MEASURE_RUNNING) {
            st->measure.cancel_request = true;
            return TUI_DIRTY_REPAINT;
        }
        st->quit = true;
        return 0;
    case 'q':
        st->quit = true;
        return 0;
    case TUI_KEY_TAB:
        return focus_pane_step(st, 1);
    case TUI_KEY_BTAB:
        return focus_pane_step(st, -1);
    case '?':
    case TUI_KEY_F1:
        st->overlay = TUI_OVERLAY_HELP;
        st->overlay_scroll = 0;
        return TUI_DIRTY_REPAINT;
    case 'e':
        st->overlay = TUI_OVERLAY_EXPLAIN;
        st->overlay_scroll = 0;
        return TUI_DIRTY_REPAINT;
    case 'O':
        /* The Model pane opens a model file (o, everywhere, is the lecture
         * kit's scenario file). */
        return st->focus_pane == TUI_PANE_MODEL ? tui_file_open(st) : 0;
    case 'u':
        st->opt.units = st->opt.units == UNITS_GB ? UNITS_GIB : UNITS_GB;
        /* The verdict carries a size. */
        return TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
    case 't':
        tui_state_set_mode(st, (enum engine_mode)(((int)st->opt.sc.mode + 1) % 4));
        tui_state_fix_focus(st);
        return TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
    case 'm':
        if (st->measure.status == TUI_MEASURE_RUNNING) {
            snprintf(st->message, sizeof(st->message), _("measuring; Esc cancels"));
            return TUI_DIRTY_REPAINT;
        }
        st->measure.start_request = true;
        if (!st->compact)
            st->focus_pane = TUI_PANE_MEASURE;
        return TUI_DIRTY_REPAINT;
    case '/':
    case TUI_KEY_ENTER:
        if (f >= TUI_F_COUNT)
            return 0;
        if (st->focus_pane == TUI_PANE_MEASURE && key == TUI_KEY_ENTER)
            return tui_state_key(st, 'm');
        if (pane_readout(st->focus_pane)) {
            st->overlay = TUI_OVERLAY_EXPLAIN;
            return TUI_DIRTY_REPAINT;
        }
        if (key == '/' && st->focus_pane == TUI_PANE_LAYOUT)
            f = TUI_F_MODE;
        return tui_picker_open(st, f);
    case TUI_KEY_UP:
    case 'k':
        return field_move(st, -1) ? TUI_DIRTY_REPAINT : 0;
    case TUI_KEY_DOWN:
    case 'j':
        return field_move(st, 1) ? TUI_DIRTY_REPAINT : 0;
    case TUI_KEY_LEFT:
    case 'h':
        return tui_state_change(st, -1);
    case TUI_KEY_RIGHT:
    case 'l':
        return tui_state_change(st, 1);
    case TUI_KEY_PGUP:
    case TUI_KEY_PGDN:
        if (f >= TUI_F_COUNT || pane_readout(st->focus_pane))
            return 0;
        dirty = tui_field_step(st, f, key == TUI_KEY_PGUP ? 1 : -1, true);
        tui_state_fix_focus(st);
        return dirty;
    default:
        return 0;
    }
}
