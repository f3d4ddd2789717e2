/*
 * lecture_ui.h: the explorer's lecture keys (issue 8), between the app's
 * loop and the state machine: lesson stepping (n p Space Backspace PgDn
 * PgUp r), presentation mode (F), comparison (c), and saving and loading
 * scenario files through a one-line prompt (s o).
 *
 * A question step (lesson.h) asks first: st->lx.question and .hide say
 * what the screen asks and which panes show '?' (tui_lecture_hides); the
 * step keys page it, then reveal it (the answer and the step's
 * explanation), then go on; r asks again, and a key that changes the
 * scenario reveals it (tui_lecture_after), since the figures are live.
 *
 * Lesson keys: n, Space, PgDn, Shift-Right (and Right in presentation
 * mode) step on; p, Backspace, PgUp, Shift-Left (Left presenting) back;
 * : or g, a number and Enter go to that step; r returns to the step; q
 * first closes an open overlay, then asks before leaving the lesson (y),
 * and so does Esc without an overlay.
 *
 * What the screen shows lives in st->lx (state.h) so that drawing reads
 * only the state; the lesson itself and the file I/O live here.
 */
#ifndef VRAMLAB_TUI_LECTURE_UI_H
#define VRAMLAB_TUI_LECTURE_UI_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/lesson.h"
#include "tui/state.h"

/* Room for a step's caption or question as rendered (figures written out). */
#define TUI_LECTURE_TEXT_MAX 4096

struct tui_lecture {
    struct lesson lesson;
    bool has_lesson;
    char last_file[TUI_PROMPT_MAX]; /* the last name saved or loaded */
    /* The step's caption and question as shown: each {figure} of the
     * step's own scenario in the reader's units and locale; rendered again
     * when the units change (u). */
    char caption[TUI_LECTURE_TEXT_MAX], question[TUI_LECTURE_TEXT_MAX];
    size_t rendered_step;
    enum units rendered_units;
    /* The step is kept between sessions (lesson_progress_path) once
     * tui_lecture_keep() found where. */
    bool keep;
    char progress[4096];
};

/* An empty lecture (no lesson, nothing pinned). */
void tui_lecture_init(struct tui_lecture *lx);
/* Free the lesson. */
void tui_lecture_free(struct tui_lecture *lx);

/* Load a lesson (a path or a name for lesson_resolve) and show its first
 * step. Returns 0, or -1 with every error in err. */
int tui_lecture_open(struct tui_lecture *lx, struct tui_state *st, const char *name, char *err,
                     size_t errlen);

/* Keep the lesson's step between sessions from now on (every step shown
 * is written, for the next start and for `--notes`), and unless fresh go
 * to the step the last session left. Where it cannot (no HOME, a state
 * directory that cannot be written) it says so once in the status line,
 * creates nothing and goes on. Returns dirty flags. */
unsigned tui_lecture_keep(struct tui_lecture *lx, struct tui_state *st, bool fresh);

/* Show step i of the lesson (clamped), as the file has it. */
unsigned tui_lecture_goto(struct tui_lecture *lx, struct tui_state *st, size_t i);

/* Offer a key to the lecture keys first; returns true when it was taken,
 * with the dirty flags added to *dirty. */
bool tui_lecture_key(struct tui_lecture *lx, struct tui_state *st, int key, unsigned *dirty);

/* Render the step's caption and question again when the reader's units
 * changed since (u); returns dirty flags. Call before drawing. */
unsigned tui_lecture_sync(struct tui_lecture *lx, struct tui_state *st);

/* Note what the state machine did with a key the lecture did not take
 * (a changed scenario leaves the lesson step: r returns). */
void tui_lecture_after(struct tui_state *st, unsigned dirty);

/* Replace the scenario by o, keeping the session (lesson view, measure
 * results, pin, layout); returns dirty flags. */
unsigned tui_lecture_set_scenario(struct tui_state *st, const struct options *o);

#endif
