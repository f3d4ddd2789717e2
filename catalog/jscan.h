/*
 * jscan.h: a strict streaming JSON reader for model files' headers.
 *
 * The safetensors header, model.safetensors.index.json and a config.json's
 * quantization_config are read with it. It builds no tree: the caller
 * walks objects and arrays member by member and keeps only what it needs,
 * so memory stays a small multiple of what is kept (a header of 100 MB of
 * "[0,0,0,..." costs nothing), and values it does not need are skipped
 * without recursion, nested at most JSCAN_MAX_DEPTH deep.
 *
 * Grammar: RFC 8259 (strings with every escape, \u surrogate pairs turned
 * into UTF-8, no control characters; numbers as JSON writes them; true,
 * false, null). Each error reads "byte N: what" with N the byte in the file
 * (the offset of the text plus base), and the first error sticks: every
 * later call fails at once.
 */
#ifndef VRAMLAB_CATALOG_JSCAN_H
#define VRAMLAB_CATALOG_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSCAN_MAX_DEPTH 64

struct jscan {
    const char *s;
    size_t len, pos;
    uint64_t base; /* the file's byte of s[0], for messages */
    char *err;
    size_t errlen;
    bool failed;
};

void jscan_init(struct jscan *j, const char *s, size_t len, uint64_t base, char *err,
                size_t errlen);

/* Record "byte base+at: what" (only the first error is kept); returns -1. */
int jscan_fail(struct jscan *j, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The next significant character (whitespace skipped), '\0' at the end. */
char jscan_peek(struct jscan *j);
/* The file byte of the next significant character. */
uint64_t jscan_at(struct jscan *j);

/* Walk an object: call with *first = true after the '{' is expected by
 * jscan_begin(j, '{'). Returns 1 with the key (NUL-terminated, at most
 * cap - 1 bytes, else an error) and its ':' read, 0 at the closing '}',
 * -1 on an error. key_at (may be NULL) gets the key's file byte. */
int jscan_begin(struct jscan *j, char open, const char *what);
int jscan_member(struct jscan *j, bool *first, char *key, size_t cap, uint64_t *key_at);
/* Walk an array after jscan_begin(j, '['): 1 when an element follows
 * (not read), 0 at the closing ']', -1 on an error. */
int jscan_item(struct jscan *j, bool *first);

/* A string value into out (at most cap - 1 bytes). */
int jscan_string(struct jscan *j, char *out, size_t cap, const char *what);
/* A non-negative whole number that fits in 64 bits (digits only). */
int jscan_uint(struct jscan *j, uint64_t *v, const char *what);
/* A whole number with an optional minus sign, |v| < 2^63. */
int jscan_int(struct jscan *j, int64_t *v, const char *what);
/* Skip any value. */
int jscan_skip(struct jscan *j);
/* Only whitespace may follow. */
int jscan_end(struct jscan *j);

#endif
