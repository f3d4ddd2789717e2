/*
 * test_lesson_lint.c: every step of every shipped lesson, in each of its
 * languages (share/lessons/NAME.LANG.yaml), rendered as a reader sees it
 * (decimal GB with '.' and the English marks; GiB with ',' and '.', a
 * no-break space before the unit, as es_ES reads it): no caption or
 * question holds a literal figure (a number with a unit outside «quotes»
 * and {references}: lesson_text.h), none shows more than 60 words, every
 * reference is rendered (no '{' left), and a quotation's marks are the
 * language's.
 *
 * The offenders still to convert are listed in tests/lesson_lint_allow.txt
 * ("FILE STEP FIELD figure|words", one a line); a listed offender that no
 * longer offends fails too (take it off the list), so the list only
 * shrinks. The lessons' content work empties it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/lesson.h"

#define LESSONS TOP_SRCDIR "/share/lessons/"
#define ALLOW TOP_SRCDIR "/tests/lesson_lint_allow.txt"

static struct catalog cat;

static void setup(void) {
    struct catalog_diag d = {0};
    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
}

static void teardown(void) {
    catalog_free(&cat);
}

TestSuite(lesson_lint, .init = setup, .fini = teardown);

/* The two readers: English with decimal GB, Spanish with GiB. */
static void reader(int which, struct engine_numfmt *f) {
    engine_numfmt_english(f);
    if (which == 1) {
        f->binary = true;
        f->point = ",";
        f->group = ".";
        f->space = "\xc2\xa0";
    }
}

/* The shipped lesson files, sorted. */
static size_t lesson_files(char names[][64], size_t max) {
    DIR *d = opendir(LESSONS);
    struct dirent *e;
    size_t n = 0;
    cr_assert_not_null(d);
    while ((e = readdir(d)) && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 5 && l < 64 && !strcmp(e->d_name + l - 5, ".yaml"))
            memcpy(names[n++], e->d_name, l + 1);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
    return n;
}

/* One offender line, and a note of what it is, into the found list. */
struct found {
    char lines[512][96];
    char notes[512][160];
    size_t n;
};

static void offend(struct found *fd, const char *file, size_t step, const char *field,
                   const char *kind, const char *note) {
    char line[96];
    snprintf(line, sizeof(line), "%s %zu %s %s", file, step, field, kind);
    for (size_t i = 0; i < fd->n; i++)
        if (!strcmp(fd->lines[i], line))
            return;
    cr_assert_lt(fd->n, 512);
    snprintf(fd->lines[fd->n], sizeof(fd->lines[0]), "%s", line);
    snprintf(fd->notes[fd->n], sizeof(fd->notes[0]), "%s", note);
    fd->n++;
}

/* Check one text of one step: render it for both readers. */
static void check_text(struct found *fd, const char *file, const struct lesson *l, size_t i,
                       const char *field, const char *text) {
    const struct lesson_step *s = lesson_step(l, i);
    struct engine_estimate e;
    char out[4096], note[160];
    size_t n;
    engine_estimate(&s->options.sc, &e);
    for (int r = 0; r < 2; r++) {
        struct engine_numfmt f;
        reader(r, &f);
        lesson_text_render(&f, &s->options.sc, &e, l->language, text, out, sizeof(out));
        cr_expect_null(strstr(out, "{"), "%s step %zu %s: a reference left: %s", file, i + 1,
                       field, out);
        cr_expect_null(strstr(out, LESSON_QUOTE_OPEN "{"), "%s", out);
        if (!strcmp(l->language, "en"))
            cr_expect_null(strstr(out, LESSON_QUOTE_OPEN), "%s step %zu: English marks", file,
                           i + 1);
        size_t words = lesson_text_words(out);
        if (strcmp(field, "notes") && words > LESSON_MAX_WORDS) {
            snprintf(note, sizeof(note), "%zu words, at most %d", words, LESSON_MAX_WORDS);
            offend(fd, file, i + 1, field, "words", note);
        }
    }
    const char *lit = lesson_text_literal(text, &n);
    if (lit) {
        snprintf(note, sizeof(note), "a literal figure '%.*s' (cite it as {key} or quote the "
                                     "course text in \xc2\xab \xc2\xbb)",
                 (int)(n < 60 ? n : 60), lit);
        offend(fd, file, i + 1, field, "figure", note);
    }
}

Test(lesson_lint, every_caption_cites_its_figures_and_is_short) {
    static char names[64][64];
    static struct found fd;
    static char allow[512][96];
    size_t n_files = lesson_files(names, 64), n_allow = 0;
    char line[256], err[16384];
    cr_assert_geq(n_files, 10, "the five lessons in two languages");
    for (size_t k = 0; k < n_files; k++) {
        char path[512];
        struct lesson l;
        snprintf(path, sizeof(path), LESSONS "%s", names[k]);
        cr_assert_eq(lesson_load(path, &cat, &l, err, sizeof(err)), 0, "%s", err);
        for (size_t i = 0; i < lesson_count(&l); i++) {
            const struct lesson_step *s = lesson_step(&l, i);
            check_text(&fd, names[k], &l, i, "caption", s->caption);
            if (s->question)
                check_text(&fd, names[k], &l, i, "question", s->question);
            if (s->notes)
                check_text(&fd, names[k], &l, i, "notes", s->notes);
        }
        lesson_free(&l);
    }
    /* Compare with the allow-list. */
    FILE *f = fopen(ALLOW, "r");
    cr_assert_not_null(f, "%s", ALLOW);
    while (fgets(line, sizeof(line), f) && n_allow < 512) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && line[0] != '#')
            snprintf(allow[n_allow++], sizeof(allow[0]), "%.95s", line);
    }
    fclose(f);
    for (size_t i = 0; i < fd.n; i++) {
        bool listed = false;
        for (size_t j = 0; j < n_allow && !listed; j++)
            listed = !strcmp(allow[j], fd.lines[i]);
        cr_expect(listed, "%s: %s (not in tests/lesson_lint_allow.txt)", fd.lines[i],
                  fd.notes[i]);
    }
    for (size_t j = 0; j < n_allow; j++) {
        bool found = false;
        for (size_t i = 0; i < fd.n && !found; i++)
            found = !strcmp(allow[j], fd.lines[i]);
        cr_expect(found, "%s: no longer offends; take it off tests/lesson_lint_allow.txt",
                  allow[j]);
    }
}

/* The lint itself: what is a literal figure and what is not. */
Test(lesson_lint, literal_figures) {
    static const char *const yes[] = {
        "70e9 x 2 = 140 GB of weights",     "at most about 209 tokens per second",
        "3,350 GB/s",                       "15/31 = 48% of the time",
        "28.2 million GPU-hours",           "it costs $1,234",
        "0.80\xc2\xa0GB in all",             "1,024 tokens",
        "16 384 H100 in 72 days",           "unos 209 tokens por segundo",
        "over 71 layers: 24.3GB",           "1.57 ms",
        "al 41 % del pico",                 "2.5 bits",
    };
    static const char *const no[] = {
        "70B on two H100",                  "Llama 3.1 405B in BF16",
        "int4-g32 and FP16",                "{memory.weights} of weights",
        "the course measured \xc2\xab" "333 GB/s\xc2\xbb copying", "G = 8 x 16 x 128",
        "Pythia-1.4B",                       "4 + 16/32 bits per weight", /* a formula, quoted or not: no unit after 32 */
        "Lesson 26",                         "70 billion parameters",
        "{{not a reference}} 5 of 8",        "RTX 3060 and 4090",
    };
    size_t n;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        cr_expect_not_null(lesson_text_literal(yes[i], &n), "missed: %s", yes[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        const char *p = lesson_text_literal(no[i], &n);
        cr_expect_null(p, "flagged '%.*s' in: %s", p ? (int)n : 0, p ? p : "", no[i]);
    }
}

/* Rendering: figures in the reader's units and marks, the language's
 * quotation marks, {{ for a brace, the words a screen counts. */
Test(lesson_lint, render_and_words) {
    struct options o;
    char *argv[] = {"vramlab", "--params", "70B", "--format", "fp16", "--gpu", "h100-sxm",
                    "--context", "1024", NULL};
    struct engine_estimate e;
    struct engine_numfmt f;
    char out[512];
    cr_assert_eq(options_parse(9, argv, &cat, &o, false), 0);
    engine_estimate(&o.sc, &e);
    engine_numfmt_english(&f);
    lesson_text_render(&f, &o.sc, &e, "en",
                       "{memory.weights} for {scenario.context} tokens, \xc2\xab" "140 GB\xc2\xbb {{x}",
                       out, sizeof(out));
    cr_expect_str_eq(out, "140.0 GB for 1,024 tokens, \xe2\x80\x9c" "140 GB\xe2\x80\x9d {x}");
    reader(1, &f);
    lesson_text_render(&f, &o.sc, &e, "es", "{memory.weights} en {scenario.gpu}, \xc2\xab" "x\xc2\xbb",
                       out, sizeof(out));
    cr_expect_str_eq(out, "130,4\xc2\xa0GiB en H100 SXM, \xc2\xab" "x\xc2\xbb");
    cr_expect_eq(lesson_text_words("130,4\xc2\xa0GiB en H100 SXM, \xc2\xab" "x\xc2\xbb -"), 5);
    struct lesson_text_problem p;
    cr_expect_eq(lesson_text_check(&o.sc, "{memroy.weights}", &p), -1);
    cr_expect_eq(p.code, LESSON_TEXT_UNKNOWN);
    cr_expect_str_eq(p.closest, "memory.weights");
    cr_expect_eq(lesson_text_check(&o.sc, "{training.days}", &p), -1);
    cr_expect_eq(p.code, LESSON_TEXT_NOT_APPLY);
    cr_expect_eq(lesson_text_check(&o.sc, "\xc2\xab" "a \xc2\xab" "b\xc2\xbb", &p), -1);
    cr_expect_eq(lesson_text_check(&o.sc, "a {b", &p), -1);
    cr_expect_eq(p.code, LESSON_TEXT_BRACE);
    cr_expect_eq(lesson_text_check(&o.sc, "{scenario.context} {{ {memory.total}", &p), 0);
    struct lesson_cites c = {{0}, 0};
    lesson_text_cites("{memory.total} and {scenario.context}", &c);
    cr_expect(lesson_cites_key(&c, ENGINE_KEY_MEM_TOTAL));
    cr_expect_not(lesson_cites_key(&c, ENGINE_KEY_MEM_WEIGHTS));
    cr_expect_neq(c.inputs, 0);
}
