/*
 * serving.c: what a serving runtime reports at start-up from the memory
 * engine/memory.c counted: vLLM's KV blocks, concurrency and longest
 * request (vLLM kv_cache_utils.py; the runtime's buffers and defaults are
 * in engine/runtime.c, below).
 */
#include <math.h>

#include "engine/internal.h"

/* The serving figures vLLM prints at start-up, from the fullest stage's
 * memory (kv_cache_utils.py): blocks of the available KV, the concurrency
 * at max_model_len, the longest max_model_len one request fits in. */
void engine_vllm_blocks(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &e->serving;
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double bs = sc->serving.block_size;
    double page_layers = bs * engine_kv_bytes_token_layer_gpu(c) * n; /* one block on every layer */
    v->available_kv_bytes = sc->gpu.memory_bytes * sc->serving.gpu_memory_utilization -
                            e->memory.weights - e->memory.overhead - e->memory.activations;
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
}
