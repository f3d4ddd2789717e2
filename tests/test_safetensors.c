/*
 * test_safetensors.c: the safetensors reader on files the tests build
 * themselves, good and hostile (header length past the end, offsets out of
 * range or overlapping, unknown dtypes, overflowing shapes, ...). Every
 * broken file must give an error naming the tensor and the problem.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kern_half.h"
#include "catalog/safetensors.h"

/* A file image: 8-byte LE header length, the header, then data bytes. */
static uint8_t *image(const char *header, const void *data, size_t data_len, size_t *size) {
    size_t h = strlen(header);
    *size = 8 + h + data_len;
    uint8_t *b = malloc(*size);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)h >> (8 * i));
    memcpy(b + 8, header, h);
    if (data_len)
        memcpy(b + 8 + h, data, data_len);
    return b;
}

/* Parse a header over data_len zero bytes; return rc and the message. */
static int parse(const char *header, size_t data_len, char *err, size_t errlen) {
    uint8_t *zeros = calloc(1, data_len + 1);
    size_t size;
    uint8_t *b = image(header, zeros, data_len, &size);
    struct kern_st_file f;
    int rc = kern_st_parse(b, size, &f, err, errlen);
    if (rc == 0)
        kern_st_close(&f);
    free(b);
    free(zeros);
    return rc;
}

Test(safetensors, reads_f32_f16_and_bf16_tensors) {
    float f32[6] = {1, -2, 3.5f, 0.25f, -0.125f, 8};
    uint16_t f16[4], bf16[2];
    for (int i = 0; i < 4; i++)
        f16[i] = kern_f32_to_f16((float)i - 1.5f);
    bf16[0] = kern_f32_to_bf16(2.0f);
    bf16[1] = kern_f32_to_bf16(-0.5f);
    uint8_t data[24 + 8 + 4];
    memcpy(data, f32, 24);
    memcpy(data + 24, f16, 8);
    memcpy(data + 32, bf16, 4);
    const char *h = "{\"__metadata__\":{\"format\":\"pt\"},"
                    "\"a.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                    "\"b\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[24,32]},"
                    "\"c\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[32,36]}}";
    size_t size;
    uint8_t *b = image(h, data, sizeof data, &size);
    struct kern_st_file f;
    char err[256];
    cr_assert_eq(kern_st_parse(b, size, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.n, 3);
    cr_assert_str_eq(f.tensors[0].name, "a.weight");
    cr_assert_eq(f.tensors[0].ndim, 2);
    cr_assert_eq(f.tensors[0].shape[1], 3);
    float out[6];
    cr_assert_eq(kern_st_read_f32(&f.tensors[0], 0, 6, out), 0);
    cr_assert(memcmp(out, f32, 24) == 0);
    cr_assert_eq(kern_st_read_f32(&f.tensors[1], 1, 3, out), 0);
    cr_assert_eq(out[0], -0.5f);
    cr_assert_eq(out[2], 1.5f);
    cr_assert_eq(kern_st_read_f32(&f.tensors[2], 0, 2, out), 0);
    cr_assert_eq(out[0], 2.0f);
    cr_assert_eq(out[1], -0.5f);
    /* reading past the end is refused */
    cr_assert_eq(kern_st_read_f32(&f.tensors[2], 1, 2, out), -1);
    kern_st_close(&f);
    free(b);
}

Test(safetensors, open_maps_a_real_file) {
    char path[] = "/tmp/vramlab-st-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    float w[4] = {1, 2, 3, 4};
    size_t size;
    uint8_t *b =
        image("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", w, 16, &size);
    cr_assert_eq(write(fd, b, size), (ssize_t)size);
    close(fd);
    struct kern_st_file f;
    char err[256];
    cr_assert_eq(kern_st_open(path, &f, err, sizeof err), 0, "%s", err);
    cr_assert(f.map != NULL);
    float out[4];
    cr_assert_eq(kern_st_read_f32(&f.tensors[0], 0, 4, out), 0);
    cr_assert_eq(out[3], 4.0f);
    kern_st_close(&f);
    unlink(path);
    free(b);
    cr_assert_eq(kern_st_open("/nonexistent/x.safetensors", &f, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/x.safetensors") != NULL);
}

Test(safetensors, header_length_past_the_end_is_refused) {
    uint8_t b[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    struct kern_st_file f;
    char err[256];
    cr_assert_eq(kern_st_parse(b, sizeof b, &f, err, sizeof err), -1);
    cr_assert(strstr(err, "past the end"), "%s", err);
    /* and a length near 2^64 does not wrap */
    memset(b, 0xff, 8);
    cr_assert_eq(kern_st_parse(b, sizeof b, &f, err, sizeof err), -1);
    cr_assert_eq(kern_st_parse(b, 5, &f, err, sizeof err), -1);
    cr_assert(strstr(err, "too short"), "%s", err);
}

/* Each hostile header: the message must contain both fragments. */
static const struct {
    const char *header;
    size_t data;
    const char *want1, *want2;
} hostile[] = {
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,16]}}", 8, "'w'", "out of range"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,4]}}", 16, "'w'", "out of range"},
    {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
     "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
     16, "overlaps", "'a'"},
    {"{\"w\":{\"dtype\":\"Q4_K\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, "'w'",
     "unknown dtype"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8,
     "'w'", "overflows"},
    {"{\"w\":{\"dtype\":\"F64\",\"shape\":[4611686018427387904],\"data_offsets\":[0,8]}}", 8, "'w'",
     "overflows"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "'w'", "12 bytes"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, "'w'", "shape"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 8, "'w'",
     "dimensions"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, "'w'", "data_offsets"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8, "'w'", "data_offsets"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,1e3]}}", 8, "'w'",
     "data_offsets"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,99999999999999999999999]}}", 8,
     "'w'", "data_offsets"},
    {"{\"w\":[1,2]}", 8, "'w'", "object"},
    {"[1,2,3]", 8, "header", "object"},
    {"{\"w\": {\"dtype\": \"F32\", \"sha", 8, "header", "JSON"},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
     "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
     8, "'w'", "twice"},
};

Test(safetensors, hostile_headers_name_the_tensor_and_the_problem) {
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        char err[512] = "";
        cr_assert_eq(parse(hostile[i].header, hostile[i].data, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, hostile[i].want1) && strstr(err, hostile[i].want2),
                  "case %zu: '%s' lacks '%s' / '%s'", i, err, hostile[i].want1, hostile[i].want2);
    }
}

Test(safetensors, every_truncation_of_a_good_file_is_handled) {
    float w[8] = {0};
    size_t size;
    uint8_t *b =
        image("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,4],\"data_offsets\":[0,32]}}", w, 32, &size);
    for (size_t n = 0; n < size; n++) {
        /* an exact-size copy, so a sanitizer build sees any overread */
        uint8_t *c = malloc(n ? n : 1);
        memcpy(c, b, n);
        struct kern_st_file f;
        char err[256];
        cr_assert_eq(kern_st_parse(c, n, &f, err, sizeof err), -1, "length %zu", n);
        free(c);
    }
    free(b);
}

Test(safetensors, empty_header_object_has_no_tensors) {
    char err[256];
    cr_assert_eq(parse("{}", 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(parse("{\"__metadata__\":{\"a\":\"b\"}}", 0, err, sizeof err), 0, "%s", err);
}
