/*
 * text.c: untrusted text made safe to show (issue 27 item 5).
 *
 * Model files and configs come from hubs and strangers; a name holding ESC,
 * BEL or backspace would retitle the window, clear the screen or hide text
 * when `plan`, `import` or the explorer prints it. Every string a reader
 * takes from such a file passes here once, where it is read: C0 control
 * characters (U+0000-U+001F), DEL (U+007F), the C1 controls
 * (U+0080-U+009F, which some terminals obey as ESC sequences) and every
 * byte of an invalid or overlong UTF-8 sequence become '?'. Valid UTF-8
 * text (accents, CJK, emoji) is kept as it is. The result is never longer
 * than the input, so the cleaning is done in place. Includes nothing of ours.
 */
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none:
 * no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
static size_t utf8_valid(const unsigned char *s, size_t n, uint32_t *cp) {
    unsigned char c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Clean the n bytes at s in place (see above); returns the new length (a
 * NUL is written after the text when it got shorter). */
size_t catalog_text_clean(char *s, size_t n) {
    unsigned char *u = (unsigned char *)s;
    size_t in = 0, out = 0;
    while (in < n) {
        uint32_t cp;
        size_t len = utf8_valid(u + in, n - in, &cp);
        if (len == 0 || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            u[out++] = '?';
            in += len ? len : 1;
            continue;
        }
        for (size_t i = 0; i < len; i++)
            u[out++] = u[in++];
    }
    if (out < n)
        u[out] = '\0';
    return out;
}

/* The same for a NUL-terminated string. */
void catalog_text_clean_str(char *s) {
    size_t n = 0;
    while (s[n])
        n++;
    catalog_text_clean(s, n);
}
