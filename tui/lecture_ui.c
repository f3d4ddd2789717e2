/*
 * lecture_ui.c: lesson stepping, presentation mode, comparison and the
 * save/load prompt (see lecture_ui.h).
 *
 * Stepping replaces the whole scenario by the step's (steps never inherit),
 * focuses the step's pane and opens the explain overlay on its key; `r`
 * does the same again after free exploration. Saving asks before it
 * overwrites (scenario_file_save refuses, the prompt turns into
 * "overwrite? y/n"); loading keeps the old scenario on any error. The
 * prompt offers the last name, selected (typing replaces it), and edits
 * as line_edit.h says (Ctrl-U, Ctrl-W, ~ is HOME).
 */
#include "tui/lecture_ui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/line_edit.h"
#include "tui/scenario_file.h"

/* The default name the save and load prompts offer. */
#define TUI_DEFAULT_SCENARIO "scenario.yaml"

/* An empty lecture. */
void tui_lecture_init(struct tui_lecture *lx) {
    memset(lx, 0, sizeof(*lx));
    snprintf(lx->last_file, sizeof(lx->last_file), "%s", TUI_DEFAULT_SCENARIO);
}

/* Free the lesson. */
void tui_lecture_free(struct tui_lecture *lx) {
    if (lx->has_lesson)
        lesson_free(&lx->lesson);
    lx->has_lesson = false;
}

/* Replace the scenario, keeping what belongs to the session. */
unsigned tui_lecture_set_scenario(struct tui_state *st, const struct options *loaded) {
    struct options o = st->opt;
    struct tui_lecture_view v = st->lx;
    struct tui_measure m = st->measure;
    bool compact = st->compact;
    unsigned recomputes = st->recomputes;
    const struct catalog *cat = st->cat;

    scenario_file_apply(&o, loaded);
    tui_state_init(st, &o, cat);
    st->lx = v;
    st->measure = m;
    st->compact = compact;
    st->recomputes += recomputes;
    return TUI_DIRTY_ALL;
}

/* The explorer pane of the same name as a lesson pane. */
static enum tui_pane lecture_pane_full(enum lesson_pane p) {
    static const enum tui_pane map[LESSON_PANE_COUNT] = {
        [LESSON_PANE_MODEL] = TUI_PANE_MODEL,     [LESSON_PANE_FORMAT] = TUI_PANE_FORMAT,
        [LESSON_PANE_GPU] = TUI_PANE_GPU,         [LESSON_PANE_LAYOUT] = TUI_PANE_LAYOUT,
        [LESSON_PANE_MEMORY] = TUI_PANE_MEMORY,   [LESSON_PANE_SPEED] = TUI_PANE_SPEED,
        [LESSON_PANE_MEASURE] = TUI_PANE_MEASURE,
    };
    return map[p];
}

/* The explorer pane of a lesson pane (Measure shows as Speed when compact). */
static enum tui_pane lecture_pane(const struct tui_state *st, enum lesson_pane p) {
    enum tui_pane tp = lecture_pane_full(p);
    if (st->compact && tp == TUI_PANE_MEASURE)
        tp = TUI_PANE_SPEED;
    return tp;
}

/* Render step i's caption and question for this reader (lesson_text.h):
 * the figures of the step's own scenario, in the session's units. */
static void lecture_render(struct tui_lecture *lx, struct tui_state *st, size_t i) {
    const struct lesson_step *s = lesson_step(&lx->lesson, i);
    const struct engine_numfmt *f = i18n_numfmt(st->opt.units == UNITS_GIB);
    struct engine_estimate e;
    if (!s)
        return;
    engine_estimate(&s->options.sc, &e);
    lesson_text_render(f, &s->options.sc, &e, lx->lesson.language, s->caption, lx->caption,
                       sizeof(lx->caption));
    lx->question[0] = '\0';
    if (s->question)
        lesson_text_render(f, &s->options.sc, &e, lx->lesson.language, s->question,
                           lx->question, sizeof(lx->question));
    lx->rendered_step = i;
    lx->rendered_units = st->opt.units;
    st->lx.caption = lx->caption;
    st->lx.question = s->question ? lx->question : NULL;
}

/* Render again after the units changed (see header). */
unsigned tui_lecture_sync(struct tui_lecture *lx, struct tui_state *st) {
    if (!lx->has_lesson || !st->lx.lesson ||
        (lx->rendered_units == st->opt.units && lx->rendered_step == st->lx.step))
        return 0;
    lecture_render(lx, st, st->lx.step);
    return TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
}

/* Show step i (see header). */
unsigned tui_lecture_goto(struct tui_lecture *lx, struct tui_state *st, size_t i) {
    if (!lx->has_lesson)
        return 0;
    size_t n = lesson_count(&lx->lesson);
    if (i >= n)
        i = n - 1;
    const struct lesson_step *s = lesson_step(&lx->lesson, i);
    /* The reader's units are the session's: a step does not change them. */
    struct options so = s->options;
    so.units = st->opt.units;
    unsigned dirty = tui_lecture_set_scenario(st, &so);
    st->lx.lesson = true;
    st->lx.step = i;
    st->lx.n_steps = n;
    st->lx.step_title = s->title;
    st->lx.cites = s->cites;
    lecture_render(lx, st, i);
    if (lx->keep && lesson_progress_write(lx->progress, i, n) != 0) {
        /* Once: the next start will not resume here. */
        lx->keep = false;
        snprintf(st->message, sizeof(st->message), _("the lesson's step is not kept: %.60s: %s"),
                 lx->progress, strerror(errno));
    }
    st->lx.caption_page = 0;
    st->lx.caption_pages = 1;
    st->lx.off_step = false;
    st->overlay = TUI_OVERLAY_NONE;
    /* A question step asks first: its panes' figures are '?' until n. */
    st->lx.revealed = false;
    st->lx.hide = 0;
    for (int p = LESSON_PANE_MODEL; p < LESSON_PANE_COUNT; p++) {
        if (!lesson_step_hides(s, (enum lesson_pane)p))
            continue;
        st->lx.hide |= 1u << (unsigned)lecture_pane_full((enum lesson_pane)p);
        if (p == LESSON_PANE_SPEED) /* the roofline's point says what binds */
            st->lx.hide |= 1u << TUI_PANE_ROOF;
    }
    if (s->pane != LESSON_PANE_NONE) {
        enum tui_pane tp = lecture_pane(st, s->pane);
        st->focus_pane = tp;
        if (tp < TUI_INPUT_PANES)
            st->last_input = tp;
    }
    if (s->has_explain) {
        /* Focus the field that shows the number, when the pane has one; the
         * overlay opens only over the panes (presentation mode shows the
         * headline: e opens it there). */
        for (int f = 0; f < TUI_F_COUNT; f++) {
            const struct tui_field_info *fi = tui_field_info((enum tui_field)f);
            if (fi && fi->pane == st->focus_pane && tui_field_applies(st, (enum tui_field)f) &&
                tui_field_key(st, (enum tui_field)f) == (int)s->explain) {
                st->focus[st->focus_pane] = (enum tui_field)f;
                break;
            }
        }
        st->explain_key = (int)s->explain;
        st->overlay_scroll = 0;
        /* A question's explanation would give the answer: it opens when n
         * reveals it. */
        if (!st->lx.present && !tui_lecture_asking(&st->lx))
            st->overlay = TUI_OVERLAY_EXPLAIN;
    }
    return dirty;
}

/* Load a lesson and show its first step. */
int tui_lecture_open(struct tui_lecture *lx, struct tui_state *st, const char *name, char *err,
                     size_t errlen) {
    char path[1024], lang[16];
    i18n_language(lang, sizeof(lang));
    if (lesson_resolve(name, lang, path, sizeof(path)) != 0) {
        snprintf(err, errlen, _("%s: no such lesson file or lesson name (see docs/lessons.md)\n"),
                 name);
        return -1;
    }
    tui_lecture_free(lx);
    if (lesson_load(path, st->cat, &lx->lesson, err, errlen) != 0)
        return -1;
    lx->has_lesson = true;
    tui_lecture_goto(lx, st, 0);
    return 0;
}

/* Keep the step between sessions and resume (see header). */
unsigned tui_lecture_keep(struct tui_lecture *lx, struct tui_state *st, bool fresh) {
    char err[256];
    unsigned dirty = 0;
    if (!lx->has_lesson)
        return 0;
    lx->keep = false;
    if (lesson_progress_path(lx->lesson.path, lx->progress, sizeof(lx->progress), false, err,
                             sizeof(err)) != 0) {
        snprintf(st->message, sizeof(st->message), _("the lesson's step is not kept: %s"), err);
        return TUI_DIRTY_REPAINT;
    }
    long kept = fresh ? -1 : lesson_progress_read(lx->progress);
    /* The directory is made only now, when there is something to keep. */
    if (lesson_progress_path(lx->lesson.path, lx->progress, sizeof(lx->progress), true, err,
                             sizeof(err)) != 0) {
        snprintf(st->message, sizeof(st->message), _("the lesson's step is not kept: %s"), err);
        return TUI_DIRTY_REPAINT;
    }
    lx->keep = true;
    if (kept > 0 && (size_t)kept < lesson_count(&lx->lesson)) {
        dirty = tui_lecture_goto(lx, st, (size_t)kept);
        if (!st->message[0])
            snprintf(st->message, sizeof(st->message),
                     _("resumed at step %ld/%zu (: 1 Enter or --fresh starts over)"), kept + 1,
                     lesson_count(&lx->lesson));
    } else {
        dirty = tui_lecture_goto(lx, st, st->lx.step);
    }
    return dirty;
}

/* Put the first line of a multi-line message into the status line. */
static void lecture_message(struct tui_state *st, const char *text) {
    size_t n = strcspn(text, "\n");
    if (n >= sizeof(st->message))
        n = sizeof(st->message) - 1;
    memcpy(st->message, text, n);
    st->message[n] = '\0';
}

/* Save to the prompt's file; overwrite only when the user said yes. */
static void lecture_save(struct tui_lecture *lx, struct tui_state *st, bool overwrite) {
    char err[SCENARIO_FILE_ERR_MAX], path[TUI_PROMPT_MAX + 256];
    const char *typed = st->lx.prompt_text;
    if (tui_path_expand(typed, path, sizeof(path), err, sizeof(err)) != 0) {
        st->lx.prompt = TUI_PROMPT_NONE;
        lecture_message(st, err);
        return;
    }
    int rc = scenario_file_save(path, &st->opt, st->cat, overwrite, err, sizeof(err));
    if (rc == SCENARIO_FILE_EXISTS) {
        st->lx.prompt = TUI_PROMPT_OVERWRITE;
        return;
    }
    st->lx.prompt = TUI_PROMPT_NONE;
    if (rc != SCENARIO_FILE_OK) {
        lecture_message(st, err);
        return;
    }
    snprintf(lx->last_file, sizeof(lx->last_file), "%s", typed);
    snprintf(st->message, sizeof(st->message), _("saved %.120s"), typed);
}

/* Load the prompt's file; on any error the scenario stays as it was. */
static unsigned lecture_load(struct tui_lecture *lx, struct tui_state *st) {
    char err[SCENARIO_FILE_ERR_MAX];
    struct options loaded;
    char typed[TUI_PROMPT_MAX], path[TUI_PROMPT_MAX + 256];
    snprintf(typed, sizeof(typed), "%s", st->lx.prompt_text);
    st->lx.prompt = TUI_PROMPT_NONE;
    if (tui_path_expand(typed, path, sizeof(path), err, sizeof(err)) != 0) {
        lecture_message(st, err);
        return TUI_DIRTY_REPAINT;
    }
    int rc = scenario_file_load(path, st->cat, &loaded, err, sizeof(err));
    if (rc != SCENARIO_FILE_OK) {
        lecture_message(st, err);
        return TUI_DIRTY_REPAINT;
    }
    unsigned dirty = tui_lecture_set_scenario(st, &loaded);
    if (st->lx.lesson)
        st->lx.off_step = true;
    snprintf(lx->last_file, sizeof(lx->last_file), "%s", typed);
    snprintf(st->message, sizeof(st->message), _("loaded %.120s"), typed);
    if (loaded.note[0]) /* its model file gone: the saved shape */
        snprintf(st->message, sizeof(st->message), "%.*s", (int)sizeof(st->message) - 1,
                 loaded.note);
    return dirty;
}

/* Go to the step the goto prompt holds (1-based). */
static unsigned lecture_goto_typed(struct tui_lecture *lx, struct tui_state *st) {
    char *end;
    const char *t = st->lx.prompt_text;
    unsigned long k = strtoul(t, &end, 10);
    st->lx.prompt = TUI_PROMPT_NONE;
    if (!*t || *end || k < 1 || k > st->lx.n_steps) {
        snprintf(st->message, sizeof(st->message), _("no step '%.20s': the lesson has steps 1 to %zu"),
                 t, st->lx.n_steps);
        return TUI_DIRTY_REPAINT;
    }
    st->message[0] = '\0';
    return tui_lecture_goto(lx, st, k - 1) | TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
}

/* A key while the prompt is open: edit, Enter acts, Esc cancels. */
static unsigned lecture_prompt_key(struct tui_lecture *lx, struct tui_state *st, int key) {
    char *t = st->lx.prompt_text;
    size_t n = strlen(t);
    if (st->lx.prompt == TUI_PROMPT_QUIT) {
        st->lx.prompt = TUI_PROMPT_NONE;
        if (key == 'y' || key == 'Y' || key == 'q')
            st->quit = true;
        else
            st->message[0] = '\0';
        return TUI_DIRTY_REPAINT;
    }
    if (st->lx.prompt == TUI_PROMPT_GOTO) {
        if (key == TUI_KEY_ENTER)
            return lecture_goto_typed(lx, st);
        if (key == TUI_KEY_ESC) {
            st->lx.prompt = TUI_PROMPT_NONE;
            return TUI_DIRTY_REPAINT;
        }
        if (key == TUI_KEY_BACKSPACE && n > 0) {
            t[n - 1] = '\0';
            return TUI_DIRTY_REPAINT;
        }
        if (key >= '0' && key <= '9' && n < 6) {
            t[n] = (char)key;
            t[n + 1] = '\0';
            return TUI_DIRTY_REPAINT;
        }
        return 0;
    }
    if (st->lx.prompt == TUI_PROMPT_OVERWRITE) {
        if (key == 'y' || key == 'Y') {
            lecture_save(lx, st, true);
        } else {
            st->lx.prompt = TUI_PROMPT_NONE;
            snprintf(st->message, sizeof(st->message), _("not saved"));
        }
        return TUI_DIRTY_REPAINT;
    }
    switch (key) {
    case TUI_KEY_ESC:
        st->lx.prompt = TUI_PROMPT_NONE;
        snprintf(st->message, sizeof(st->message), _("cancelled"));
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_ENTER:
        if (n == 0)
            return 0;
        if (st->lx.prompt == TUI_PROMPT_SAVE) {
            lecture_save(lx, st, false);
            return TUI_DIRTY_REPAINT;
        }
        return lecture_load(lx, st);
    default:
        /* Backspace, Ctrl-U, Ctrl-W, typing over the offered name. */
        return tui_line_key(t, sizeof(st->lx.prompt_text), &st->lx.prompt_selected, key)
                   ? TUI_DIRTY_REPAINT
                   : 0;
    }
}

/* Open the prompt of s or o with the last file name. */
static unsigned lecture_prompt(struct tui_lecture *lx, struct tui_state *st, enum tui_prompt k) {
    st->lx.prompt = k;
    snprintf(st->lx.prompt_text, sizeof(st->lx.prompt_text), "%s", lx->last_file);
    st->lx.prompt_selected = true; /* typing replaces the offered name */
    st->message[0] = '\0';
    return TUI_DIRTY_REPAINT;
}

/* Pin the current scenario for a comparison, or unpin. */
static unsigned lecture_pin(struct tui_state *st) {
    st->message[0] = '\0';
    if (st->lx.pinned) {
        st->lx.pinned = false;
        snprintf(st->message, sizeof(st->message), _("comparison off"));
        return TUI_DIRTY_REPAINT;
    }
    st->lx.pinned = true;
    st->lx.pin_opt = st->opt;
    st->lx.pin_est = st->est;
    snprintf(st->message, sizeof(st->message),
             _("pinned: change the scenario to compare; c unpins"));
    return TUI_DIRTY_REPAINT;
}

/* Open the explanation of the step shown, as stepping to it does. */
static void lecture_reopen_explain(struct tui_lecture *lx, struct tui_state *st) {
    const struct lesson_step *s = lesson_step(&lx->lesson, st->lx.step);
    if (!s || !s->has_explain)
        return;
    st->explain_key = (int)s->explain;
    st->overlay_scroll = 0;
    st->overlay = TUI_OVERLAY_EXPLAIN;
}

/* Reveal a question step's figures and its answer (the caption), and open
 * the explanation the step names. */
static void lecture_reveal(struct tui_lecture *lx, struct tui_state *st) {
    st->lx.revealed = true;
    st->lx.caption_page = 0;
    st->lx.caption_pages = 1;
    if (!st->lx.present)
        lecture_reopen_explain(lx, st);
}

/* Step keys of a lesson: +1, -1, or 0 when the key is not one. The
 * arrows step in presentation mode (a clicker may send them); on the panes
 * they edit the focused field, as everywhere in the explorer. */
static int lecture_step_dir(const struct tui_state *st, int key) {
    switch (key) {
    case 'n':
    case ' ':
    case TUI_KEY_PGDN:
    case TUI_KEY_SRIGHT:
        return 1;
    case 'p':
    case TUI_KEY_BACKSPACE:
    case TUI_KEY_PGUP:
    case TUI_KEY_SLEFT:
        return -1;
    case TUI_KEY_RIGHT:
        return st->lx.present ? 1 : 0;
    case TUI_KEY_LEFT:
        return st->lx.present ? -1 : 0;
    default:
        return 0;
    }
}

/* Offer a key to the lecture (see header). */
bool tui_lecture_key(struct tui_lecture *lx, struct tui_state *st, int key, unsigned *dirty) {
    if (st->lx.prompt != TUI_PROMPT_NONE) {
        *dirty |= lecture_prompt_key(lx, st, key);
        return true;
    }
    if (st->overlay == TUI_OVERLAY_PICKER || key == TUI_KEY_RESIZE)
        return false;
    int dir = lx->has_lesson ? lecture_step_dir(st, key) : 0;
    if (dir != 0) {
        /* Stepping works over help and explain too: a clicker only clicks. */
        size_t i = st->lx.step;
        st->message[0] = '\0';
        /* A long caption first pages, so its end is always read. */
        if (dir > 0 && st->lx.caption_page + 1 < st->lx.caption_pages) {
            st->lx.caption_page++;
            *dirty |= TUI_DIRTY_REPAINT;
            return true;
        }
        if (dir < 0 && st->lx.caption_page > 0) {
            st->lx.caption_page--;
            *dirty |= TUI_DIRTY_REPAINT;
            return true;
        }
        /* A question: n reveals the answer before it goes on. */
        if (dir > 0 && tui_lecture_asking(&st->lx)) {
            lecture_reveal(lx, st);
            *dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
            return true;
        }
        if (dir > 0 && i + 1 >= st->lx.n_steps) {
            snprintf(st->message, sizeof(st->message), _("last step (%zu/%zu); p goes back"), i + 1,
                     st->lx.n_steps);
            *dirty |= TUI_DIRTY_REPAINT;
            return true;
        }
        if (dir < 0 && i == 0) {
            snprintf(st->message, sizeof(st->message), _("first step"));
            *dirty |= TUI_DIRTY_REPAINT;
            return true;
        }
        *dirty |= tui_lecture_goto(lx, st, dir > 0 ? i + 1 : i - 1);
        return true;
    }
    if (st->overlay != TUI_OVERLAY_NONE) {
        /* The lesson's keys work whatever overlay is open: r, F, : and g.
         * q and Esc close the overlay (the state machine's), never the
         * lesson. Everything else is the overlay's. */
        bool lesson_key = key == 'F' ||
                          (lx->has_lesson && (key == 'r' || key == ':' || key == 'g'));
        if (!lesson_key)
            return false;
    }
    switch (key) {
    case 'q':
    case TUI_KEY_ESC:
        /* Without a lesson the state machine quits (and saves) as always;
         * Esc cancels a running measurement there first. */
        if (!lx->has_lesson || (key == TUI_KEY_ESC && st->measure.status == TUI_MEASURE_RUNNING))
            return false;
        st->lx.prompt = TUI_PROMPT_QUIT;
        st->lx.prompt_text[0] = '\0';
        *dirty |= TUI_DIRTY_REPAINT;
        return true;
    case ':':
    case 'g':
        if (!lx->has_lesson)
            return false;
        st->lx.prompt = TUI_PROMPT_GOTO;
        st->lx.prompt_text[0] = '\0';
        st->message[0] = '\0';
        *dirty |= TUI_DIRTY_REPAINT;
        return true;
    case 'r':
        if (!lx->has_lesson)
            return false;
        *dirty |= tui_lecture_goto(lx, st, st->lx.step);
        return true;
    case 'F':
        st->lx.present = !st->lx.present;
        /* The headline shows alone; back on the panes, a step that
         * explains a number opens its explanation again. */
        if (st->overlay == TUI_OVERLAY_HELP || st->lx.present)
            st->overlay = TUI_OVERLAY_NONE;
        else if (lx->has_lesson && !st->lx.off_step && !tui_lecture_asking(&st->lx))
            lecture_reopen_explain(lx, st);
        st->message[0] = '\0';
        *dirty |= TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
        return true;
    case 'c':
        *dirty |= lecture_pin(st);
        return true;
    case 's':
        *dirty |= lecture_prompt(lx, st, TUI_PROMPT_SAVE);
        return true;
    case 'o':
        *dirty |= lecture_prompt(lx, st, TUI_PROMPT_LOAD);
        return true;
    default:
        return false;
    }
}

/* A key the state machine handled: a new scenario leaves the step (and
 * reveals a question's figures: they are live again), an explanation
 * asked for on a question waits for its answer, and the step's explain key
 * lasts only until the next key that is not e. */
void tui_lecture_after(struct tui_state *st, unsigned dirty) {
    if (st->lx.lesson && (dirty & TUI_DIRTY_RECOMPUTE)) {
        st->lx.off_step = true;
        if (tui_lecture_asking(&st->lx)) {
            st->lx.revealed = true;
            st->lx.caption_page = 0;
            st->lx.caption_pages = 1;
        }
    }
    if (tui_lecture_asking(&st->lx) && st->overlay == TUI_OVERLAY_EXPLAIN) {
        /* Its formula would give the answer away. */
        st->overlay = TUI_OVERLAY_NONE;
        snprintf(st->message, sizeof(st->message), "%s", _("n reveals the answer first"));
    }
    if (st->overlay == TUI_OVERLAY_NONE)
        st->explain_key = -1;
}
