/*
 * internal.h: helpers shared by the engine's own files; not for front ends.
 */
#ifndef VRAMLAB_ENGINE_INTERNAL_H
#define VRAMLAB_ENGINE_INTERNAL_H

#include "engine/engine.h"

/* The shape the estimate works with: the model's own, or derived from a size. */
struct engine_shape {
    double layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    double params_total, params_active;
    double params_embed_in;                      /* token (+ position) embedding */
    double params_head;                          /* output head (0 when tied) + final norm */
    double params_dense_layer, params_moe_layer; /* totals per layer */
    double params_moe_layer_active, params_experts_layer; /* routed experts only */
    double dense_layers;                                  /* layers with a dense MLP */
    double mlp_width;                /* intermediate width a token flows through */
    double qk_dim, v_dim;            /* per-head dims of scores and values (MLA differs) */
    double kv_elems_per_token_layer; /* stored KV elements per token per layer */
    bool gated, moe, mla;
};

/* Fill the working shape of a model (has_arch or bare size). */
void engine_shape_of(const struct engine_model *m, struct engine_shape *s);

/* Runtime buffers (engine/runtime.c); bytes per GPU, t the TP degree. */
double engine_vllm_activation_peak(const struct engine_shape *s, double t, double tokens,
                                   double requests, bool last_stage);
double engine_llamacpp_compute_buffer(const struct engine_shape *s, double t, double u,
                                      double n_kv, bool flash, bool output);
double engine_llamacpp_host_buffer(const struct engine_shape *s, double u);
double engine_ollama_graph(const struct engine_shape *s, double t, double b, double ctx,
                           bool full);

/* ZeRO, memory conventions and offload (engine/zero.c). */
uint32_t engine_zero_validate(const struct engine_scenario *sc);
double engine_largest_layer_of(const struct engine_model *m, const struct engine_shape *s,
                               bool embed, bool head, double dense_layers, double moe_layers);
void engine_zero_states_of(const struct engine_scenario *sc, const struct engine_recipe_info *r,
                           double params, double largest, struct engine_memory *mem);
/* GPU <-> host bytes of one GPU per step: w weight bytes, params its parameters. */
double engine_offload_bytes(const struct engine_scenario *sc, double w, double params,
                            double micro);

/* Ceiling division and divisibility on unsigned counts. */
static inline uint32_t engine_ceil_div(uint32_t a, uint32_t b) {
    return b ? (a + b - 1) / b : 0;
}

#endif
