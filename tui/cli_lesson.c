/*
 * cli_lesson.c: vramlab lesson, lessons without a terminal (issue 24):
 *
 *     vramlab lesson show NAME [--units gb|gib] [--tsv]
 *     vramlab lesson check NAME|FILE...
 *     vramlab lesson export NAME --format md|html|svg -o DIR [--units gb|gib]
 *
 * show prints every step as a reader sees it (the captions' figures
 * written out for the step's scenario in the reader's units and locale);
 * check loads each lesson and lints its texts (lesson_text.h: no literal
 * figure outside a quotation, at most 60 words on the screen), exit 1 on
 * any finding; export writes the lesson for a page or slides (export.c).
 * The language is the locale's or --lang's (taken by main), as for
 * --lesson.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"
#include "tui/i18n.h"
#include "tui/lesson.h"
#include "tui/lesson_export.h"
#include "kernels/argv.h"

/* What the command line asked for. */
struct lesson_args {
    const char *sub;
    const char *names[16];
    size_t n_names;
    enum units units;
    bool tsv, help;
    const char *format, *out, *catalog;
    const char *bad_units, *bad_format; /* a value refused, for the message */
};

static void lesson_usage(FILE *f) {
    fputs(_("usage: vramlab lesson show NAME [--units gb|gib] [--tsv]\n"
            "       vramlab lesson check NAME|FILE...\n"
            "       vramlab lesson export NAME --format md|html|svg -o DIR [--units gb|gib]\n"
            "NAME is a shipped lesson (vramlab --lesson lists them) or a lesson file;\n"
            "--lang es|en picks its language. show prints every step with its figures\n"
            "written out; check lints the captions (figures cited as {key}, the course\n"
            "quoted between \xc2\xab \xc2\xbb, at most 60 words); export writes each step's caption,\n"
            "its scenario (stepNN.yaml, for vramlab plan --scenario) and its screen\n"
            "(stepNN.svg), with an index page (lesson.md or index.html).\n"),
          f);
}

/* The options of vramlab lesson (the one scanner, kernels/argv.h). */
enum { LA_UNITS, LA_FORMAT, LA_OUTPUT, LA_CATALOG, LA_TSV, LA_HELP, LA_COUNT };
static const struct argv_option lesson_options[LA_COUNT] = {
    [LA_UNITS] = {"units", ARGV_REQUIRED, "gb|gib"},
    [LA_FORMAT] = {"format", ARGV_REQUIRED, "md|html|svg"},
    [LA_OUTPUT] = {"output", ARGV_REQUIRED, "DIR"},
    [LA_CATALOG] = {"catalog", ARGV_REQUIRED, "FILE"},
    [LA_TSV] = {"tsv", ARGV_NONE, NULL},
    [LA_HELP] = {"help", ARGV_NONE, NULL},
};

/* Record one argument. */
static int lesson_visit(void *ctx, int i, const char *v) {
    struct lesson_args *a = ctx;
    switch (i) {
    case ARGV_POSITIONAL:
        if (!a->sub)
            a->sub = v;
        else if (a->n_names < sizeof(a->names) / sizeof(a->names[0]))
            a->names[a->n_names++] = v;
        return 0;
    case LA_UNITS:
        if (!strcmp(v, "gb") || !strcmp(v, "gib"))
            a->units = !strcmp(v, "gib") ? UNITS_GIB : UNITS_GB;
        else
            return a->bad_units = v, 2;
        return 0;
    case LA_FORMAT:
        if (strcmp(v, "md") && strcmp(v, "html") && strcmp(v, "svg"))
            return a->bad_format = v, 3;
        a->format = v;
        return 0;
    case LA_OUTPUT:
        a->out = v;
        return 0;
    case LA_CATALOG:
        a->catalog = v;
        return 0;
    case LA_TSV:
        a->tsv = true;
        return 0;
    default:
        a->help = true;
        return 0;
    }
}

/* Parse the subcommand and its options; 0, -1 after --help, or an exit code. */
static int lesson_parse(int argc, char **argv, struct lesson_args *a) {
    struct argv_spec spec = {lesson_options, LA_COUNT, true, false, options_tr};
    char err[512], *args[64];
    int n = argc < 64 ? argc : 64;
    memset(a, 0, sizeof(*a));
    /* -o is --output (the one short option besides -h). */
    for (int i = 0; i < n; i++)
        args[i] = !strcmp(argv[i], "-o") ? "--output" : argv[i];
    int rc = argv_scan(&spec, n, args, lesson_visit, a, err, sizeof(err));
    if (rc == 2)
        argv_error_value(&spec, err, sizeof(err), "units", "gb or gib", a->bad_units);
    if (rc == 3)
        argv_error_value(&spec, err, sizeof(err), "format", "md, html or svg", a->bad_format);
    if (rc != 0) {
        fprintf(stderr, "vramlab: %s\n", err);
        return VRAMLAB_EXIT_USAGE;
    }
    if (a->help || (a->sub && !strcmp(a->sub, "help"))) {
        lesson_usage(stdout);
        return -1;
    }
    if (!a->sub) {
        lesson_usage(stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    if (strcmp(a->sub, "show") && strcmp(a->sub, "check") && strcmp(a->sub, "export")) {
        fprintf(stderr, _("vramlab lesson: unknown subcommand '%s'; expected show, check or export\n"),
                a->sub);
        return VRAMLAB_EXIT_USAGE;
    }
    if (a->tsv && strcmp(a->sub, "show")) {
        argv_error_unexpected(&spec, err, sizeof(err), "--tsv");
        fprintf(stderr, "vramlab: %s\n", err);
        return VRAMLAB_EXIT_USAGE;
    }
    if (a->n_names == 0 || (strcmp(a->sub, "check") && a->n_names > 1)) {
        fprintf(stderr, a->n_names == 0 ? _("vramlab lesson %s: expected a lesson name or file\n")
                                        : _("vramlab lesson %s: expected one lesson\n"),
                a->sub);
        return VRAMLAB_EXIT_USAGE;
    }
    if (!strcmp(a->sub, "export") && (!a->format || !a->out)) {
        fprintf(stderr, _("vramlab lesson export: expected --format md|html|svg and -o DIR\n"));
        return VRAMLAB_EXIT_USAGE;
    }
    return 0;
}

/* Load the lesson a name or path names, in the reader's language. */
static int lesson_open(const char *name, const struct catalog *cat, struct lesson *l) {
    static char err[LESSON_MAX_ERRORS * 1024];
    char lang[16], path[4096];
    i18n_language(lang, sizeof(lang));
    if (lesson_resolve(name, lang, path, sizeof(path)) != 0) {
        fprintf(stderr, _("vramlab lesson: %s: no such lesson file or lesson name (see docs/lessons.md)\n"),
                name);
        return VRAMLAB_EXIT_USAGE;
    }
    if (lesson_load(path, cat, l, err, sizeof(err)) != 0) {
        fputs(err, stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    return 0;
}

/* One text of a step, rendered; tabs and newlines become spaces in TSV. */
static void show_text(FILE *f, const struct lesson *l, const struct lesson_step *s, size_t i,
                      const struct engine_estimate *e, const struct engine_numfmt *fmt,
                      const char *label, char kind, const char *text, bool tsv) {
    static char out[8192];
    lesson_text_render(fmt, &s->options.sc, e, l->language, text, out, sizeof(out));
    if (tsv) {
        for (char *p = out; *p; p++)
            if (*p == '\t' || *p == '\n')
                *p = ' ';
        fprintf(f, "%zu\t%c\t%s\n", i + 1, kind, out);
    } else {
        fprintf(f, "  %s %s\n", label, out);
    }
}

/* vramlab lesson show. */
static int lesson_show(const struct lesson_args *a, const struct catalog *cat, FILE *f) {
    struct lesson l;
    int rc = lesson_open(a->names[0], cat, &l);
    const struct engine_numfmt *fmt = i18n_numfmt(a->units == UNITS_GIB);
    if (rc)
        return rc;
    if (!a->tsv)
        fprintf(f, "%s (%s, %zu)\n", l.title, l.language, lesson_count(&l));
    for (size_t i = 0; i < lesson_count(&l); i++) {
        const struct lesson_step *s = lesson_step(&l, i);
        struct engine_estimate e;
        engine_estimate(&s->options.sc, &e);
        if (a->tsv) {
            fprintf(f, "%zu\tT\t%s\n", i + 1, s->title);
        } else {
            fprintf(f, "\n%zu/%zu %s\n", i + 1, lesson_count(&l), s->title);
        }
        if (s->question)
            show_text(f, &l, s, i, &e, fmt, _("Question:"), 'Q', s->question, a->tsv);
        show_text(f, &l, s, i, &e, fmt, s->question ? _("Answer:") : "", 'C', s->caption,
                  a->tsv);
        if (s->notes)
            show_text(f, &l, s, i, &e, fmt, _("Notes:"), 'N', s->notes, a->tsv);
    }
    lesson_free(&l);
    return 0;
}

/* Lint one text (see lesson_text.h); returns the findings. */
static int check_text(const struct lesson *l, const struct lesson_step *s, size_t i,
                      const char *field, const char *text) {
    static char out[8192];
    struct engine_estimate e;
    struct engine_numfmt f;
    size_t n;
    int bad = 0;
    engine_numfmt_english(&f);
    engine_estimate(&s->options.sc, &e);
    lesson_text_render(&f, &s->options.sc, &e, l->language, text, out, sizeof(out));
    const char *lit = lesson_text_literal(text, &n);
    if (lit) {
        printf(_("%s:%zu: step %zu %s: a literal figure '%.*s': cite it ({memory.weights}) or "
                 "quote the course (\xc2\xab...\xc2\xbb)\n"),
               l->path, s->line, i + 1, field, (int)n, lit);
        bad++;
    }
    size_t w = lesson_text_words(out);
    if (strcmp(field, "notes") && w > LESSON_MAX_WORDS) {
        printf(_("%s:%zu: step %zu %s: %zu words on the screen, at most %d (move the rest to "
                 "notes:)\n"),
               l->path, s->line, i + 1, field, w, LESSON_MAX_WORDS);
        bad++;
    }
    return bad;
}

/* vramlab lesson check: 0 clean, 1 findings, 2 a lesson that does not load. */
static int lesson_check(const struct lesson_args *a, const struct catalog *cat) {
    int findings = 0;
    for (size_t k = 0; k < a->n_names; k++) {
        struct lesson l;
        int rc = lesson_open(a->names[k], cat, &l);
        if (rc)
            return rc;
        for (size_t i = 0; i < lesson_count(&l); i++) {
            const struct lesson_step *s = lesson_step(&l, i);
            findings += check_text(&l, s, i, "caption", s->caption);
            if (s->question)
                findings += check_text(&l, s, i, "question", s->question);
            if (s->notes)
                findings += check_text(&l, s, i, "notes", s->notes);
        }
        if (findings == 0)
            printf(_("%s: %zu steps, every figure cited\n"), l.path, lesson_count(&l));
        lesson_free(&l);
    }
    return findings ? 1 : 0;
}

/* vramlab lesson. */
int cmd_lesson(int argc, char **argv) {
    struct lesson_args a;
    struct catalog cat;
    int rc = lesson_parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    rc = options_load_catalog(a.catalog, &cat);
    if (rc != 0) {
        catalog_free(&cat);
        return rc;
    }
    if (!strcmp(a.sub, "show")) {
        rc = lesson_show(&a, &cat, stdout);
    } else if (!strcmp(a.sub, "check")) {
        rc = lesson_check(&a, &cat);
    } else {
        static char err[LESSON_MAX_ERRORS * 1024];
        struct lesson l;
        /* A lesson that does not load is a usage error, said as for show. */
        rc = lesson_open(a.names[0], &cat, &l);
        if (rc == 0) {
            lesson_free(&l);
            if (lesson_export(a.names[0], &cat, a.format, a.out, a.units, err, sizeof(err)) != 0) {
                fprintf(stderr, "vramlab lesson export: %s\n", err);
                rc = 1;
            }
        }
    }
    catalog_free(&cat);
    return rc;
}
