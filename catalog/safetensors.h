/*
 * safetensors.h: a bounds-checked reader of .safetensors files.
 *
 * Format (huggingface/safetensors, "Format" in its README): an 8-byte
 * little-endian header length N, N bytes of JSON mapping tensor names to
 * {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
 * byte after the header; an optional "__metadata__" entry), then the data.
 * The header is read with jansson through catalog/json.c (a budget bounds
 * the memory of its values; the members are walked in the order of the
 * text, so every message has its byte). `quantize` maps the whole file read-only (a 2 GB file
 * costs address space, not memory); `--model-file` reads the header alone
 * through pread (kern_st_read_header), never the tensor data.
 *
 * Every length, offset and shape is checked before use: a header length
 * past the end of the file, offsets out of range or overlapping, unknown
 * dtypes, shapes whose byte count overflows or disagrees with the offsets,
 * duplicate names, bad JSON, nesting past CATALOG_JSON_MAX_DEPTH: each is an
 * error "byte N: tensor 'name': what" (N the byte of the file).
 */
#ifndef VRAMLAB_SAFETENSORS_H
#define VRAMLAB_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#define KERN_ST_MAX_DIMS   8
#define KERN_ST_MAX_HEADER (100u << 20) /* the format's own 100 MB limit */
#define KERN_ST_MAX_NAME   1024        /* bytes of one tensor name */
#define KERN_ST_MAX_TENSORS (1u << 20)  /* tensors in one file */

enum kern_st_dtype {
    KERN_ST_BOOL = 0,
    KERN_ST_U8,
    KERN_ST_I8,
    KERN_ST_F8_E4M3,
    KERN_ST_F8_E5M2,
    KERN_ST_I16,
    KERN_ST_U16,
    KERN_ST_F16,
    KERN_ST_BF16,
    KERN_ST_I32,
    KERN_ST_U32,
    KERN_ST_F32,
    KERN_ST_F64,
    KERN_ST_I64,
    KERN_ST_U64,
    /* dtypes added to the format later (safetensors 0.6: bit sizes) */
    KERN_ST_F4,      /* 4 bits, two per byte (MXFP4 payloads) */
    KERN_ST_F6_E2M3, /* 6 bits */
    KERN_ST_F6_E3M2,
    KERN_ST_F8_E8M0, /* the MX formats' shared scale */
    KERN_ST_C64,     /* complex, two F32 */
    KERN_ST_DTYPE_COUNT
};

struct kern_st_tensor {
    char *name;
    enum kern_st_dtype dtype;
    unsigned ndim;
    uint64_t shape[KERN_ST_MAX_DIMS];
    uint64_t elements;
    uint64_t begin, end; /* byte offsets in the data section */
    const uint8_t *data; /* begin of its bytes (may be unaligned); NULL from
                          * kern_st_read_header */
    uint64_t header_at;  /* byte of the file where its name is */
};

struct kern_st_file {
    struct kern_st_tensor *tensors; /* in file order of data_offsets */
    size_t n;
    const uint8_t *base; /* whole file (mapped or caller's buffer); NULL
                          * from kern_st_read_header */
    size_t size;         /* of the whole file */
    uint64_t header_len; /* N of the 8-byte prefix */
    void *map; /* non-NULL when kern_st_open mapped it */
};

/* Name ("F16"), element size in bytes (0 for the sub-byte F4, F6) and in
 * bits of a dtype. */
const char *kern_st_dtype_name(enum kern_st_dtype d);
size_t kern_st_dtype_size(enum kern_st_dtype d);
unsigned kern_st_dtype_bits(enum kern_st_dtype d);

/* Parse a whole file image already in memory (not copied; it must outlive
 * f). Returns 0, or -1 with a message in err. */
int kern_st_parse(const uint8_t *buf, size_t size, struct kern_st_file *f, char *err,
                  size_t errlen);

/* Map and parse a file. Returns 0, or -1 with "path: message" in err. */
int kern_st_open(const char *path, struct kern_st_file *f, char *err, size_t errlen);

/* Read only the header of a file: its 8-byte length and its JSON, through
 * pread; the tensor data is never read (data pointers are NULL), the file
 * size alone says whether every tensor's bytes are there. The path is
 * checked with stat first (a FIFO or a device is refused unopened).
 * Returns 0, or -1 with "path: byte N: what" in err. */
int kern_st_read_header(const char *path, struct kern_st_file *f, char *err, size_t errlen);

/* Release what kern_st_parse/kern_st_open allocated or mapped. */
void kern_st_close(struct kern_st_file *f);

/* Widen n elements of an F32, F16 or BF16 tensor, starting at element i0,
 * to float. Returns 0, or -1 for other dtypes or a range past the end. */
int kern_st_read_f32(const struct kern_st_tensor *t, uint64_t i0, size_t n, float *out);

#endif
