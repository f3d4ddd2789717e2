/*
 * runtime.c: what each inference runtime sets aside besides weights and KV,
 * and its defaults, each from the runtime's own source (the version named):
 *
 * vLLM 0.10.1.1 (vllm/v1/worker/gpu_worker.py determine_available_memory,
 * vllm/utils memory_profiling, vllm/v1/core/kv_cache_utils.py,
 * vllm/engine/arg_utils.py _set_default_args_v1):
 *  - requested = total memory x gpu_memory_utilization (default 0.9);
 *  - available KV = requested - (weights + torch peak increase of the
 *    profiling run + non-torch memory); CUDA graphs are captured after the
 *    KV cache is allocated, out of the 1 - utilisation headroom;
 *  - the profiling run is one forward pass of max_num_batched_tokens tokens
 *    spread over min(max_num_seqs, tokens) requests, then the sampler on
 *    those requests' logits;
 *  - page = 2 x block_size x kv_heads x head_size x dtype bytes per layer
 *    (1 x for MLA's latent), blocks = available // page // layers, KV tokens
 *    = blocks x block_size, maximum concurrency = blocks /
 *    ceil(max_model_len / block_size); when one request of max_model_len
 *    does not fit, the longest that does (estimate_max_model_len);
 *  - `vllm serve` defaults: max_num_batched_tokens 8192 and max_num_seqs
 *    1024 on GPUs of at least 70 GiB other than the A100, else 2048 and 256.
 *
 * llama.cpp (the December 2025 source with --fit: src/llama-context.cpp,
 * src/llama-kv-cache.cpp, src/llama-model.cpp, common/fit.cpp):
 *  - n_ctx is padded to a multiple of 256; KV per layer per cell is K and V
 *    rows of their ggml type (f16 2 B, q8_0 34 B per 32, q4_0 18 B per 32),
 *    on the device of its layer;
 *  - -ngl offloads layers from the top of the stack, the output layer first;
 *    the token embedding always stays in host memory;
 *  - the compute buffer is sized by reserving the graph of one ubatch
 *    (n_ubatch 512) with every token an output: the largest of the KQ
 *    scores (f32, n_kv x heads per token; absent with flash attention), the
 *    FFN interior and the logits (f32, vocab per token); the CUDA_Host
 *    compute buffer holds the ubatch's inputs;
 *  - --fit (on by default) keeps 1024 MiB free on each device.
 *  Check (a published log, Llama 3.1 8B, n_ctx 8192, n_ubatch 512, no flash
 *  attention): CUDA0 KV buffer 1024.00 MiB, compute buffer 560.00 MiB,
 *  CUDA_Host compute buffer 24.01 MiB (tests/test_serving.c).
 *
 * Ollama (llm/memory.go EstimateGPULayers, fs/ggml/ggml.go GraphSize,
 * discover: cudaMinimumMemory; docs/context-length.mdx): llama.cpp's
 * buffers sized by Ollama's own estimate, 457 MiB per-GPU minimum, one
 * layer's worth of buffer, the llama graph estimate
 * max(4 b (1 + 4 E + ctx (1 + heads)), 4 b (E + vocab)) for a full
 * offload, num_batch 512, flash attention off by default.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

static const char *const runtime_names[ENGINE_RUNTIME_COUNT] = {"plain", "vllm", "llama.cpp",
                                                                "ollama"};

/* Name of a runtime. */
const char *engine_runtime_name(enum engine_runtime r) {
    return (unsigned)r < ENGINE_RUNTIME_COUNT ? runtime_names[r] : "?";
}

/* Parse a runtime name ("llamacpp" and "llama-cpp" accepted as well). */
int engine_runtime_parse(const char *s, enum engine_runtime *out) {
    if (!s)
        return -1;
    for (int i = 0; i < ENGINE_RUNTIME_COUNT; i++)
        if (strcmp(runtime_names[i], s) == 0) {
            *out = (enum engine_runtime)i;
            return 0;
        }
    if (strcmp(s, "llamacpp") == 0 || strcmp(s, "llama-cpp") == 0) {
        *out = ENGINE_RUNTIME_LLAMACPP;
        return 0;
    }
    return -1;
}

/* Whether vLLM takes its large defaults on this GPU: at least 70 GiB and
 * not an A100 (arg_utils.py: a large max_num_batched_tokens slows the A100). */
static bool vllm_big_gpu(const struct engine_scenario *sc) {
    const char *id = sc->gpu.id, *name = sc->gpu.name;
    bool a100 = strstr(id, "a100") || strstr(name, "A100") || strstr(name, "a100");
    return sc->gpu.memory_bytes >= 70.0 * 1073741824.0 && !a100;
}

/* vLLM's chunk budget per step (`vllm serve` default for the GPU). */
uint32_t engine_vllm_max_num_batched_tokens(const struct engine_scenario *sc) {
    if (sc->serving.max_num_batched_tokens)
        return sc->serving.max_num_batched_tokens;
    return vllm_big_gpu(sc) ? 8192 : 2048;
}

/* vLLM's most sequences per step (`vllm serve` default, at most the budget). */
uint32_t engine_vllm_max_num_seqs(const struct engine_scenario *sc) {
    if (sc->serving.max_num_seqs)
        return sc->serving.max_num_seqs;
    uint32_t n = vllm_big_gpu(sc) ? 1024 : 256, t = engine_vllm_max_num_batched_tokens(sc);
    return n < t ? n : t;
}

/* llama.cpp's and Ollama's physical batch (n_ubatch, num_batch): 512. */
uint32_t engine_runtime_ubatch(const struct engine_scenario *sc) {
    return sc->serving.ubatch ? sc->serving.ubatch : 512;
}

/* Flash attention as the runtime runs it: llama.cpp's -fa auto turns it on
 * where the backend has it (CUDA, Metal); Ollama leaves it off unless
 * OLLAMA_FLASH_ATTENTION=1; vLLM always uses a flash kernel. */
bool engine_runtime_flash_attention(const struct engine_scenario *sc) {
    if (sc->serving.flash_attention >= 0)
        return sc->serving.flash_attention > 0;
    return sc->serving.runtime != ENGINE_RUNTIME_OLLAMA;
}

/* The host bandwidth used for what sits in host RAM. */
double engine_host_bandwidth(const struct engine_scenario *sc) {
    double bw = sc->serving.host_bytes_per_s;
    return isfinite(bw) && bw > 0 ? bw : ENGINE_DEFAULT_HOST_BW;
}

/* vLLM's profiled activation peak on one GPU: the forward pass of T tokens
 * (16-bit residual and normed input, then the larger of the MLP interior,
 * gate+up and their product, and the attention's q, k, v and output, each
 * split over t) against the sampler of R requests (FP32 logits and the
 * probabilities over the whole vocabulary), whichever is larger. */
double engine_vllm_activation_peak(const struct engine_shape *s, double t, double tokens,
                                   double requests, bool last_stage) {
    double qkv = (s->heads * s->qk_dim + 2.0 * s->kv_heads * s->head_dim) / t;
    if (s->mla)
        qkv = (s->heads * (s->qk_dim + s->v_dim) + s->kv_elems_per_token_layer) / t;
    double mlp = 3.0 * s->mlp_width / t;
    double forward = tokens * 2.0 * (2.0 * s->hidden + fmax(mlp, 2.0 * qkv));
    double sampler = last_stage ? requests * s->vocab * 4.0 * 2.0 : 0;
    return fmax(forward, sampler);
}

/* llama.cpp's compute buffer on a GPU holding layers: the graph of one
 * ubatch of u tokens against n_kv cells, in f32: without flash attention
 * 4 u (1 + 4 h + n_kv (1 + heads)) (the KQ scores and their mask), with it
 * 4 u 4 h; the FFN 4 u (2 f + 2 h); the logits 4 u (h + V) on the GPU that
 * holds the output layer. The largest of these. */
double engine_llamacpp_compute_buffer(const struct engine_shape *s, double t, double u,
                                      double n_kv, bool flash, bool output) {
    double h = s->hidden, heads = s->heads / t;
    double attn = flash ? 4.0 * u * 4.0 * h : 4.0 * u * (1.0 + 4.0 * h + n_kv * (1.0 + heads));
    double ffn = 4.0 * u * (2.0 * s->mlp_width / t + 2.0 * h);
    double logits = output ? 4.0 * u * (h + s->vocab) : 0;
    return fmax(attn, fmax(ffn, logits));
}

/* llama.cpp's CUDA_Host compute buffer: the ubatch's f32 inputs and their
 * copies to the device, 4 u (3 h + 5) (24.01 MiB for h = 4096, u = 512). */
double engine_llamacpp_host_buffer(const struct engine_shape *s, double u) {
    return 4.0 * u * (3.0 * s->hidden + 5.0);
}

/* Ollama's graph estimate for the llama architecture (fs/ggml GraphSize),
 * full offload: max(4 b (1 + 4 E + ctx (1 + heads)), 4 b (E + V)); with a
 * partial offload it adds the output matrix it dequantises,
 * 4 b E + max(4 b (1 + E + max(ctx, E)) + E^2 9/16 + 4 ctx (b heads +
 * d kv), 4 b (E + V) + E V 105/128). */
double engine_ollama_graph(const struct engine_shape *s, double t, double b, double ctx,
                           bool full) {
    double e = s->hidden, heads = s->heads / t, v = s->vocab;
    if (full)
        return fmax(4.0 * b * (1.0 + 4.0 * e + ctx * (1.0 + heads)), 4.0 * b * (e + v));
    double kvh = ceil(s->kv_heads / t);
    return 4.0 * b * e + fmax(4.0 * b * (1.0 + e + fmax(ctx, e)) + e * e * 9.0 / 16.0 +
                                  4.0 * ctx * (b * heads + s->head_dim * kvh),
                              4.0 * b * (e + v) + e * v * 105.0 / 128.0);
}
