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
    /* past 2^63: jansson's own syntax error, at the number */
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,99999999999999999999999]}}", 8,
     "byte 58: JSON syntax: too big integer", "(in the header)"},
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

/* ---- the header alone (--model-file), the JSON scanner, quantized exports */

#include <sys/stat.h>

#include "catalog/hfmodel.h"
#include "catalog/json.h"
#include "catalog/modelfile.h"

/* Write a file image; returns its path in buf. */
static void write_file(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(b, 1, n, f), n);
    fclose(f);
}

Test(safetensors, the_header_alone_is_read_with_pread) {
    float w[8] = {0};
    size_t size;
    uint8_t *b = image("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,4],\"data_offsets\":[0,32]}}", w,
                       32, &size);
    char path[] = "/tmp/vramlab-st-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    write_file(path, b, size);
    struct kern_st_file f;
    char err[512];
    cr_assert_eq(kern_st_read_header(path, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.n, 1);
    cr_assert_null(f.tensors[0].data);
    cr_assert_null(f.base);
    cr_assert_eq(f.size, size);
    cr_assert_eq(f.tensors[0].end - f.tensors[0].begin, 32);
    cr_assert_eq(f.tensors[0].header_at, 9); /* the name's quote: byte 8 + 1 */
    kern_st_close(&f);
    /* one data byte short: the error names the file and the byte */
    cr_assert_eq(truncate(path, (off_t)size - 1), 0);
    cr_assert_eq(kern_st_read_header(path, &f, err, sizeof err), -1);
    cr_assert(strstr(err, path) == err && strstr(err, ": byte ") && strstr(err, "past the end"),
              "%s", err);
    unlink(path);
    free(b);
}

Test(safetensors, sub_byte_dtypes_need_whole_bytes) {
    char err[256];
    cr_assert_eq(parse("{\"w\":{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[0,2]}}", 2, err,
                       sizeof err), 0, "%s", err);
    cr_assert_eq(parse("{\"w\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2, err,
                       sizeof err), -1);
    cr_assert(strstr(err, "not whole bytes"), "%s", err);
    cr_assert_eq(kern_st_dtype_bits(KERN_ST_F6_E2M3), 6);
    cr_assert_eq(kern_st_dtype_size(KERN_ST_C64), 8);
}

Test(safetensors, json_escapes_nesting_and_bombs) {
    char err[256];
    /* \u escapes and a surrogate pair make UTF-8 names */
    uint8_t *b;
    size_t size;
    struct kern_st_file f;
    b = image("{\"caf\\u00e9 \\ud83d\\ude00\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
              "x", 1, &size);
    cr_assert_eq(kern_st_parse(b, size, &f, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(f.tensors[0].name, "caf\xc3\xa9 \xf0\x9f\x98\x80");
    kern_st_close(&f);
    free(b);
    cr_assert_eq(parse("{\"a\\ud800\":{}}", 0, err, sizeof err), -1);
    cr_assert(strstr(err, "byte 9: JSON syntax: invalid Unicode '\\uD800'"), "%s", err);
    cr_assert_eq(parse("{\"__metadata__\":{\"a\":\"b\",}}", 0, err, sizeof err), -1);
    cr_assert(strstr(err, "trailing comma") && strstr(err, "byte 33"), "%s", err);
    /* nesting past the limit is refused at the bracket that goes too deep */
    char deep[256] = "{\"__metadata__\":";
    for (int i = 0; i < 70; i++)
        strcat(deep, "[");
    cr_assert_eq(parse(deep, 0, err, sizeof err), -1);
    cr_assert(strstr(err, "nested more than 64") && strstr(err, "byte 88"), "%s", err);
    /* a metadata array of a million zeros is skipped, not stored */
    size_t n = 2000000;
    char *bomb = malloc(n + 64);
    strcpy(bomb, "{\"__metadata__\":[0");
    size_t k = strlen(bomb);
    while (k < n) {
        bomb[k++] = ',';
        bomb[k++] = '0';
    }
    strcpy(bomb + k, "]}");
    cr_assert_eq(parse(bomb, 0, err, sizeof err), 0, "%s", err);
    free(bomb);
}

Test(safetensors, quantization_configs) {
    struct catalog_hf_quant q;
    char err[256];
    const char *gptq = "{\"model_type\":\"llama\",\"quantization_config\":{\"quant_method\":\"GPTQ\","
                       "\"bits\":4,\"group_size\":128,\"desc_act\":false}}";
    cr_assert_eq(catalog_hf_quant_parse("c.json", gptq, strlen(gptq), 1, &q, err, sizeof err), 0,
                 "%s", err);
    cr_assert_str_eq(q.method, "gptq");
    cr_assert_eq(q.bits, 4);
    cr_assert_eq(q.group, 128);
    const char *ct = "{\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":"
                     "\"pack-quantized\",\"config_groups\":{\"group_0\":{\"targets\":[\"Linear\"],"
                     "\"weights\":{\"num_bits\":8,\"group_size\":32,\"type\":\"int\"}}}}}";
    cr_assert_eq(catalog_hf_quant_parse("c.json", ct, strlen(ct), 1, &q, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(q.bits, 8);
    cr_assert_eq(q.group, 32);
    cr_assert_str_eq(q.type, "int");
    cr_assert_str_eq(q.format, "pack-quantized");
    const char *awq = "{\"w_bit\":4,\"q_group_size\":-1}";
    cr_assert_eq(catalog_hf_quant_parse("q.json", awq, strlen(awq), 0, &q, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(q.group, -1);
    const char *bad = "{\"quantization_config\":{\"bits\":99}}";
    cr_assert_eq(catalog_hf_quant_parse("c.json", bad, strlen(bad), 1, &q, err, sizeof err), -1);
    cr_assert(strstr(err, "c.json: byte 31: bits: expected 1 to 16 bits"), "%s", err);
}

/* One GPTQ linear (out 4096, in 4096, 4 bits, group 128) as AutoGPTQ packs
 * it: qweight int32 [in/8, out], qzeros int32 [in/128, out/8], scales
 * FP16 [in/128, out], g_idx int32 [in]. Its bits per weight:
 * (8 MiB + 64 KiB + 256 KiB + 16 KiB) x 8 / 4096^2 = 4.1640625. */
Test(safetensors, a_gptq_linear_counts_eight_weights_per_word) {
    char dir[] = "/tmp/vramlab-gptq-XXXXXX", p[128], err[1536];
    cr_assert(mkdtemp(dir) != NULL);
    snprintf(p, sizeof p, "%s/config.json", dir);
    const char *cfg = "{\"model_type\":\"llama\",\"num_hidden_layers\":1,\"hidden_size\":4096,"
                      "\"num_attention_heads\":32,\"vocab_size\":32000,"
                      "\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4,"
                      "\"group_size\":128}}";
    write_file(p, cfg, strlen(cfg));
    char h[1024];
    snprintf(h, sizeof h,
             "{\"model.layers.0.mlp.down_proj.qweight\":{\"dtype\":\"I32\",\"shape\":[512,4096],"
             "\"data_offsets\":[0,8388608]},"
             "\"model.layers.0.mlp.down_proj.qzeros\":{\"dtype\":\"I32\",\"shape\":[32,512],"
             "\"data_offsets\":[8388608,8454144]},"
             "\"model.layers.0.mlp.down_proj.scales\":{\"dtype\":\"F16\",\"shape\":[32,4096],"
             "\"data_offsets\":[8454144,8716288]},"
             "\"model.layers.0.mlp.down_proj.g_idx\":{\"dtype\":\"I32\",\"shape\":[4096],"
             "\"data_offsets\":[8716288,8732672]}}");
    size_t size;
    uint8_t *b = image(h, "", 0, &size);
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    write_file(p, b, size);
    cr_assert_eq(truncate(p, (off_t)(size + 8732672)), 0);
    free(b);
    struct engine_model m;
    struct catalog_model_file mf;
    cr_assert_eq(catalog_model_file_load(dir, &m, &mf, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mf.params, 4096.0 * 4096.0);
    cr_assert_eq(mf.bytes, 8732672.0);
    cr_assert_eq(mf.bytes * 8 / mf.params, 4.1640625);
    cr_assert_eq(mf.n_types, 1);
    cr_assert_str_eq(mf.types[0].name, "GPTQ_INT4_G128");
    cr_assert_eq(mf.types[0].tensors, 4);
    cr_assert_eq(m.file_layer_bytes[0], 8732672.0);
    cr_assert_str_eq(mf.quant, "gptq 4-bit, group 128");
    /* the bits from the shapes when no config says them: 32 x 512 / 4096 */
    snprintf(p, sizeof p, "%s/config.json", dir);
    const char *plain = "{\"model_type\":\"llama\",\"num_hidden_layers\":1,\"hidden_size\":4096,"
                        "\"num_attention_heads\":32,\"vocab_size\":32000}";
    write_file(p, plain, strlen(plain));
    cr_assert_eq(catalog_model_file_load(dir, &m, &mf, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mf.params, 4096.0 * 4096.0);
    cr_assert_str_eq(mf.types[0].name, "GPTQ_INT4");
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
