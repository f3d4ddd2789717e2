/*
 * test_gguf.c: the GGUF header reader and the model it gives, on file
 * images built here (a small writer of our own), good and hostile:
 * truncations at every byte, lengths and counts past the end, array bombs,
 * nesting past the limit, unknown types, overflowing dimensions, duplicate
 * names, data outside the file or overlapping. Every broken image must be
 * refused with "name: byte N: what", never a crash or a huge allocation.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/gguf.h"
#include "catalog/modelfile.h"
#include "engine/engine.h"

/* ---- a tiny GGUF writer ------------------------------------------------- */

struct img {
    uint8_t *b;
    size_t n, cap;
};

static void put(struct img *m, const void *p, size_t n) {
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2 + 64;
        m->b = realloc(m->b, m->cap);
    }
    memcpy(m->b + m->n, p, n);
    m->n += n;
}

static void u32(struct img *m, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(m, b, 4);
}

static void u64(struct img *m, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(m, b, 8);
}

static void str(struct img *m, const char *s) {
    u64(m, strlen(s));
    put(m, s, strlen(s));
}

static void head(struct img *m, uint32_t version, uint64_t nt, uint64_t nkv) {
    put(m, "GGUF", 4);
    u32(m, version);
    u64(m, nt);
    u64(m, nkv);
}

static void kv_u32(struct img *m, const char *k, uint32_t v) {
    str(m, k);
    u32(m, GGUF_V_U32);
    u32(m, v);
}

static void kv_str(struct img *m, const char *k, const char *v) {
    str(m, k);
    u32(m, GGUF_V_STRING);
    str(m, v);
}

static void tinfo(struct img *m, const char *name, uint32_t nd, const uint64_t *dims,
                  uint32_t type, uint64_t off) {
    str(m, name);
    u32(m, nd);
    for (uint32_t i = 0; i < nd; i++)
        u64(m, dims[i]);
    u32(m, type);
    u64(m, off);
}

/* Pad to 32 and append n zero bytes of data. */
static void data(struct img *m, size_t n) {
    static const uint8_t z[64];
    while (m->n % 32)
        put(m, z, 1);
    while (n > 0) {
        size_t k = n < sizeof z ? n : sizeof z;
        put(m, z, k);
        n -= k;
    }
}

static int parse(struct img *m, char *err, size_t len) {
    struct gguf_file f;
    int rc = gguf_parse_buffer("t.gguf", m->b, m->n, &f, err, len);
    if (rc == 0)
        gguf_close(&f);
    return rc;
}

/* A llama-shaped model of 2 layers, hidden 256, 4 heads (2 KV) of 64,
 * ffn 512, vocab 512, mixed as llama.cpp's Q4_K_M mixes: Q4_K matrices,
 * Q6_K attn_v/ffn_down and output, Q8_0... and F32 norms. Returns the sum
 * of the tensor sizes in *sum. */
static struct img llama_like(uint64_t *sum, uint64_t *params) {
    struct img m = {0};
    struct t {
        const char *name;
        uint64_t d0, d1;
        uint32_t type;
    } ts[] = {
        {"token_embd.weight", 256, 512, GGUF_TYPE_Q4_K},
        {"output_norm.weight", 256, 1, GGUF_TYPE_F32},
        {"output.weight", 256, 512, GGUF_TYPE_Q6_K},
        {"blk.0.attn_norm.weight", 256, 1, GGUF_TYPE_F32},
        {"blk.0.attn_q.weight", 256, 256, GGUF_TYPE_Q4_K},
        {"blk.0.attn_k.weight", 256, 128, GGUF_TYPE_Q4_K},
        {"blk.0.attn_v.weight", 256, 128, GGUF_TYPE_Q6_K},
        {"blk.0.attn_output.weight", 256, 256, GGUF_TYPE_Q4_K},
        {"blk.0.ffn_norm.weight", 256, 1, GGUF_TYPE_F32},
        {"blk.0.ffn_gate.weight", 256, 512, GGUF_TYPE_Q4_K},
        {"blk.0.ffn_up.weight", 256, 512, GGUF_TYPE_Q4_K},
        {"blk.0.ffn_down.weight", 512, 256, GGUF_TYPE_Q6_K},
        {"blk.1.attn_norm.weight", 256, 1, GGUF_TYPE_F32},
        {"blk.1.attn_q.weight", 256, 256, GGUF_TYPE_Q4_K},
        {"blk.1.attn_k.weight", 256, 128, GGUF_TYPE_Q4_K},
        {"blk.1.attn_v.weight", 256, 128, GGUF_TYPE_Q8_0},
        {"blk.1.attn_output.weight", 256, 256, GGUF_TYPE_Q4_K},
        {"blk.1.ffn_norm.weight", 256, 1, GGUF_TYPE_F32},
        {"blk.1.ffn_gate.weight", 256, 512, GGUF_TYPE_Q4_K},
        {"blk.1.ffn_up.weight", 256, 512, GGUF_TYPE_F16},
        {"blk.1.ffn_down.weight", 512, 256, GGUF_TYPE_Q4_K},
    };
    size_t n = sizeof ts / sizeof ts[0];
    head(&m, 3, n, 9);
    kv_str(&m, "general.architecture", "llama");
    kv_str(&m, "general.name", "Tiny Llama");
    kv_u32(&m, "llama.block_count", 2);
    kv_u32(&m, "llama.embedding_length", 256);
    kv_u32(&m, "llama.feed_forward_length", 512);
    kv_u32(&m, "llama.attention.head_count", 4);
    kv_u32(&m, "llama.attention.head_count_kv", 2);
    kv_u32(&m, "llama.context_length", 8192);
    kv_u32(&m, "llama.vocab_size", 512);
    uint64_t off = 0;
    *sum = 0;
    *params = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t dims[2] = {ts[i].d0, ts[i].d1};
        uint64_t b = gguf_type_bytes(ts[i].type, ts[i].d0 * ts[i].d1);
        tinfo(&m, ts[i].name, ts[i].d1 == 1 ? 1 : 2, dims, ts[i].type, off);
        *sum += b;
        *params += ts[i].d0 * ts[i].d1;
        off += (b + 31) / 32 * 32;
    }
    data(&m, off);
    return m;
}

/* ---- the type table ---------------------------------------------------- */

/* Golden: ggml-common.h's block structs. block_q4_K: d, dmin (2 x 2 bytes),
 * scales[12], qs[128] for 256 weights = 144 bytes, 4.5 bits per weight;
 * block_q6_K: ql[128], qh[64], scales[16], d (2) = 210, 6.5625 bits;
 * block_q8_0: d (2) + qs[32] = 34 per 32, 8.5 bits; MXFP4: e (1) +
 * qs[16] = 17 per 32, 4.25 bits. */
Test(gguf, type_table_matches_ggml_blocks) {
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q4_K)->block, 256);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q4_K)->bytes, 144);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q6_K)->bytes, 210);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q8_0)->block, 32);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q8_0)->bytes, 34);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_MXFP4)->bytes, 17);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q2_K)->bytes, 84);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q3_K)->bytes, 110);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q5_K)->bytes, 176);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_Q8_K)->bytes, 292);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_IQ4_XS)->bytes, 136);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_IQ2_XXS)->bytes, 66);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_TQ2_0)->bytes, 66);
    cr_expect_eq(gguf_type_info(GGUF_TYPE_BF16)->bytes, 2);
    cr_expect_str_eq(gguf_type_info(GGUF_TYPE_IQ4_NL)->name, "IQ4_NL");
    /* Removed ids are unknown. */
    cr_expect_null(gguf_type_info(4));
    cr_expect_null(gguf_type_info(31));
    cr_expect_null(gguf_type_info(GGUF_TYPE_COUNT));
    cr_expect_eq(gguf_type_bytes(GGUF_TYPE_Q4_K, 4096 * 4096), 4096ull * 4096 / 256 * 144);
    cr_expect_eq(gguf_type_bytes(GGUF_TYPE_Q4_K, 100), 0);
}

/* Property: every known type's bits per weight lie in (1, 64], and a
 * block of elements costs exactly bytes. */
Test(gguf, type_table_property) {
    int known = 0;
    for (uint32_t t = 0; t < GGUF_TYPE_COUNT; t++) {
        const struct gguf_type_info *ti = gguf_type_info(t);
        if (ti == NULL)
            continue;
        known++;
        double bpw = ti->bytes * 8.0 / ti->block;
        cr_expect(bpw > 1 && bpw <= 64, "%s: %g bits per weight", ti->name, bpw);
        cr_expect_eq(gguf_type_bytes(t, (uint64_t)ti->block * 7), (uint64_t)ti->bytes * 7);
    }
    cr_expect_eq(known, 34);
}

/* ---- parsing ------------------------------------------------------------ */

Test(gguf, reads_a_mixed_file_and_sums_exactly) {
    uint64_t sum, params;
    struct img m = llama_like(&sum, &params);
    struct engine_model mo;
    struct catalog_model_file mf;
    char err[256];
    int rc = catalog_model_file_buffer("tiny.gguf", m.b, m.n, &mo, &mf, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect_eq(mo.layers, 2);
    cr_expect_eq(mo.hidden, 256);
    cr_expect_eq(mo.heads, 4);
    cr_expect_eq(mo.kv_heads, 2);
    cr_expect_eq(mo.ffn, 512);
    cr_expect_eq(mo.vocab, 512);
    cr_expect_eq(mo.max_context, 8192);
    cr_expect(mo.gated);
    cr_expect(!mo.tied);
    cr_expect_str_eq(mo.name, "Tiny Llama");
    cr_expect_str_eq(mo.id, "tiny");
    cr_expect_eq(mf.bytes, (double)sum);
    cr_expect_eq(mf.params, (double)params);
    double layers = mo.file_layer_bytes[0] + mo.file_layer_bytes[1];
    cr_expect_eq(layers + mo.file_embed_bytes + mo.file_head_bytes, (double)sum);
    /* The engine's weights of this model on one GPU are the file's bytes. */
    struct engine_scenario sc;
    engine_scenario_defaults(&sc);
    sc.model = mo;
    sc.gpu.memory_bytes = 80e9;
    sc.gpu.bandwidth_bytes_per_s = 3.35e12;
    sc.gpu.flops[ENGINE_COMPUTE_FP16] = 989e12;
    sc.weight_format.bits = 16;
    sc.kv_format.bits = 16;
    sc.context = 4096;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    cr_expect_eq(e.memory.weights, (double)sum, "weights %.17g, file %llu", e.memory.weights,
                 (unsigned long long)sum);
    cr_expect_eq(e.params_total, (double)params);
    /* Golden rule: KV = 2 x layers x kv heads x head size x context x bytes. */
    cr_expect_eq(e.memory.kv_cache, 2.0 * 2 * 2 * 64 * 4096 * 2);
    /* Two stages: stage 0 the embedding and layer 0, stage 1 layer 1 and
     * the head; the fullest one of them, exactly. */
    sc.pp = 2;
    sc.gpus = 2;
    engine_estimate(&sc, &e);
    double s0 = mo.file_embed_bytes + mo.file_layer_bytes[0];
    double s1 = mo.file_layer_bytes[1] + mo.file_head_bytes;
    cr_expect_eq(e.memory.weights, s0 > s1 ? s0 : s1);
    char mix[160];
    catalog_model_file_mix(&mf, mix, sizeof mix);
    cr_expect(strstr(mix, "Q4_K ") == mix, "%s", mix);
    cr_expect(strstr(mix, "bits per weight") != NULL, "%s", mix);
    free(m.b);
}

/* Property: every proper prefix of a good file is refused with a message
 * naming the file and a byte, never a crash. */
/* The matrices a token multiplies (catalog_mf_matrix, vramlab-ggml's
 * --mat list): every 2-D weight but the embedding, which is a lookup
 * (this file has its own output.weight), each (type, rows, columns) once
 * with its count, in the file's order; norms (1-D) are not matrices. The
 * llama-like file: Q4_K attn_q 256 x 256 in both layers (2), attn_k 128 x
 * 256 (2), attn_v Q6_K in layer 0 and Q8_0 in layer 1, ffn_up Q4_K and
 * F16, ffn_down Q6_K and Q4_K; GGUF's dims are (columns, rows). */
Test(gguf, the_matrices_a_token_multiplies) {
    uint64_t sum, params;
    struct img m = llama_like(&sum, &params);
    struct engine_model mo;
    struct catalog_model_file mf;
    char err[256];
    cr_assert_eq(catalog_model_file_buffer("tiny.gguf", m.b, m.n, &mo, &mf, err, sizeof err), 0,
                 "%s", err);
    cr_assert(mf.mats_complete);
    double w = 0, w_file = 0;
    for (size_t i = 0; i < mf.n_mats; i++) {
        cr_expect(mf.mats[i].rows > 1 && mf.mats[i].cols > 1);
        w += (double)mf.mats[i].rows * (double)mf.mats[i].cols * (double)mf.mats[i].count;
        for (size_t j = 0; j < i; j++)
            cr_expect(!(mf.mats[j].type == mf.mats[i].type && mf.mats[j].rows == mf.mats[i].rows &&
                        mf.mats[j].cols == mf.mats[i].cols),
                      "matrix %zu repeats %zu", i, j);
    }
    /* every 2-D tensor but the token embedding: the file's weights less the
     * norms (256 each: output_norm, 2 x 2 per layer) and the embedding */
    w_file = (double)params - 5 * 256 - 256 * 512;
    cr_expect_eq(w, w_file, "%.0f weights, the file's matrices %.0f", w, w_file);
    /* the head first (output.weight, Q6_K 512 x 256), then layer 0's
     * attn_q (Q4_K 256 x 256), which attn_output shares: 2 layers of both */
    cr_assert(mf.n_mats >= 2);
    cr_expect_eq(mf.mats[0].type, GGUF_TYPE_Q6_K);
    cr_expect_eq(mf.mats[0].rows, 512);
    cr_expect_eq(mf.mats[0].cols, 256);
    cr_expect_eq(mf.mats[0].count, 1);
    cr_expect_eq(mf.mats[1].type, GGUF_TYPE_Q4_K);
    cr_expect_eq(mf.mats[1].rows, 256);
    cr_expect_eq(mf.mats[1].count, 4);
    free(m.b);
}

Test(gguf, every_truncation_is_refused) {
    uint64_t sum, params;
    struct img m = llama_like(&sum, &params);
    char err[256];
    for (size_t n = 0; n < m.n; n++) {
        struct gguf_file f;
        int rc = gguf_parse_buffer("t.gguf", m.b, n, &f, err, sizeof err);
        cr_assert_eq(rc, -1, "prefix of %zu bytes accepted", n);
        cr_assert(strncmp(err, "t.gguf: byte ", 13) == 0, "%zu: %s", n, err);
    }
    free(m.b);
}

static void expect_error(struct img *m, const char *part) {
    char err[256];
    cr_expect_eq(parse(m, err, sizeof err), -1, "accepted; wanted '%s'", part);
    cr_expect(strstr(err, part) != NULL, "'%s' not in: %s", part, err);
    cr_expect(strncmp(err, "t.gguf: byte ", 13) == 0, "%s", err);
    free(m->b);
    *m = (struct img){0};
}

Test(gguf, hostile_headers) {
    struct img m = {0};
    put(&m, "GGUX", 4);
    u32(&m, 3);
    expect_error(&m, "magic");

    head(&m, 1, 0, 0);
    expect_error(&m, "version 1");
    head(&m, 0x03000000u, 0, 0);
    expect_error(&m, "big-endian");
    head(&m, 7, 0, 0);
    expect_error(&m, "version 7");

    /* Counts that exceed the file or overflow. */
    head(&m, 3, 0, UINT64_MAX);
    expect_error(&m, "metadata count");
    head(&m, 3, UINT64_MAX / 2, 0);
    expect_error(&m, "tensor count");

    /* A key longer than the file. */
    head(&m, 3, 0, 1);
    u64(&m, 1u << 30);
    put(&m, "abcdefghijkl", 12);
    expect_error(&m, "runs past the end");

    /* An array bomb: 2^60 uint8 elements. */
    head(&m, 3, 0, 1);
    str(&m, "bomb");
    u32(&m, GGUF_V_ARRAY);
    u32(&m, GGUF_V_U8);
    u64(&m, 1ull << 60);
    put(&m, "xxxxxxxx", 8);
    expect_error(&m, "array of 1152921504606846976");

    /* An array of arrays of strings, each claiming 2^40 entries. */
    head(&m, 3, 0, 1);
    str(&m, "bomb");
    u32(&m, GGUF_V_ARRAY);
    u32(&m, GGUF_V_STRING);
    u64(&m, 1ull << 40);
    put(&m, "xxxxxxxxxxxxxxxx", 16);
    expect_error(&m, "needs more than");

    /* Nested arrays past the depth limit. */
    head(&m, 3, 0, 1);
    str(&m, "deep");
    u32(&m, GGUF_V_ARRAY);
    for (int i = 0; i < 20; i++) {
        u32(&m, GGUF_V_ARRAY);
        u64(&m, 1);
    }
    u32(&m, GGUF_V_U8);
    u64(&m, 1);
    put(&m, "x", 1);
    put(&m, "pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad", 64);
    expect_error(&m, "nested more than");

    /* Unknown value type, bad bool, duplicate key, bad alignment. */
    head(&m, 3, 0, 1);
    str(&m, "k");
    u32(&m, 13);
    u64(&m, 0);
    expect_error(&m, "unknown value type 13");
    head(&m, 3, 0, 1);
    str(&m, "k");
    u32(&m, GGUF_V_BOOL);
    put(&m, "\x07", 1);
    u64(&m, 0);
    expect_error(&m, "bool");
    head(&m, 3, 0, 2);
    kv_u32(&m, "k", 1);
    kv_u32(&m, "k", 2);
    expect_error(&m, "appears twice");
    head(&m, 3, 0, 1);
    kv_u32(&m, "general.alignment", 24);
    expect_error(&m, "power of two");
}

Test(gguf, hostile_tensors) {
    struct img m = {0};
    uint64_t d[5] = {256, 4, 1, 1, 1}; /* 5: the "5 dimensions" case writes them all */

    head(&m, 3, 1, 0);
    tinfo(&m, "w", 2, d, 99, 0);
    data(&m, 4096);
    expect_error(&m, "unknown ggml tensor type 99");

    head(&m, 3, 1, 0);
    tinfo(&m, "w", 5, d, GGUF_TYPE_F32, 0);
    data(&m, 4096);
    expect_error(&m, "5 dimensions");

    uint64_t big[4] = {1ull << 32, 1ull << 32, 4, 1};
    head(&m, 3, 1, 0);
    tinfo(&m, "w", 3, big, GGUF_TYPE_F32, 0);
    data(&m, 64);
    expect_error(&m, "overflows");

    uint64_t odd[2] = {100, 2};
    head(&m, 3, 1, 0);
    tinfo(&m, "w", 2, odd, GGUF_TYPE_Q4_K, 0);
    data(&m, 4096);
    expect_error(&m, "not a multiple of its block");

    head(&m, 3, 2, 0);
    tinfo(&m, "w", 2, d, GGUF_TYPE_F32, 0);
    tinfo(&m, "w", 2, d, GGUF_TYPE_F32, 4096);
    data(&m, 8192);
    expect_error(&m, "appears twice");

    head(&m, 3, 2, 0);
    tinfo(&m, "a", 2, d, GGUF_TYPE_F32, 0);
    tinfo(&m, "b", 2, d, GGUF_TYPE_F32, 2048);
    data(&m, 8192);
    expect_error(&m, "overlap");

    head(&m, 3, 1, 0);
    tinfo(&m, "w", 2, d, GGUF_TYPE_F32, 0);
    data(&m, 100);
    expect_error(&m, "past the end of the file");

    head(&m, 3, 1, 0);
    tinfo(&m, "w", 2, d, GGUF_TYPE_F32, UINT64_MAX - 31);
    data(&m, 4096);
    expect_error(&m, "past the end of the file");

    head(&m, 3, 1, 0);
    tinfo(&m, "w", 2, d, GGUF_TYPE_F32, 8);
    data(&m, 8192);
    expect_error(&m, "alignment");
}

/* The model from the header: missing keys are named. */
Test(gguf, missing_architecture_keys) {
    struct img m = {0};
    uint64_t d[2] = {32, 1};
    head(&m, 3, 1, 1);
    kv_str(&m, "general.architecture", "llama");
    tinfo(&m, "x", 1, d, GGUF_TYPE_F32, 0);
    data(&m, 128);
    struct engine_model mo;
    struct catalog_model_file mf;
    char err[256];
    cr_expect_eq(catalog_model_file_buffer("t.gguf", m.b, m.n, &mo, &mf, err, sizeof err), -1);
    cr_expect(strstr(err, "llama.block_count") != NULL, "%s", err);
    free(m.b);
}

/* Files: a FIFO is refused before it is opened (this would block), a
 * device is not a directory, a missing file says so. */
Test(gguf, non_regular_files) {
    char dir[] = "/tmp/vramlab-gguf-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/pipe.gguf", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    struct gguf_file f;
    char err[256];
    cr_expect_eq(gguf_open(fifo, &f, err, sizeof err), -1);
    cr_expect(strstr(err, "FIFO") != NULL, "%s", err);
    cr_expect_eq(gguf_open("/dev/zero", &f, err, sizeof err), -1);
    cr_expect(strstr(err, "character device") != NULL, "%s", err);
    cr_expect(strstr(err, "directory") == NULL, "%s", err);
    cr_expect_eq(gguf_open(dir, &f, err, sizeof err), -1);
    cr_expect(strstr(err, "directory") != NULL, "%s", err);
    unlink(fifo);
    rmdir(dir);
}
