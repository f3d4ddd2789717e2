/* lesson_check.c: shared checks of the shipped lessons (see lesson_check.h). */
#include "tests/lesson_check.h"

#include <criterion/criterion.h>
#include <string.h>

struct catalog lesson_check_cat;

/* Load the embedded catalog. */
void lesson_check_setup(void) {
    struct catalog_diag d = {0};

    catalog_init(&lesson_check_cat);
    cr_assert_eq(catalog_load_default(&lesson_check_cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
}

/* Free the catalog. */
void lesson_check_teardown(void) {
    catalog_free(&lesson_check_cat);
}

/* The first step with that title. */
const struct lesson_step *lesson_check_step_titled(const struct lesson *l, const char *title) {
    for (size_t i = 0; i < lesson_count(l); i++) {
        if (!strcmp(lesson_step(l, i)->title, title))
            return lesson_step(l, i);
    }
    cr_assert_fail("no step titled '%s'", title);
    return NULL;
}

/* Load a lesson file; asserts success. */
void lesson_check_load(const struct catalog *cat, const char *file, struct lesson *l) {
    char err[16384];
    cr_assert_eq(lesson_load(file, cat, l, err, sizeof(err)), 0, "%s", err);
}

/* Every step valid (see header). */
size_t lesson_check_steps(const char *file, const struct lesson *l) {
    size_t questions = 0;

    for (size_t i = 0; i < lesson_count(l); i++) {
        const struct lesson_step *s = lesson_step(l, i);
        struct engine_estimate e;
        cr_expect_gt(strlen(s->caption), 40, "%s step %zu: caption too short", file, i + 1);
        cr_expect_gt(strlen(s->title), 0, "%s step %zu: no title", file, i + 1);
        engine_estimate(&s->options.sc, &e);
        cr_expect_eq(e.invalid, 0, "%s step %zu: invalid scenario", file, i + 1);
        if (s->has_explain) {
            struct engine_explanation x;
            cr_expect(engine_key_applies(&s->options.sc, s->explain), "%s step %zu", file, i + 1);
            engine_explain(&s->options.sc, &e, s->explain, &x);
            cr_expect_gt(strlen(x.formula), 0, "%s step %zu", file, i + 1);
        }
        if (s->question) {
            questions++;
            cr_expect_gt(strlen(s->question), 10, "%s step %zu: question too short", file, i + 1);
            cr_expect_neq(s->hide, 0, "%s step %zu: a question hides nothing", file, i + 1);
        }
    }
    return questions;
}

/* Same lesson in two languages (see header). */
void lesson_check_pair(const struct catalog *cat, const char *en_file, const char *es_file,
                       size_t min_questions) {
    struct lesson en, es;
    size_t q;

    lesson_check_load(cat, en_file, &en);
    lesson_check_load(cat, es_file, &es);
    cr_expect_str_eq(en.language, "en");
    cr_expect_str_eq(es.language, "es");
    q = lesson_check_steps(en_file, &en);
    cr_expect_geq(q, min_questions, "%s: %zu question steps, expected at least %zu", en_file, q,
                  min_questions);
    lesson_check_steps(es_file, &es);
    cr_assert_eq(lesson_count(&en), lesson_count(&es));
    for (size_t i = 0; i < lesson_count(&en); i++) {
        const struct lesson_step *a = lesson_step(&en, i), *b = lesson_step(&es, i);
        struct engine_estimate ea, eb;
        engine_estimate(&a->options.sc, &ea);
        engine_estimate(&b->options.sc, &eb);
        cr_expect_eq(memcmp(&ea, &eb, sizeof(ea)), 0, "step %zu: estimates differ", i + 1);
        cr_expect_eq(a->pane, b->pane, "step %zu", i + 1);
        cr_expect_eq(a->has_explain, b->has_explain, "step %zu", i + 1);
        cr_expect_eq(a->explain, b->explain, "step %zu", i + 1);
        cr_expect_eq(!a->question, !b->question, "step %zu: a question in one language only",
                     i + 1);
        cr_expect_eq(a->hide, b->hide, "step %zu: hidden panes differ", i + 1);
        cr_expect_str_neq(a->caption, b->caption, "step %zu: not translated", i + 1);
        if (a->question && b->question)
            cr_expect_str_neq(a->question, b->question, "step %zu: question not translated",
                              i + 1);
    }
    lesson_free(&en);
    lesson_free(&es);
}

/* Every text cites its figures and every step has notes (see header). */
void lesson_check_cited(const char *file, const struct lesson *l) {
    for (size_t i = 0; i < lesson_count(l); i++) {
        const struct lesson_step *s = lesson_step(l, i);
        const char *texts[] = {s->caption, s->question, s->notes};
        const char *fields[] = {"caption", "question", "notes"};
        cr_expect_not_null(s->notes, "%s step %zu: no presenter notes", file, i + 1);
        for (size_t k = 0; k < 3; k++) {
            size_t n = 0;
            const char *lit = texts[k] ? lesson_text_literal(texts[k], &n) : NULL;
            cr_expect_null(lit, "%s step %zu %s: a literal figure '%.*s'", file, i + 1, fields[k],
                           lit ? (int)n : 0, lit ? lit : "");
        }
    }
}

/* Step i's caption or question cites each space-separated path (see header). */
void lesson_check_cites(const char *file, const struct lesson *l, size_t i, const char *paths) {
    const struct lesson_cites *c = &lesson_step(l, i)->cites;
    for (const char *p = paths; *p;) {
        size_t n = strcspn(p, " ");
        if (n) {
            char path[64];
            cr_assert_lt(n, sizeof(path), "%.*s", (int)n, p);
            memcpy(path, p, n);
            path[n] = 0;
            enum engine_key k;
            int in = lesson_input_find(path, n);
            if (in >= 0) {
                cr_expect(c->inputs >> in & 1u, "%s step %zu does not cite {%s}", file, i + 1,
                          path);
            } else {
                cr_assert_eq(engine_key_parse(path, &k), 0, "no figure {%s}", path);
                cr_expect(lesson_cites_key(c, k), "%s step %zu does not cite {%s}", file, i + 1,
                          path);
            }
        }
        p += n;
        p += *p == ' ';
    }
}
