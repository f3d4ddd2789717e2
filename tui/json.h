/*
 * json.h: a tiny streaming JSON writer for the headless commands.
 *
 * Numbers are written exactly: integral values below 2^53 as plain integers,
 * others with the shortest "%.Ng" (N = 15..17) that reads back to the same
 * double, so nothing is rounded for display. NaN and infinities become null
 * (JSON has no such numbers; in vramlab NaN means "does not apply").
 * Output is indented two spaces per level, one member per line.
 *
 * The values' writers are json_text and json_none, not json_string and
 * json_null: vramlab links jansson (the JSON it reads), whose functions of
 * those names ours would silently replace, in jansson's own calls too.
 */
#ifndef VRAMLAB_JSON_H
#define VRAMLAB_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_writer {
    FILE *f;
    int depth;
    bool has_items[JSON_MAX_DEPTH]; /* a comma is due before the next item */
    bool after_key;                 /* a key was written, its value is next */
};

/* Start writing JSON to f. */
void json_init(struct json_writer *w, FILE *f);
/* Open and close objects and arrays. */
void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
/* Write a member name inside an object; the next call writes its value. */
void json_key(struct json_writer *w, const char *key);
/* Values. */
void json_text(struct json_writer *w, const char *s);
void json_number(struct json_writer *w, double v);
void json_bool(struct json_writer *w, bool v);
void json_none(struct json_writer *w);

/* Format a number as json_number writes it ("null" for NaN) into buf. */
void json_format_number(double v, char *buf, size_t len);
/* Write s as a quoted, escaped JSON string to f. */
void json_write_string(FILE *f, const char *s);

#endif
