/*
 * lesson_text.c: a lesson's texts: references to figures and scenario
 * inputs, quotations of the course text, and the lint that keeps literal
 * figures out of captions (see lesson_text.h).
 */
#include "tui/lesson_text.h"

#include "kernels/argv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- scenario inputs ------------------------------------------------------- */

enum input_kind { IN_NAME, IN_INT, IN_FRACTION, IN_COUNT };

/* The inputs a text may cite, named as in plan's JSON (scenario and layout). */
static const struct {
    const char *path;
    enum input_kind kind;
} inputs[] = {
    {"scenario.model", IN_NAME},   {"scenario.format", IN_NAME},
    {"scenario.kv_format", IN_NAME}, {"scenario.gpu", IN_NAME},
    {"scenario.gpus", IN_INT},     {"scenario.tp", IN_INT},
    {"scenario.pp", IN_INT},       {"scenario.dp", IN_INT},
    {"scenario.ep", IN_INT},       {"scenario.cp", IN_INT},
    {"scenario.zero", IN_INT},     {"scenario.batch", IN_INT},
    {"scenario.context", IN_INT},  {"scenario.prompt", IN_INT},
    {"scenario.micro_batches", IN_INT}, {"scenario.mfu", IN_FRACTION},
    {"scenario.tokens", IN_COUNT},
};
#define N_INPUTS (sizeof(inputs) / sizeof(inputs[0]))

size_t lesson_input_count(void) {
    return N_INPUTS;
}

const char *lesson_input_path(size_t i) {
    return i < N_INPUTS ? inputs[i].path : NULL;
}

int lesson_input_find(const char *path, size_t len) {
    for (size_t i = 0; i < N_INPUTS; i++)
        if (strlen(inputs[i].path) == len && !strncmp(inputs[i].path, path, len))
            return (int)i;
    return -1;
}

/* The name of a catalog entry as the panes show it. */
#define NAME_OF(e) ((e).name[0] ? (e).name : (e).id)
/* Marks a text for xgettext (po/Makevars: N_); translated where shown. */
#define N_(s) s

size_t lesson_model_name(const struct engine_numfmt *f, const struct engine_model *m, char *buf,
                         size_t len) {
    char n[32];
    if (len == 0)
        return 0;
    if (!m->derived) {
        snprintf(buf, len, "%s", NAME_OF(*m));
        return strlen(buf);
    }
    /* A bare size: its size as given ("params-70B"), else its count. */
    if (!strncmp(m->id, "params-", 7))
        snprintf(n, sizeof(n), "%s", m->id + 7);
    else
        engine_format(f, ENGINE_UNIT_COUNT, engine_params_total(m), n, sizeof(n));
    snprintf(buf, len, engine_numfmt_tr(f, N_("%s-parameter model")), n);
    return strlen(buf);
}

size_t lesson_input_format(const struct engine_numfmt *f, const struct engine_scenario *sc,
                           size_t i, char *buf, size_t len) {
    double v = 0;
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (i >= N_INPUTS)
        return 0;
    const char *name = inputs[i].path + strlen(LESSON_INPUT_PREFIX);
    if (inputs[i].kind == IN_NAME) {
        if (!strcmp(name, "model"))
            return lesson_model_name(f, &sc->model, buf, len);
        const char *s = !strcmp(name, "format") ? NAME_OF(sc->weight_format)
                        : !strcmp(name, "kv_format") ? NAME_OF(sc->kv_format)
                                                     : NAME_OF(sc->gpu);
        snprintf(buf, len, "%s", s);
        return strlen(buf);
    }
    if (!strcmp(name, "gpus"))
        v = sc->gpus;
    else if (!strcmp(name, "tp"))
        v = sc->tp;
    else if (!strcmp(name, "pp"))
        v = sc->pp;
    else if (!strcmp(name, "dp"))
        v = sc->dp;
    else if (!strcmp(name, "ep"))
        v = engine_ep(sc);
    else if (!strcmp(name, "cp"))
        v = sc->cp ? sc->cp : 1;
    else if (!strcmp(name, "zero"))
        v = sc->zero;
    else if (!strcmp(name, "batch"))
        v = sc->batch;
    else if (!strcmp(name, "context"))
        v = sc->context;
    else if (!strcmp(name, "prompt"))
        v = sc->prompt ? sc->prompt : sc->context;
    else if (!strcmp(name, "micro_batches"))
        v = engine_micro_batches(sc);
    else if (!strcmp(name, "mfu"))
        v = sc->mfu;
    else if (!strcmp(name, "tokens"))
        v = sc->training_tokens;
    return engine_format(f,
                         inputs[i].kind == IN_FRACTION ? ENGINE_UNIT_FRACTION
                         : inputs[i].kind == IN_COUNT  ? ENGINE_UNIT_COUNT
                                                       : ENGINE_UNIT_INT,
                         v, buf, len);
}

/* ---- references ------------------------------------------------------------ */

/* A reference at s ("{path}"): the path's start and length; false when s
 * does not open one ("{{" is a literal brace, "{" without "}" none). */
static bool ref_at(const char *s, const char **path, size_t *n) {
    if (s[0] != '{' || s[1] == '{')
        return false;
    const char *close = strchr(s + 1, '}');
    if (!close)
        return false;
    *path = s + 1;
    *n = (size_t)(close - s - 1);
    return true;
}

/* Whether s starts with the open or close quotation mark. */
static bool at_open(const char *s) {
    return !strncmp(s, LESSON_QUOTE_OPEN, 2);
}
static bool at_close(const char *s) {
    return !strncmp(s, LESSON_QUOTE_CLOSE, 2);
}

/* The registry key of a path, or -1. */
static int key_of(const char *path, size_t n) {
    char buf[96];
    enum engine_key k;
    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return engine_key_parse(buf, &k) == 0 ? (int)k : -1;
}

/* The closest figure or input path to an unknown one (the one scanner's
 * rule for "did you mean"). */
static const char *closest(const char *path, size_t n) {
    static const char *names[ENGINE_KEY_COUNT + N_INPUTS];
    const char *out[1];
    char word[96];
    size_t k = 0;
    for (int i = 0; i < ENGINE_KEY_COUNT; i++)
        names[k++] = engine_key_name((enum engine_key)i);
    for (size_t i = 0; i < N_INPUTS; i++)
        names[k++] = inputs[i].path;
    snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1), path);
    return argv_closest(word, names, k, out, 1) ? out[0] : NULL;
}

int lesson_text_check(const struct engine_scenario *sc, const char *text,
                      struct lesson_text_problem *p) {
    bool quoted = false;
    memset(p, 0, sizeof(*p));
    for (const char *s = text; *s; s++) {
        const char *path;
        size_t n;
        if (at_open(s)) {
            if (quoted) {
                p->code = LESSON_TEXT_QUOTE_NESTED;
                return -1;
            }
            quoted = true;
            s++;
            continue;
        }
        if (at_close(s)) {
            if (!quoted) {
                p->code = LESSON_TEXT_QUOTE_CLOSE;
                return -1;
            }
            quoted = false;
            s++;
            continue;
        }
        if (s[0] == '{' && s[1] == '{') {
            s++;
            continue;
        }
        if (s[0] == '{' && !ref_at(s, &path, &n)) {
            p->code = LESSON_TEXT_BRACE;
            return -1;
        }
        if (s[0] != '{')
            continue;
        int k = key_of(path, n);
        p->path = path;
        p->n = n;
        if (k < 0 && lesson_input_find(path, n) < 0) {
            p->code = LESSON_TEXT_UNKNOWN;
            p->closest = closest(path, n);
            return -1;
        }
        if (k >= 0 && !engine_key_applies(sc, (enum engine_key)k)) {
            p->code = LESSON_TEXT_NOT_APPLY;
            return -1;
        }
        s += n + 1;
    }
    if (quoted) {
        p->code = LESSON_TEXT_QUOTE_OPEN;
        return -1;
    }
    return 0;
}

size_t lesson_text_render(const struct engine_numfmt *f, const struct engine_scenario *sc,
                          const struct engine_estimate *est, const char *lang, const char *text,
                          char *out, size_t len) {
    bool en = lang && !strncmp(lang, "en", 2);
    size_t o = 0;
    if (len == 0)
        return 0;
    for (const char *s = text; *s && o + 1 < len;) {
        const char *path, *put = NULL;
        size_t n, pn = 0;
        char buf[128];
        if (s[0] == '{' && s[1] == '{') {
            put = "{", pn = 1, s += 2;
        } else if (ref_at(s, &path, &n)) {
            int k = key_of(path, n), in = k < 0 ? lesson_input_find(path, n) : -1;
            if (k >= 0)
                pn = engine_figure_format(f, sc, est, (enum engine_key)k, buf, sizeof(buf));
            else if (in >= 0)
                pn = lesson_input_format(f, sc, (size_t)in, buf, sizeof(buf));
            if (k >= 0 || in >= 0) {
                put = buf;
                s += n + 2;
            } else {
                put = s, pn = 1, s++; /* left as written */
            }
        } else if (at_open(s)) {
            put = en ? "\xe2\x80\x9c" : LESSON_QUOTE_OPEN, pn = strlen(put), s += 2;
        } else if (at_close(s)) {
            put = en ? "\xe2\x80\x9d" : LESSON_QUOTE_CLOSE, pn = strlen(put), s += 2;
        } else {
            put = s, pn = 1, s++;
        }
        if (o + pn >= len)
            break;
        memcpy(out + o, put, pn);
        o += pn;
    }
    out[o] = '\0';
    return o;
}

void lesson_text_cites(const char *text, struct lesson_cites *c) {
    for (const char *s = text; *s; s++) {
        const char *path;
        size_t n;
        if (s[0] == '{' && s[1] == '{') {
            s++;
            continue;
        }
        if (!ref_at(s, &path, &n))
            continue;
        int k = key_of(path, n), in = k < 0 ? lesson_input_find(path, n) : -1;
        if (k >= 0)
            c->keys[k / 64] |= (uint64_t)1 << (k % 64);
        else if (in >= 0)
            c->inputs |= 1u << in;
        s += n + 1;
    }
}

/* ---- words and literal figures ------------------------------------------- */

/* Whether the character at s is a letter: ASCII, or a UTF-8 letter of a
 * Latin script (the two-byte sequences from U+00C0; not the no-break
 * space, guillemets or the general punctuation of U+2000..). */
static bool letter_at(const char *s) {
    unsigned char c = (unsigned char)s[0];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return c >= 0xc3 && c <= 0xdf; /* U+00C0..U+07FF: Latin, Greek (µ is c2 b5: a unit) */
}

static bool digit(char c) {
    return c >= '0' && c <= '9';
}

size_t lesson_text_words(const char *text) {
    size_t n = 0;
    bool in = false, counted = false;
    for (const char *s = text;; s++) {
        bool space = *s == ' ' || *s == '\n' || *s == '\t' || *s == '\0';
        if (space) {
            if (in && counted)
                n++;
            in = counted = false;
            if (!*s)
                break;
            continue;
        }
        in = true;
        if (digit(*s) || letter_at(s))
            counted = true;
    }
    return n;
}

/* Units a literal figure ends with, longest first where one starts
 * another. Case matters: "s" is seconds, "B" bytes. */
static const char *const units[] = {
    "tokens per second", "tokens por segundo", "tokens/s", "token/s", "tok/s", "tokens",
    "token", "tok", "GPU-hours", "GPU-hour", "GPU-h", "horas-GPU", "horas GPU",
    "KB/s", "MB/s", "GB/s", "TB/s", "GiB/s", "TiB/s", "B/s", "KiB", "MiB", "GiB", "TiB",
    "KB", "MB", "GB", "TB", "PB", "EB", "bytes", "byte", "bits", "bit", "b/w",
    "GFLOP/s", "TFLOP/s", "PFLOP/s", "FLOP/s", "FLOP/B", "FLOP/byte", "FLOPs", "FLOPS",
    "TFLOPS", "PFLOPS", "GFLOPS", "FLOP", "B",
    "ns", "us", "\xc2\xb5s", "ms", "seconds", "second", "segundos", "segundo", "sec", "s",
    "minutes", "minute", "minutos", "minuto", "min", "hours", "hour", "horas", "hora", "h",
    "days", "day", "d\xc3\xad" "as", "d\xc3\xad" "a", "kWh", "MWh", "GWh", "Wh", "kW", "MW",
    "W", "J", "%",
};
/* Words between a number and its unit that scale it ("28.2 million GPU-hours"). */
static const char *const scales[] = {"million", "millones", "mill\xc3\xb3n", "billion", "thousand",
                                     "mil millones", "mil", "billones", "trillion"};

/* Whether the unit u is at s and ends there (no letter follows). */
static bool unit_at(const char *s, const char *u) {
    size_t n = strlen(u);
    if (strncmp(s, u, n))
        return false;
    return !letter_at(s + n) && !digit(s[n]) && s[n] != '/';
}

/* Skip one space or no-break space. */
static const char *skip_space(const char *s) {
    if (*s == ' ')
        return s + 1;
    if (!strncmp(s, "\xc2\xa0", 2) || !strncmp(s, "\xe2\x80\xaf", 3))
        return s + (s[0] == '\xc2' ? 2 : 3);
    return s;
}

/* Whether a number may start at s: a digit not inside a word or a name
 * (the character before is no letter, digit, '-', '_', '.', '/', '^'). */
static bool number_starts(const char *text, const char *s) {
    if (!digit(*s))
        return false;
    if (s == text)
        return true;
    unsigned char p = (unsigned char)s[-1];
    if (digit((char)p) || p == '-' || p == '_' || p == '.' || p == '/' || p == '^' || p == ',' ||
        (p >= 'a' && p <= 'z') || (p >= 'A' && p <= 'Z'))
        return false;
    /* A multi-byte letter before it (c3 xx): inside a word. */
    if (p >= 0x80 && s - text >= 2 && (unsigned char)s[-2] >= 0xc3 && (unsigned char)s[-2] <= 0xdf)
        return false;
    return true;
}

/* The end of the number starting at s: digits with '.' or ',' between
 * digits, and groups of three after a (no-break) space ("16 384"). */
static const char *number_end(const char *s) {
    for (;;) {
        while (digit(*s))
            s++;
        if ((*s == '.' || *s == ',') && digit(s[1])) {
            s++;
            continue;
        }
        const char *t = skip_space(s);
        if (t != s && digit(t[0]) && digit(t[1]) && digit(t[2]) && !digit(t[3]) &&
            !letter_at(t + 3)) {
            s = t;
            continue;
        }
        return s;
    }
}

const char *lesson_text_literal(const char *text, size_t *n) {
    bool quoted = false;
    for (const char *s = text; *s; s++) {
        const char *path;
        size_t pn;
        if (at_open(s)) {
            quoted = true, s++;
            continue;
        }
        if (at_close(s)) {
            quoted = false, s++;
            continue;
        }
        if (quoted)
            continue;
        if (s[0] == '{' && s[1] == '{') {
            s++;
            continue;
        }
        if (ref_at(s, &path, &pn)) {
            s += pn + 1;
            continue;
        }
        if (*s == '$' && digit(s[1])) {
            *n = (size_t)(number_end(s + 1) - s);
            return s;
        }
        if (!number_starts(text, s))
            continue;
        const char *end = number_end(s), *u = end;
        if (*end == '%') {
            *n = (size_t)(end + 1 - s);
            return s;
        }
        if (letter_at(end)) {
            /* "140GB" is a figure; "70B", "4x", "8e9" a name, a count or a
             * factor. */
            static const char *const tight[] = {"GB/s", "TB/s", "GiB", "MiB", "GB", "MB",
                                                "TB", "KB", "ms", "tok/s"};
            for (size_t i = 0; i < sizeof(tight) / sizeof(tight[0]); i++)
                if (unit_at(end, tight[i])) {
                    *n = (size_t)(end + strlen(tight[i]) - s);
                    return s;
                }
            s = end - 1;
            continue;
        }
        u = skip_space(u);
        for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
            size_t sl = strlen(scales[i]);
            if (!strncmp(u, scales[i], sl) && !letter_at(u + sl)) {
                u = skip_space(u + sl);
                break;
            }
        }
        if (u != end) { /* a unit after a space */
            for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                if (unit_at(u, units[i])) {
                    *n = (size_t)(u + strlen(units[i]) - s);
                    return s;
                }
            }
        }
        s = end - 1;
    }
    return NULL;
}
