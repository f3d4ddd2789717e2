/*
 * runtime.c: what each inference runtime sets aside besides weights and KV,
 * and its defaults, each from the runtime's own source (the release named;
 * `--runtime NAME@VERSION` picks a profile where releases differ).
 *
 * vLLM 0.11 (0.11 to 0.20; vllm/v1/worker/gpu_worker.py init_device and
 * determine_available_memory, vllm/utils/__init__.py memory_profiling,
 * gpu_model_runner.py profile_run, _dummy_run, _dummy_sampler_run,
 * vllm/v1/sample/ops/topk_topp_sampler.py, kv_cache_utils.py,
 * engine/arg_utils.py _set_default_args; tag v0.11.0):
 *  - the initial snapshot is taken after NCCL is set up (PR #25359), so
 *    requested = utilisation (default 0.9) x the total CUDA reports;
 *  - available KV = requested - (weights, the cos/sin cache with them, +
 *    the torch peak increase of the profile run + the non-torch increase
 *    since the snapshot); CUDA graphs are captured after the KV cache is
 *    allocated, out of the 1 - utilisation headroom (not counted);
 *  - the profile run is one forward pass of max_num_batched_tokens tokens
 *    over min(max_num_seqs, tokens) requests, then the sampler on their
 *    last tokens: 16-bit logits, their FP32 copy and, for top-k/top-p, a
 *    torch.sort of that copy (FP32 values, int64 indices) whose segmented
 *    radix sort holds an int64 iota and CUB's key and value buffers: 38
 *    bytes per (request, vocabulary entry) at the peak, the forward's
 *    hidden states still held; plus PyTorch's cuBLAS workspaces;
 *  - page = 2 x block_size x kv_heads x head_size x dtype bytes per layer
 *    (1 x for MLA's latent), blocks = available // page // layers, KV tokens
 *    = blocks x block_size, maximum concurrency = blocks /
 *    ceil(max_model_len / block_size); when one request of max_model_len
 *    does not fit, vLLM refuses to start and names the longest that does;
 *  - `vllm serve` defaults: max_num_batched_tokens 8192 and max_num_seqs
 *    1024 on GPUs of at least 70 GiB other than the A100, else 2048 and 256.
 *  Checks (llm-d-benchmark config_explorer/empirical-vllm-memory-results.md,
 *  vllm/vllm-openai:v0.11.0 on H100, max-model-len 16000, block 128):
 *  Llama-3.1-8B weights 14.99 GiB, activation 4.76, non-torch 0.13, KV
 *  51.38 GiB; Qwen3-0.6B, Qwen3-32B TP 1 and 2, Llama-3.3-70B-FP8 TP 2
 *  (tests/golden/measured_serving.txt).
 * vLLM 0.21 and later: the same, plus CUDA-graph memory estimated before
 * the KV cache is sized (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, on by
 * default since v0.21.0, PR #38284) and the default utilisation raised
 * to 0.92 in the same change.
 *
 * SGLang 0.5 (python/sglang/srt/server_args.py _handle_gpu_memory_settings
 * after PRs #10975 and #11076, September 2025; model_executor/model_runner
 * profile_max_num_token): the KV pool is what is free after loading the
 * weights less (1 - mem_fraction_static) x what was free at start;
 * mem_fraction_static defaults to (GPU MiB - reserved) / GPU MiB with
 * reserved = 512 + 1.5 max(chunked_prefill_size, 2048) + 2 cuda_graph_max_bs
 * + 1024 tp pp / 8, at least 10 GiB above 60 GiB of GPU memory.
 *
 * TensorRT-LLM 1.0 (PyTorch flow; tensorrt_llm/_torch/pyexecutor/_util.py
 * KvCacheCreator.configure_kv_cache_capacity, _cal_max_memory): KV =
 * free_gpu_memory_fraction (default 0.9) x (total - peak), the peak being
 * the weights, a profiled forward of max_num_tokens tokens and what is held
 * outside torch (the CUDA context, NCCL); blocks of 32 tokens.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

#define GIB 1073741824.0
#define MIB 1048576.0

/* Measured constants of the PyTorch runtimes, each with its source. */
/* vLLM 0.11's non-torch increase at TP 1: 0.13 GiB in all five TP 1 runs
 * of llm-d's measurements (H100, v0.11.0: Llama-3.1-8B, Qwen3-0.6B,
 * Qwen3-32B, gpt-oss-20b and -120b), whatever the model: the CUDA modules
 * and library handles loaded during the profile run. */
#define VLLM_NON_TORCH (0.13 * GIB)
/* ... and at TP 2, 0.55 and 0.54 GiB (Llama-3.3-70B-FP8, Qwen3-32B): NCCL's
 * channel buffers, allocated at the first collectives, 0.42 GiB more. A
 * ring connects each rank to two peers whatever the TP degree, so the same
 * is taken for every TP and PP above 1 (no measurement above 2). */
#define VLLM_NCCL_BUFFERS (0.42 * GIB)
/* What a PyTorch process holds before a runtime first measures free
 * memory (the CUDA context): 79.18 - 78.57 GiB in llm-d's DeepSeek-R1 run
 * on H100 ("78.57 GiB free" at start). */
#define TORCH_CUDA_CONTEXT (0.61 * GIB)

static const char *const runtime_names[ENGINE_RUNTIME_COUNT] = {"plain",  "vllm",   "llama.cpp",
                                                                "ollama", "sglang", "trtllm"};

/* Name of a runtime. */
const char *engine_runtime_name(enum engine_runtime r) {
    return (unsigned)r < ENGINE_RUNTIME_COUNT ? runtime_names[r] : "?";
}

/* Parse a runtime name ("llamacpp", "llama-cpp", "tensorrt-llm" and
 * "trt-llm" accepted as well). */
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
    if (strcmp(s, "tensorrt-llm") == 0 || strcmp(s, "trt-llm") == 0) {
        *out = ENGINE_RUNTIME_TRTLLM;
        return 0;
    }
    return -1;
}

/* "M.m[.p...]" into major * 100 + minor; -1 when not that shape. */
static long parse_release(const char *v) {
    char *end;
    if (!(*v >= '0' && *v <= '9'))
        return -1;
    long major = strtol(v, &end, 10);
    if (*end != '.' || !(end[1] >= '0' && end[1] <= '9'))
        return -1;
    long minor = strtol(end + 1, &end, 10);
    while (*end == '.' && end[1] >= '0' && end[1] <= '9')
        strtol(end + 1, &end, 10);
    if (*end || major > 999 || minor > 99)
        return -1;
    return major * 100 + minor;
}

/* NAME[@VERSION] (see engine.h). */
int engine_runtime_spec_parse(const char *s, enum engine_runtime *out, uint32_t *version) {
    char name[32];
    const char *at = s ? strchr(s, '@') : NULL;
    size_t n = at ? (size_t)(at - s) : (s ? strlen(s) : 0);
    if (!s || n == 0 || n >= sizeof name)
        return -1;
    memcpy(name, s, n);
    name[n] = '\0';
    if (engine_runtime_parse(name, out) != 0)
        return -1;
    *version = 0;
    if (!at)
        return 0;
    long r = parse_release(at + 1);
    if (r < 0)
        return -2;
    switch (*out) {
    case ENGINE_RUNTIME_VLLM:
        /* The rules changed at 0.11 (NCCL before the snapshot) and 0.21
         * (CUDA graphs profiled, utilisation 0.92); before 0.11 not modelled. */
        if (r < 11)
            return -2;
        *version = r >= 21 ? 21 : 11;
        return 0;
    case ENGINE_RUNTIME_SGLANG:
        if (r < 5)
            return -2;
        *version = 5;
        return 0;
    case ENGINE_RUNTIME_TRTLLM:
        if (r < 100) /* before 1.0 the TensorRT engine flow sized the cache otherwise */
            return -2;
        *version = 100;
        return 0;
    default:
        return -2;
    }
}

/* The profile a scenario's runtime follows (see engine.h). */
uint32_t engine_runtime_version(const struct engine_serving *v) {
    if (v->runtime_version)
        return v->runtime_version;
    switch (v->runtime) {
    case ENGINE_RUNTIME_VLLM:
        return 11;
    case ENGINE_RUNTIME_SGLANG:
        return 5;
    case ENGINE_RUNTIME_TRTLLM:
        return 100;
    default:
        return 0;
    }
}

/* "vLLM 0.11", "SGLang 0.5", "TensorRT-LLM 1.0", "llama.cpp"... */
void engine_runtime_profile_name(const struct engine_serving *v, char *buf, size_t len) {
    uint32_t r = engine_runtime_version(v);
    switch (v->runtime) {
    case ENGINE_RUNTIME_VLLM:
        snprintf(buf, len, "vLLM %u.%u", r / 100, r % 100);
        break;
    case ENGINE_RUNTIME_SGLANG:
        snprintf(buf, len, "SGLang %u.%u", r / 100, r % 100);
        break;
    case ENGINE_RUNTIME_TRTLLM:
        snprintf(buf, len, "TensorRT-LLM %u.%u", r / 100, r % 100);
        break;
    case ENGINE_RUNTIME_OLLAMA:
        snprintf(buf, len, "Ollama");
        break;
    default:
        snprintf(buf, len, "%s", engine_runtime_name(v->runtime));
    }
}

/* The memory CUDA reports for a GPU (the data sheet's when not known). */
double engine_gpu_reported_memory(const struct engine_gpu *g) {
    return engine_pos(g->memory_reported_bytes) ? g->memory_reported_bytes : g->memory_bytes;
}

/* Whether vLLM takes its large defaults on this GPU: at least 70 GiB as
 * CUDA reports it, and not an A100 (arg_utils.py: a large
 * max_num_batched_tokens slows the A100). */
static bool vllm_big_gpu(const struct engine_scenario *sc) {
    const char *id = sc->gpu.id, *name = sc->gpu.name;
    bool a100 = strstr(id, "a100") || strstr(name, "A100") || strstr(name, "a100");
    return engine_gpu_reported_memory(&sc->gpu) >= 70.0 * GIB && !a100;
}

/* SGLang's GPU-memory tier (server_args.py _handle_gpu_memory_settings):
 * chunked_prefill_size and cuda_graph_max_bs for a GPU of mib MiB. */
static void sglang_tier(double mib, uint32_t tp, double *chunk, double *graph_bs) {
    bool small_tp = tp < 4;
    if (mib < 20 * 1024) {
        *chunk = 2048, *graph_bs = 8;
    } else if (mib < 35 * 1024) {
        *chunk = 2048, *graph_bs = small_tp ? 24 : 80;
    } else if (mib < 60 * 1024) {
        *chunk = 4096, *graph_bs = small_tp ? 32 : 160;
    } else if (mib < 160 * 1024) {
        *chunk = 8192, *graph_bs = small_tp ? 256 : 512;
    } else {
        *chunk = 16384, *graph_bs = 512;
    }
}

/* The token budget of one step: vLLM's max_num_batched_tokens, SGLang's
 * chunked_prefill_size, TensorRT-LLM's max_num_tokens (8192, the LLM API's
 * BuildConfig default); given, or the runtime's default for the GPU. */
uint32_t engine_vllm_max_num_batched_tokens(const struct engine_scenario *sc) {
    if (sc->serving.max_num_batched_tokens)
        return sc->serving.max_num_batched_tokens;
    if (sc->serving.runtime == ENGINE_RUNTIME_TRTLLM)
        return 8192;
    if (sc->serving.runtime == ENGINE_RUNTIME_SGLANG) {
        double chunk, bs;
        sglang_tier(engine_gpu_reported_memory(&sc->gpu) / MIB, sc->tp, &chunk, &bs);
        return (uint32_t)chunk;
    }
    return vllm_big_gpu(sc) ? 8192 : 2048;
}

/* The most sequences per step: vLLM's `vllm serve` default (at most the
 * budget), TensorRT-LLM's max_batch_size (2048, BuildConfig), SGLang's
 * (max_running_requests, bounded by the pool: 4096 here). */
uint32_t engine_vllm_max_num_seqs(const struct engine_scenario *sc) {
    if (sc->serving.max_num_seqs)
        return sc->serving.max_num_seqs;
    if (sc->serving.runtime == ENGINE_RUNTIME_TRTLLM)
        return 2048;
    if (sc->serving.runtime == ENGINE_RUNTIME_SGLANG)
        return 4096;
    uint32_t n = vllm_big_gpu(sc) ? 1024 : 256, t = engine_vllm_max_num_batched_tokens(sc);
    return n < t ? n : t;
}

/* The runtime's memory fraction when not given (see engine.h). */
double engine_runtime_memory_fraction(const struct engine_scenario *sc) {
    const struct engine_serving *v = &sc->serving;
    if (v->gpu_memory_utilization > 0)
        return v->gpu_memory_utilization;
    switch (v->runtime) {
    case ENGINE_RUNTIME_VLLM:
        return engine_runtime_version(v) >= 21 ? 0.92 : 0.9;
    case ENGINE_RUNTIME_TRTLLM:
        return 0.9;
    case ENGINE_RUNTIME_SGLANG: {
        double mib = engine_gpu_reported_memory(&sc->gpu) / MIB, chunk, bs;
        sglang_tier(mib, sc->tp, &chunk, &bs);
        if (v->max_num_batched_tokens)
            chunk = v->max_num_batched_tokens;
        double reserved = 512 + fmax(chunk, 2048) * 1.5 + bs * 2 + sc->tp * sc->pp / 8.0 * 1024;
        if (mib > 60 * 1024)
            reserved = fmax(reserved, 10 * 1024);
        return round((mib - reserved) / mib * 1000) / 1000;
    }
    default:
        return NAN;
    }
}

/* PyTorch's cuBLAS workspace (CUBLAS_WORKSPACE_CONFIG default: 4096 KiB x
 * 8 from compute capability 9.0, else 4096 x 2 + 16 x 8 KiB) and the
 * 1 MiB cuBLASLt workspace, allocated through the caching allocator at
 * the first matmul (aten/src/ATen/cuda/CublasHandlePool.cpp). The catalog
 * has no compute capability: GPUs with FP8 tensor cores take the larger
 * (Ada's 8.9 keeps the smaller: 24 MiB over there). */
static double cublas_workspace(const struct engine_gpu *g) {
    double kib = engine_pos(g->flops[ENGINE_COMPUTE_FP8]) ? 4096.0 * 8 : 4096.0 * 2 + 16.0 * 8;
    return kib * 1024 + MIB;
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

/* The forward pass of a profile run on one GPU: T tokens of 16-bit
 * residual and normed input, then the larger of the MLP interior (gate+up
 * and their product) and the attention's q, k, v and output, each split
 * over t. */
double engine_runtime_forward_peak(const struct engine_shape *s, double t, double tokens) {
    double qkv = (s->heads * s->qk_dim + 2.0 * s->kv_heads * s->head_dim) / t;
    if (s->mla)
        qkv = (s->heads * (s->qk_dim + s->v_dim) + s->kv_elems_per_token_layer) / t;
    double mlp = 3.0 * s->mlp_width / t;
    return tokens * 2.0 * (2.0 * s->hidden + fmax(mlp, 2.0 * qkv));
}

/* vLLM's sampler warm-up on R requests after a forward of T tokens
 * (gpu_model_runner.py _dummy_sampler_run; sampler.py; topk_topp_sampler.py
 * apply_top_k_top_p; PyTorch's SortStable.cu segmented_sort_pairs): the
 * T x h hidden states still held, a random R x h copy and the R last ones
 * (16-bit), and per (request, vocabulary entry) 2 B of 16-bit logits + 4 B
 * of their FP32 copy + logits.sort's 4 B values and 8 B int64 indices +
 * the sort's 8 B int64 iota + CUB's 4 + 8 B key and value buffers = 38 B.
 * The logits are gathered whole on every TP rank. */
double engine_vllm_sampler_peak(const struct engine_shape *s, double tokens, double requests) {
    return 2.0 * tokens * s->hidden + 2.0 * 2.0 * requests * s->hidden + 38.0 * requests * s->vocab;
}

/* vLLM's CUDA graphs, as 0.21's profiler estimates them before the KV
 * cache: given (--cuda-graph-memory, the "Estimated CUDA graph memory" of a
 * log), else 0.25 GiB + 15 MiB per captured graph, a fit to the estimates
 * four published vLLM >= 0.21 logs print (86 graphs 1.58 GiB, 14 graphs
 * 0.61, 16 graphs 0.36, 4 graphs 0.30); the graphs: the piecewise sizes
 * 1, 2, 4, 8..256 by 8, 272.. by 16 up to min(2 max_num_seqs, 512), and
 * the full decode graphs of those up to max_num_seqs. */
static double vllm_cuda_graphs(const struct engine_scenario *sc) {
    if (engine_pos(sc->serving.cuda_graph_bytes))
        return sc->serving.cuda_graph_bytes;
    double seqs = engine_vllm_max_num_seqs(sc), tokens = engine_vllm_max_num_batched_tokens(sc);
    double top = fmin(fmin(2 * seqs, 512), tokens), graphs = 0;
    for (double b = 1; b <= top; b = b < 4 ? b * 2 : b == 4 ? 8 : b < 256 ? b + 8 : b + 16)
        graphs += 1 + (b <= seqs);
    return 0.25 * GIB + 15 * MIB * graphs;
}

/* The cos/sin cache vLLM registers with the model (RotaryEmbedding
 * _compute_cos_sin_cache): max_position_embeddings x rotary dim in the
 * model's 16-bit dtype, on every TP rank; part of "Model loading took". */
static double rotary_cache(const struct engine_ctx *c) {
    const struct engine_model *m = &c->sc->model;
    double pos = m->max_context ? m->max_context : c->sc->context;
    double dim = c->s.mla ? m->rope_dim : c->s.head_dim;
    return pos * dim * 2.0;
}

/* Start-up memory of vLLM, SGLang or TensorRT-LLM on GPU stage i (see
 * internal.h): mem->weights gains vLLM's rotary cache; mem->overhead the
 * buffers counted before the KV cache; mem->reserve what the runtime
 * leaves outside its request; est->serving the parts. */
void engine_runtime_memory(const struct engine_ctx *c, double i, struct engine_memory *mem,
                           struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &est->serving;
    bool last = i == c->p - 1;
    double total = engine_gpu_reported_memory(&sc->gpu);
    double frac = engine_runtime_memory_fraction(sc);
    double tokens = engine_vllm_max_num_batched_tokens(sc);
    double reqs = fmin(engine_vllm_max_num_seqs(sc), tokens);
    double nccl = c->t * c->p > 1 ? VLLM_NCCL_BUFFERS : 0;
    v->memory_reported_bytes = total;
    v->memory_fraction = frac;
    v->cublas_workspace_bytes = cublas_workspace(&sc->gpu);
    v->forward_peak_bytes = engine_runtime_forward_peak(&c->s, c->t, tokens);
    v->sampler_peak_bytes = 0;
    v->rotary_cache_bytes = NAN;
    v->cuda_graph_bytes = NAN;
    v->cuda_context_bytes = NAN;
    switch (c->rt) {
    case ENGINE_RUNTIME_VLLM: {
        v->rotary_cache_bytes = rotary_cache(c);
        mem->weights += v->rotary_cache_bytes;
        if (last)
            v->sampler_peak_bytes = engine_vllm_sampler_peak(&c->s, tokens, reqs);
        v->activation_peak_bytes =
            fmax(v->forward_peak_bytes, v->sampler_peak_bytes) + v->cublas_workspace_bytes;
        v->non_torch_bytes = VLLM_NON_TORCH + nccl;
        v->requested_bytes = frac * total;
        mem->overhead = v->activation_peak_bytes + v->non_torch_bytes;
        if (engine_runtime_version(&sc->serving) >= 21) {
            v->cuda_graph_bytes = vllm_cuda_graphs(sc);
            mem->overhead += v->cuda_graph_bytes;
        }
        break;
    }
    case ENGINE_RUNTIME_SGLANG:
        /* Free at start (after the CUDA context), its static fraction for
         * weights and pool; activations and CUDA graphs live in the rest. */
        v->cuda_context_bytes = TORCH_CUDA_CONTEXT;
        v->requested_bytes = frac * (total - TORCH_CUDA_CONTEXT);
        v->activation_peak_bytes = NAN;
        v->non_torch_bytes = NAN;
        mem->overhead = 0;
        break;
    case ENGINE_RUNTIME_TRTLLM:
    default:
        /* fraction x (total - weights - forward peak - held outside torch). */
        v->cuda_context_bytes = TORCH_CUDA_CONTEXT;
        v->activation_peak_bytes = v->forward_peak_bytes + v->cublas_workspace_bytes;
        v->non_torch_bytes = TORCH_CUDA_CONTEXT + nccl;
        mem->overhead = v->activation_peak_bytes + v->non_torch_bytes;
        v->requested_bytes =
            mem->weights + mem->overhead + fmax(0, frac * (total - mem->weights - mem->overhead));
        break;
    }
    /* What the runtime leaves outside its request: the rest of the total
     * and what the data sheet has beyond what CUDA reports. */
    mem->reserve = sc->gpu.memory_bytes - v->requested_bytes;
    v->overhead_bytes = mem->overhead;
}

/* llama.cpp's compute buffer on a GPU holding layers: the graph of one
 * ubatch of u tokens against n_kv cells, in f32: without flash attention
 * 4 u (1 + 4 h + n_kv (1 + heads)) (the KQ scores and their mask), with it
 * 4 u 4 h; the FFN 4 u (2 f + 2 h); the logits 4 u (h + V) on the GPU that
 * holds the output layer. The largest of these. */
double engine_llamacpp_compute_buffer(const struct engine_shape *s, double t, double u, double n_kv,
                                      bool flash, bool output) {
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
