/*
 * params.c: exact parameter counts from an architecture, and the derived
 * shape of a bare model size.
 *
 * Dense transformer (engine.md "Parameters"): embedding V*h (+ learned
 * positions P*h); per layer attention h*(a*d) + 2*h*(kv*d) + (a*d)*h, MLP
 * 3*h*f gated (SwiGLU) or 2*h*f, norms; final norm; output head V*h unless
 * tied. Biases: "qkv" adds a*d + 2*kv*d per layer (Qwen2), "all" also the
 * output projection h and the MLP biases f + h (2f + h gated) (GPT-3, OPT,
 * GPT-NeoX). LayerNorm carries weight and bias (2h), RMSNorm a weight (h).
 * MoE layers: E experts and S shared experts of width f_e, router h*E;
 * total parameters decide memory, active ones (k routed + shared) speed.
 * MLA (DeepSeek-V2 §2.1, V3 config): q down/up projections with a norm,
 * a joint KV down projection (kv_lora + rope) with a norm, KV up projection
 * to a*(nope + v), output a*v*h.
 * Check: Llama-3.1-8B = 8,030,261,248 exactly (tests/test_engine.c).
 */
#include <math.h>

#include "engine/internal.h"

/* Parameters of one norm of width w. */
static double norm_params(const struct engine_model *m, double w) {
    return m->norm == ENGINE_NORM_LAYER ? 2.0 * w : w;
}

/* Attention parameters of one layer. */
static double attn_params(const struct engine_model *m) {
    double h = m->hidden, a = m->heads;
    if (m->kv_lora_rank) {
        double qk = (double)m->nope_dim + m->rope_dim, q;
        if (m->q_lora_rank)
            q = h * m->q_lora_rank + m->q_lora_rank + (double)m->q_lora_rank * a * qk;
        else
            q = h * a * qk;
        double kv = h * ((double)m->kv_lora_rank + m->rope_dim) + m->kv_lora_rank +
                    (double)m->kv_lora_rank * a * ((double)m->nope_dim + m->v_head_dim);
        return q + kv + a * m->v_head_dim * h;
    }
    double d = m->head_dim ? m->head_dim : h / a;
    double kv = m->kv_heads ? m->kv_heads : a;
    double p = h * a * d + 2.0 * h * kv * d + a * d * h;
    if (m->bias != ENGINE_BIAS_NONE)
        p += a * d + 2.0 * kv * d;
    if (m->bias == ENGINE_BIAS_ALL)
        p += h;
    return p;
}

/* One MLP of intermediate width f. */
static double mlp_params(const struct engine_model *m, double f) {
    double h = m->hidden;
    double p = (m->gated ? 3.0 : 2.0) * h * f;
    if (m->bias == ENGINE_BIAS_ALL)
        p += (m->gated ? 2.0 * f : f) + h;
    return p;
}

/* Norms of one layer (pre-attention, pre-MLP, and any extra). */
static double layer_norm_params(const struct engine_model *m) {
    double n = m->norms_per_layer ? m->norms_per_layer : 2;
    double p = n * norm_params(m, m->hidden);
    if (m->qk_norm) {
        double d = m->head_dim ? m->head_dim : (double)m->hidden / m->heads;
        p += 2.0 * norm_params(m, d);
    }
    return p;
}

/* Parameters of layer i; active_only counts the k routed experts alone. */
double engine_params_layer(const struct engine_model *m, uint32_t i, bool active_only) {
    if (!m->has_arch)
        return m->layers ? m->params_size / m->layers : 0;
    double p = attn_params(m) + layer_norm_params(m);
    if (m->experts == 0 || i < m->dense_layers)
        return p + mlp_params(m, m->ffn);
    double fe = m->moe_ffn ? m->moe_ffn : m->ffn;
    double routed = active_only ? m->active_experts : m->experts;
    return p + (routed + m->shared_experts) * mlp_params(m, fe) + (double)m->hidden * m->experts;
}

/* Token and position embeddings plus the untied head and the final norm. */
double engine_params_embedding(const struct engine_model *m) {
    if (!m->has_arch)
        return 0;
    double h = m->hidden, v = m->vocab;
    double p = v * h + (double)m->pos_embeddings * h + norm_params(m, h);
    if (!m->tied)
        p += v * h;
    return p;
}

/* Sum over layers; dense layers and MoE layers each have one size. */
static double params_sum(const struct engine_model *m, bool active_only) {
    if (!m->has_arch)
        return m->params_size;
    double dense_n =
        m->experts ? (m->dense_layers < m->layers ? m->dense_layers : m->layers) : m->layers;
    double moe_n = m->layers - dense_n;
    double p = engine_params_embedding(m) + dense_n * engine_params_layer(m, 0, active_only);
    if (moe_n > 0)
        p += moe_n * engine_params_layer(m, m->dense_layers, active_only);
    return p;
}

/* Total parameters (memory). */
double engine_params_total(const struct engine_model *m) {
    return params_sum(m, false);
}

/* Active parameters per token (speed and FLOPs). */
double engine_params_active(const struct engine_model *m) {
    return params_sum(m, true);
}

/* Round x to the nearest multiple of q, at least q. */
static double round_to(double x, double q) {
    double r = floor(x / q + 0.5) * q;
    return r < q ? q : r;
}

/*
 * A bare size N gets the shape of today's model families (Llama 3, Qwen 2.5,
 * Mistral): grouped-query attention with 8 KV heads of 128, a gated (SwiGLU)
 * MLP of 3.5 h, a 128,256-token vocabulary. The depth and width follow the
 * aspect ratio h/L = 128 of engine.md's rule (N = 12 h^2 L): one continuous
 * x = (N / (12 * 128^2))^(1/3), then L = round(x) and h = 128 x rounded to
 * 128 below 1024 and to 1024 above (so a = h/128 is a multiple of 8 and every
 * TP degree inside an 8-GPU node divides the heads). L and h are each
 * rounded from x, never one from the other, so neither falls as N grows:
 * no KV cliff when the size slider moves (tests/test_engine_props.c walks a
 * fine grid). Llama 3.1: 8B -> 34 x 4096 (real 32 x 4096), 70B -> 71 x 9216
 * (80 x 8192), 405B -> 127 x 16384 (126 x 16384); GPT-3 175B -> 96 x 12288.
 */
void engine_model_from_size(struct engine_model *m, double params) {
    *m = (struct engine_model){0};
    double x = cbrt(params / (12.0 * 128.0 * 128.0));
    double hx = 128.0 * x;
    double h = round_to(hx, hx < 1024 ? 128.0 : 1024.0);
    double l = floor(x + 0.5);
    if (l < 1)
        l = 1;
    m->params_size = params;
    m->has_arch = false;
    m->derived = true;
    m->hidden = (uint32_t)h;
    m->layers = (uint32_t)l;
    m->heads = (uint32_t)(h / 128.0);
    m->kv_heads = m->heads < 8 ? m->heads : 8;
    m->head_dim = 128;
    m->ffn = (uint32_t)round_to(3.5 * h, 256.0);
    m->vocab = 128256;
    m->gated = true;
    m->norm = ENGINE_NORM_RMS;
}

/* The working shape of a model for the estimate. */
void engine_shape_of(const struct engine_model *m, struct engine_shape *s) {
    *s = (struct engine_shape){0};
    s->layers = m->layers;
    s->hidden = m->hidden;
    s->heads = m->heads;
    s->kv_heads = m->kv_heads ? m->kv_heads : m->heads;
    s->head_dim = m->head_dim ? m->head_dim : (m->heads ? (double)m->hidden / m->heads : 0);
    s->ffn = m->ffn;
    s->vocab = m->vocab;
    s->gated = m->gated;
    s->moe = m->has_arch && m->experts > 0;
    s->mla = m->has_arch && m->kv_lora_rank > 0;
    s->params_total = engine_params_total(m);
    s->params_active = engine_params_active(m);
    if (m->file_bytes && m->has_arch) {
        /* A model file counts its own tensors; the routed experts a token
         * skips are the architecture's. */
        s->params_active = m->file_params - (s->params_total - s->params_active);
        s->params_total = m->file_params;
    }
    s->qk_dim = s->mla ? (double)m->nope_dim + m->rope_dim : s->head_dim;
    s->v_dim = s->mla ? m->v_head_dim : s->head_dim;
    s->kv_elems_per_token_layer =
        s->mla ? (double)m->kv_lora_rank + m->rope_dim : 2.0 * s->kv_heads * s->head_dim;
    if (!m->has_arch) {
        s->params_dense_layer = m->layers ? m->params_size / m->layers : 0;
        s->dense_layers = m->layers;
        s->mlp_width = m->ffn;
        return;
    }
    double h = m->hidden, v = m->vocab;
    s->params_embed_in = v * h + (double)m->pos_embeddings * h;
    s->params_head = (m->tied ? 0 : v * h) + norm_params(m, h);
    if (m->file_bytes) {
        s->params_embed_in = m->file_embed_params;
        s->params_head = m->file_head_params;
    }
    s->params_dense_layer = attn_params(m) + layer_norm_params(m) + mlp_params(m, m->ffn);
    s->dense_layers = m->layers;
    s->mlp_width = m->ffn;
    if (s->moe) {
        s->dense_layers = m->dense_layers < m->layers ? m->dense_layers : m->layers;
        s->params_moe_layer = engine_params_layer(m, m->dense_layers, false);
        s->params_moe_layer_active = engine_params_layer(m, m->dense_layers, true);
        double fe = m->moe_ffn ? m->moe_ffn : m->ffn;
        s->params_experts_layer = (double)m->experts * mlp_params(m, fe);
        s->mlp_width = ((double)m->active_experts + m->shared_experts) * fe;
    }
}
