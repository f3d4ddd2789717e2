/*
 * json.c: jansson with a depth limit, a memory budget, errors at a byte,
 * and the positions of members for messages (see json.h).
 */
#include "catalog/json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- jansson's allocator, with a budget while a document is parsed ---- */

static _Thread_local bool cj_limit;   /* a parse is running under a budget */
static _Thread_local size_t cj_left;  /* bytes it may still allocate */
static bool cj_installed;

/* malloc within the budget (jansson frees with cj_free; a refused block
 * makes it report out of memory). */
static void *cj_malloc(size_t n) {
    if (cj_limit) {
        if (n > cj_left)
            return NULL;
        cj_left -= n;
    }
    return malloc(n);
}

static void cj_free(void *p) {
    free(p);
}

/* ---- the text walk (over text jansson accepted) ------------------------ */

static bool cj_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t cj_skip_ws(const struct catalog_json *d, size_t p) {
    while (p < d->len && cj_space(d->text[p]))
        p++;
    return p;
}

/* Past the string whose quote is at p. */
static size_t cj_skip_string(const struct catalog_json *d, size_t p) {
    for (p++; p < d->len; p++) {
        if (d->text[p] == '\\')
            p++;
        else if (d->text[p] == '"')
            return p + 1;
    }
    return d->len;
}

/* Past the value at p. */
static size_t cj_skip_value(const struct catalog_json *d, size_t p) {
    char c = p < d->len ? d->text[p] : '\0';
    if (c == '"')
        return cj_skip_string(d, p);
    if (c == '{' || c == '[') {
        int depth = 0;
        while (p < d->len) {
            c = d->text[p];
            if (c == '"') {
                p = cj_skip_string(d, p);
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                return p + 1;
            p++;
        }
        return d->len;
    }
    while (p < d->len && !cj_space(d->text[p]) && d->text[p] != ',' && d->text[p] != '}' &&
           d->text[p] != ']')
        p++;
    return p;
}

/* ---- parsing -------------------------------------------------------- */

/* The byte where objects and arrays first nest deeper than max inside
 * the root value (the root's own brackets not counted), or -1. Runs
 * before jansson so that hostile nesting never reaches its recursion; it
 * only needs to know what is inside a string. */
static long cj_too_deep(const char *s, size_t len, int max) {
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max + 1)
                return (long)i;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return -1;
}

/* Fill d's error and err: "byte N: " and what. */
static int cj_error(struct catalog_json *d, enum catalog_json_error kind, size_t at, char *err,
                    size_t errlen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int cj_error(struct catalog_json *d, enum catalog_json_error kind, size_t at, char *err,
                    size_t errlen, const char *fmt, ...) {
    va_list ap;
    d->error = kind;
    d->error_at = at;
    d->error_what = err;
    if (errlen == 0)
        return -1;
    int n = snprintf(err, errlen, "byte %" PRIu64 ": ", d->base + (uint64_t)at);
    if (n < 0 || (size_t)n >= errlen)
        return -1;
    d->error_what = err + n;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

int catalog_json_parse(struct catalog_json *d, const char *text, size_t len, uint64_t base,
                       int max_depth, size_t max_bytes, char *err, size_t errlen) {
    json_error_t e;
    memset(d, 0, sizeof(*d));
    d->text = text;
    d->len = len;
    d->base = base;
    if (errlen)
        err[0] = '\0';
    if (max_depth <= 0)
        max_depth = CATALOG_JSON_MAX_DEPTH;
    long deep = cj_too_deep(text, len, max_depth);
    if (deep >= 0)
        return cj_error(d, CATALOG_JSON_DEEP, (size_t)deep, err, errlen,
                        "objects and arrays nested more than %d deep", max_depth);
    if (!cj_installed) {
        json_set_alloc_funcs(cj_malloc, cj_free);
        cj_installed = true;
    }
    if (max_bytes == 0) {
        max_bytes = len < ((size_t)1 << 30) / 32 ? 32 * len + ((size_t)1 << 20) : (size_t)1 << 30;
    }
    cj_left = max_bytes;
    cj_limit = true;
    d->root = json_loadb(text, len, 0, &e);
    cj_limit = false;
    if (d->root)
        return 0;
    /* where: jansson's position is past the token it names ("near 'x'") */
    size_t at = e.position > 0 ? (size_t)e.position : 0;
    const char *near = strstr(e.text, " near '");
    size_t tok = 0;
    if (near) {
        tok = strlen(near + 7);
        tok = tok > 0 ? tok - 1 : 0; /* the closing quote */
    }
    if (at > len)
        at = len;
    if (tok <= at)
        at -= tok;
    if (!near) /* jansson names no token longer than 20 bytes: a number's start */
        while (at > 0 && at <= len && strchr("0123456789.eE+-", text[at - 1]) && text[at - 1])
            at--;
    if (json_error_code(&e) == json_error_out_of_memory)
        return cj_error(d, CATALOG_JSON_MEMORY, at, err, errlen,
                        "the JSON values would take more than %zu MiB of memory",
                        max_bytes >> 20);
    /* the one mistake worth its own words: a comma before a closing bracket */
    if (tok == 1 && at < len && (text[at] == '}' || text[at] == ']')) {
        size_t b = at;
        while (b > 0 && cj_space(text[b - 1]))
            b--;
        if (b > 0 && text[b - 1] == ',')
            return cj_error(d, CATALOG_JSON_SYNTAX, at, err, errlen,
                            "JSON syntax: a trailing comma before '%c'", text[at]);
    }
    return cj_error(d, CATALOG_JSON_SYNTAX, at, err, errlen, "JSON syntax: %s", e.text);
}

int catalog_json_fail(const struct catalog_json *d, size_t at, char *err, size_t errlen,
                      const char *fmt, ...) {
    va_list ap;
    int n = snprintf(err, errlen, "byte %" PRIu64 ": ", d->base + (uint64_t)at);
    if (n >= 0 && (size_t)n < errlen) {
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void catalog_json_free(struct catalog_json *d) {
    json_decref(d->root);
    d->root = NULL;
}

size_t catalog_json_root_at(const struct catalog_json *d) {
    return cj_skip_ws(d, 0);
}

void catalog_json_raw(const struct catalog_json *d, size_t at, char *buf, size_t cap) {
    size_t end = cj_skip_value(d, at), n = end > at ? end - at : 0;
    if (cap == 0)
        return;
    if (n > cap - 1)
        n = cap - 1;
    memcpy(buf, d->text + at, n);
    buf[n] = '\0';
}

void catalog_json_line_col(const struct catalog_json *d, size_t at, size_t *line, size_t *col) {
    size_t l = 1, c = 1;
    for (size_t i = 0; i < at && i < d->len; i++) {
        if (d->text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* ---- members in the order of the text ------------------------------------ */

void catalog_json_members_begin(struct catalog_json_members *it, const struct catalog_json *d,
                                size_t at) {
    it->d = d;
    it->array = at < d->len && d->text[at] == '[';
    it->pos = at + 1;
    it->first = true;
}

/* Decode the key string at [a, b) (quotes included) into key. */
static void cj_key(const struct catalog_json *d, size_t a, size_t b, char *key, size_t cap,
                   bool *cut) {
    const char *s = d->text + a + 1;
    size_t n = b - a >= 2 ? b - a - 2 : 0;
    bool esc = memchr(s, '\\', n) != NULL;
    json_t *v = NULL;
    if (esc) {
        /* jansson decodes the escapes; it accepted this string before */
        v = json_loadb(d->text + a, b - a, JSON_DECODE_ANY, NULL);
        if (json_is_string(v)) {
            s = json_string_value(v);
            n = json_string_length(v);
        }
    }
    if (cut)
        *cut = n >= cap;
    if (n >= cap)
        n = cap - 1;
    memcpy(key, s, n);
    key[n] = '\0';
    json_decref(v);
}

int catalog_json_members_next(struct catalog_json_members *it, char *key, size_t cap, bool *cut,
                              size_t *key_at, size_t *value_at) {
    const struct catalog_json *d = it->d;
    size_t p = cj_skip_ws(d, it->pos);
    if (p >= d->len || d->text[p] == '}' || d->text[p] == ']')
        return 0;
    if (!it->first) {
        if (d->text[p] != ',')
            return 0;
        p = cj_skip_ws(d, p + 1);
    }
    it->first = false;
    if (cut)
        *cut = false;
    if (!it->array) {
        size_t k = p, e = cj_skip_string(d, p);
        if (key && cap)
            cj_key(d, k, e, key, cap, cut);
        if (key_at)
            *key_at = k;
        p = cj_skip_ws(d, e);
        if (p < d->len && d->text[p] == ':')
            p = cj_skip_ws(d, p + 1);
    } else {
        if (key && cap)
            key[0] = '\0';
        if (key_at)
            *key_at = p;
    }
    if (value_at)
        *value_at = p;
    it->pos = cj_skip_value(d, p);
    return 1;
}

int catalog_json_member_at(const struct catalog_json *d, size_t at, const char *key, unsigned n,
                           size_t *key_at, size_t *value_at) {
    struct catalog_json_members it;
    char k[256];
    bool cut;
    size_t ka, va;
    catalog_json_members_begin(&it, d, at);
    while (catalog_json_members_next(&it, k, sizeof(k), &cut, &ka, &va) == 1) {
        if (cut || strcmp(k, key) != 0)
            continue;
        if (n-- == 0) {
            if (key_at)
                *key_at = ka;
            if (value_at)
                *value_at = va;
            return 0;
        }
    }
    return -1;
}

const char *catalog_json_kind(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "true or false";
    default:
        return "null";
    }
}
