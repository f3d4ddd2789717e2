/*
 * helpers.c: test fixtures with published figures (sources next to each).
 */
#include <string.h>

#include "tests/helpers.h"

/* Copy a string into a fixed field. */
static void set(char *dst, size_t n, const char *s) {
    strncpy(dst, s, n - 1);
    dst[n - 1] = '\0';
}

struct engine_gpu th_h100_sxm(void) {
    struct engine_gpu g = {0};
    set(g.id, sizeof g.id, "h100-sxm");
    set(g.name, sizeof g.name, "H100 SXM");
    g.memory_bytes = 80 * GIB;
    g.memory_reported_bytes = 79.18 * GIB; /* torch.cuda.mem_get_info (llm-d's vLLM logs) */
    g.bandwidth_bytes_per_s = 3.35e12;
    g.flops[ENGINE_COMPUTE_FP16] = 989e12;
    g.flops[ENGINE_COMPUTE_BF16] = 989e12;
    g.flops[ENGINE_COMPUTE_FP32] = 67e12;
    g.flops[ENGINE_COMPUTE_FP8] = 1979e12;
    g.flops[ENGINE_COMPUTE_INT8] = 1979e12;
    g.link_bytes_per_s = 900e9;
    g.gpus_per_node = 8;
    g.price_per_hour = 2.99;
    g.tdp_w = 700; /* H100 SXM data sheet, up to 700 W */
    g.spot_price_per_hour = 2.40; /* seed 002 table, H100 spot */
    return g;
}

struct engine_gpu th_rtx3060(void) {
    struct engine_gpu g = {0};
    set(g.id, sizeof g.id, "rtx-3060");
    set(g.name, sizeof g.name, "RTX 3060");
    g.memory_bytes = 12 * GIB;
    g.bandwidth_bytes_per_s = 360e9;
    g.flops[ENGINE_COMPUTE_FP16] = 51.2e12; /* tensor FP16 with FP16 accumulate, dense */
    g.flops[ENGINE_COMPUTE_FP32] = 12.7e12;
    g.gpus_per_node = 1;
    return g;
}

struct engine_format th_format(const char *id, double bits, unsigned block, double scale_bits) {
    struct engine_format f = {0};
    set(f.id, sizeof f.id, id);
    set(f.name, sizeof f.name, id);
    f.bits = bits;
    f.block = block;
    f.scale_bits = scale_bits;
    f.compute = ENGINE_COMPUTE_FP16;
    return f;
}

/* A Llama-style model (gated, RMSNorm, no biases, rotary). */
static struct engine_model llama(const char *id, unsigned L, unsigned h, unsigned f, unsigned a,
                                 unsigned kv, unsigned V) {
    struct engine_model m = {0};
    set(m.id, sizeof m.id, id);
    set(m.name, sizeof m.name, id);
    m.has_arch = true;
    m.layers = L;
    m.hidden = h;
    m.ffn = f;
    m.heads = a;
    m.kv_heads = kv;
    m.head_dim = h / a;
    m.vocab = V;
    m.gated = true;
    m.max_context = 131072;
    return m;
}

struct engine_model th_llama31_8b(void) {
    return llama("llama-3.1-8b", 32, 4096, 14336, 32, 8, 128256);
}

struct engine_model th_llama31_70b(void) {
    return llama("llama-3.1-70b", 80, 8192, 28672, 64, 8, 128256);
}

struct engine_model th_llama31_405b(void) {
    return llama("llama-3.1-405b", 126, 16384, 53248, 128, 8, 128256);
}

struct engine_model th_gpt3_175b(void) {
    struct engine_model m = {0};
    set(m.id, sizeof m.id, "gpt-3-175b");
    m.has_arch = true;
    m.layers = 96;
    m.hidden = 12288;
    m.ffn = 4 * 12288;
    m.heads = 96;
    m.kv_heads = 96;
    m.head_dim = 128;
    m.vocab = 50257;
    m.tied = true;
    m.gated = false;
    m.bias = ENGINE_BIAS_ALL;
    m.norm = ENGINE_NORM_LAYER;
    m.pos_embeddings = 2048;
    m.max_context = 2048;
    return m;
}

struct engine_model th_mixtral_8x7b(void) {
    struct engine_model m = llama("mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000);
    m.experts = 8;
    m.active_experts = 2;
    return m;
}

struct engine_model th_deepseek_v3(void) {
    struct engine_model m = llama("deepseek-v3", 61, 7168, 18432, 128, 128, 129280);
    m.experts = 256;
    m.active_experts = 8;
    m.shared_experts = 1;
    m.moe_ffn = 2048;
    m.dense_layers = 3;
    m.q_lora_rank = 1536;
    m.kv_lora_rank = 512;
    m.rope_dim = 64;
    m.nope_dim = 128;
    m.v_head_dim = 128;
    m.head_dim = 128;
    return m;
}

struct engine_model th_pythia_1_4b(void) {
    struct engine_model m = {0};
    set(m.id, sizeof m.id, "pythia-1.4b");
    m.has_arch = true;
    m.layers = 24;
    m.hidden = 2048;
    m.ffn = 8192;
    m.heads = 16;
    m.kv_heads = 16;
    m.head_dim = 128;
    m.vocab = 50304;
    m.bias = ENGINE_BIAS_ALL;
    m.norm = ENGINE_NORM_LAYER;
    m.max_context = 2048;
    return m;
}

struct engine_model th_qwen25_7b(void) {
    struct engine_model m = llama("qwen2.5-7b", 28, 3584, 18944, 28, 4, 152064);
    m.bias = ENGINE_BIAS_QKV;
    return m;
}

struct engine_scenario th_scenario(struct engine_model m) {
    struct engine_scenario sc;
    engine_scenario_defaults(&sc);
    sc.model = m;
    sc.weight_format = th_format("fp16", 16, 0, 0);
    sc.kv_format = th_format("fp16", 16, 0, 0);
    sc.gpu = th_h100_sxm();
    return sc;
}
