/*
 * lesson_export.c: a lesson as files (see lesson_export.h).
 *
 * Each step is shown exactly as the explorer shows it: the lecture's
 * state machine goes to the step (tui_lecture_goto), the headless screen
 * draws it (tui/screen.h), and the texts are the same renderings of the
 * step's figures the caption bar shows.
 */
#include "config.h"

#include "tui/lesson_export.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tui/i18n.h"
#include "tui/lecture_ui.h"
#include "tui/scenario_file.h"
#include "tui/screen.h"

/* The picture's size: what a projector shows comfortably. */
#define EXPORT_ROWS 30
#define EXPORT_COLS 100
#define EXPORT_MARK ".vramlab-export"
#define TEXT_MAX 8192

/* What one export works with. */
struct export_ctx {
    const char *dir, *format;
    struct tui_lecture *lx;
    struct tui_state *st;
    const struct engine_numfmt *fmt;
    char *err;
    size_t errlen;
};

/* Make dir, or check that an existing one may be written (see header). */
static int export_dir(struct export_ctx *x) {
    struct stat sb;
    char path[4096];
    if (stat(x->dir, &sb) != 0) {
        if (mkdir(x->dir, 0777) != 0) {
            snprintf(x->err, x->errlen, _("%s: cannot make the directory: %s"), x->dir,
                     strerror(errno));
            return -1;
        }
    } else if (!S_ISDIR(sb.st_mode)) {
        snprintf(x->err, x->errlen, _("%s: not a directory"), x->dir);
        return -1;
    } else {
        snprintf(path, sizeof(path), "%s/" EXPORT_MARK, x->dir);
        if (stat(path, &sb) != 0) {
            DIR *d = opendir(x->dir);
            struct dirent *e;
            bool empty = true;
            while (d && (e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                    empty = false;
            if (d)
                closedir(d);
            if (!empty) {
                snprintf(x->err, x->errlen,
                         _("%s: not empty and not an earlier export (no %s): choose another "
                           "directory, nothing was written"),
                         x->dir, EXPORT_MARK);
                return -1;
            }
        }
    }
    snprintf(path, sizeof(path), "%s/" EXPORT_MARK, x->dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs("vramlab lesson export\n", f) < 0 || fclose(f) != 0) {
        snprintf(x->err, x->errlen, _("%s: cannot write: %s"), path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Open DIR/name for writing. */
static FILE *export_open(struct export_ctx *x, const char *name, char *path, size_t len) {
    snprintf(path, len, "%s/%s", x->dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(x->err, x->errlen, _("%s: cannot write: %s"), path, strerror(errno));
    return f;
}

/* Close a file written, reporting a failed write. */
static int export_close(struct export_ctx *x, FILE *f, const char *path) {
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        snprintf(x->err, x->errlen, _("%s: cannot write: %s"), path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The screen of the step shown, as an SVG file. */
static int export_svg(struct export_ctx *x, const char *name, const char *title) {
    struct tui_screen s;
    char path[4096];
    if (tui_screen_draw(x->st, &s) != 0) {
        snprintf(x->err, x->errlen, _("%s: cannot draw the screen"), name);
        return -1;
    }
    FILE *f = export_open(x, name, path, sizeof(path));
    if (!f) {
        tui_screen_free(&s);
        return -1;
    }
    tui_screen_svg(&s, title, f);
    tui_screen_free(&s);
    return export_close(x, f, path);
}

/* A step's text rendered for the reader. */
static void export_render(struct export_ctx *x, const struct lesson_step *s, const char *text,
                          char *out, size_t len) {
    struct engine_estimate e;
    engine_estimate(&s->options.sc, &e);
    lesson_text_render(x->fmt, &s->options.sc, &e, x->lx->lesson.language, text, out, len);
}

/* The figures a step's texts cite, one "N<TAB>key<TAB>value" line each. */
static void export_figures(struct export_ctx *x, FILE *f, size_t i, const struct lesson_step *s) {
    struct lesson_cites c = {{0}, 0};
    struct engine_estimate e;
    char buf[128];
    lesson_text_cites(s->caption, &c);
    if (s->question)
        lesson_text_cites(s->question, &c);
    if (s->notes)
        lesson_text_cites(s->notes, &c);
    engine_estimate(&s->options.sc, &e);
    for (int k = 0; k < ENGINE_KEY_COUNT; k++) {
        if (!lesson_cites_key(&c, (enum engine_key)k))
            continue;
        engine_figure_format(x->fmt, &s->options.sc, &e, (enum engine_key)k, buf, sizeof(buf));
        fprintf(f, "%zu\t%s\t%s\n", i + 1, engine_key_name((enum engine_key)k), buf);
    }
    for (size_t k = 0; k < lesson_input_count(); k++) {
        if (!(c.inputs >> k & 1u))
            continue;
        lesson_input_format(x->fmt, &s->options.sc, k, buf, sizeof(buf));
        fprintf(f, "%zu\t%s\t%s\n", i + 1, lesson_input_path(k), buf);
    }
}

/* Text escaped for HTML. */
static void html_put(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

/* Text for Markdown: characters that would start markup escaped. */
static void md_put(FILE *f, const char *s) {
    for (; *s; s++) {
        if (strchr("\\`*_[]<>#|", *s))
            fputc('\\', f);
        fputc(*s, f);
    }
}

/* One step of the page (md or html). */
static void export_page_step(struct export_ctx *x, FILE *f, size_t i,
                             const struct lesson_step *s) {
    static char q[TEXT_MAX], c[TEXT_MAX], n[TEXT_MAX];
    char svg[32], ans[32], yaml[32];
    bool html = !strcmp(x->format, "html");
    snprintf(svg, sizeof(svg), "step%02u.svg", (unsigned)(i + 1));
    snprintf(ans, sizeof(ans), "step%02u-answer.svg", (unsigned)(i + 1));
    snprintf(yaml, sizeof(yaml), "step%02u.yaml", (unsigned)(i + 1));
    export_render(x, s, s->caption, c, sizeof(c));
    if (s->question)
        export_render(x, s, s->question, q, sizeof(q));
    if (s->notes)
        export_render(x, s, s->notes, n, sizeof(n));
    if (html) {
        fprintf(f, "<section id=\"step%02zu\">\n<h2>%zu. ", i + 1, i + 1);
        html_put(f, s->title);
        fprintf(f, "</h2>\n<p><img src=\"%s\" alt=\"", svg);
        html_put(f, s->title);
        fputs("\"></p>\n", f);
        if (s->question) {
            fputs("<p class=\"question\"><strong>", f);
            html_put(f, _("Question:"));
            fputs("</strong> ", f);
            html_put(f, q);
            fprintf(f, "</p>\n<p><img src=\"%s\" alt=\"", ans);
            html_put(f, _("Answer:"));
            fputs("\"></p>\n<p><strong>", f);
            html_put(f, _("Answer:"));
            fputs("</strong> ", f);
        } else {
            fputs("<p>", f);
        }
        html_put(f, c);
        fprintf(f, "</p>\n<p class=\"scenario\">");
        html_put(f, _("Scenario:"));
        fprintf(f, " <a href=\"%s\">%s</a> (<code>vramlab plan --scenario %s</code>)</p>\n", yaml,
                yaml, yaml);
        if (s->notes) {
            fputs("<details><summary>", f);
            html_put(f, _("Notes"));
            fputs("</summary><p>", f);
            html_put(f, n);
            fputs("</p></details>\n", f);
        }
        fputs("</section>\n", f);
        return;
    }
    fprintf(f, "## %zu. ", i + 1);
    md_put(f, s->title);
    fprintf(f, "\n\n![%zu. ", i + 1);
    md_put(f, s->title);
    fprintf(f, "](%s)\n\n", svg);
    if (s->question) {
        fprintf(f, "**%s** ", _("Question:"));
        md_put(f, q);
        fprintf(f, "\n\n![%s](%s)\n\n**%s** ", _("Answer:"), ans, _("Answer:"));
    }
    md_put(f, c);
    fprintf(f, "\n\n%s [%s](%s): `vramlab plan --scenario %s`\n\n", _("Scenario:"), yaml, yaml,
            yaml);
    if (s->notes) {
        fprintf(f, "> **%s** ", _("Notes:"));
        md_put(f, n);
        fputs("\n\n", f);
    }
}

/* Export every step (see header). */
static int export_steps(struct export_ctx *x) {
    char path[4096], name[80], title[512];
    struct lesson *l = &x->lx->lesson;
    bool pictures = true; /* every format links or is the pictures */
    FILE *page = NULL, *figs = export_open(x, "figures.tsv", path, sizeof(path));
    char figs_path[4096], page_path[4096];
    if (!figs)
        return -1;
    snprintf(figs_path, sizeof(figs_path), "%s", path);
    if (strcmp(x->format, "svg")) {
        bool html = !strcmp(x->format, "html");
        page = export_open(x, html ? "index.html" : "lesson.md", page_path, sizeof(page_path));
        if (!page) {
            fclose(figs);
            return -1;
        }
        if (html) {
            fprintf(page, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
                    l->language);
            html_put(page, l->title);
            fputs("</title>\n<style>body{max-width:60em;margin:auto;font-family:sans-serif}"
                  "img{max-width:100%}code{background:#eee}.question{font-size:1.2em}</style>\n"
                  "</head>\n<body>\n<h1>",
                  page);
            html_put(page, l->title);
            fputs("</h1>\n", page);
        } else {
            fputs("# ", page);
            md_put(page, l->title);
            fputs("\n\n", page);
        }
    }
    int rc = 0;
    for (size_t i = 0; i < lesson_count(l) && rc == 0; i++) {
        const struct lesson_step *s = lesson_step(l, i);
        struct options o = s->options;
        char err[SCENARIO_FILE_ERR_MAX];
        o.units = x->st->opt.units;
        snprintf(name, sizeof(name), "step%02u.yaml", (unsigned)(i + 1));
        snprintf(path, sizeof(path), "%s/%s", x->dir, name);
        if (scenario_file_save(path, &o, x->st->cat, true, err, sizeof(err)) != 0) {
            snprintf(x->err, x->errlen, "%s", err);
            x->err[strcspn(x->err, "\n")] = '\0';
            rc = -1;
            break;
        }
        export_figures(x, figs, i, s);
        if (pictures) {
            tui_lecture_goto(x->lx, x->st, i);
            snprintf(title, sizeof(title), "%s %zu/%zu: %s", l->title, i + 1, lesson_count(l),
                     s->title);
            snprintf(name, sizeof(name), "step%02u.svg", (unsigned)(i + 1));
            rc = export_svg(x, name, title);
            if (rc == 0 && s->question) {
                unsigned dirty = 0;
                tui_lecture_key(x->lx, x->st, 'n', &dirty); /* reveals the answer */
                snprintf(name, sizeof(name), "step%02u-answer.svg", (unsigned)(i + 1));
                rc = export_svg(x, name, title);
            }
        }
        if (page && rc == 0)
            export_page_step(x, page, i, s);
    }
    if (page) {
        if (!strcmp(x->format, "html"))
            fputs("</body>\n</html>\n", page);
        if (export_close(x, page, page_path) != 0)
            rc = -1;
    }
    if (export_close(x, figs, figs_path) != 0)
        rc = -1;
    return rc;
}

int lesson_export(const char *name, const struct catalog *cat, const char *format,
                  const char *dir, enum units units, char *err, size_t errlen) {
    static struct tui_state st;
    static struct tui_lecture lx;
    struct options o;
    char *argv[] = {"vramlab", NULL};
    struct export_ctx x = {dir, format, &lx, &st, i18n_numfmt(units == UNITS_GIB), err, errlen};
    int rc;
    if (options_parse(1, argv, cat, &o, false) != 0) {
        snprintf(err, errlen, "%s", _("cannot set up the default scenario"));
        return -1;
    }
    o.units = units;
    tui_state_init(&st, &o, cat);
    tui_lecture_init(&lx);
    if (tui_lecture_open(&lx, &st, name, err, errlen) != 0) {
        err[strcspn(err, "\n")] = '\0';
        return -1;
    }
    rc = export_dir(&x);
    if (rc == 0)
        rc = tui_screen_open(EXPORT_ROWS, EXPORT_COLS, err, errlen);
    if (rc == 0) {
        rc = export_steps(&x);
        tui_screen_close();
    }
    tui_lecture_free(&lx);
    return rc;
}
