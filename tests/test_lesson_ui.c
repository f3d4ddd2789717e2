/*
 * test_lesson_ui.c: the explorer's lecture keys without a screen
 * (tui/lecture_ui.c over the state machine): stepping and its ends, r after
 * exploring, the step's pane and explain key, presentation keeping the
 * explain overlay closed, pin and unpin, and the s/o prompt (default name,
 * overwrite question, a failed load keeping the scenario).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/lecture_ui.h"

#define GOOD TOP_SRCDIR "/tests/fixtures/lessons/good.yaml"

static struct catalog cat;
static struct tui_state st;
static struct tui_lecture lx;
static char dir[] = "/tmp/vramlab-lesson-ui.XXXXXX";

/* The embedded catalog, a default state, and a scratch directory as cwd. */
static void setup(void) {
    struct catalog_diag d = {0};
    struct options o;
    char *argv[] = {"vramlab", NULL};

    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
    cr_assert_eq(options_parse(1, argv, &cat, &o, false), 0);
    tui_state_init(&st, &o, &cat);
    tui_lecture_init(&lx);
    strcpy(dir, "/tmp/vramlab-lesson-ui.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chdir(dir), 0);
}

/* Free everything and remove the scratch files. */
static void teardown(void) {
    char cmd[128];
    tui_lecture_free(&lx);
    catalog_free(&cat);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (chdir("/") != 0 || system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(lesson_ui, .init = setup, .fini = teardown);

/* Offer a key to the lecture, then (if it did not take it) to the state,
 * as the app's loop does. */
static unsigned press(int key) {
    unsigned d = 0;
    if (!tui_lecture_key(&lx, &st, key, &d)) {
        d = tui_state_key(&st, key);
        tui_lecture_after(&st, d);
    }
    if (d & TUI_DIRTY_RECOMPUTE)
        tui_state_recompute(&st);
    return d;
}

/* Type a string into the open prompt. */
static void type(const char *s) {
    for (; *s; s++)
        press((unsigned char)*s);
}

Test(lesson_ui, first_step_shows_number_pane_and_explain) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, GOOD, err, sizeof(err)), 0, "%s", err);
    cr_expect(st.lx.lesson);
    cr_expect_eq(st.lx.step, 0);
    cr_expect_eq(st.lx.n_steps, 2);
    cr_expect_str_eq(st.lx.step_title, "Weights");
    cr_expect_eq(st.focus_pane, TUI_PANE_MEMORY);
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN);
    cr_expect_eq(st.explain_key, ENGINE_KEY_MEM_WEIGHTS);
    cr_expect_eq(st.focus[TUI_PANE_MEMORY], TUI_F_MEM_WEIGHTS);
    cr_expect_float_eq(st.est.memory.weights, 140e9, 1e6);
}

Test(lesson_ui, stepping_stops_at_both_ends) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, GOOD, err, sizeof(err)), 0, "%s", err);
    press(TUI_KEY_PGDN); /* over the explain overlay: a clicker only clicks */
    cr_expect_eq(st.lx.step, 1);
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE);
    cr_expect_str_eq(st.lx.caption, "About 209 tokens/s.");
    press('n');
    cr_expect_eq(st.lx.step, 1, "n at the last step stays");
    cr_expect(strstr(st.message, "last step") != NULL, "%s", st.message);
    press(TUI_KEY_BACKSPACE);
    cr_expect_eq(st.lx.step, 0);
    press('p');
    cr_expect_eq(st.lx.step, 0, "p at the first step stays");
    press(' ');
    cr_expect_eq(st.lx.step, 1);
    press(TUI_KEY_PGUP);
    cr_expect_eq(st.lx.step, 0);
}

Test(lesson_ui, r_returns_to_the_step_after_exploring) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, GOOD, err, sizeof(err)), 0, "%s", err);
    press(TUI_KEY_ESC);
    press('t'); /* training */
    cr_expect(st.lx.off_step);
    cr_expect_neq(st.opt.sc.mode, ENGINE_MODE_INFER);
    press('r');
    cr_expect_not(st.lx.off_step);
    cr_expect_eq(st.opt.sc.mode, ENGINE_MODE_INFER);
    cr_expect_float_eq(st.est.memory.weights, 140e9, 1e6);
}

Test(lesson_ui, presentation_leaves_the_explain_overlay_to_e) {
    char err[4096];
    press('F');
    cr_expect(st.lx.present);
    cr_assert_eq(tui_lecture_open(&lx, &st, GOOD, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE);
    press('e');
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN);
    cr_expect_eq(st.explain_key, ENGINE_KEY_MEM_WEIGHTS);
    press(TUI_KEY_ESC);
    press('F');
    cr_expect_not(st.lx.present, "F toggles back");
}

Test(lesson_ui, pin_keeps_the_pinned_estimate) {
    press('c');
    cr_assert(st.lx.pinned);
    double pinned = st.lx.pin_est.memory.total;
    press('t'); /* training */
    cr_expect_float_eq(st.lx.pin_est.memory.total, pinned, 1);
    cr_expect(st.est.memory.total != pinned, "the current scenario changed");
    press('c');
    cr_expect_not(st.lx.pinned);
}

Test(lesson_ui, save_asks_before_overwriting_and_load_round_trips) {
    double total = st.est.memory.total;
    press('s');
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_SAVE);
    cr_expect_str_eq(st.lx.prompt_text, "scenario.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_NONE);
    cr_expect_str_eq(st.message, "saved scenario.yaml");
    cr_expect_eq(access("scenario.yaml", F_OK), 0);

    press('s');
    press(TUI_KEY_ENTER);
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_OVERWRITE);
    press('n');
    cr_expect_str_eq(st.message, "not saved");

    press('t'); /* training: another scenario */
    cr_expect(st.est.memory.total != total);
    press('o');
    cr_expect_str_eq(st.lx.prompt_text, "scenario.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_str_eq(st.message, "loaded scenario.yaml");
    cr_expect_eq(st.opt.sc.mode, ENGINE_MODE_INFER);
    cr_expect_float_eq(st.est.memory.total, total, 1);
}

Test(lesson_ui, a_failed_load_keeps_the_scenario) {
    FILE *f = fopen("bad.yaml", "w");
    cr_assert_not_null(f);
    fputs("model: llama-3.1-70b\ntp: 3\n", f);
    fclose(f);
    press('t');
    enum engine_mode mode = st.opt.sc.mode;
    double total = st.est.memory.total;
    press('o');
    for (int i = 0; i < 20; i++)
        press(TUI_KEY_BACKSPACE);
    type("bad.yaml");
    press(TUI_KEY_ENTER);
    cr_expect(strstr(st.message, "bad.yaml:2:5: tp:") != NULL, "%s", st.message);
    cr_expect_eq(st.opt.sc.mode, mode);
    cr_expect_float_eq(st.est.memory.total, total, 1);
}

/* Issue 27 item 3: the offered name is selected, so a typed name replaces
 * it (never "scenario.yamlmine.yaml"); End keeps it; Ctrl-U then a path
 * saves there; ~ is HOME, and without HOME the prompt says so. */
Test(lesson_ui, the_save_prompt_edits_as_a_shell_line) {
    press('s');
    cr_expect(st.lx.prompt_selected);
    type("mine.yaml");
    cr_expect_str_eq(st.lx.prompt_text, "mine.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_str_eq(st.message, "saved mine.yaml");
    cr_expect_eq(access("mine.yaml", F_OK), 0);

    press('s');
    cr_expect_str_eq(st.lx.prompt_text, "mine.yaml", "the last name is offered");
    press(TUI_KEY_END);
    type(".bak");
    press(TUI_KEY_ENTER);
    cr_expect_eq(access("mine.yaml.bak", F_OK), 0, "End kept the offered name");

    cr_assert_eq(mkdir("sub", 0700), 0);
    press('s');
    press(TUI_KEY_RIGHT);
    press(21); /* Ctrl-U */
    type("sub/a.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_eq(access("sub/a.yaml", F_OK), 0, "%s", st.message);

    press('s');
    press(TUI_KEY_END);
    press(23); /* Ctrl-W: back to "sub/" */
    cr_expect_str_eq(st.lx.prompt_text, "sub/");
    type("b.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_eq(access("sub/b.yaml", F_OK), 0, "%s", st.message);

    char cwd[512], *old = getenv("HOME"), saved[512];
    snprintf(saved, sizeof(saved), "%s", old ? old : "");
    cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
    setenv("HOME", cwd, 1);
    press('s');
    type("~/sub/c.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_str_eq(st.message, "saved ~/sub/c.yaml");
    cr_expect_eq(access("sub/c.yaml", F_OK), 0);
    cr_expect_eq(access("~", F_OK), -1, "no directory named ~");
    press('o');
    cr_expect_str_eq(st.lx.prompt_text, "~/sub/c.yaml");
    press(TUI_KEY_ENTER);
    cr_expect_str_eq(st.message, "loaded ~/sub/c.yaml");

    unsetenv("HOME");
    press('s');
    type("~/d.yaml");
    press(TUI_KEY_ENTER);
    cr_expect(strstr(st.message, "HOME is not set") != NULL, "%s", st.message);
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_NONE);
    cr_expect_eq(access("d.yaml", F_OK), -1);
    cr_expect_eq(access("~", F_OK), -1);
    if (old)
        setenv("HOME", saved, 1);
}

Test(lesson_ui, esc_cancels_the_prompt) {
    press('s');
    press(TUI_KEY_ESC);
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_NONE);
    cr_expect_not(st.quit, "Esc in the prompt does not quit");
    cr_expect_eq(access("scenario.yaml", F_OK), -1);
}

/* Issue 17: every lesson key works whatever overlay a step opened: F over
 * the step's explanation (which closes for the headline and comes back with
 * the panes), r and n over help, e toggles; q over the explanation closes
 * it (issue 24: it quit the whole lesson), then asks before leaving. */
Test(lesson_ui, lesson_keys_work_over_any_overlay) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, GOOD, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(st.overlay, TUI_OVERLAY_EXPLAIN);
    press('F');
    cr_expect(st.lx.present, "F over the explain overlay turns presentation on");
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "the headline shows alone");
    press('F');
    cr_expect_not(st.lx.present);
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN, "back on the panes, the step's explanation");
    cr_expect_eq(st.explain_key, ENGINE_KEY_MEM_WEIGHTS);
    press('e');
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "e closes the explanation");
    press('e');
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN, "e opens it again");
    press('?');
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "? inside explain closes it (as before)");
    press('?');
    cr_assert_eq(st.overlay, TUI_OVERLAY_HELP);
    press('F');
    cr_expect(st.lx.present, "F over help");
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE);
    press('F');
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN, "F back: the step's explanation");
    press(TUI_KEY_ESC);
    press('?');
    cr_assert_eq(st.overlay, TUI_OVERLAY_HELP);
    press('n');
    cr_expect_eq(st.lx.step, 1, "n over help");
    press('?');
    press('t');
    cr_expect_not(st.lx.off_step, "t is the help's (it scrolls), not a mode change");
    press(TUI_KEY_ESC);
    press('t');
    cr_expect(st.lx.off_step);
    press('?');
    press('r');
    cr_expect_not(st.lx.off_step, "r over help returns to the step");
    press('p');
    cr_assert_eq(st.overlay, TUI_OVERLAY_EXPLAIN);
    press('q');
    cr_expect_not(st.quit, "q over the step's explanation does not leave the lesson");
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "it closes the explanation");
    press('q');
    cr_expect_not(st.quit, "q asks first");
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_QUIT);
    press('n');
    cr_expect_not(st.quit, "anything but y stays");
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_NONE);
    cr_expect_eq(st.lx.step, 0, "n answered the question, it did not step");
    press(TUI_KEY_ESC);
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_QUIT, "Esc without an overlay asks too");
    press('y');
    cr_expect(st.quit, "y leaves");
}

#define SEED0 TOP_SRCDIR "/share/lessons/seed-000.en.yaml"

/* Issue 24 item 3: : or g, a number and Enter go to a step; Shift-arrows
 * step, arrows too while presenting (on the panes they edit a field). */
Test(lesson_ui, go_to_a_step_and_arrows) {
    char err[8192];
    cr_assert_eq(tui_lecture_open(&lx, &st, SEED0, err, sizeof(err)), 0, "%s", err);
    size_t n = st.lx.n_steps;
    press(':');
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_GOTO);
    press('5');
    press(TUI_KEY_ENTER);
    cr_expect_eq(st.lx.step, 4, ":5 Enter shows step 5");
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_NONE);
    press('g');
    press('1');
    press('2');
    press(TUI_KEY_BACKSPACE);
    press(TUI_KEY_ENTER);
    cr_expect_eq(st.lx.step, 0, "g12, Backspace, Enter: step 1");
    press(':');
    press('9');
    press('9');
    press(TUI_KEY_ENTER);
    cr_expect_eq(st.lx.step, 0, "no step 99: it stays");
    cr_expect_neq(strstr(st.message, "1 to"), NULL, "%s", st.message);
    press(':');
    press(TUI_KEY_ESC);
    cr_expect_eq(st.lx.prompt, TUI_PROMPT_NONE, "Esc cancels");
    cr_expect_not(st.quit);
    press(TUI_KEY_SRIGHT);
    cr_expect_eq(st.lx.step, 1, "Shift-Right steps on");
    press(TUI_KEY_SLEFT);
    cr_expect_eq(st.lx.step, 0, "Shift-Left back");
    press(TUI_KEY_ESC); /* the step's explanation */
    press(TUI_KEY_RIGHT);
    cr_expect_eq(st.lx.step, 0, "Right on the panes changes a field");
    press('r');
    press('F');
    press(TUI_KEY_RIGHT);
    cr_expect_eq(st.lx.step, 1, "Right while presenting steps");
    press(TUI_KEY_LEFT);
    cr_expect_eq(st.lx.step, 0);
    cr_expect_gt(n, 20);
}

/* The step is kept under $XDG_STATE_HOME/vramlab/lessons and the next
 * session resumes there; --fresh starts over; without a place for it, one
 * message and nothing created. */
Test(lesson_ui, resume_where_left) {
    char err[8192], path[4096], cwd[1024];
    cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
    snprintf(path, sizeof(path), "%s/state", cwd);
    setenv("XDG_STATE_HOME", path, 1);
    cr_assert_eq(tui_lecture_open(&lx, &st, SEED0, err, sizeof(err)), 0, "%s", err);
    tui_lecture_keep(&lx, &st, false);
    cr_expect_eq(st.lx.step, 0, "nothing kept yet");
    press(':');
    press('4');
    press(TUI_KEY_ENTER);
    cr_expect_eq(st.lx.step, 3);
    FILE *f = fopen("state/vramlab/lessons/seed-000.step", "r");
    cr_assert_not_null(f, "the step is kept");
    char line[64] = "";
    cr_expect_not_null(fgets(line, sizeof(line), f));
    fclose(f);
    cr_expect_eq(strncmp(line, "4/", 2), 0, "%s", line);
    /* The next session: the same lesson in Spanish resumes at step 4. */
    tui_lecture_free(&lx);
    tui_lecture_init(&lx);
    cr_assert_eq(tui_lecture_open(&lx, &st, TOP_SRCDIR "/share/lessons/seed-000.es.yaml", err,
                                  sizeof(err)),
                 0, "%s", err);
    tui_lecture_keep(&lx, &st, false);
    cr_expect_eq(st.lx.step, 3, "resumed at step 4");
    cr_expect_neq(strstr(st.message, "4/"), NULL, "%s", st.message);
    /* --fresh: step 1. */
    tui_lecture_free(&lx);
    tui_lecture_init(&lx);
    cr_assert_eq(tui_lecture_open(&lx, &st, SEED0, err, sizeof(err)), 0, "%s", err);
    tui_lecture_keep(&lx, &st, true);
    cr_expect_eq(st.lx.step, 0, "--fresh starts over");
    /* No XDG_STATE_HOME and no HOME: one message, nothing kept. */
    unsetenv("XDG_STATE_HOME");
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("HOME");
    tui_lecture_free(&lx);
    tui_lecture_init(&lx);
    st.message[0] = '\0';
    cr_assert_eq(tui_lecture_open(&lx, &st, SEED0, err, sizeof(err)), 0, "%s", err);
    tui_lecture_keep(&lx, &st, false);
    cr_expect_eq(st.lx.step, 0);
    cr_expect_neq(strstr(st.message, "not kept"), NULL, "one warning: %s", st.message);
    press('n');
    cr_expect_eq(st.lx.step, 1, "the lesson goes on");
    /* An unwritable HOME: the same, and nothing created in it. */
    setenv("HOME", "/proc/vramlab-no-such-home", 1);
    tui_lecture_free(&lx);
    tui_lecture_init(&lx);
    st.message[0] = '\0';
    cr_assert_eq(tui_lecture_open(&lx, &st, SEED0, err, sizeof(err)), 0, "%s", err);
    tui_lecture_keep(&lx, &st, false);
    cr_expect_neq(strstr(st.message, "not kept"), NULL, "%s", st.message);
    press('n');
    cr_expect_eq(access("/proc/vramlab-no-such-home", F_OK), -1);
    if (home) {
        setenv("HOME", home, 1);
        free(home);
    }
}

Test(lesson_ui, q_closes_help_in_a_lesson) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, GOOD, err, sizeof(err)), 0, "%s", err);
    press(TUI_KEY_ESC);
    press('?');
    press('q');
    cr_expect_not(st.quit);
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE);
}

/* ---- question steps (issue 17, item 2) ----------------------------------- */

#define QUESTION TOP_SRCDIR "/tests/fixtures/lessons/question.yaml"

/* A lesson with a question step that names an explanation, written into the
 * scratch directory. */
static void write_explain_question(void) {
    FILE *f = fopen("q.yaml", "w");
    cr_assert_not_null(f);
    fputs("title: Q\nlanguage: en\nsteps:\n"
          "  - title: Weights\n"
          "    scenario: {params: 70B, format: fp16}\n"
          "    pane: memory\n"
          "    explain: memory.weights\n"
          "    question: How many GB do 70B weights take in FP16?\n"
          "    caption: 140 GB, 2 bytes for each of 70 billion.\n"
          "  - scenario: {params: 70B, format: int8}\n"
          "    caption: A plain step after the question.\n",
          f);
    fclose(f);
}

Test(lesson_ui, a_question_hides_its_panes_until_n) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, QUESTION, err, sizeof(err)), 0, "%s", err);
    cr_assert(tui_lecture_asking(&st.lx));
    cr_expect_str_eq(st.lx.question, "How many GB do 70B weights take in INT4 with group scales?");
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_MEMORY));
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_FORMAT));
    cr_expect_not(tui_lecture_hides(&st.lx, TUI_PANE_SPEED), "hide: names memory and format");
    cr_expect_not(tui_lecture_hides(&st.lx, TUI_PANE_MODEL));
    press('n');
    cr_expect_eq(st.lx.step, 0, "n reveals before it goes on");
    cr_expect_not(tui_lecture_asking(&st.lx));
    cr_expect_not(tui_lecture_hides(&st.lx, TUI_PANE_MEMORY), "revealed: the figures are live");
    cr_expect_str_eq(st.lx.caption, "39.4 GB, at 4.5 bits per weight.");
    press(' ');
    cr_expect_eq(st.lx.step, 1, "the next n goes on");
    /* Without hide: Memory, Speed (and its roofline) and the step's pane. */
    cr_expect(tui_lecture_asking(&st.lx));
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_MEMORY));
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_SPEED));
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_ROOF));
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_GPU));
    cr_expect_not(tui_lecture_hides(&st.lx, TUI_PANE_FORMAT));
    press(TUI_KEY_PGDN);
    cr_expect_eq(st.lx.step, 1);
    cr_expect_not(tui_lecture_asking(&st.lx), "PgDn reveals too");
    press(TUI_KEY_PGDN);
    press('n');
    cr_expect_eq(st.lx.step, 2, "the third question, revealed by n, then");
    press('n');
    cr_expect_eq(st.lx.step, 3);
    cr_expect_null(st.lx.question, "a plain step asks nothing");
    cr_expect_not(tui_lecture_asking(&st.lx));
    cr_expect_not(tui_lecture_hides(&st.lx, TUI_PANE_SPEED));
}

Test(lesson_ui, p_goes_back_a_step_and_r_returns_to_the_question) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, QUESTION, err, sizeof(err)), 0, "%s", err);
    press('n'); /* reveal step 1 */
    press('n'); /* step 2, asking */
    cr_assert_eq(st.lx.step, 1);
    press('p');
    cr_expect_eq(st.lx.step, 0, "p on a question goes back a step, not to the question");
    cr_expect(tui_lecture_asking(&st.lx), "the step before asks again");
    press('n');
    cr_expect_not(tui_lecture_asking(&st.lx));
    press('r');
    cr_expect_eq(st.lx.step, 0);
    cr_expect(tui_lecture_asking(&st.lx), "r returns to the step's question");
    cr_expect(tui_lecture_hides(&st.lx, TUI_PANE_MEMORY));
}

Test(lesson_ui, changing_the_scenario_on_a_question_reveals) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, QUESTION, err, sizeof(err)), 0, "%s", err);
    cr_assert(tui_lecture_asking(&st.lx));
    press('t'); /* training: another scenario, live figures */
    cr_expect(st.lx.off_step);
    cr_expect_not(tui_lecture_asking(&st.lx), "free exploration shows the figures");
    cr_expect_not(tui_lecture_hides(&st.lx, TUI_PANE_MEMORY));
    press('n');
    cr_expect_eq(st.lx.step, 1, "already revealed: n goes on");
    press('p');
    press('t');
    press('r');
    cr_expect(tui_lecture_asking(&st.lx), "r: the question again, figures hidden");
    cr_expect_eq(st.opt.sc.mode, ENGINE_MODE_INFER);
    press(TUI_KEY_TAB); /* moving around changes nothing: still asking */
    press(TUI_KEY_DOWN);
    cr_expect(tui_lecture_asking(&st.lx));
}

Test(lesson_ui, a_questions_explanation_opens_after_the_reveal) {
    char err[4096];
    write_explain_question();
    cr_assert_eq(tui_lecture_open(&lx, &st, "q.yaml", err, sizeof(err)), 0, "%s", err);
    cr_assert(tui_lecture_asking(&st.lx));
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "the formula would give the answer");
    cr_expect_eq(st.focus_pane, TUI_PANE_MEMORY);
    press('e');
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "e waits for the answer");
    cr_expect(strstr(st.message, "n reveals") != NULL, "%s", st.message);
    press(TUI_KEY_ENTER); /* Enter on a read-out opens explain too */
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE);
    press('F');
    press('F');
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "F and back do not open it either");
    cr_expect(tui_lecture_asking(&st.lx), "F does not reveal");
    press('n');
    cr_expect_not(tui_lecture_asking(&st.lx));
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN, "revealed: the step's explanation");
    cr_expect_eq(st.explain_key, ENGINE_KEY_MEM_WEIGHTS);
    cr_expect_eq(st.lx.step, 0);
    press('r');
    cr_expect(tui_lecture_asking(&st.lx));
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "r: the question, the explanation closed");
    press('F');
    cr_expect(st.lx.present);
    press('n');
    cr_expect_not(tui_lecture_asking(&st.lx), "n reveals in presentation mode");
    cr_expect_eq(st.overlay, TUI_OVERLAY_NONE, "the headline shows alone");
    press('F');
    cr_expect_eq(st.overlay, TUI_OVERLAY_EXPLAIN, "back on the panes, revealed: explained");
}

Test(lesson_ui, a_long_question_pages_before_it_reveals) {
    char err[4096];
    cr_assert_eq(tui_lecture_open(&lx, &st, QUESTION, err, sizeof(err)), 0, "%s", err);
    st.lx.caption_pages = 2; /* as the app sets it after a frame on a small screen */
    press('n');
    cr_expect_eq(st.lx.caption_page, 1, "n first shows the rest of the question");
    cr_expect(tui_lecture_asking(&st.lx));
    press('n');
    cr_expect_not(tui_lecture_asking(&st.lx), "then reveals");
    cr_expect_eq(st.lx.caption_page, 0, "the answer from its start");
    cr_expect_eq(st.lx.step, 0);
}

/* Issue 24 item 1: a caption's figures are the step's, in the reader's
 * units: u re-renders them (GB -> GiB), and a step keeps the session's units. */
Test(lesson_ui, captions_follow_the_units) {
    char err[8192];
    cr_assert_eq(tui_lecture_open(&lx, &st, SEED0, err, sizeof(err)), 0, "%s", err);
    cr_expect_neq(strstr(st.lx.caption, "140.0 GB"), NULL, "%s", st.lx.caption);
    cr_expect_eq(strchr(st.lx.caption, '{'), NULL, "every reference rendered");
    press(TUI_KEY_ESC); /* the step's explanation */
    press('u');
    tui_lecture_sync(&lx, &st);
    cr_expect_neq(strstr(st.lx.caption, "130.4 GiB"), NULL, "%s", st.lx.caption);
    press('n');
    cr_expect_eq(st.opt.units, UNITS_GIB, "the next step keeps GiB");
    cr_expect_neq(strstr(st.lx.caption, "GiB"), NULL, "%s", st.lx.caption);
}
