/*
 * serving.c: what a serving runtime reports at start-up from the memory
 * engine/memory.c counted: vLLM's KV blocks, concurrency and longest
 * request (vLLM kv_cache_utils.py; the runtime's buffers and defaults are
 * in engine/runtime.c, below), SGLang's and TensorRT-LLM's pools.
 */
#include <math.h>

#include "engine/internal.h"

/* The tokens of one KV block as each runtime pages its cache: vLLM's
 * block_size, TensorRT-LLM's tokens_per_block (32, KvCacheConfig), SGLang
 * one token per slot (page_size 1). */
double engine_runtime_block(const struct engine_scenario *sc) {
    switch (sc->serving.runtime) {
    case ENGINE_RUNTIME_VLLM:
        return sc->serving.block_size;
    case ENGINE_RUNTIME_TRTLLM:
        return 32;
    default:
        return 1;
    }
}

/* The serving figures vLLM prints at start-up (and SGLang's and
 * TensorRT-LLM's pools), from the fullest stage's memory
 * (kv_cache_utils.py): blocks of the available KV, the concurrency at
 * max_model_len, the longest max_model_len one request fits in, and
 * whether the runtime would refuse to start. */
void engine_vllm_blocks(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &e->serving;
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double bs = engine_runtime_block(sc);
    double page_layers = bs * engine_kv_bytes_token_layer_gpu(c) * n; /* one block on every layer */
    v->available_kv_bytes =
        v->requested_bytes - e->memory.weights - e->memory.overhead - e->memory.activations;
    v->kv_blocks = page_layers > 0 && v->available_kv_bytes > 0
                       ? floor(v->available_kv_bytes / page_layers)
                       : 0;
    v->kv_tokens = v->kv_blocks * bs;
    double mml = sc->serving.max_model_len ? sc->serving.max_model_len : sc->context;
    v->max_model_len = mml;
    double per_req = ceil(mml / bs);
    v->max_concurrency = v->kv_blocks / per_req;
    v->max_model_len_that_fits = v->kv_blocks >= per_req ? mml : v->kv_tokens;
    v->kv_blocks_needed = c->b * ceil(c->kv_frac_ctx / bs);
    v->max_num_batched_tokens = engine_vllm_max_num_batched_tokens(sc);
    v->max_num_seqs = engine_vllm_max_num_seqs(sc);
    /* vLLM refuses without room for one request of max_model_len
     * (check_enough_kv_cache_memory); SGLang and TensorRT-LLM without a
     * positive pool ("Not enough memory", model_runner.py). */
    if (c->rt == ENGINE_RUNTIME_VLLM)
        v->runtime_refuses = v->available_kv_bytes <= 0 || v->kv_blocks < per_req;
    else
        v->runtime_refuses = v->kv_blocks < 1;
}
