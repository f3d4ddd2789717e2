/*
 * test_lesson_screens.c: every screen of every shipped lesson, drawn by the
 * explorer's own code without a terminal (tui/screen.h) at 100x30 and 80x24,
 * in each lesson's language: each step as it opens, a question once
 * answered, and presentation mode (issue 24 items 2, 3, 6, 7):
 *  - the step counter N/M is on every screen;
 *  - a figure the caption cites is highlighted in the pane that shows it;
 *  - Spanish screens hold no English word: a word of the sources' messages
 *    (po/es.po's msgids) that no Spanish text (its msgstrs, the lesson,
 *    the catalog's names) uses is English, wherever it comes from;
 *  - catalogue names are never cut mid-word, and no label runs into its
 *    number ("generació116");
 *  - the Memory legend adds up to the total it shows.
 * VRAMLAB_SCREENS=DIR writes every screen as text into DIR, to look at.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/i18n.h"
#include "tui/lecture_ui.h"
#include "tui/screen.h"

#define LESSONS TOP_SRCDIR "/share/lessons/"

static struct catalog cat;

/* ---- words --------------------------------------------------------------- */

#define MAX_WORDS 40000
struct words {
    char *w[MAX_WORDS];
    size_t n;
};

/* Lower-case ASCII letters of a UTF-8 word, in place. */
static void lower(char *s) {
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            *s = (char)(*s - 'A' + 'a');
}

static bool has(const struct words *ws, const char *w) {
    for (size_t i = 0; i < ws->n; i++)
        if (!strcmp(ws->w[i], w))
            return true;
    return false;
}

static void add(struct words *ws, const char *w) {
    if (ws->n < MAX_WORDS && !has(ws, w))
        ws->w[ws->n++] = strdup(w);
}

/* Whether byte c can be part of a word (letters, UTF-8 letters). */
static bool word_byte(unsigned char c) {
    return isalpha(c) || c >= 0x80;
}

/* Call fn for each word of text: runs of letters (ASCII or UTF-8 ones of
 * two bytes), lower-cased; a run with a digit next to it is a name (H100,
 * FP16) and is skipped; UTF-8 punctuation (U+2000 and up) ends a word. */
static void each_word(const char *text, void (*fn)(const char *w, void *arg), void *arg) {
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        if (!word_byte(*s) || *s >= 0xe0 || (*s == 0xc2)) {
            s++;
            continue;
        }
        const unsigned char *b = s;
        while (*s && word_byte(*s) && *s < 0xe0 && *s != 0xc2)
            s++;
        bool name = (b > (const unsigned char *)text && (isdigit(b[-1]) || b[-1] == '_' ||
                                                          b[-1] == '-' || b[-1] == '.')) ||
                    isdigit(*s) || *s == '_' || *s == '-' || *s == '.';
        char w[128];
        size_t n = (size_t)(s - b);
        if (n >= sizeof(w) || name)
            continue;
        memcpy(w, b, n);
        w[n] = '\0';
        lower(w);
        fn(w, arg);
    }
}

static void add_fn(const char *w, void *arg) {
    add(arg, w);
}

/* Call fn for each word of text that starts with a lower-case letter (a
 * capitalised one is a name, an acronym or a sentence's first word, which
 * shows elsewhere in lower case). */
static void each_lower_word(const char *text, void (*fn)(const char *w, void *arg), void *arg) {
    char buf[16384];
    size_t n = 0;
    const unsigned char *s = (const unsigned char *)text;
    /* Blank out every word that starts with a capital. */
    while (*s && n + 1 < sizeof(buf)) {
        bool start = isupper(*s) && (s == (const unsigned char *)text || !word_byte(s[-1]));
        if (start) {
            while (*s && word_byte(*s) && n + 1 < sizeof(buf))
                buf[n++] = ' ', s++;
            continue;
        }
        buf[n++] = (char)*s++;
    }
    buf[n] = '\0';
    each_word(buf, fn, arg);
}

/* The text between « and » of s, blanks elsewhere, into out. */
static void quoted_only(const char *s, char *out, size_t len) {
    size_t n = 0;
    bool in = false;
    while (*s && n + 1 < len) {
        if (!strncmp(s, "\xc2\xab", 2)) {
            in = true, s += 2, out[n++] = ' ';
            continue;
        }
        if (!strncmp(s, "\xc2\xbb", 2)) {
            in = false, s += 2, out[n++] = ' ';
            continue;
        }
        out[n++] = in ? *s : ' ';
        s++;
    }
    out[n] = '\0';
}

static struct words english, spanish;
static const char *current_row;

/* Words the two languages share (and unit symbols both write): on a
 * Spanish screen they are Spanish too. */
static const char *const both[] = {
    "total", "error", "final", "global", "local", "normal", "ideal", "plan", "hardware",
    "software", "chip", "rack", "tok", "flop", "bits", "bytes", "byte", "gpu", "cpu", "host",
    "tokens", "token", "prompt", "batch", "micro", "zero", "lora", "qlora", "adam", "adamw",
    "lion", "sgd", "adafactor", "vllm", "ollama", "sglang", "tensorrt", "llm", "trtllm", "nvlink",
    "pcie", "infiniband", "ethernet",
    "stream", "cuda", "gemv", "gemm", "dram", "vram", "sram", "roofline", "ttft", "tpot", "mfu",
    "hfu", "kib", "mib", "gib", "tib", "kwh", "mwh", "gwh", "ms", "ns", "us", "min",
    "fp", "int", "bf", "nf", "gguf", "ctx", "json", "yaml", "svg", "html", "id", "ids",
    /* short labels that abbreviate the Spanish word as well as the English
     * one: activaciones, optimizador, reserva, matriz */
    "act", "opt", "res", "mat",
    /* math in formulas */
    "ceil", "round", "log", "max", "exp", "sqrt",
    /* option values an explanation quotes as typed (--memory-convention
     * paper|megatron|deepspeed|peak), wherever its lines wrap */
    "paper", "megatron", "deepspeed", "peak",
};

/* One entry of po/es.po: its msgid's and msgstr's text so far. */
static void po_entry(const char *id, const char *str) {
    /* English: every word of a msgid. Spanish: the words the translation
     * brought (not those it kept from the msgid: option values, flags,
     * ids and symbols kept as written are no sign of Spanish). */
    static struct words mine;
    static char q[16384];
    mine.n = 0;
    each_lower_word(id, add_fn, &english);
    each_word(id, add_fn, &mine);
    /* A quotation the translation keeps («Maximum concurrency...», a
     * section title of the course) is not English on a Spanish screen. */
    quoted_only(str, q, sizeof(q));
    each_word(q, add_fn, &spanish);
    static struct words tr;
    tr.n = 0;
    each_word(str, add_fn, &tr);
    for (size_t i = 0; i < tr.n; i++) {
        if (!has(&mine, tr.w[i]))
            add(&spanish, tr.w[i]);
        free(tr.w[i]);
    }
    for (size_t i = 0; i < mine.n; i++)
        free(mine.w[i]);
}

/* Read po/es.po into the two word lists. */
static void po_words(void) {
    FILE *f = fopen(TOP_SRCDIR "/po/es.po", "r");
    static char id[16384], str[16384];
    char line[4096];
    int cur = -1; /* 0 in a msgid, 1 in a msgstr */
    cr_assert_not_null(f);
    id[0] = str[0] = '\0';
    for (;;) {
        bool more = fgets(line, sizeof(line), f) != NULL;
        const char *q = NULL;
        if (!more || !strncmp(line, "msgid ", 6) || !strncmp(line, "msgid_plural", 12)) {
            if (!more || (!strncmp(line, "msgid ", 6) && cur == 1)) {
                po_entry(id, str);
                id[0] = str[0] = '\0';
            }
            if (!more)
                break;
            cur = 0, q = strchr(line, '"');
        } else if (!strncmp(line, "msgstr", 6)) {
            cur = 1, q = strchr(line, '"');
        } else if (line[0] == '"') {
            q = line;
        }
        if (!q || cur < 0)
            continue;
        /* Drop the escapes and printf directives: "%s" is no word. */
        char *dst = cur == 0 ? id : str;
        size_t n = strlen(dst);
        for (const char *p = q + 1; *p && *p != '\n' && n + 2 < sizeof(id); p++) {
            if (*p == '"' && (p[1] == '\n' || p[1] == '\0'))
                break;
            if (*p == '\\' && p[1]) {
                p++;
                dst[n++] = ' ';
            } else if (*p == '%') {
                while (p[1] && !isalpha((unsigned char)p[1]))
                    p++;
                if (p[1])
                    p++;
                dst[n++] = ' ';
            } else {
                dst[n++] = *p;
            }
        }
        dst[n++] = ' ';
        dst[n] = '\0';
    }
    fclose(f);
    for (size_t i = 0; i < sizeof(both) / sizeof(both[0]); i++)
        add(&spanish, both[i]);
}

/* ---- screens ------------------------------------------------------------ */

static FILE *dump;
static unsigned legends_checked;
static unsigned findings;

struct check {
    const char *file;
    size_t step;
    const char *what; /* "step", "answer", "present" */
    int rows, cols;
    const struct tui_screen *s;
    bool es;
    bool gib; /* memory in GiB */
};

static struct words reported; /* each English word once, with its first screen */

/* Whether w comes right after a command-line option on the row
 * ("--recompute none"): a value typed as is, not a word of the screen. */
static bool option_value(const char *row, const char *w) {
    char pat[160];
    for (const char *p = strstr(row, "--"); p; p = strstr(p + 2, "--")) {
        const char *v = p + 2;
        while (*v && *v != ' ' && *v != '=')
            v++;
        if (*v != ' ' && *v != '=')
            continue;
        snprintf(pat, sizeof(pat), "%s", v + 1);
        lower(pat);
        size_t wl = strlen(w);
        if (!strncmp(pat, w, wl) && !isalpha((unsigned char)pat[wl]))
            return true;
    }
    return false;
}

static void english_fn(const char *w, void *arg) {
    struct check *c = arg;
    if (strlen(w) < 3 || !has(&english, w) || has(&spanish, w) || option_value(current_row, w))
        return;
    findings++;
    if (!has(&reported, w)) {
        add(&reported, w);
        cr_expect_fail("%s step %zu (%s, %dx%d): English word '%s' on a Spanish screen: %s",
                       c->file, c->step, c->what, c->cols, c->rows, w, current_row);
    }
}

/* A label run into its number: five letters or more right before a digit
 * ("generació116", "prellenad782"), outside catalog names. */
static void check_overlap(const struct check *c, const char *row) {
    const unsigned char *s = (const unsigned char *)row;
    for (size_t i = 1; s[i]; i++) {
        if (!isdigit(s[i]) || !word_byte(s[i - 1]))
            continue;
        size_t b = i, letters = 0;
        while (b > 0 && word_byte(s[b - 1]) && s[b - 1] < 0xe0 && s[b - 1] != 0xc2) {
            b--;
            if (s[b] < 0x80 || (s[b] & 0xc0) == 0xc0)
                letters++;
        }
        char w[64];
        size_t n = i - b < sizeof(w) - 1 ? i - b : sizeof(w) - 1;
        memcpy(w, s + b, n);
        w[n] = '\0';
        lower(w);
        if (letters >= 5 && !has(&spanish, w) && !strstr("qwen gemma llama mistral mixtral phi",
                                                         w)) {
            findings++;
            cr_expect_fail("%s step %zu (%s, %dx%d): a label runs into its number: '%s'",
                           c->file, c->step, c->what, c->cols, c->rows, (const char *)s + b);
        }
    }
}

/* A catalog name shown cut: a prefix that stops inside a word. */
static void check_name(const struct check *c, const char *name) {
    char row[4096];
    if (!name[0])
        return;
    for (int y = 0; y < c->s->rows; y++) {
        tui_screen_row(c->s, y, row, sizeof(row));
        /* Its longest prefix of at least 6 bytes on this row. */
        size_t best = 0;
        const char *at = NULL;
        for (const char *p = strstr(row, "\xe2\x94\x82"); p; p = strstr(p + 1, "\xe2\x94\x82")) {
            const char *t = p + 3;
            size_t k = 0;
            while (name[k] && t[k] == name[k])
                k++;
            if (k > best)
                best = k, at = t;
        }
        if (!at || best < 6 || !name[best])
            continue;
        /* An overlay's border right after it covers the rest (the
         * explanation beside the bar), it does not cut it. */
        if (!strncmp(at + best, "\xe2\x94", 2) || !strncmp(at + best, "\xe2\x95", 2))
            continue;
        /* Cut: the cut must fall at a word's end (a space next in the
         * name). */
        bool word_end = name[best] == ' ' || (best > 0 && name[best - 1] == ' ');
        if (!word_end) {
            findings++;
            cr_expect_fail("%s step %zu (%s, %dx%d): '%s' cut mid-word: %s", c->file, c->step,
                           c->what, c->cols, c->rows, name, row);
        }
    }
}

/* Bytes of a unit symbol ("GB": 1e9); NAN for none. */
static double unit_bytes(const char *u, size_t *len) {
    static const char *const sym[] = {"KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "B"};
    static const double f[] = {1024.0, 1048576.0, 1073741824.0, 1099511627776.0,
                               1e3,    1e6,       1e9,          1e12,            1};
    for (size_t i = 0; i < 9; i++) {
        size_t l = strlen(sym[i]);
        if (!strncmp(u, sym[i], l) && !isalpha((unsigned char)u[l])) {
            *len = l;
            return f[i];
        }
    }
    return NAN;
}

/* A figure at s ("16.1", "536.9 MB") in bytes; a bare number is in base
 * (GB or GiB: the legend leaves those to the total); *half is half its
 * last digit, its rounding. NAN when s holds no number. */
static double legend_bytes(const char *s, double base, double *half) {
    char *end;
    size_t ul;
    double v = strtod(s, &end);
    if (end == s)
        return NAN;
    const char *dot = memchr(s, '.', (size_t)(end - s));
    double step = dot ? pow(10, -(double)(end - dot - 1)) : 1;
    while (*end == ' ' || !strncmp(end, "\xc2\xa0", 2))
        end += *end == ' ' ? 1 : 2;
    double f = unit_bytes(end, &ul);
    if (isnan(f))
        f = base;
    *half = step / 2 * f;
    return v * f;
}

/* The Memory legend adds up to the total it shows ("█ weights 16.1  █ KV
 * 536.9 MB ... total 17.6 GB"), to its rounding. */
static void check_legend(const struct check *c, const char *row, bool gib) {
    const char *tot = strstr(row, "total ");
    if (!tot || !strstr(row, "\xe2\x96\x88 ") || strchr(row, '?'))
        return;
    double base = gib ? 1073741824.0 : 1e9, half = 0, h;
    double total = legend_bytes(tot + 6, base, &half);
    double sum = 0, slack = half;
    int parts = 0;
    for (const char *p = strstr(row, "\xe2\x96\x88 "); p && p < tot;
         p = strstr(p + 3, "\xe2\x96\x88 ")) {
        const char *q = p + 4;
        while (*q && !isdigit((unsigned char)*q) && q < tot)
            q++;
        double v = legend_bytes(q, base, &h);
        if (isnan(v))
            continue;
        sum += v;
        slack += h;
        parts++;
    }
    if (parts > 0)
        legends_checked++;
    if (parts > 0 && !isnan(total) && fabs(sum - total) > slack) {
        findings++;
        cr_expect_fail("%s step %zu (%s, %dx%d): the legend adds up to %.4g bytes, the total "
                       "says %.4g: %s",
                       c->file, c->step, c->what, c->cols, c->rows, sum, total, row);
    }
}

/* Every check of one screen. */
static void check_screen(struct check *c, const struct tui_state *st) {
    char row[4096], counter[32];
    bool counted = false;
    snprintf(counter, sizeof(counter), "%zu/%zu", st->lx.step + 1, st->lx.n_steps);
    if (dump)
        fprintf(dump, "==== %s step %zu %s %dx%d\n", c->file, c->step, c->what, c->cols, c->rows);
    for (int y = 0; y < c->s->rows; y++) {
        tui_screen_row(c->s, y, row, sizeof(row));
        if (dump)
            fprintf(dump, "%s\n", row);
        if (strstr(row, counter))
            counted = true;
        check_overlap(c, row);
        if (!c->es)
            check_legend(c, row, c->gib);
        current_row = row;
        if (c->es)
            each_word(row, english_fn, c);
    }
    cr_expect(counted, "%s step %zu (%s, %dx%d): no %s on the screen", c->file, c->step,
              c->what, c->cols, c->rows, counter);
    const struct engine_scenario *sc = &st->opt.sc;
    check_name(c, sc->gpu.name[0] ? sc->gpu.name : sc->gpu.id);
    check_name(c, sc->model.name[0] ? sc->model.name : sc->model.id);
}

/* Whether some cell of the screen is drawn in the cited role (its colours
 * and underline), or is the focused field the step's explanation put the
 * focus on (a highlight already). */
static bool has_cited(const struct tui_screen *s) {
    short fg, bg, ffg, fbg;
    pair_content((short)(TUI_ROLE_CITED + 1), &fg, &bg);
    pair_content((short)(TUI_ROLE_FIELD_FOCUS + 1), &ffg, &fbg);
    for (int i = 0; i < s->rows * s->cols; i++) {
        const struct tui_cell *c = &s->cells[i];
        if ((c->fg == fg && c->bg == bg && (c->attr & TUI_CELL_UNDERLINE)) ||
            (c->fg == ffg && c->bg == fbg))
            return true;
    }
    return false;
}

/* Draw every screen of one lesson file at one size. */
static void walk(const char *file, int rows, int cols, bool es, bool gib) {
    static struct tui_state st;
    static struct tui_lecture lx;
    struct options o;
    char *argv[] = {"vramlab", NULL};
    char err[16384], path[512];
    snprintf(path, sizeof(path), LESSONS "%s", file);
    cr_assert_eq(options_parse(1, argv, &cat, &o, false), 0);
    o.units = gib ? UNITS_GIB : UNITS_GB; /* the reader's: kept on every step */
    tui_state_init(&st, &o, &cat);
    tui_lecture_init(&lx);
    cr_assert_eq(tui_lecture_open(&lx, &st, path, err, sizeof(err)), 0, "%s", err);
    tui_screen_resize(rows, cols);
    for (size_t i = 0; i < lesson_count(&lx.lesson); i++) {
        struct tui_screen s;
        struct check c = {file, i + 1, "step", rows, cols, &s, es, st.opt.units == UNITS_GIB};
        const struct lesson_step *ls = lesson_step(&lx.lesson, i);
        unsigned d = 0;
        tui_lecture_goto(&lx, &st, i);
        cr_assert_eq(tui_screen_draw(&st, &s), 0);
        check_screen(&c, &st);
        /* A plain step's cited figures are highlighted where a pane shows one. */
        bool shows = false;
        for (int f = 0; f < TUI_F_COUNT && !ls->question; f++)
            shows |= tui_field_cited(&st, (enum tui_field)f);
        if (shows && !st.compact && rows >= 30)
            cr_expect(has_cited(&s), "%s step %zu: a cited figure is not highlighted", file, i + 1);
        tui_screen_free(&s);
        if (ls->question) {
            tui_lecture_key(&lx, &st, 'n', &d);
            c.what = "answer";
            cr_assert_eq(tui_screen_draw(&st, &s), 0);
            check_screen(&c, &st);
            tui_screen_free(&s);
        }
        tui_lecture_key(&lx, &st, 'F', &d);
        c.what = "present";
        cr_assert_eq(tui_screen_draw(&st, &s), 0);
        check_screen(&c, &st);
        tui_screen_free(&s);
        tui_lecture_key(&lx, &st, 'F', &d);
    }
    tui_lecture_free(&lx);
}

/* Every lesson file of one language, at both sizes. */
static void walk_language(const char *lang) {
    DIR *d = opendir(LESSONS);
    struct dirent *e;
    char suffix[16], files[32][64];
    size_t n = 0;
    snprintf(suffix, sizeof(suffix), ".%s.yaml", lang);
    cr_assert_not_null(d);
    while ((e = readdir(d)) && n < 32) {
        size_t l = strlen(e->d_name), sl = strlen(suffix);
        if (l > sl && !strcmp(e->d_name + l - sl, suffix))
            snprintf(files[n++], sizeof(files[0]), "%s", e->d_name);
    }
    closedir(d);
    cr_assert_geq(n, 5, "the five lessons in %s", lang);
    for (size_t k = 0; k < n; k++) {
        walk(files[k], 30, 100, !strcmp(lang, "es"), false);
        walk(files[k], 24, 80, !strcmp(lang, "es"), true);
    }
}

/* Set up: the language (messages from the build tree), the catalog, the
 * headless screen; the word lists for Spanish. */
static void start(const char *lang) {
    struct catalog_diag dg = {0};
    static char err[16384];
    setenv("LANGUAGE", lang, 1);
    /* Spanish in a Spanish locale where the system has one: its decimal
     * comma and thousands point make the longest figures. */
    setenv("LC_ALL", !strcmp(lang, "es") && setlocale(LC_ALL, "es_ES.UTF-8") ? "es_ES.UTF-8"
                                                                             : "C.UTF-8",
           1);
    i18n_init(TOP_BUILDDIR "/vramlab");
    bindtextdomain(PACKAGE, TOP_BUILDDIR "/locale");
    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &dg), 0, "%s", dg.text ? dg.text : "");
    catalog_diag_free(&dg);
    cr_assert_eq(tui_screen_open(30, 100, err, sizeof(err)), 0, "%s", err);
    const char *dir = getenv("VRAMLAB_SCREENS");
    if (dir) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/screens.%s.txt", dir, lang);
        dump = fopen(path, "w");
    }
    if (!strcmp(lang, "es")) {
        po_words();
        /* Spanish as the lessons write it (their texts as shown, not their
         * YAML keys), and the catalog's names, which are not translated. */
        DIR *d = opendir(LESSONS);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 8 || strcmp(e->d_name + l - 8, ".es.yaml"))
                continue;
            char path[512];
            static char out[8192];
            struct lesson ls;
            struct engine_numfmt f;
            engine_numfmt_english(&f);
            snprintf(path, sizeof(path), LESSONS "%s", e->d_name);
            cr_assert_eq(lesson_load(path, &cat, &ls, err, sizeof(err)), 0, "%s", err);
            each_word(ls.title, add_fn, &spanish);
            for (size_t i = 0; i < lesson_count(&ls); i++) {
                const struct lesson_step *st = lesson_step(&ls, i);
                struct engine_estimate est;
                const char *texts[] = {st->title, st->caption, st->question, st->notes};
                engine_estimate(&st->options.sc, &est);
                for (int t = 0; t < 4; t++) {
                    if (!texts[t])
                        continue;
                    lesson_text_render(&f, &st->options.sc, &est, "es", texts[t], out,
                                       sizeof(out));
                    each_word(out, add_fn, &spanish);
                }
            }
            lesson_free(&ls);
        }
        if (d)
            closedir(d);
        for (size_t i = 0; i < cat.n_gpus; i++)
            each_word(cat.gpus[i].name, add_fn, &spanish);
        for (size_t i = 0; i < cat.n_models; i++)
            each_word(cat.models[i].name, add_fn, &spanish);
        for (size_t i = 0; i < cat.n_formats; i++)
            each_word(cat.formats[i].name, add_fn, &spanish);
    }
}

static void stop(void) {
    tui_screen_close();
    if (dump)
        fclose(dump);
    dump = NULL;
    catalog_free(&cat);
}

Test(lesson_screens, english) {
    start("en");
    walk_language("en");
    stop();
    cr_expect_gt(legends_checked, 100, "the Memory legends were read");
}

Test(lesson_screens, spanish_in_full) {
    /* The build compiles po/es.po into the build tree (make; not with
     * --disable-nls): without it every screen is English. */
    if (access(TOP_BUILDDIR "/locale/es/LC_MESSAGES/" PACKAGE ".mo", R_OK) != 0)
        cr_skip_test("SKIP: no Spanish catalogue in the build tree (make builds it)");
    start("es");
    cr_assert_gt(english.n, 500);
    walk_language("es");
    stop();
    cr_expect_eq(findings, 0, "%u findings", findings);
}

/* The Measure pane after a run, at 80x24 and 100x30 (issue 24 item 7): a
 * list that does not fit says how many rows follow and how to see them;
 * the ratio, of C and a noisy row are said in plain words. */
Test(lesson_screens, measure_pane_says_what_follows_and_what_it_means) {
    static struct tui_state st;
    static const char *const tests[] = {"copy", "read", "fma-peak", "gemv-fp16", "gemv-bf16",
                                        "gemm", "w8a16", "w4a16", "quantize", "dequantize"};
    struct options o;
    char *argv[] = {"vramlab", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", NULL};
    char row[4096];
    start("en");
    cr_assert_eq(options_parse(5, argv, &cat, &o, false), 0);
    tui_state_init(&st, &o, &cat);
    struct tui_measure *m = &st.measure;
    m->status = TUI_MEASURE_DONE;
    snprintf(m->device, sizeof(m->device), "NVIDIA H100 80GB HBM3");
    m->match = &st.opt.sc.gpu;
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        struct tui_measure_row *r = &m->rows[m->n_rows++];
        memset(r, 0, sizeof(*r));
        snprintf(r->test, sizeof(r->test), "%s", tests[i]);
        r->bytes_per_s = 2.9e12;
        r->flop_per_s = 600e12;
        r->bytes = 1e9;
        r->verified = true;
        r->flagged = i == 1; /* read is noisy */
    }
    m->rows[0].reference_bytes_per_s = 2.4e12;
    const int sizes[][2] = {{24, 80}, {30, 100}};
    for (int k = 0; k < 2; k++) {
        struct tui_screen s;
        bool more = false, noisy = false, ratio = false, stream = false;
        tui_screen_resize(sizes[k][0], sizes[k][1]);
        st.focus_pane = TUI_PANE_MEASURE;
        cr_assert_eq(tui_screen_draw(&st, &s), 0);
        for (int y = 0; y < s.rows; y++) {
            tui_screen_row(&s, y, row, sizeof(row));
            if (dump)
                fprintf(dump, "%s\n", row);
            more |= strstr(row, "more rows") != NULL || strstr(row, "more (") != NULL ||
                    strstr(row, "+") != NULL;
            ratio |= strstr(row, "ratio: measured / predicted") != NULL;
            noisy |= strstr(row, "noisy: the repeats disagree") != NULL;
            stream |= strstr(row, "the plain STREAM copy loop") != NULL;
        }
        /* Ten rows do not fit at 80x24: the pane says so. */
        if (k == 0)
            cr_expect(more, "80x24: the rows that do not fit are not announced");
        cr_expect(noisy, "%dx%d: the noisy row is not explained", sizes[k][1], sizes[k][0]);
        if (k == 1) {
            cr_expect(ratio, "100x30: the ratio is not explained");
            cr_expect(stream, "100x30: the copy's STREAM ratio is not said in words");
        }
        tui_screen_free(&s);
    }
    stop();
}
