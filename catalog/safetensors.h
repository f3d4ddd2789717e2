/*
 * safetensors.h: a bounds-checked reader of .safetensors files.
 *
 * Format (huggingface/safetensors, "Format" in its README): an 8-byte
 * little-endian header length N, N bytes of JSON mapping tensor names to
 * {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
 * byte after the header; an optional "__metadata__" entry), then the data.
 * The header is parsed with libyaml (JSON is read as YAML flow style). The
 * file is mapped read-only, so a 2 GB file costs address space, not memory.
 *
 * Every length, offset and shape is checked before use: a header length
 * past the end of the file, offsets out of range or overlapping, unknown
 * dtypes, shapes whose byte count overflows or disagrees with the offsets,
 * duplicate names: each is an error naming the tensor and the problem.
 */
#ifndef VRAMLAB_SAFETENSORS_H
#define VRAMLAB_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#define KERN_ST_MAX_DIMS   8
#define KERN_ST_MAX_HEADER (100u << 20) /* the format's own 100 MB limit */

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
    KERN_ST_DTYPE_COUNT
};

struct kern_st_tensor {
    char *name;
    enum kern_st_dtype dtype;
    unsigned ndim;
    uint64_t shape[KERN_ST_MAX_DIMS];
    uint64_t elements;
    uint64_t begin, end; /* byte offsets in the data section */
    const uint8_t *data; /* begin of its bytes (may be unaligned) */
};

struct kern_st_file {
    struct kern_st_tensor *tensors; /* in file order of data_offsets */
    size_t n;
    const uint8_t *base; /* whole file (mapped or caller's buffer) */
    size_t size;
    void *map; /* non-NULL when kern_st_open mapped it */
};

/* Name ("F16") and element size in bytes of a dtype. */
const char *kern_st_dtype_name(enum kern_st_dtype d);
size_t kern_st_dtype_size(enum kern_st_dtype d);

/* Parse a whole file image already in memory (not copied; it must outlive
 * f). Returns 0, or -1 with a message in err. */
int kern_st_parse(const uint8_t *buf, size_t size, struct kern_st_file *f, char *err,
                  size_t errlen);

/* Map and parse a file. Returns 0, or -1 with "path: message" in err. */
int kern_st_open(const char *path, struct kern_st_file *f, char *err, size_t errlen);

/* Release what kern_st_parse/kern_st_open allocated or mapped. */
void kern_st_close(struct kern_st_file *f);

/* Widen n elements of an F32, F16 or BF16 tensor, starting at element i0,
 * to float. Returns 0, or -1 for other dtypes or a range past the end. */
int kern_st_read_f32(const struct kern_st_tensor *t, uint64_t i0, size_t n, float *out);

#endif
