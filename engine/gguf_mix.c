/*
 * gguf_mix.c: llama.cpp's mixed quantization types as llama-quantize
 * builds them (Q4_K_M, Q5_K_M, Q3_K_M...): one base type for most tensors,
 * some tensors of some layers in a larger type, the output (and a tied
 * embedding) in Q6_K, norms and routers in F32. The rules are those of
 * llama.cpp src/llama-quant.cpp llama_tensor_get_type (December 2025):
 *  - output.weight (and token_embd.weight when the model has no separate
 *    output): Q6_K, Q8_0 when its rows are not a multiple of 256;
 *  - attn_v: Q2_K -> Q4_K with 4+ query heads a KV head, else Q3_K; Q3_K_M
 *    -> Q5_K in the first 2 layers, else Q4_K; Q3_K_L -> Q5_K; Q4_K_M and
 *    Q5_K_M -> Q6_K in the layers use_more_bits picks; Q4_K_S -> Q5_K in the
 *    first 4; a 70B (80 layers) raises Q3_K/Q4_K to Q5_K; 8 experts: Q8_0;
 *  - attn_output: Q2_K -> Q3_K; Q3_K_M -> Q4_K; Q3_K_L -> Q5_K; 8 experts:
 *    Q5_K for Q2_K to Q4_K_M but Q3_K_L (which keeps Q3_K);
 *  - ffn_down: Q2_K -> Q3_K; Q3_K_M -> Q5_K in the first n/16 layers, else
 *    Q4_K; Q3_K_L -> Q5_K; Q4_K_M and Q5_K_M -> Q6_K where use_more_bits;
 *    Q4_K_S -> Q5_K in the first n/8;
 *  - use_more_bits(i, n) = i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2;
 *  - a k-quant needs rows of a multiple of 256: else Q2_K/Q3_K -> IQ4_NL,
 *    Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0.
 * Bytes per block (ggml-common.h): Q2_K 84, Q3_K 110, Q4_K 144, Q5_K 176,
 * Q6_K 210 per 256; Q4_0/IQ4_NL 18, Q5_0 22, Q5_1 24, Q8_0 34 per 32.
 * Check: Llama 3.1 8B Q4_K_M comes out at 4.91 GB, the file 4.92 GB
 * (tests/test_serving.c). MLA's projections and fused QKV take the base
 * type (their own rules are not modelled).
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

enum gtype { T_F32, T_Q2_K, T_Q3_K, T_Q4_K, T_Q5_K, T_Q6_K, T_Q8_0, T_Q5_0, T_Q5_1, T_IQ4_NL };

/* Bytes per block and weights per block of each type (ggml-common.h). */
static const double type_block[][2] = {
    [T_F32] = {4, 1},      [T_Q2_K] = {84, 256},  [T_Q3_K] = {110, 256}, [T_Q4_K] = {144, 256},
    [T_Q5_K] = {176, 256}, [T_Q6_K] = {210, 256}, [T_Q8_0] = {34, 32},   [T_Q5_0] = {22, 32},
    [T_Q5_1] = {24, 32},   [T_IQ4_NL] = {18, 32},
};

/* Bits per weight of a ggml type. */
static double type_bits(enum gtype t) {
    return 8.0 * type_block[t][0] / type_block[t][1];
}

static const char *const mix_names[ENGINE_MIX_COUNT] = {
    "", "q2_k", "q3_k_s", "q3_k_m", "q3_k_l", "q4_k_s", "q4_k_m", "q5_k_s", "q5_k_m"};

/* Name of a mix ("q4_k_m"); "" for none. */
const char *engine_gguf_mix_name(enum engine_gguf_mix x) {
    return (unsigned)x < ENGINE_MIX_COUNT ? mix_names[x] : "";
}

/* The base type of a mix. */
static enum gtype base_type(enum engine_gguf_mix x) {
    switch (x) {
    case ENGINE_MIX_Q2_K:
        return T_Q2_K;
    case ENGINE_MIX_Q3_K_S:
    case ENGINE_MIX_Q3_K_M:
    case ENGINE_MIX_Q3_K_L:
        return T_Q3_K;
    case ENGINE_MIX_Q4_K_S:
    case ENGINE_MIX_Q4_K_M:
        return T_Q4_K;
    default:
        return T_Q5_K;
    }
}

/* llama-quant.cpp use_more_bits. */
static bool use_more_bits(double i, double n) {
    double e = floor(n / 8);
    return i < e || i >= floor(7 * n / 8) || ((long)(i - e) % 3 == 2 && i >= e);
}

/* A k-quant on rows of `cols` elements not a multiple of 256 falls back. */
static enum gtype fit_rows(enum gtype t, double cols) {
    if (fmod(cols, 256) == 0)
        return t;
    switch (t) {
    case T_Q2_K:
    case T_Q3_K:
        return T_IQ4_NL;
    case T_Q4_K:
        return T_Q5_0;
    case T_Q5_K:
        return T_Q5_1;
    case T_Q6_K:
        return T_Q8_0;
    default:
        return t;
    }
}

/* attn_v of layer i of n. */
static enum gtype type_attn_v(const struct engine_model *m, enum engine_gguf_mix x, double i,
                              double n) {
    enum gtype t = base_type(x);
    double kv = m->kv_heads ? m->kv_heads : m->heads;
    switch (x) {
    case ENGINE_MIX_Q2_K:
        t = m->heads / kv >= 4 ? T_Q4_K : T_Q3_K;
        break;
    case ENGINE_MIX_Q3_K_M:
        t = i < 2 ? T_Q5_K : T_Q4_K;
        break;
    case ENGINE_MIX_Q3_K_L:
        t = T_Q5_K;
        break;
    case ENGINE_MIX_Q4_K_M:
    case ENGINE_MIX_Q5_K_M:
        if (use_more_bits(i, n))
            t = T_Q6_K;
        break;
    case ENGINE_MIX_Q4_K_S:
        if (i < 4)
            t = T_Q5_K;
        break;
    default:
        break;
    }
    if (m->layers == 80 && (t == T_Q3_K || t == T_Q4_K)) /* LLM_TYPE_70B */
        t = T_Q5_K;
    if (m->experts == 8)
        t = T_Q8_0;
    return t;
}

/* attn_output: with 8 experts the k-quant mixes up to Q4_K_M but Q3_K_L
 * take Q5_K (Q3_K_L keeps its base), without the rules below. */
static enum gtype type_attn_o(const struct engine_model *m, enum engine_gguf_mix x) {
    if (m->experts == 8)
        return x <= ENGINE_MIX_Q4_K_M && x != ENGINE_MIX_Q3_K_L ? T_Q5_K : base_type(x);
    switch (x) {
    case ENGINE_MIX_Q2_K:
        return T_Q3_K;
    case ENGINE_MIX_Q3_K_M:
        return T_Q4_K;
    case ENGINE_MIX_Q3_K_L:
        return T_Q5_K;
    default:
        return base_type(x);
    }
}

/* ffn_down of layer i of n. */
static enum gtype type_ffn_down(enum engine_gguf_mix x, double i, double n) {
    switch (x) {
    case ENGINE_MIX_Q2_K:
        return T_Q3_K;
    case ENGINE_MIX_Q3_K_M:
        return i < floor(n / 16) ? T_Q5_K : T_Q4_K;
    case ENGINE_MIX_Q3_K_L:
        return T_Q5_K;
    case ENGINE_MIX_Q4_K_M:
    case ENGINE_MIX_Q5_K_M:
        return use_more_bits(i, n) ? T_Q6_K : base_type(x);
    case ENGINE_MIX_Q4_K_S:
        return i < floor(n / 8) ? T_Q5_K : T_Q4_K;
    default:
        return base_type(x);
    }
}

/* Bytes of a rows x cols matrix (cols the contiguous dimension) in type t. */
static double mat(double rows, double cols, enum gtype t) {
    return rows * cols * type_bits(fit_rows(t, cols)) / 8.0;
}

/* One MLP (gate, up, down) of width f: bytes, with its down in `down`. */
static double mlp_bytes(const struct engine_model *m, double f, enum gtype base, enum gtype down) {
    double h = m->hidden;
    return (m->gated ? 2.0 : 1.0) * mat(f, h, base) + mat(h, f, down);
}

/* Fill a copy of model m with the bytes llama-quantize gives it under mix
 * x, as a model file would (file_bytes and the per-layer sizes); false
 * when m has no architecture or too many layers. */
bool engine_gguf_mix_model(const struct engine_model *m, enum engine_gguf_mix x,
                           struct engine_model *out) {
    *out = *m;
    if (!m->has_arch || x == ENGINE_MIX_NONE || (unsigned)x >= ENGINE_MIX_COUNT || m->layers == 0 ||
        m->layers > ENGINE_FILE_LAYERS_MAX || m->file_bytes)
        return false;
    double h = m->hidden, a = m->heads, n = m->layers;
    double d = m->head_dim ? m->head_dim : h / a, kv = m->kv_heads ? m->kv_heads : a;
    enum gtype base = base_type(x);
    double fe = m->moe_ffn ? m->moe_ffn : m->ffn;
    out->file_bytes = true;
    out->file_layer_params = out->file_expert_params = out->file_expert_bytes = 0;
    for (uint32_t i = 0; i < m->layers; i++) {
        double params = engine_params_layer(m, i, false), bytes, matp;
        enum gtype down = type_ffn_down(x, i, n);
        if (m->kv_lora_rank) {
            double qk = (double)m->nope_dim + m->rope_dim;
            double q =
                m->q_lora_rank ? h * m->q_lora_rank + (double)m->q_lora_rank * a * qk : h * a * qk;
            double kvp = h * ((double)m->kv_lora_rank + m->rope_dim) +
                         (double)m->kv_lora_rank * a * ((double)m->nope_dim + m->v_head_dim);
            bytes =
                (q + kvp) * type_bits(base) / 8.0 + mat(h, a * m->v_head_dim, type_attn_o(m, x));
            matp = q + kvp + a * m->v_head_dim * h;
        } else {
            bytes = mat(a * d, h, base) + mat(kv * d, h, base) +
                    mat(kv * d, h, type_attn_v(m, x, i, n)) + mat(h, a * d, type_attn_o(m, x));
            matp = 2.0 * a * d * h + 2.0 * kv * d * h;
        }
        bool moe = m->experts && i >= m->dense_layers;
        if (moe) {
            double e = m->experts, ex = e * mlp_bytes(m, fe, base, down);
            double ep = e * (m->gated ? 3.0 : 2.0) * h * fe;
            bytes += ex + m->shared_experts * mlp_bytes(m, fe, base, down);
            matp += ep + m->shared_experts * (m->gated ? 3.0 : 2.0) * h * fe;
            out->file_expert_params += ep;
            out->file_expert_bytes += ex;
        } else {
            bytes += mlp_bytes(m, m->ffn, base, down);
            matp += (m->gated ? 3.0 : 2.0) * h * m->ffn;
        }
        /* Norms, biases and the router stay F32. */
        bytes += fmax(0, params - matp) * 4.0;
        out->file_layer_bytes[i] = bytes;
        out->file_layer_params += params;
    }
    /* The embedding in the base type, the output in Q6_K; a tied embedding
     * is the output (Q6_K), and the head then holds the final norm only. */
    double v = m->vocab, pos = (double)m->pos_embeddings * h;
    double norm = m->norm == ENGINE_NORM_LAYER ? 2.0 * h : h;
    out->file_embed_params = v * h + pos;
    out->file_embed_bytes = mat(v, h, m->tied ? T_Q6_K : base) + pos * 4.0;
    out->file_head_params = norm + (m->tied ? 0 : v * h);
    out->file_head_bytes = norm * 4.0 + (m->tied ? 0 : mat(v, h, T_Q6_K));
    out->file_params = out->file_layer_params + out->file_embed_params + out->file_head_params;
    return true;
}
