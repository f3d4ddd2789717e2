/*
 * sniff.c: what a file is, from its first bytes, for the message of a
 * reader that found it is not what it reads (issue 27 item 6: `quantize`
 * on a GGUF file says "a GGUF file", not "header length
 * 14064895815 runs past the end").
 *
 * Magic numbers: GGUF (ggml's gguf.md: "GGUF" then a version), ZIP ("PK\3\4":
 * PyTorch's torch.save since 1.6), pickle (protocol 2-5: 0x80 then the
 * protocol: older torch.save files), gzip (1f 8b), HDF5 (89 "HDF"), ELF,
 * NumPy (93 "NUMPY"), a Git LFS pointer ("version https://git-lfs"), text
 * (UTF-8 without control characters but whitespace; JSON when it starts
 * with '{' or '['). A safetensors file is 8 bytes of little-endian header
 * length then the JSON header: such a file, even a damaged one, is left
 * to its reader (NULL).
 */
#include "catalog/catalog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Marked for translation where they are shown (tui/ calls _() on them). */
#define N_(s) s

/* Whether b[0..n) is UTF-8 text with no control character but whitespace
 * (a sequence cut at the end of the sample counts as text). */
static bool sniff_text(const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned char c = b[i];
        size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                            : (c & 0xf8) == 0xf0       ? 3
                                                       : 9;
        if (k == 9)
            return false;
        if (k == 0 && c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
            return false;
        if (c == 0x7f)
            return false;
        for (size_t j = 1; j <= k; j++)
            if (i + j < n && (b[i + j] & 0xc0) != 0x80)
                return false;
        i += k + 1;
    }
    return true;
}

/* What the bytes are (see catalog.h). */
const char *catalog_sniff(const unsigned char *b, size_t n, uint64_t size) {
    if (size == 0)
        return N_("an empty file");
    if (n >= 4 && !memcmp(b, "GGUF", 4))
        return N_("a GGUF file (llama.cpp's format)");
    if (n >= 9 && (b[8] == '{' || b[8] == '[' || b[8] == ' ')) {
        /* A header length below 2^48 (text would put a byte of at least
         * 9 in its top byte) then JSON: safetensors-shaped, damaged or
         * not; its reader says what is wrong. */
        uint64_t h = 0;
        for (int i = 7; i >= 0; i--)
            h = h << 8 | b[i];
        if (h >= 2 && h < (1ull << 48))
            return NULL;
    }
    if (n >= 4 && !memcmp(b, "PK\3\4", 4))
        return N_("a ZIP archive (a PyTorch .bin or .pt checkpoint is one)");
    if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)
        return N_("a Python pickle (an older PyTorch checkpoint)");
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return N_("a gzip-compressed file");
    if (n >= 4 && !memcmp(b, "\x89HDF", 4))
        return N_("an HDF5 file (Keras)");
    if (n >= 4 && !memcmp(b, "\x7f" "ELF", 4))
        return N_("an executable (ELF)");
    if (n >= 6 && !memcmp(b, "\x93NUMPY", 6))
        return N_("a NumPy array (.npy)");
    if (n >= 24 && !memcmp(b, "version https://git-lfs", 23))
        return N_("a Git LFS pointer, not the file itself (git lfs pull fetches it)");
    if (sniff_text(b, n)) {
        size_t i = 0;
        while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
            i++;
        if (i < n && (b[i] == '{' || b[i] == '['))
            return N_("JSON text");
        return N_("text");
    }
    return N_("binary data of no kind vramlab knows");
}

/* The same for a file on disk (see catalog.h). */
const char *catalog_sniff_file(const char *path) {
    unsigned char b[256];
    struct stat st;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    do
        n = pread(fd, b, sizeof b, 0);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n < 0)
        return NULL;
    return catalog_sniff(b, (size_t)n, (uint64_t)st.st_size);
}
