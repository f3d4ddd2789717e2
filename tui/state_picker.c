/*
 * state_picker.c: the explorer's pickers: one list per kind (models,
 * weight and KV formats, each with the entries that apply to it, GPUs,
 * modes, recompute policies, recipes), filtered by a typed string that
 * matches a name or an id anywhere, case-insensitively. The model list
 * starts with "file...", which opens the model-file prompt.
 */
#include "config.h"

#include "tui/state.h"
#include "tui/i18n.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Fixed pickers: modes, recompute policies, recipes. */
static const char *const tui_mode_labels[] = {N_("inference"), N_("training"), N_("LoRA"),
                                              N_("QLoRA")};
static const char *const tui_recompute_labels[] = {N_("none"), N_("selective"), N_("full")};

/* Number of entries of a picker kind before filtering. */
static size_t pick_total(const struct tui_state *st, enum tui_pick k) {
    const struct catalog *c = st->cat;
    switch (k) {
    case TUI_PICK_MODEL:
        return (c ? c->n_models : 0) + 1; /* "file..." first */
    case TUI_PICK_WFORMAT:
    case TUI_PICK_KVFORMAT:
        return c ? c->n_formats : 0;
    case TUI_PICK_GPU:
        return c ? c->n_gpus : 0;
    case TUI_PICK_MODE:
        return 4;
    case TUI_PICK_RECOMPUTE:
        return 3;
    case TUI_PICK_RECIPE:
        return ENGINE_RECIPE_COUNT;
    }
    return 0;
}

/* Label and id of raw entry i; whether it is the current pick. */
static const char *pick_raw(const struct tui_state *st, size_t i, const char **id, bool *cur) {
    const struct catalog *c = st->cat;
    const struct engine_scenario *sc = &st->opt.sc;
    *cur = false;
    switch (st->picker.kind) {
    case TUI_PICK_MODEL:
        if (i == 0) {
            *id = "file";
            *cur = false;
            return _("file... (a GGUF, safetensors or Hugging Face folder)");
        }
        i--;
        *id = c->models[i].id;
        *cur = (int)i == st->model_index;
        return c->models[i].name[0] ? c->models[i].name : c->models[i].id;
    case TUI_PICK_WFORMAT:
    case TUI_PICK_KVFORMAT:
        *id = c->formats[i].id;
        *cur = (int)i == (st->picker.kind == TUI_PICK_WFORMAT ? st->wfmt_index : st->kvfmt_index);
        return c->formats[i].name[0] ? c->formats[i].name : c->formats[i].id;
    case TUI_PICK_GPU:
        *id = c->gpus[i].id;
        *cur = (int)i == st->gpu_index;
        return c->gpus[i].name[0] ? c->gpus[i].name : c->gpus[i].id;
    case TUI_PICK_MODE:
        *cur = (size_t)sc->mode == i;
        *id = engine_mode_name((enum engine_mode)i);
        return _(tui_mode_labels[i]);
    case TUI_PICK_RECOMPUTE:
        *cur = (size_t)sc->recompute == i;
        *id = tui_recompute_labels[i];
        return _(tui_recompute_labels[i]);
    case TUI_PICK_RECIPE:
        *cur = (size_t)sc->recipe == i;
        *id = engine_recipe_info((enum engine_recipe)i)->id;
        return *id;
    }
    *id = "";
    return "";
}

/* Whether raw entry i matches the filter (case-insensitive, name or id). */
static bool pick_match(const struct tui_state *st, size_t i) {
    const char *id, *label;
    bool cur;
    const char *flt = st->picker.filter;
    if (st->picker.kind == TUI_PICK_WFORMAT && !tui_format_for_weights(&st->cat->formats[i]))
        return false;
    if (st->picker.kind == TUI_PICK_KVFORMAT && !tui_format_for_kv(&st->cat->formats[i]))
        return false;
    if (flt[0] == '\0')
        return true;
    label = pick_raw(st, i, &id, &cur);
    size_t n = strlen(flt);
    for (const char *s = label; *s; s++)
        if (strncasecmp(s, flt, n) == 0)
            return true;
    for (const char *s = id ? id : ""; *s; s++)
        if (strncasecmp(s, flt, n) == 0)
            return true;
    return false;
}

/* Raw index of the i-th filtered entry, or (size_t)-1. */
static size_t pick_nth(const struct tui_state *st, size_t want) {
    size_t total = pick_total(st, st->picker.kind), seen = 0;
    for (size_t i = 0; i < total; i++) {
        if (pick_match(st, i)) {
            if (seen == want)
                return i;
            seen++;
        }
    }
    return (size_t)-1;
}

/* Number of entries matching the filter. */
size_t tui_picker_count(const struct tui_state *st) {
    size_t total = pick_total(st, st->picker.kind), n = 0;
    for (size_t i = 0; i < total; i++)
        n += pick_match(st, i);
    return n;
}

/* Label of the i-th filtered entry. */
const char *tui_picker_label(const struct tui_state *st, size_t i, bool *current) {
    const char *id;
    size_t raw = pick_nth(st, i);
    *current = false;
    if (raw == (size_t)-1)
        return "";
    return pick_raw(st, raw, &id, current);
}

/* Open the picker of a field, if it has one; returns flags. */
unsigned tui_picker_open(struct tui_state *st, enum tui_field f) {
    enum tui_pick k;
    switch (f) {
    case TUI_F_MODEL:
    case TUI_F_SIZE:
        k = TUI_PICK_MODEL;
        break;
    case TUI_F_WFORMAT:
    case TUI_F_GROUP:
        if (st->opt.sc.mode == ENGINE_MODE_TRAIN) {
            tui_state_recipe_note(st);
            return TUI_DIRTY_REPAINT;
        }
        if (st->opt.sc.mode == ENGINE_MODE_INFER && st->opt.model_file &&
            st->opt.sc.model.file_bytes)
            return tui_field_step(st, TUI_F_WFORMAT, 1, false); /* says why not */
        k = TUI_PICK_WFORMAT;
        break;
    case TUI_F_KVFORMAT:
        k = TUI_PICK_KVFORMAT;
        break;
    case TUI_F_GPU:
    case TUI_F_GPUS:
        k = TUI_PICK_GPU;
        break;
    case TUI_F_MODE:
        k = TUI_PICK_MODE;
        break;
    case TUI_F_RECOMPUTE:
        k = TUI_PICK_RECOMPUTE;
        break;
    case TUI_F_RECIPE:
        k = TUI_PICK_RECIPE;
        break;
    default:
        snprintf(st->message, sizeof(st->message), _("%s: use %s to change it"),
                 _(tui_field_info(f)->label), _("left/right, PgUp/PgDn"));
        return TUI_DIRTY_REPAINT;
    }
    memset(&st->picker, 0, sizeof(st->picker));
    st->picker.kind = k;
    st->overlay = TUI_OVERLAY_PICKER;
    /* Start on the current pick. */
    size_t n = tui_picker_count(st);
    for (size_t i = 0; i < n; i++) {
        bool cur;
        tui_picker_label(st, i, &cur);
        if (cur)
            st->picker.cursor = i;
    }
    return TUI_DIRTY_REPAINT;
}

/* Choose the i-th filtered entry of the open picker. */
unsigned tui_picker_choose(struct tui_state *st, size_t i) {
    struct engine_scenario *sc = &st->opt.sc;
    const struct catalog *c = st->cat;
    size_t raw = pick_nth(st, i);
    st->overlay = TUI_OVERLAY_NONE;
    if (raw == (size_t)-1)
        return TUI_DIRTY_REPAINT;
    switch (st->picker.kind) {
    case TUI_PICK_MODEL:
        if (raw == 0)
            return tui_file_open(st);
        raw--;
        st->model_index = (int)raw;
        sc->model = c->models[raw];
        st->opt.model_custom = false;
        st->opt.model_file = NULL;
        st->opt.model_path[0] = '\0';
        st->size_step = tui_step_of_size(engine_params_total(&sc->model));
        tui_state_fix_layout(st);
        break;
    case TUI_PICK_WFORMAT:
        st->wfmt_index = (int)raw;
        sc->weight_format = c->formats[raw];
        break;
    case TUI_PICK_KVFORMAT:
        st->kvfmt_index = (int)raw;
        sc->kv_format = c->formats[raw];
        break;
    case TUI_PICK_GPU:
        st->gpu_index = (int)raw;
        sc->gpu = c->gpus[raw];
        st->opt.gpu_custom = false;
        tui_state_leave_system(st);
        tui_state_fix_layout(st);
        break;
    case TUI_PICK_MODE:
        tui_state_set_mode(st, (enum engine_mode)raw);
        tui_state_fix_focus(st);
        break;
    case TUI_PICK_RECOMPUTE:
        sc->recompute = (enum engine_recompute)raw;
        st->opt.recompute_given = true;
        break;
    case TUI_PICK_RECIPE:
        sc->recipe = (enum engine_recipe)raw;
        break;
    }
    tui_state_fix_focus(st);
    return TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
}

/* Keys while a picker is open: typing filters, arrows move, Enter picks. */
unsigned tui_picker_key(struct tui_state *st, int key) {
    struct tui_picker *pk = &st->picker;
    size_t n = tui_picker_count(st);
    size_t len = strlen(pk->filter);
    switch (key) {
    case TUI_KEY_ESC:
        st->overlay = TUI_OVERLAY_NONE;
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_ENTER:
        return n > 0 ? tui_picker_choose(st, pk->cursor) : TUI_DIRTY_REPAINT;
    case TUI_KEY_UP:
        pk->cursor = pk->cursor > 0 ? pk->cursor - 1 : 0;
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_DOWN:
        pk->cursor = pk->cursor + 1 < n ? pk->cursor + 1 : pk->cursor;
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_PGUP:
        pk->cursor = pk->cursor > 10 ? pk->cursor - 10 : 0;
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_PGDN:
        pk->cursor = n == 0 ? 0 : (pk->cursor + 10 < n ? pk->cursor + 10 : n - 1);
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_HOME:
        pk->cursor = 0;
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_END:
        pk->cursor = n ? n - 1 : 0;
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_BACKSPACE:
    case 8:
        if (len > 0)
            pk->filter[len - 1] = '\0';
        pk->cursor = 0;
        return TUI_DIRTY_REPAINT;
    default:
        if (key >= 32 && key < 127 && len + 1 < sizeof(pk->filter)) {
            pk->filter[len] = (char)key;
            pk->filter[len + 1] = '\0';
            pk->cursor = 0;
        }
        return TUI_DIRTY_REPAINT;
    }
}
