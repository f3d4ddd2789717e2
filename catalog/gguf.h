/*
 * gguf.h: a bounds-checked reader of GGUF headers (llama.cpp's model files).
 *
 * Format (ggml's docs/gguf.md, versions 2 and 3; all little-endian):
 *   magic "GGUF", uint32 version, uint64 tensor count, uint64 metadata count;
 *   the metadata: key (uint64 length + bytes), uint32 value type, value
 *   (the 13 value types: 8/16/32/64-bit integers, float32/64, bool, string,
 *   array = uint32 element type + uint64 count + elements, arrays nest);
 *   the tensor infos: name, uint32 n_dims (<= 4), n_dims uint64 dimensions,
 *   uint32 ggml type, uint64 offset inside the data section; then padding
 *   to general.alignment (default 32) and the data section.
 *
 * Only the header is read, through pread of a small window, never the
 * tensor data: a 100 GB file is read in milliseconds and its size alone
 * says whether every tensor's bytes are there.
 *
 * Hostile input: every length and count is checked against the bytes left
 * in the file before anything is allocated or looped over (an array of 2^60
 * elements needs 2^60 bytes), arrays nest at most GGUF_MAX_DEPTH deep,
 * tensor types must be known, dimension products must not overflow,
 * names must be unique, data must lie inside the file without overlap.
 * Each error reads "PATH: byte N: what was wrong".
 */
#ifndef VRAMLAB_GGUF_H
#define VRAMLAB_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GGUF_MAX_DIMS        4           /* GGML_MAX_DIMS */
#define GGUF_MAX_DEPTH       8           /* arrays of arrays, at most */
#define GGUF_MAX_KEY         65536       /* bytes of one key */
#define GGUF_MAX_NAME        4096        /* bytes of one tensor name */
#define GGUF_MAX_TENSORS     (1u << 20)  /* tensors in one file */
#define GGUF_MAX_KV          (1u << 20)  /* metadata entries in one file */
#define GGUF_MAX_STRING_KEPT 4096        /* longer string values are skipped, not kept */
#define GGUF_MAX_ARRAY_KEPT  4096        /* numeric arrays up to this many values are kept */
#define GGUF_DEFAULT_ALIGNMENT 32

/* ggml tensor types, numbered as ggml.h's enum ggml_type (ids 4, 5 and
 * 31..33, 36..38 were removed from the format and are refused). */
enum gguf_type {
    GGUF_TYPE_F32 = 0,
    GGUF_TYPE_F16 = 1,
    GGUF_TYPE_Q4_0 = 2,
    GGUF_TYPE_Q4_1 = 3,
    GGUF_TYPE_Q5_0 = 6,
    GGUF_TYPE_Q5_1 = 7,
    GGUF_TYPE_Q8_0 = 8,
    GGUF_TYPE_Q8_1 = 9,
    GGUF_TYPE_Q2_K = 10,
    GGUF_TYPE_Q3_K = 11,
    GGUF_TYPE_Q4_K = 12,
    GGUF_TYPE_Q5_K = 13,
    GGUF_TYPE_Q6_K = 14,
    GGUF_TYPE_Q8_K = 15,
    GGUF_TYPE_IQ2_XXS = 16,
    GGUF_TYPE_IQ2_XS = 17,
    GGUF_TYPE_IQ3_XXS = 18,
    GGUF_TYPE_IQ1_S = 19,
    GGUF_TYPE_IQ4_NL = 20,
    GGUF_TYPE_IQ3_S = 21,
    GGUF_TYPE_IQ2_S = 22,
    GGUF_TYPE_IQ4_XS = 23,
    GGUF_TYPE_I8 = 24,
    GGUF_TYPE_I16 = 25,
    GGUF_TYPE_I32 = 26,
    GGUF_TYPE_I64 = 27,
    GGUF_TYPE_F64 = 28,
    GGUF_TYPE_IQ1_M = 29,
    GGUF_TYPE_BF16 = 30,
    GGUF_TYPE_TQ1_0 = 34,
    GGUF_TYPE_TQ2_0 = 35,
    GGUF_TYPE_MXFP4 = 39,
    GGUF_TYPE_NVFP4 = 40,
    GGUF_TYPE_Q1_0 = 41,
    GGUF_TYPE_COUNT = 42
};

/* Metadata value types (gguf.md). */
enum gguf_vtype {
    GGUF_V_U8 = 0,
    GGUF_V_I8,
    GGUF_V_U16,
    GGUF_V_I16,
    GGUF_V_U32,
    GGUF_V_I32,
    GGUF_V_F32,
    GGUF_V_BOOL,
    GGUF_V_STRING,
    GGUF_V_ARRAY,
    GGUF_V_U64,
    GGUF_V_I64,
    GGUF_V_F64,
    GGUF_V_COUNT
};

/* A tensor type's traits: name as ggml prints it ("Q4_K"), elements per
 * block and bytes per block (ggml's type_traits blck_size, type_size).
 * NULL for an id the format does not define. */
struct gguf_type_info {
    const char *name;
    uint32_t block;
    uint32_t bytes;
};
const struct gguf_type_info *gguf_type_info(uint32_t type);
/* Bytes of n elements of a type (n a multiple of its block); 0 when the
 * type is unknown or n is not a multiple. */
uint64_t gguf_type_bytes(uint32_t type, uint64_t n);

struct gguf_kv {
    char *key;
    enum gguf_vtype type;
    uint64_t offset; /* of the key in the file */
    /* Scalars: the value in every form that applies. */
    uint64_t u;
    int64_t i;
    double f;
    bool is_int, is_float;
    char *str;      /* strings up to GGUF_MAX_STRING_KEPT bytes, else NULL */
    uint64_t len;   /* string length */
    /* Arrays: the element type, the count, numeric values when kept. */
    enum gguf_vtype elem;
    uint64_t count;
    double *values; /* count values when numeric and count <= GGUF_MAX_ARRAY_KEPT */
};

struct gguf_tensor {
    char *name;
    uint32_t type;
    uint32_t ndim;
    uint64_t dims[GGUF_MAX_DIMS];
    uint64_t elements;
    uint64_t bytes;  /* elements / block x bytes per block */
    uint64_t offset; /* inside the data section */
};

struct gguf_file {
    uint32_t version;
    uint64_t file_size;
    uint64_t alignment;
    uint64_t data_start; /* byte where the data section begins */
    struct gguf_kv *kv;
    size_t n_kv;
    struct gguf_tensor *tensors;
    size_t n_tensors;
};

/* Read the header of a GGUF file. The path is checked with stat before it
 * is opened (a FIFO or a device is refused unopened) and opened without
 * blocking. Returns 0, or -1 with "path: byte N: what" in err. */
int gguf_open(const char *path, struct gguf_file *f, char *err, size_t errlen);
/* The same from a file image in memory (tests, fuzzing); name in messages. */
int gguf_parse_buffer(const char *name, const uint8_t *buf, size_t len, struct gguf_file *f,
                      char *err, size_t errlen);
void gguf_close(struct gguf_file *f);

/* Whether the first bytes of a file image are GGUF's magic. */
bool gguf_is_gguf(const uint8_t *buf, size_t len);

/* Metadata lookups: the entry, or NULL. */
const struct gguf_kv *gguf_find(const struct gguf_file *f, const char *key);
/* An integer (any integer type, or a bool) by key; false when absent or of
 * another type. */
bool gguf_get_uint(const struct gguf_file *f, const char *key, uint64_t *out);
bool gguf_get_float(const struct gguf_file *f, const char *key, double *out);
/* A kept string, or NULL. */
const char *gguf_get_str(const struct gguf_file *f, const char *key);

#endif
