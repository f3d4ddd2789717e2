/*
 * json.h: every JSON vramlab reads goes through jansson; this is the thin
 * layer the model-file readers share on top of it (config.json, the
 * safetensors header, model.safetensors.index.json, quantization configs).
 *
 * catalog_json_parse() hands the text to jansson with three guards the
 * readers had before: nesting at most CATALOG_JSON_MAX_DEPTH deep inside
 * the root value (checked before jansson recurses, at the bracket that goes
 * too deep), a budget for
 * the values' memory (a header of 100 MB of "[0,0,0,..." would take
 * gigabytes as a tree: refused instead), and errors that say where: "byte
 * N: JSON syntax: what" with N the file's byte (the text's offset plus
 * base) where jansson stopped, at the start of the token it names.
 *
 * jansson keeps no positions of values, and messages about a value ("byte
 * 31: bits: expected 1 to 16 bits") need one. catalog_json_members walks
 * an object or array of the text jansson accepted, in the order of the
 * text, and gives each member's decoded key and the bytes where its key
 * and its value start; the value itself is read from jansson's tree
 * (json_object_get of the key). The walk does not check the grammar (that
 * is jansson's job, done before); it only skips strings and brackets.
 */
#ifndef VRAMLAB_CATALOG_JSON_H
#define VRAMLAB_CATALOG_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CATALOG_JSON_MAX_DEPTH 64

/* A parsed document and the text it came from (the text is the caller's
 * and must outlive it). */
enum catalog_json_error { CATALOG_JSON_OK = 0, CATALOG_JSON_SYNTAX, CATALOG_JSON_DEEP, CATALOG_JSON_MEMORY };

struct catalog_json {
    json_t *root;
    const char *text;
    size_t len;
    uint64_t base;                 /* the file's byte of text[0], for messages */
    enum catalog_json_error error; /* why the parse failed */
    size_t error_at;               /* and where (an offset of text) */
    const char *error_what;        /* the message after "byte N: " (in err) */
};

/* Parse len bytes of text. max_depth: levels of objects and arrays
 * allowed inside the root value (0 = CATALOG_JSON_MAX_DEPTH); max_bytes
 * bounds the memory of the values (0 = 32 times the text and 1 MiB, at
 * most 1 GiB). Returns 0, or -1 with "byte N: JSON syntax: what" (or
 * "byte N: objects and arrays nested more than 64 deep", "byte N: the JSON
 * values would take more than M MiB of memory") in err, d->root NULL and
 * d->error, d->error_at, d->error_what set. */
int catalog_json_parse(struct catalog_json *d, const char *text, size_t len, uint64_t base,
                       int max_depth, size_t max_bytes, char *err, size_t errlen);
/* Free the tree. */
void catalog_json_free(struct catalog_json *d);

/* "byte N: what" into err for offset at of d's text (the file's byte
 * base + at), for a reader's own checks of a value; returns -1. */
int catalog_json_fail(const struct catalog_json *d, size_t at, char *err, size_t errlen,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The text's offset of the root value (its first byte after whitespace). */
size_t catalog_json_root_at(const struct catalog_json *d);

/* The raw text of the scalar at offset at (a number, true, a string with
 * its quotes), cut to cap - 1 bytes; for messages that quote the file. */
void catalog_json_raw(const struct catalog_json *d, size_t at, char *buf, size_t cap);

/* 1-based line and column (in bytes) of offset at. */
void catalog_json_line_col(const struct catalog_json *d, size_t at, size_t *line, size_t *col);

/* Walk the members of the object (or the items of the array) whose '{'
 * ('[') is at offset at, in the order of the text. */
struct catalog_json_members {
    const struct catalog_json *d;
    size_t pos;
    bool first, array;
};
void catalog_json_members_begin(struct catalog_json_members *it, const struct catalog_json *d,
                                size_t at);
/* The next member: 1 with its key decoded into key (cap bytes, NUL
 * terminated; *cut set when it did not fit; key may be NULL for arrays),
 * the offsets of its key's quote and of its value; 0 after the last. */
int catalog_json_members_next(struct catalog_json_members *it, char *key, size_t cap, bool *cut,
                              size_t *key_at, size_t *value_at);
/* The offsets of member key of the object at at (its n-th occurrence,
 * from 0): 0, or -1 when there is none. key_at or value_at may be NULL. */
int catalog_json_member_at(const struct catalog_json *d, size_t at, const char *key, unsigned n,
                           size_t *key_at, size_t *value_at);

/* A JSON value's kind in words, for messages ("a string", "an array"). */
const char *catalog_json_kind(const json_t *v);

#endif
