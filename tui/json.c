/*
 * json.c: the JSON writer of json.h.
 *
 * Escaping follows RFC 8259 section 7: quote, backslash and control
 * characters are escaped; other bytes (UTF-8 included) pass through.
 */
#include "tui/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Start writing JSON to f. */
void json_init(struct json_writer *w, FILE *f) {
    memset(w, 0, sizeof(*w));
    w->f = f;
}

/* Newline and indentation for the current depth. */
static void json_indent(struct json_writer *w) {
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

/* Separator and indentation before a value or a key. */
static void json_before_item(struct json_writer *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (w->has_items[w->depth])
            fputc(',', w->f);
        w->has_items[w->depth] = true;
        json_indent(w);
    }
}

/* Open a container with the given bracket. */
static void json_open(struct json_writer *w, char c) {
    json_before_item(w);
    fputc(c, w->f);
    if (w->depth + 1 < JSON_MAX_DEPTH)
        w->depth++;
    w->has_items[w->depth] = false;
}

/* Close a container; empty ones stay on one line. */
static void json_close(struct json_writer *w, char c) {
    bool had = w->has_items[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (had)
        json_indent(w);
    fputc(c, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

/* Open an object. */
void json_begin_object(struct json_writer *w) {
    json_open(w, '{');
}

/* Close an object. */
void json_end_object(struct json_writer *w) {
    json_close(w, '}');
}

/* Open an array. */
void json_begin_array(struct json_writer *w) {
    json_open(w, '[');
}

/* Close an array. */
void json_end_array(struct json_writer *w) {
    json_close(w, ']');
}

/* Write a member name; the next call writes its value. */
void json_key(struct json_writer *w, const char *key) {
    json_before_item(w);
    json_write_string(w->f, key);
    fputs(": ", w->f);
    w->after_key = true;
}

/* Write a string value. */
void json_text(struct json_writer *w, const char *s) {
    json_before_item(w);
    if (s)
        json_write_string(w->f, s);
    else
        fputs("null", w->f);
}

/* Write a number value (null for NaN or infinity). */
void json_number(struct json_writer *w, double v) {
    char buf[40];
    json_before_item(w);
    json_format_number(v, buf, sizeof(buf));
    fputs(buf, w->f);
}

/* Write true or false. */
void json_bool(struct json_writer *w, bool v) {
    json_before_item(w);
    fputs(v ? "true" : "false", w->f);
}

/* Write null. */
void json_none(struct json_writer *w) {
    json_before_item(w);
    fputs("null", w->f);
}

/* Format a number exactly: integers plainly, others in the shortest
 * round-tripping %g form; "null" where JSON has no number. */
void json_format_number(double v, char *buf, size_t len) {
    if (!isfinite(v)) {
        snprintf(buf, len, "null");
        return;
    }
    /* 2^53: every integer below it is exact in a double. */
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, len, "%.0f", v == 0 ? 0.0 : v); /* no "-0" */
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Write s as a quoted JSON string with the required escapes. */
void json_write_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\b':
            fputs("\\b", f);
            break;
        case '\f':
            fputs("\\f", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}
