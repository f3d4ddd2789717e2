/*
 * jscan.c: the streaming JSON reader (see jscan.h).
 */
#include "catalog/jscan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void jscan_init(struct jscan *j, const char *s, size_t len, uint64_t base, char *err,
                size_t errlen) {
    memset(j, 0, sizeof *j);
    j->s = s;
    j->len = len;
    j->base = base;
    j->err = err;
    j->errlen = errlen;
    if (errlen)
        err[0] = '\0';
}

static int vfail(struct jscan *j, size_t at, const char *prefix, const char *fmt, va_list ap) {
    if (j->failed)
        return -1;
    j->failed = true;
    if (j->errlen == 0)
        return -1;
    int n = snprintf(j->err, j->errlen, "byte %" PRIu64 ": %s", j->base + (uint64_t)at, prefix);
    if (n >= 0 && (size_t)n < j->errlen)
        vsnprintf(j->err + n, j->errlen - (size_t)n, fmt, ap);
    return -1;
}

int jscan_fail(struct jscan *j, size_t at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(j, at, "", fmt, ap);
    va_end(ap);
    return -1;
}

/* A syntax error: "byte N: JSON syntax: what". */
static int syn(struct jscan *j, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int syn(struct jscan *j, size_t at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(j, at, "JSON syntax: ", fmt, ap);
    va_end(ap);
    return -1;
}

static void skip_ws(struct jscan *j) {
    while (j->pos < j->len) {
        char c = j->s[j->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        j->pos++;
    }
}

char jscan_peek(struct jscan *j) {
    if (j->failed)
        return '\0';
    skip_ws(j);
    return j->pos < j->len ? j->s[j->pos] : '\0';
}

uint64_t jscan_at(struct jscan *j) {
    skip_ws(j);
    return j->base + (uint64_t)j->pos;
}

/* What the next byte is, for messages. */
static const char *found(struct jscan *j, char *buf, size_t len) {
    if (j->pos >= j->len)
        return "the end of the JSON text";
    unsigned char c = (unsigned char)j->s[j->pos];
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

int jscan_begin(struct jscan *j, char open, const char *what) {
    char b[24];
    if (j->failed)
        return -1;
    if (jscan_peek(j) != open)
        return jscan_fail(j, j->pos, "%s: expected %s, found %s", what,
                          open == '{' ? "an object" : "an array", found(j, b, sizeof b));
    j->pos++;
    return 0;
}

/* The comma or the closing bracket before the next element. */
static int next(struct jscan *j, bool *first, char close) {
    char b[24];
    if (j->failed)
        return -1;
    char c = jscan_peek(j);
    if (c == close) {
        j->pos++;
        return 0;
    }
    if (!*first) {
        if (c != ',')
            return syn(j, j->pos, "expected ',' or '%c', found %s", close,
                              found(j, b, sizeof b));
        j->pos++;
        if (jscan_peek(j) == close)
            return syn(j, j->pos, "a trailing comma before '%c'", close);
    }
    *first = false;
    jscan_peek(j);
    if (j->pos >= j->len)
        return syn(j, j->pos, "the JSON text ends inside %s",
                          close == '}' ? "an object" : "an array");
    return 1;
}

int jscan_member(struct jscan *j, bool *first, char *key, size_t cap, uint64_t *key_at) {
    char b[24];
    int r = next(j, first, '}');
    if (r <= 0)
        return r;
    if (key_at)
        *key_at = jscan_at(j);
    if (jscan_peek(j) != '"')
        return syn(j, j->pos, "expected a member name (a string), found %s",
                          found(j, b, sizeof b));
    if (jscan_string(j, key, cap, "a member name"))
        return -1;
    if (jscan_peek(j) != ':')
        return syn(j, j->pos, "expected ':' after \"%.64s\", found %s", key,
                          found(j, b, sizeof b));
    j->pos++;
    return 1;
}

int jscan_item(struct jscan *j, bool *first) {
    return next(j, first, ']');
}

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p; -1 when not. */
static long hex4(const struct jscan *j, size_t p) {
    if (p + 4 > j->len)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(j->s[p + (size_t)i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Read (out != NULL: copy) a string at the position; the opening quote is
 * next. */
static int string_at(struct jscan *j, char *out, size_t cap, const char *what) {
    size_t start = j->pos, n = 0;
    j->pos++; /* the quote */
    for (;;) {
        if (j->pos >= j->len)
            return syn(j, start, "%s: the string never ends", what);
        unsigned char c = (unsigned char)j->s[j->pos];
        char u8[4];
        size_t k = 1;
        if (c == '"') {
            j->pos++;
            break;
        }
        if (c < 0x20)
            return syn(j, j->pos, "%s: a control character (0x%02x) inside a string",
                              what, c);
        if (c != '\\') {
            u8[0] = (char)c;
            j->pos++;
        } else {
            if (j->pos + 1 >= j->len)
                return syn(j, start, "%s: the string never ends", what);
            char e = j->s[j->pos + 1];
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *p = e ? strchr(from, e) : NULL;
            if (p) {
                u8[0] = to[p - from];
                j->pos += 2;
            } else if (e == 'u') {
                long cp = hex4(j, j->pos + 2);
                size_t esc = j->pos;
                if (cp < 0)
                    return syn(j, esc, "%s: \\u needs four hex digits", what);
                j->pos += 6;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    long lo = j->pos + 1 < j->len && j->s[j->pos] == '\\' &&
                                      j->s[j->pos + 1] == 'u'
                                  ? hex4(j, j->pos + 2)
                                  : -1;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return syn(j, esc, "%s: a lone UTF-16 surrogate", what);
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    j->pos += 6;
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    return syn(j, esc, "%s: a lone UTF-16 surrogate", what);
                }
                if (cp == 0)
                    return syn(j, esc, "%s: a NUL character (\\u0000) in a string", what);
                if (cp < 0x80) {
                    u8[0] = (char)cp;
                } else if (cp < 0x800) {
                    u8[0] = (char)(0xC0 | (cp >> 6));
                    u8[1] = (char)(0x80 | (cp & 0x3F));
                    k = 2;
                } else if (cp < 0x10000) {
                    u8[0] = (char)(0xE0 | (cp >> 12));
                    u8[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    u8[2] = (char)(0x80 | (cp & 0x3F));
                    k = 3;
                } else {
                    u8[0] = (char)(0xF0 | (cp >> 18));
                    u8[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                    u8[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    u8[3] = (char)(0x80 | (cp & 0x3F));
                    k = 4;
                }
            } else {
                return syn(j, j->pos, "%s: an unknown escape in a string", what);
            }
        }
        if (out) {
            if (n + k >= cap)
                return jscan_fail(j, start, "%s: a string longer than the %zu bytes allowed",
                                  what, cap - 1);
            memcpy(out + n, u8, k);
        }
        n += k;
    }
    if (out)
        out[n] = '\0';
    return 0;
}

int jscan_string(struct jscan *j, char *out, size_t cap, const char *what) {
    char b[24];
    if (j->failed)
        return -1;
    if (jscan_peek(j) != '"')
        return jscan_fail(j, j->pos, "%s: expected a string, found %s", what,
                          found(j, b, sizeof b));
    if (cap == 0)
        return syn(j, j->pos, "%s: no room for a string", what);
    return string_at(j, out, cap, what);
}

/* The extent of a JSON number at the position; its end in *end. */
static int number_at(struct jscan *j, size_t *end, bool *integral) {
    size_t p = j->pos;
    *integral = true;
    if (p < j->len && j->s[p] == '-')
        p++;
    if (p >= j->len || j->s[p] < '0' || j->s[p] > '9')
        return -1;
    if (j->s[p] == '0')
        p++;
    else
        while (p < j->len && j->s[p] >= '0' && j->s[p] <= '9')
            p++;
    if (p < j->len && j->s[p] == '.') {
        *integral = false;
        p++;
        if (p >= j->len || j->s[p] < '0' || j->s[p] > '9')
            return -1;
        while (p < j->len && j->s[p] >= '0' && j->s[p] <= '9')
            p++;
    }
    if (p < j->len && (j->s[p] == 'e' || j->s[p] == 'E')) {
        *integral = false;
        p++;
        if (p < j->len && (j->s[p] == '+' || j->s[p] == '-'))
            p++;
        if (p >= j->len || j->s[p] < '0' || j->s[p] > '9')
            return -1;
        while (p < j->len && j->s[p] >= '0' && j->s[p] <= '9')
            p++;
    }
    *end = p;
    return 0;
}

int jscan_int(struct jscan *j, int64_t *v, const char *what) {
    char b[24];
    size_t end;
    bool integral;
    if (j->failed)
        return -1;
    jscan_peek(j);
    size_t at = j->pos;
    if (number_at(j, &end, &integral) != 0)
        return jscan_fail(j, at, "%s: expected a whole number, found %s", what,
                          found(j, b, sizeof b));
    if (!integral)
        return jscan_fail(j, at, "%s: expected a whole number, found %.*s", what,
                          (int)(end - at < 32 ? end - at : 32), j->s + at);
    bool neg = j->s[at] == '-';
    uint64_t u = 0;
    for (size_t p = at + (neg ? 1 : 0); p < end; p++) {
        uint64_t d = (uint64_t)(j->s[p] - '0');
        if (u > ((uint64_t)INT64_MAX - d) / 10)
            return jscan_fail(j, at, "%s: %.*s does not fit in 63 bits", what,
                              (int)(end - at < 32 ? end - at : 32), j->s + at);
        u = u * 10 + d;
    }
    j->pos = end;
    *v = neg ? -(int64_t)u : (int64_t)u;
    return 0;
}

int jscan_uint(struct jscan *j, uint64_t *v, const char *what) {
    char b[24];
    size_t end;
    bool integral;
    if (j->failed)
        return -1;
    jscan_peek(j);
    size_t at = j->pos;
    if (at < j->len && j->s[at] == '-')
        return jscan_fail(j, at, "%s: expected a non-negative whole number, found a negative one",
                          what);
    if (number_at(j, &end, &integral) != 0)
        return jscan_fail(j, at, "%s: expected a whole number, found %s", what,
                          found(j, b, sizeof b));
    if (!integral)
        return jscan_fail(j, at, "%s: expected a whole number, found %.*s", what,
                          (int)(end - at < 32 ? end - at : 32), j->s + at);
    uint64_t u = 0;
    for (size_t p = at; p < end; p++) {
        uint64_t d = (uint64_t)(j->s[p] - '0');
        if (u > (UINT64_MAX - d) / 10)
            return jscan_fail(j, at, "%s: %.*s does not fit in 64 bits", what,
                              (int)(end - at < 32 ? end - at : 32), j->s + at);
        u = u * 10 + d;
    }
    j->pos = end;
    *v = u;
    return 0;
}

/* A literal (true, false, null) at the position. */
static int literal_at(struct jscan *j) {
    static const char *const lits[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if (j->len - j->pos >= n && memcmp(j->s + j->pos, lits[i], n) == 0) {
            j->pos += n;
            return 0;
        }
    }
    return -1;
}

int jscan_skip(struct jscan *j) {
    char b[24];
    /* An explicit stack of the open brackets: no recursion. */
    char stack[JSCAN_MAX_DEPTH];
    bool first[JSCAN_MAX_DEPTH];
    int depth = 0;
    if (j->failed)
        return -1;
    for (;;) {
        /* A value is expected here. */
        char c = jscan_peek(j);
        size_t at = j->pos;
        if (c == '{' || c == '[') {
            if (depth >= JSCAN_MAX_DEPTH)
                return jscan_fail(j, at, "objects and arrays nested more than %d deep",
                                  JSCAN_MAX_DEPTH);
            stack[depth] = c == '{' ? '}' : ']';
            first[depth] = true;
            depth++;
            j->pos++;
        } else {
            size_t end;
            bool integral;
            if (c == '"') {
                if (string_at(j, NULL, 0, "a string"))
                    return -1;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (number_at(j, &end, &integral) != 0)
                    return syn(j, at, "a malformed number");
                j->pos = end;
            } else if (literal_at(j) != 0) {
                return syn(j, at, "expected a JSON value, found %s", found(j, b, sizeof b));
            }
        }
        /* Close what is complete, then find the next value. */
        for (;;) {
            if (depth == 0)
                return 0;
            int r = next(j, &first[depth - 1], stack[depth - 1]);
            if (r < 0)
                return -1;
            if (r == 0) {
                depth--;
                continue;
            }
            if (stack[depth - 1] == '}') {
                if (jscan_peek(j) != '"')
                    return syn(j, j->pos, "expected a member name (a string), found %s",
                                      found(j, b, sizeof b));
                if (string_at(j, NULL, 0, "a member name"))
                    return -1;
                if (jscan_peek(j) != ':')
                    return syn(j, j->pos, "expected ':', found %s", found(j, b, sizeof b));
                j->pos++;
            }
            break;
        }
    }
}

int jscan_end(struct jscan *j) {
    char b[24];
    if (j->failed)
        return -1;
    if (jscan_peek(j) != '\0')
        return syn(j, j->pos, "text after the end of the JSON value: %s",
                          found(j, b, sizeof b));
    return 0;
}
