/*
 * explain.c: every output's formula, the values substituted, and the source.
 *
 * The table below is the single list of output keys: their JSON path, a
 * short label, the formula and where it comes from. engine_explain() fills
 * the values on demand so the estimate path stays pure arithmetic. Numbers
 * in the value strings are printed with 4 significant digits; the JSON
 * carries the exact values.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/internal.h"

struct key_info {
    const char *name, *label, *formula, *source;
    bool training; /* applies to training modes (else inference), unless both */
    bool both;
    unsigned runtimes; /* inference keys of some runtimes only: RT() bits; 0 = every runtime */
};

#define RT(r) (1u << (r))
#define RT_GGML (RT(ENGINE_RUNTIME_LLAMACPP) | RT(ENGINE_RUNTIME_OLLAMA))
#define RT_PAGED (RT(ENGINE_RUNTIME_VLLM) | RT(ENGINE_RUNTIME_SGLANG) | RT(ENGINE_RUNTIME_TRTLLM))
#define RT_PROFILED (RT(ENGINE_RUNTIME_VLLM) | RT(ENGINE_RUNTIME_TRTLLM))

static const struct key_info keys[ENGINE_KEY_COUNT] = {
    [ENGINE_KEY_PARAMS_TOTAL] =
        {"params.total", "parameters",
         "embedding V*h + L * (attention + MLP + norms) + head V*h (unless tied); a bare size N "
         "is N, its shape derived: x = (N / (12 * 128^2))^(1/3), L = round(x), h = 128 x rounded "
         "to 128 (1024 above 1024), a = h/128, 8 KV heads of 128, gated MLP 3.5 h, V = 128256",
         "engine.md Parameters; HF config.json of the model; Llama 3 shapes (GQA 8 KV heads, "
         "SwiGLU, 128K vocabulary)",
         false, true},
    [ENGINE_KEY_PARAMS_ACTIVE] =
        {"params.active", "active parameters",
         "as params.total with only the k routed (+ shared) experts of each MoE layer",
         "engine.md Parameters (MoE)", false, true},
    [ENGINE_KEY_MEM_WEIGHTS] =
        {"memory.weights", "weights",
         "params on the GPU * bits per weight / 8 (training: recipe bytes; / d under ZeRO-3); "
         "K/V projections of whole heads per TP rank (replicated when t exceeds the KV heads); "
         "--ep: routed experts / (t * ep), sharded over d / ep",
         "seed 000: M = N * b; INT4 = 4 + 16/32 = 4.5 bits; vLLM QKVParallelLinear (KV head "
         "replicas); Megatron-LM theoretical_memory_usage.py (experts / (etp * ep))",
         false, true},
    [ENGINE_KEY_MEM_KV_CACHE] =
        {"memory.kv_cache", "KV cache",
         "2 * layers * kv_heads * head_dim * context * batch * bytes (per GPU: layers/p, kv/t)",
         "engine.md KV cache; GQA (Ainslie et al. 2023)", false, true},
    [ENGINE_KEY_MEM_ACTIVATIONS] =
        {"memory.activations", "activations",
         "per-layer activations * layers held + logits 4*s*b*V/t (inference: one step's logits)",
         "Korthikanti et al. 2022 §4", false, true},
    [ENGINE_KEY_MEM_GRADIENTS] = {"memory.gradients", "gradients",
                                  "params on the GPU * gradient bytes (/ d under ZeRO-2 and 3); "
                                  "--memory-convention deepspeed adds the FP32 copy Adam steps on "
                                  "(4 B / d), megatron keeps FP32 main gradients (4 B) instead",
                                  "ZeRO (Rajbhandari et al. 2020) §3.1, §5; DeepSpeed v0.17 "
                                  "stage_1_and_2.py; Megatron-LM theoretical_memory_usage.py",
                                  false, true},
    [ENGINE_KEY_MEM_MASTER] = {"memory.master_weights", "master weights",
                               "params on the GPU * master-copy bytes (/ d under ZeRO-1, 2, 3)",
                               "Micikevicius et al. 2018; ZeRO §3.1", false, true},
    [ENGINE_KEY_MEM_OPTIMIZER] =
        {"memory.optimizer", "optimizer",
         "params on the GPU * optimizer bytes (Adam: 2 x 4; Lion, SGD: 4) (/ d under ZeRO-1, 2, "
         "3); Adafactor: 4 bytes * (rows + columns) per matrix, whole vectors",
         "Kingma and Ba 2015; ZeRO §3.1 (K = 12 with the master copy); Lion (Chen et al. 2023) "
         "§2; Adafactor (Shazeer and Stern 2018) §3",
         false, true},
    [ENGINE_KEY_MEM_RESERVE] = {"memory.reserve", "reserve",
                                "fixed reserve for the CUDA context and allocator slack",
                                "vramlab default (--reserve)", false, true},
    [ENGINE_KEY_MEM_TOTAL] =
        {"memory.total", "total per GPU",
         "weights + KV cache + activations + gradients + master + optimizer + reserve + runtime "
         "buffers + ZeRO-3 gathered layer + FP8 weight copies; --memory-convention peak: the "
         "step's peak, the activations held and the transients of the phase that peaks + the "
         "allocator's waste",
         "engine.md; torchtitan metrics.py (max_memory_reserved) for the peak",
         false, true},
    [ENGINE_KEY_CAPACITY] = {"capacity", "capacity", "GPU memory from the catalog (bytes)",
                             "GPU data sheet; seed 000: \"80 GB\" = 80 * 2^30 bytes", false, true},
    [ENGINE_KEY_FITS] = {"fits", "fits", "memory.total <= capacity", "engine.md", false, true},
    [ENGINE_KEY_DECODE_TOKENS] =
        {"decode.tokens_per_s", "decode tokens/s",
         "min(memory-bound * bw efficiency, compute-bound * FLOP/s efficiency)",
         "engine.md Speed ceilings", false, false},
    [ENGINE_KEY_DECODE_MEMORY_BOUND] =
        {"decode.tokens_per_s_memory_bound", "memory-bound ceiling",
         "dp * batch / (p * bytes read per GPU per step / bandwidth + 2 * L * latency if t > 1)",
         "seed 000: 3350 GB/s / 16 GB = 209 tokens/s", false, false},
    [ENGINE_KEY_DECODE_COMPUTE_BOUND] =
        {"decode.tokens_per_s_compute_bound", "compute-bound ceiling",
         "G * peak FLOP/s / (2 * N_active + 2 * L * ctx * a * (d_qk + d_v))",
         "engine.md Speed ceilings", false, false},
    [ENGINE_KEY_DECODE_PER_SEQUENCE] = {"decode.tokens_per_s_per_sequence", "per sequence",
                                        "decode.tokens_per_s / (dp * batch)",
                                        "engine.md Speed ceilings", false, false},
    [ENGINE_KEY_DECODE_BYTES_PER_STEP] =
        {"decode.bytes_per_step", "bytes per step",
         "weights read per GPU (MoE: experts the batch touches) + KV cache per GPU",
         "seed 000: each step reads all the weights", false, false},
    [ENGINE_KEY_RIDGE] = {"decode.ridge_flop_per_byte", "ridge point", "peak FLOP/s / bandwidth",
                          "seed 000: 989e12 / 3.35e12 = 295 FLOP/byte (Williams et al. 2009)",
                          false, true},
    [ENGINE_KEY_COMPUTE_BOUND_BATCH] =
        {"decode.compute_bound_batch", "compute-bound batch",
         "ridge * bytes per weight / 2 (a matrix-vector product does 2 FLOP per weight)",
         "seed 000: ~590 FLOP per 2-byte parameter, 2 used", false, false},
    [ENGINE_KEY_KV_PER_TOKEN] =
        {"kv_cache.bytes_per_token", "KV per token",
         "2 * layers * kv_heads * head_dim * bytes (MLA: layers * (kv_lora + rope) * bytes)",
         "engine.md KV cache; DeepSeek-V2 §2.1", false, true},
    [ENGINE_KEY_ACT_PER_LAYER] =
        {"activations.per_layer_bytes", "activations per layer",
         "s*b*h*(10 + (4 + 4*kv/a + c*f/h)/t + 5*a*s/(h*t)), c = 4 plain or 6 gated (K, V: "
         "4*ceil(kv/t)/a where t exceeds the KV heads); selective drops 5as/h, full keeps 2sbh "
         "per checkpoint (uniform: one per N layers; block: N layers of the stage, the rest "
         "whole); SP divides all by t",
         "Korthikanti et al. 2022 §4, Table 2 (34 = 10 + 24 for GPT shapes); Megatron-LM "
         "--recompute-method, --recompute-num-layers",
         true, false},
    [ENGINE_KEY_ACT_LAYERS_HELD] =
        {"activations.layers_held", "layers held",
         "layers of the stage * in-flight micro-batches min(m, p - stage) (1F1B); interleaved "
         "with v chunks min(m v, (v-1) p + 2 (p - stage - 1) + 1) / v: the first stage p (1 + "
         "(p-1)/(p v))",
         "Narayanan et al. 2021 §2.2; Korthikanti et al. 2022 §4.2.3; Megatron-LM "
         "theoretical_memory_usage.py (interleaved schedule memory penalty)",
         true, false},
    [ENGINE_KEY_ACT_LOGITS] = {"activations.logits_bytes", "logits",
                               "4 * s/cp * b * V / t (FP32 logits on the last stage); "
                               "--memory-convention peak: the loss's working set at the phase "
                               "that peaks",
                               "Korthikanti et al. 2022 §4.3", false, true},
    [ENGINE_KEY_PREFILL] =
        {"prefill.seconds", "prefill",
         "sum over the runtime's steps of max(compute (2 N_active c + L a (d_qk + d_v) "
         "((s+c)^2 - s^2)) / (t peak), bytes (weights + KV read and written) / bandwidth) + 2 "
         "TP all-reduces per layer of c h 2 bytes; p stages pipeline the steps: + (p - 1) * "
         "(longest step + hand-off of c h 2 bytes)",
         "llm-analysis (cli99) prefill latency (max of compute and memory, TP all-reduce); "
         "GPipe-style pipelining; steps: vLLM max_num_batched_tokens, llama.cpp n_ubatch",
         false, false},
    [ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN] =
        {"training.flops_per_token", "model FLOP per token",
         "6 * N + 6 * L * s * a * (d_qk + d_v) (= 12 L h s: causal self-attention counted whole, "
         "forward and backward; LoRA 4 * N + the same; --flops-model 6n: 6 * N alone); "
         "recompute never counts",
         "PaLM (Chowdhery et al. 2022) appendix B; Narayanan et al. 2021 eq. 3 (1 + s/6h); "
         "Kaplan et al. 2020 (6 N)",
         true, false},
    [ENGINE_KEY_TRAIN_STEP] =
        {"training.step_seconds", "step time",
         "--mfu given (end to end): model FLOP per token * tokens per step / (G * peak * MFU), "
         "nothing added; else m * the slowest stage's time per micro-batch (its share of the "
         "hardware FLOPs at the kernel efficiency, GEMMs at the FP8 rate under --format fp8, "
         "attention at --attention-efficiency, + its FP8 casts and MoE routing) / (1 - bubble) + TP comm + PP comm + EP all-to-all + CP ring not hidden + "
         "the DP comm the backward pass cannot hide (+ offload)",
         "PaLM appendix B and Llama 3 (MFU end to end); GPipe bubble; Narayanan et al. 2021 "
         "§2.2; Megatron-LM", true, false},
    [ENGINE_KEY_TRAIN_BUBBLE] = {"training.bubble_fraction", "pipeline bubble",
                                 "(p - 1) / (v * m + p - 1)",
                                 "GPipe (Huang et al. 2019); Narayanan et al. 2021 §2.2", true,
                                 false},
    [ENGINE_KEY_TRAIN_TP_COMM] = {"training.tp_comm_seconds", "TP communication",
                                  "4 all-reduces per layer per micro-batch * (2 (t-1)/t * 2 s b h "
                                  "/ (link BW / 2) + latency)",
                                  "Megatron-LM (Shoeybi et al. 2019) §3", true, false},
    [ENGINE_KEY_TRAIN_DP_COMM] =
        {"training.dp_comm_seconds", "DP communication",
         "2 (d-1)/d * gradient bytes per GPU / one-way link BW (inter-node, or half the NVLink "
         "figure inside a node; x1.5 under ZeRO-3)",
         "ring all-reduce; ZeRO §7", true, false},
    [ENGINE_KEY_TRAIN_DAYS] = {"training.days", "training days",
                               "tokens / tokens per step * step time / 86400; with --throughput "
                               "(seed 002): tokens / throughput / 86400, tokens = examples * "
                               "tokens each * epochs",
                               "engine.md; Llama 3.1 405B: 16,384 H100 at 38-43% MFU; seed 002 "
                               "Training Time = (Dataset Size x Epochs) / Throughput",
                               true, false},
    [ENGINE_KEY_TRAIN_GPU_HOURS] = {"training.gpu_hours", "GPU-hours",
                                    "training seconds / 3600 * G", "engine.md", true, false},
    [ENGINE_KEY_DECODE_FLOPS_PER_TOKEN] =
        {"decode.flops_per_token", "FLOP per token",
         "2 * N_active (a multiply and an add per weight) + 2 * L * ctx * a * (d_qk + d_v) "
         "(attention)",
         "seed 000: a matrix-vector product uses each weight in 2 operations", false, false},
    [ENGINE_KEY_ARITHMETIC_INTENSITY] =
        {"decode.arithmetic_intensity", "arithmetic intensity",
         "batch * FLOP per token / (t * p) / bytes read per GPU per step",
         "roofline model (Williams et al. 2009); compare with the ridge point", false, false},
    [ENGINE_KEY_TRAIN_TOKENS_PER_STEP] = {"training.tokens_per_step", "tokens per step",
                                          "batch * micro-batches * d * context",
                                          "engine.md Parallelism", true, false},
    [ENGINE_KEY_TRAIN_COST] = {"training.cost_usd", "cost", "GPU-hours * price per GPU-hour",
                               "catalog price (on-demand) or --price", true, false},
    [ENGINE_KEY_MEM_OVERHEAD] =
        {"memory.overhead", "runtime buffers",
         "plain 0; vLLM activation peak of a profiling run of max_num_batched_tokens + non-torch "
         "memory (+ CUDA graphs from 0.21); TensorRT-LLM forward peak + memory outside torch; "
         "SGLang 0 (its reserve holds them); llama.cpp compute buffer; Ollama graph + one "
         "layer's worth",
         "vLLM 0.11 gpu_worker.py determine_available_memory; TensorRT-LLM 1.0 _util.py "
         "configure_kv_cache_capacity; llama.cpp llama-context.cpp graph reserve; Ollama "
         "llm/memory.go EstimateGPULayers",
         false, true},
    [ENGINE_KEY_MEM_HOST] =
        {"memory.host", "host RAM",
         "inference: layers not on a GPU (weights and their KV) + --n-cpu-moe experts + the "
         "embedding and head where not on a GPU + llama.cpp's host compute buffer (per replica); "
         "training: this GPU's share of the states --offload moves to host RAM (not in total)",
         "llama.cpp llama-model.cpp (-ngl from the top, token embedding on the CPU), "
         "llama-kv-cache.cpp (KV on its layer's device); ZeRO-Offload (Ren et al. 2021) §4; "
         "DeepSpeed v0.17 memory.rst",
         false, true},
    [ENGINE_KEY_SERVING_TTFT] =
        {"serving.ttft_s", "time to first token",
         "the prompt's prefill while batch - 1 other sequences decode: each step carries their "
         "tokens and up to (step budget - their count) prompt tokens (plain: one step)",
         "vLLM V1 scheduler (decodes first, then chunked prefill within max_num_batched_tokens); "
         "llama.cpp server continuous batching",
         false, false},
    [ENGINE_KEY_SERVING_TPOT] = {"serving.tpot_s", "time per output token",
                                 "1 / decode.tokens_per_s_per_sequence at this batch",
                                 "vLLM benchmark_serving TPOT; engine.md Speed ceilings", false,
                                 false},
    [ENGINE_KEY_SERVING_AVAILABLE_KV] =
        {"serving.available_kv_bytes", "available KV cache",
         "vLLM: total CUDA reports * gpu_memory_utilization - weights - activation peak - "
         "non-torch memory (- CUDA graphs from 0.21); SGLang: mem_fraction_static * free at "
         "start - weights; TensorRT-LLM: free_gpu_memory_fraction * (total - weights - forward "
         "peak - outside torch)",
         "vLLM 0.11 gpu_worker.py determine_available_memory (\"Available KV cache memory\"); "
         "SGLang 0.5 model_runner.py profile_max_num_token; TensorRT-LLM 1.0 _util.py "
         "_cal_max_memory",
         false, false, RT_PAGED},
    [ENGINE_KEY_SERVING_KV_BLOCKS] =
        {"serving.kv_blocks", "KV blocks",
         "floor(available KV / (2 * block_size * kv_heads_per_gpu * head_dim * bytes) / layers) "
         "(TensorRT-LLM blocks of 32 tokens, SGLang one token a slot)",
         "vLLM 0.11 kv_cache_utils.py get_num_blocks; kv_cache_interface.py page_size_bytes; "
         "TensorRT-LLM KvCacheConfig tokens_per_block",
         false, false, RT_PAGED},
    [ENGINE_KEY_SERVING_KV_TOKENS] = {"serving.kv_tokens", "KV cache tokens",
                                      "KV blocks * block_size",
                                      "vLLM 0.11 kv_cache_utils.py (\"GPU KV cache size: N "
                                      "tokens\")",
                                      false, false, RT_PAGED},
    [ENGINE_KEY_SERVING_MAX_CONCURRENCY] =
        {"serving.max_concurrency", "maximum concurrency",
         "KV blocks / ceil(max_model_len / block_size)",
         "vLLM 0.11 kv_cache_utils.py get_max_concurrency_for_kv_cache_config (\"Maximum "
         "concurrency for N tokens per request\")",
         false, false, RT_PAGED},
    [ENGINE_KEY_SERVING_MAX_MODEL_LEN] =
        {"serving.max_model_len_that_fits", "longest max_model_len",
         "max_model_len when one request of it fits the KV blocks, else KV blocks * block_size",
         "vLLM 0.11 kv_cache_utils.py check_enough_kv_cache_memory, estimate_max_model_len",
         false, false, RT_PAGED},
    [ENGINE_KEY_SERVING_COMPUTE_BUFFER] =
        {"serving.compute_buffer_bytes", "compute buffer",
         "llama.cpp: max(4 u (1 + 4 h + n_kv (1 + heads/t)) (no flash attention) or 4 u 4 h, "
         "4 u (2 f/t + 2 h), 4 u (h + V) on the output's GPU); Ollama: its llama graph estimate",
         "llama.cpp graph reserve of one ubatch (a published log: Llama 3.1 8B, n_ctx 8192: "
         "560.00 MiB); Ollama fs/ggml GraphSize",
         false, false, RT_GGML},
    [ENGINE_KEY_SERVING_OVERHEAD] = {"serving.overhead_bytes", "runtime overhead",
                                     "memory.overhead: the runtime's buffers per GPU",
                                     "see memory.overhead", false, false},
    [ENGINE_KEY_SERVING_GPU_LAYERS] =
        {"serving.gpu_layers", "layers on the GPUs",
         "--gpu-layers, or the most that fit (llama.cpp --fit with a 1 GiB margin per device, "
         "Ollama's scheduler), else all; the output layer goes with the first",
         "llama.cpp common/fit.cpp, llama-model.cpp; Ollama llm/memory.go", false, false},
    [ENGINE_KEY_SERVING_HOST_BW] =
        {"serving.host_bytes_per_s", "host bandwidth",
         "decode step = GPU bytes / GPU bandwidth + host bytes / host bandwidth",
         "--host-bandwidth, the catalog CPU (--host-cpu), the Measure pane; else 80 GB/s "
         "(dual-channel DDR5-5000)",
         false, false},
    [ENGINE_KEY_SERVING_MEMORY_REPORTED] =
        {"serving.memory_reported_bytes", "memory CUDA reports",
         "the GPU's total as torch.cuda.mem_get_info reports it (what ECC and the driver keep "
         "is not in it); the data sheet's when the catalog does not know it",
         "catalog gpus.yaml memory_reported (H100 80GB: 79.18 GiB, llm-d's vLLM logs)", false,
         false, RT_PAGED},
    [ENGINE_KEY_SERVING_REQUESTED] =
        {"serving.requested_bytes", "requested by the runtime",
         "vLLM: gpu_memory_utilization * reported total; SGLang: mem_fraction_static * (reported "
         "- CUDA context); TensorRT-LLM: weights + peak + free_gpu_memory_fraction * the rest",
         "vLLM 0.11 gpu_worker.py init_device (requested_memory); SGLang 0.5 server_args.py "
         "(mem_fraction_static = (GPU MiB - reserved) / GPU MiB); TensorRT-LLM 1.0 KvCacheConfig",
         false, false, RT_PAGED},
    [ENGINE_KEY_SERVING_ROTARY_CACHE] =
        {"serving.rotary_cache_bytes", "rotary cos/sin cache",
         "max_position_embeddings * rotary dim * 2 B, on every TP rank (in the weights)",
         "vLLM rotary_embedding.py _compute_cos_sin_cache (Llama-3.1-8B: 14.96 GiB of "
         "parameters + 32 MiB = the 14.99 GiB vLLM logs)",
         false, false, RT(ENGINE_RUNTIME_VLLM)},
    [ENGINE_KEY_SERVING_ACTIVATION_PEAK] =
        {"serving.activation_peak_bytes", "profile-run activation peak",
         "max(forward of T = max_num_batched_tokens tokens: 2 T (2 h + max(3 f/t, 2 qkv/t)), "
         "sampler of R = min(max_num_seqs, T) requests: 2 T h + 4 R h + 38 R V) + cuBLAS "
         "workspaces (TensorRT-LLM: the forward)",
         "vLLM 0.11 gpu_model_runner.py profile_run, _dummy_sampler_run; topk_topp_sampler.py "
         "(logits.sort); PyTorch SortStable.cu; llm-d's measurements: 4.76 GiB (Llama-3.1-8B), "
         "5.56 (Qwen3-0.6B)",
         false, false, RT_PROFILED},
    [ENGINE_KEY_SERVING_NON_TORCH] =
        {"serving.non_torch_bytes", "non-torch memory",
         "vLLM: 0.13 GiB, + 0.42 GiB of NCCL buffers above one GPU; TensorRT-LLM: the CUDA "
         "context 0.61 GiB + those buffers",
         "llm-d's vLLM 0.11.0 measurements on H100 (0.13 at TP 1 in five models, 0.55 and 0.54 "
         "at TP 2); vLLM memory_profiling non_torch_increase",
         false, false, RT_PROFILED},
    [ENGINE_KEY_SERVING_CUDA_GRAPHS] =
        {"serving.cuda_graph_bytes", "CUDA graphs",
         "vLLM 0.21+: its estimate before the KV cache (--cuda-graph-memory, else 0.25 GiB + 15 "
         "MiB per captured graph); vLLM 0.11 captures them after, in the headroom",
         "vLLM PR #38284 (v0.21.0: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on, default "
         "utilisation 0.92); a fit to four published \"Estimated CUDA graph memory\" lines",
         false, false, RT(ENGINE_RUNTIME_VLLM)},
    [ENGINE_KEY_SERVING_STEADY_CONCURRENCY] =
        {"serving.steady_concurrency", "steady-state concurrency",
         "min(KV tokens / (P + (O + 1) / 2), max_num_seqs) sequences (plain: the free memory's "
         "KV; llama.cpp/Ollama: the slots); with --request-rate r: C = r O step(C) (Little's law)",
         "continuous batching with KV blocks allocated as tokens come (vLLM, SGLang, "
         "TensorRT-LLM); Little 1961",
         false, false},
    [ENGINE_KEY_SERVING_STEADY_TOKENS] =
        {"serving.steady_tokens_per_s", "steady-state output tokens/s",
         "d C / max(bytes (weights + C (P + (O + 1) / 2) KV) / bandwidth, C (1 + P/O) FLOP per "
         "token / peak) : a ceiling for the workload",
         "trtllm-bench throughput (Total Output Throughput); roofline (Williams et al. 2009)",
         false, false},
    [ENGINE_KEY_DECODE_BATCH1] =
        {"decode.batch1_tokens_per_s", "batch-1 decode (as run)",
         "one stream: 1 / (bytes / bandwidth + kernels * 1.724 us + CPU sampler 13.6 ns * "
         "vocab (llama.cpp, Ollama)), kernels = 17 per layer (19 with q/k norms) + 3",
         "kernel cost: llama-bench tinyllama 1.1B Q4_K_M on an RTX 4090, 762 tok/s "
         "(geerlingguy/ai-benchmarks #43); sampler: issue 25's RTX 5090 3B Q4_K row, 271 tok/s",
         false, false},
    [ENGINE_KEY_PREFILL_ALLREDUCE] =
        {"prefill.allreduce_seconds", "prefill TP all-reduce",
         "steps * 2 * L * (2 (t - 1)/t * c h 2 bytes / link bandwidth + latency)",
         "Megatron-LM tensor parallelism (two all-reduces per layer); llm-analysis "
         "prefill_latency_fwd_tp_comm",
         false, false},
    [ENGINE_KEY_TRAIN_MFU] =
        {"training.mfu", "MFU",
         "model FLOP per token * tokens per step / (G * peak * step time): --mfu when given, else "
         "predicted from the kernel efficiency (--flops-efficiency, default 0.57), the bubble and "
         "the exposed communication",
         "PaLM (Chowdhery et al. 2022) appendix B; kernel default: Korthikanti et al. 2022 Table 5 "
         "(HFU 57.0% of Megatron's 530B and 1T runs); Llama 3 reports 38-43% for 405B",
         true, false},
    [ENGINE_KEY_TRAIN_HFU] = {"training.hfu", "HFU",
                              "MFU * hardware FLOP per token / model FLOP per token (recomputed "
                              "forward included)",
                              "Korthikanti et al. 2022 §6 (MFU vs HFU)", true, false},
    [ENGINE_KEY_TRAIN_PP_COMM] =
        {"training.pp_comm_seconds", "PP hand-offs",
         "2 * (v * m + p - 1) * (s b h 2 bytes / t / link BW + latency): one activation forward "
         "and one gradient backward per slot of the schedule, each TP rank sending 1/t",
         "Narayanan et al. 2021 §4.1 (scatter/gather of the pipeline hand-offs)", true, false},
    [ENGINE_KEY_TRAIN_COST_SPOT] = {"training.cost_spot_usd", "cost at spot prices",
                                    "GPU-hours * the catalog's spot price per GPU-hour",
                                    "catalog price.spot (seed 002's table: T4 $0.15, A10G $0.45, "
                                    "A100-40GB $1.20, A100-80GB $1.80, H100 $2.40)",
                                    true, false},
    [ENGINE_KEY_TRAIN_ENERGY] = {"training.energy_joules", "training energy",
                                 "GPU-hours * 3600 * board power (tdp): an upper bound, every GPU "
                                 "at its tdp the whole run",
                                 "seed 003 (power in W, energy in Wh); catalog tdp (data sheets)",
                                 true, false},
    [ENGINE_KEY_DECODE_JOULES_PER_TOKEN] =
        {"decode.joules_per_token", "energy per token",
         "G * board power (tdp) / decode tokens/s: the upper bound at the ceiling",
         "seed 003 (power in W, energy in Wh); catalog tdp (data sheets)", false, false},
    [ENGINE_KEY_TRAIN_SYSTEM_ENERGY] =
        {"training.system_energy_joules", "training energy (systems)",
         "ceil(G / GPUs per system) * system power * wall time: whole systems at their maximum "
         "power (CPUs, NICs and fans included), an upper bound",
         "seed 003 (a rack of up to 142 kW is a capacity, not a measured draw); catalog systems "
         "(vendor data sheets)",
         true, false},
    [ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN] =
        {"decode.system_joules_per_token", "energy per token (systems)",
         "ceil(G / GPUs per system) * system power / decode tokens/s: at the ceiling, whole "
         "systems at their maximum power",
         "seed 003; catalog systems (vendor data sheets)", false, false},
    [ENGINE_KEY_TRAIN_GLOBAL_BATCH] =
        {"training.global_batch", "global batch",
         "micro-batch size * micro-batches * d sequences per optimizer step (--global-batch, "
         "else the model's published batch in tokens / context, else batch * micro-batches * d)",
         "Megatron-LM --global-batch-size; DeepSpeed train_batch_size; Llama 3 Table 4", true,
         false},
    [ENGINE_KEY_TRAIN_MICRO_BATCHES] =
        {"training.gradient_accumulation_steps", "micro-batches per step",
         "global batch / (micro-batch size * d): the micro-batches each replica runs per step",
         "DeepSpeed train_batch_size = micro_batch * gradient_accumulation_steps * dp; seed 002",
         true, false},
    [ENGINE_KEY_MEM_ZERO3_WORKING] =
        {"memory.zero3_working", "ZeRO-3 gathered layer",
         "ZeRO-3 under the deepspeed convention (any offload): the largest module "
         "gathered whole with its gradient, 2 * weight bytes * its parameters / t (DeepSpeed: "
         "largest_layer_memory = 4 * largest_layer_params)",
         "DeepSpeed v0.17 stage3.py estimate_zero3_model_states_mem_needs, memory.rst; "
         "ZeRO-Infinity (Rajbhandari et al. 2021) §3 model-state working memory",
         false, true},
    [ENGINE_KEY_MEM_NVME] =
        {"memory.nvme", "NVMe",
         "--offload nvme (ZeRO-Infinity): this GPU's share of the states on NVMe: paper every "
         "state, (w + g + m + o) / d; deepspeed the 16-bit parameters, master and optimizer "
         "states (w + m + o) / d, the FP32 gradients pinned in host RAM (not in total)",
         "ZeRO-Infinity (Rajbhandari et al. 2021) §5; DeepSpeed v0.17 offload_param / "
         "offload_optimizer device nvme, memory.rst",
         false, true},
    [ENGINE_KEY_TRAIN_OFFLOAD_BYTES] =
        {"training.offload_bytes_per_step", "offload traffic per step",
         "per GPU over its host link: cpu (m * w + w) * params / d (16-bit gradients out each "
         "micro-batch, updated parameters in once); nvme 3 * m * w * params / d (parameters in "
         "for the forward and the backward, gradients out)",
         "ZeRO-Offload (Ren et al. 2021) §4.2 (\"2M gradients out, 2M parameters in\"); "
         "ZeRO-Infinity (Rajbhandari et al. 2021) §5",
         true, false},
    [ENGINE_KEY_TRAIN_OFFLOAD_SECONDS] =
        {"training.offload_seconds", "offload time per step",
         "offload bytes per step / host link bandwidth (--host-link-bw, default PCIe 5.0 x16 "
         "one way: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s); added in full to a predicted step "
         "(an upper bound: DeepSpeed overlaps part of it), inside a given --mfu",
         "PCI-SIG PCIe 5.0 base specification; ZeRO-Offload (Ren et al. 2021) §4.2",
         true, false},
    [ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN] =
        {"training.hw_flops_per_token", "hardware FLOP per token",
         "model FLOP per token + what recompute runs again: full 2 N + 2 L s a (d_qk + d_v) "
         "(block: N / layers of the stage of it), selective the attention forward 2 L s a "
         "(d_qk + d_v), none 0",
         "Korthikanti et al. 2022 §5-6", true, false},
    [ENGINE_KEY_TRAIN_ALL_TO_ALL] =
        {"training.all_to_all_seconds", "EP all-to-all",
         "4 all-to-alls (dispatch and combine, forward and backward) per MoE layer per "
         "micro-batch * ((ep - 1)/ep * s b / t * k * h * 2 bytes / one-way link BW + latency); "
         "NVLink when t * ep GPUs share a node; added to the predicted step",
         "Megatron-LM MoE all-to-all token dispatcher (EP inside DP); nccl-tests all-to-all "
         "bus bandwidth (n - 1)/n",
         true, false},
    [ENGINE_KEY_MEM_TRANSIENT] =
        {"memory.transient", "transient buffers",
         "--memory-convention peak: the buffers of the phase that peaks: loss forward (head and "
         "norm inputs + logits and the loss per token x vocabulary entry: PyTorch 10 B, "
         "loss_parallel 14, Megatron 6), loss backward (12, 16, 6), a layer's backward (the "
         "layer rematerialised and its gradients; FSDP: 2 gathered layers, the 16-bit gradient "
         "and its FP32 copy for the reduce-scatter; the head's weights and gradient), the "
         "optimizer step (foreach Adam's FP32 temporary); FSDP keeps the last layer gathered "
         "(every layer of a pipeline stage)",
         "torchtitan parallelize_llama.py apply_fsdp, train.py loss_fn; PyTorch FSDP2 "
         "(mixed_precision reduce float32), loss_parallel, _multi_tensor_adamw; Megatron-LM "
         "cross_entropy.py vocab_parallel_cross_entropy; DeepSpeed reduce_bucket_size 5e8",
         false, true},
    [ENGINE_KEY_MEM_ALLOCATOR] =
        {"memory.allocator", "allocator",
         "--memory-convention peak: what the caching allocator reserves beyond the blocks in "
         "use: 5% of the activations and transients + the 16-bit logits PyTorch frees after "
         "their FP32 copy (2 B per token x vocabulary entry, too small for any later request "
         "of the loss)",
         "Megatron-LM theoretical_memory_usage.py (\"5% overhead\"); PyTorch CUDA caching "
         "allocator (reserved_bytes.all.peak, torch.cuda.max_memory_reserved)",
         false, true},
    [ENGINE_KEY_MEM_FP8_WEIGHTS] =
        {"memory.fp8_weights", "FP8 weight copies",
         "--format fp8|mxfp8 in training: the layers' GEMM weights also in FP8, twice (the copy "
         "and its transpose on Hopper; row- and column-wise MXFP8 with a scale per 32): 2 x "
         "bits/8 B per GEMM parameter on the GPU (ZeRO-3: one gathered layer); the 16-bit "
         "weights and master copy stay",
         "Transformer Engine Linear (fp8 weight cache, is_first_microbatch); OCP Microscaling "
         "Formats v1.0; torchao float8", false, true},
    [ENGINE_KEY_TRAIN_TOKENS_PER_GPU] =
        {"training.tokens_per_s_per_gpu", "tokens/s per GPU",
         "tokens per step / step time / G (what Megatron-Bridge and torchtitan report)",
         "Megatron-Bridge performance summary (Tokens / sec / GPU); torchtitan (TPS/GPU)", true,
         false},
    [ENGINE_KEY_TRAIN_STAGE_IMBALANCE] =
        {"training.stage_imbalance", "slowest stage / mean",
         "p * max over stages of its time per micro-batch / sum of them; a stage's time is its "
         "share of the hardware FLOPs (its layers; the embedding on the first, the head on the "
         "last) at the kernel efficiency, GEMMs at the FP8 rate under --format fp8, + its "
         "memory-bound work (FP8 casts, MoE routing); the step runs at the slowest",
         "Narayanan et al. 2021 §2.2 (1F1B: every slot waits for the slowest stage)", true,
         false},
    [ENGINE_KEY_TRAIN_CP_COMM] =
        {"training.cp_comm_seconds", "CP ring exposed",
         "per layer per micro-batch: (3 + 1 under full recompute) * (cp - 1) hops of K and V "
         "(s/cp * b * kv heads/t * (d_qk + d_v) * 2 B) over the t * cp ranks' link, less the "
         "attention of the layer that hides them; * layers of the stage * m",
         "Megatron-LM context parallelism (p2p ring, cp_comm_type p2p); Liu et al. 2023 Ring "
         "Attention §3; torchtitan context_parallel", true, false},
    [ENGINE_KEY_TRAIN_FP8_CAST] =
        {"training.fp8_cast_seconds", "FP8 scaling casts",
         "per token and layer, each GEMM input (forward) and output gradient (backward) read "
         "for its amax, read and written in FP8 row- and column-wise: 6 B an element (MXFP8 "
         "4 + 1/16); / bandwidth, * the slowest stage's layers * tokens of a micro-batch * m; + "
         "the weights cast once a step (6 B each)",
         "Transformer Engine current scaling (Float8CurrentScaling), MXFP8BlockScaling; "
         "torchao float8 dynamic scaling", true, false},
    [ENGINE_KEY_TRAIN_MOE] =
        {"training.moe_seconds", "MoE routing and experts",
         "per MoE layer per micro-batch: permutations 12 (1 + k) h B per token / bandwidth + "
         "each local expert's grouped GEMM as a roofline, max(imbalance * its FLOPs / (peak * "
         "efficiency), its weights read 3 times + inputs and outputs / bandwidth), less its "
         "balanced FLOPs (already in the stage's time); tokens per local expert s b k ep / "
         "(cp E); * the slowest stage's MoE layers * m",
         "Megatron-LM moe_utils permute/unpermute, grouped GEMM; Williams et al. 2009 "
         "(roofline); --moe-imbalance default 1.25: Switch Transformer's capacity factor "
         "(Fedus et al. 2022 §2.2)",
         true, false},
};

/* JSON path of a key. */
const char *engine_key_name(enum engine_key k) {
    return (unsigned)k < ENGINE_KEY_COUNT ? keys[k].name : "?";
}

/* Key by JSON path; 0 on success. */
int engine_key_parse(const char *name, enum engine_key *out) {
    for (int i = 0; i < ENGINE_KEY_COUNT; i++)
        if (name && strcmp(keys[i].name, name) == 0) {
            *out = (enum engine_key)i;
            return 0;
        }
    return -1;
}

/* Whether a key has a meaning in this scenario's mode. */
bool engine_key_applies(const struct engine_scenario *sc, enum engine_key k) {
    if ((unsigned)k >= ENGINE_KEY_COUNT)
        return false;
    if ((k == ENGINE_KEY_TRAIN_SYSTEM_ENERGY || k == ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN) &&
        sc->system_gpus == 0)
        return false;
    if (keys[k].both)
        return true;
    bool training = sc->mode != ENGINE_MODE_INFER;
    /* CUDA graphs are counted before the KV cache from vLLM 0.21 only; the
     * steady state needs output tokens (a prompt shorter than the context). */
    if (k == ENGINE_KEY_SERVING_CUDA_GRAPHS &&
        (training || sc->serving.runtime != ENGINE_RUNTIME_VLLM ||
         engine_runtime_version(&sc->serving) < 21))
        return false;
    if ((k == ENGINE_KEY_SERVING_STEADY_CONCURRENCY || k == ENGINE_KEY_SERVING_STEADY_TOKENS) &&
        !(sc->prompt > 0 && sc->prompt < sc->context))
        return false;
    if (keys[k].runtimes && (training || !(keys[k].runtimes & RT(sc->serving.runtime))))
        return false;
    return keys[k].training == training;
}

/* Value of a key (NaN when not applicable). */
double engine_key_value(const struct engine_estimate *e, enum engine_key k) {
    switch (k) {
    case ENGINE_KEY_PARAMS_TOTAL:
        return e->params_total;
    case ENGINE_KEY_PARAMS_ACTIVE:
        return e->params_active;
    case ENGINE_KEY_MEM_WEIGHTS:
        return e->memory.weights;
    case ENGINE_KEY_MEM_KV_CACHE:
        return e->memory.kv_cache;
    case ENGINE_KEY_MEM_ACTIVATIONS:
        return e->memory.activations;
    case ENGINE_KEY_MEM_GRADIENTS:
        return e->memory.gradients;
    case ENGINE_KEY_MEM_MASTER:
        return e->memory.master_weights;
    case ENGINE_KEY_MEM_OPTIMIZER:
        return e->memory.optimizer;
    case ENGINE_KEY_MEM_RESERVE:
        return e->memory.reserve;
    case ENGINE_KEY_MEM_TOTAL:
        return e->memory.total;
    case ENGINE_KEY_CAPACITY:
        return e->capacity;
    case ENGINE_KEY_FITS:
        return e->invalid ? NAN : (e->fits ? 1.0 : 0.0);
    case ENGINE_KEY_DECODE_TOKENS:
        return e->decode_tokens_per_s;
    case ENGINE_KEY_DECODE_MEMORY_BOUND:
        return e->decode_tokens_per_s_memory_bound;
    case ENGINE_KEY_DECODE_COMPUTE_BOUND:
        return e->decode_tokens_per_s_compute_bound;
    case ENGINE_KEY_DECODE_PER_SEQUENCE:
        return e->decode_tokens_per_s_per_sequence;
    case ENGINE_KEY_DECODE_BYTES_PER_STEP:
        return e->decode_bytes_per_step;
    case ENGINE_KEY_RIDGE:
        return e->ridge_flop_per_byte;
    case ENGINE_KEY_COMPUTE_BOUND_BATCH:
        return e->compute_bound_batch;
    case ENGINE_KEY_KV_PER_TOKEN:
        return e->kv_bytes_per_token;
    case ENGINE_KEY_ACT_PER_LAYER:
        return e->act_per_layer_bytes;
    case ENGINE_KEY_ACT_LAYERS_HELD:
        return e->act_layers_held;
    case ENGINE_KEY_ACT_LOGITS:
        return e->act_logits_bytes;
    case ENGINE_KEY_PREFILL:
        return e->prefill_seconds;
    case ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN:
        return e->train_flops_per_token;
    case ENGINE_KEY_TRAIN_STEP:
        return e->train_step_seconds;
    case ENGINE_KEY_TRAIN_BUBBLE:
        return e->train_bubble_fraction;
    case ENGINE_KEY_TRAIN_TP_COMM:
        return e->train_tp_comm_seconds;
    case ENGINE_KEY_TRAIN_DP_COMM:
        return e->train_dp_comm_seconds;
    case ENGINE_KEY_TRAIN_DAYS:
        return e->train_days;
    case ENGINE_KEY_TRAIN_GPU_HOURS:
        return e->train_gpu_hours;
    case ENGINE_KEY_TRAIN_COST:
        return e->train_cost_usd;
    case ENGINE_KEY_DECODE_FLOPS_PER_TOKEN:
        return e->decode_flops_per_token;
    case ENGINE_KEY_ARITHMETIC_INTENSITY:
        return e->arithmetic_intensity;
    case ENGINE_KEY_TRAIN_TOKENS_PER_STEP:
        return e->train_tokens_per_step;
    case ENGINE_KEY_MEM_OVERHEAD:
        return e->memory.overhead;
    case ENGINE_KEY_MEM_HOST:
        return e->memory.host;
    case ENGINE_KEY_SERVING_TTFT:
        return e->serving.ttft_s;
    case ENGINE_KEY_SERVING_TPOT:
        return e->serving.tpot_s;
    case ENGINE_KEY_SERVING_AVAILABLE_KV:
        return e->serving.available_kv_bytes;
    case ENGINE_KEY_SERVING_KV_BLOCKS:
        return e->serving.kv_blocks;
    case ENGINE_KEY_SERVING_KV_TOKENS:
        return e->serving.kv_tokens;
    case ENGINE_KEY_SERVING_MAX_CONCURRENCY:
        return e->serving.max_concurrency;
    case ENGINE_KEY_SERVING_MAX_MODEL_LEN:
        return e->serving.max_model_len_that_fits;
    case ENGINE_KEY_SERVING_COMPUTE_BUFFER:
        return e->serving.compute_buffer_bytes;
    case ENGINE_KEY_SERVING_OVERHEAD:
        return e->serving.overhead_bytes;
    case ENGINE_KEY_SERVING_GPU_LAYERS:
        return e->serving.gpu_layers;
    case ENGINE_KEY_TRAIN_MFU:
        return e->train_mfu;
    case ENGINE_KEY_TRAIN_GLOBAL_BATCH:
        return e->train_global_batch;
    case ENGINE_KEY_TRAIN_COST_SPOT:
        return e->train_cost_spot_usd;
    case ENGINE_KEY_TRAIN_ENERGY:
        return e->train_energy_joules;
    case ENGINE_KEY_DECODE_JOULES_PER_TOKEN:
        return e->decode_joules_per_token;
    case ENGINE_KEY_TRAIN_SYSTEM_ENERGY:
        return e->train_system_energy_joules;
    case ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN:
        return e->decode_system_joules_per_token;
    case ENGINE_KEY_TRAIN_MICRO_BATCHES:
        return e->train_micro_batches;
    case ENGINE_KEY_TRAIN_HFU:
        return e->train_hfu;
    case ENGINE_KEY_TRAIN_PP_COMM:
        return e->train_pp_comm_seconds;
    case ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN:
        return e->train_hw_flops_per_token;
    case ENGINE_KEY_TRAIN_ALL_TO_ALL:
        return e->train_all_to_all_seconds;
    case ENGINE_KEY_SERVING_HOST_BW:
        return e->serving.host_bytes_per_s;
    case ENGINE_KEY_SERVING_MEMORY_REPORTED:
        return e->serving.memory_reported_bytes;
    case ENGINE_KEY_SERVING_REQUESTED:
        return e->serving.requested_bytes;
    case ENGINE_KEY_SERVING_ROTARY_CACHE:
        return e->serving.rotary_cache_bytes;
    case ENGINE_KEY_SERVING_ACTIVATION_PEAK:
        return e->serving.activation_peak_bytes;
    case ENGINE_KEY_SERVING_NON_TORCH:
        return e->serving.non_torch_bytes;
    case ENGINE_KEY_SERVING_CUDA_GRAPHS:
        return e->serving.cuda_graph_bytes;
    case ENGINE_KEY_SERVING_STEADY_CONCURRENCY:
        return e->serving.steady_concurrency;
    case ENGINE_KEY_SERVING_STEADY_TOKENS:
        return e->serving.steady_tokens_per_s;
    case ENGINE_KEY_DECODE_BATCH1:
        return e->serving.batch1_tokens_per_s;
    case ENGINE_KEY_PREFILL_ALLREDUCE:
        return e->serving.prefill_allreduce_s;
    case ENGINE_KEY_MEM_ZERO3_WORKING:
        return e->memory.zero3_working;
    case ENGINE_KEY_MEM_NVME:
        return e->memory.nvme;
    case ENGINE_KEY_TRAIN_OFFLOAD_BYTES:
        return e->train_offload_bytes_per_step;
    case ENGINE_KEY_TRAIN_OFFLOAD_SECONDS:
        return e->train_offload_seconds;
    case ENGINE_KEY_MEM_TRANSIENT:
        return e->memory.transient;
    case ENGINE_KEY_MEM_ALLOCATOR:
        return e->memory.allocator;
    case ENGINE_KEY_MEM_FP8_WEIGHTS:
        return e->memory.fp8_weights;
    case ENGINE_KEY_TRAIN_TOKENS_PER_GPU:
        return e->train_tokens_per_s_per_gpu;
    case ENGINE_KEY_TRAIN_STAGE_IMBALANCE:
        return e->train_stage_imbalance;
    case ENGINE_KEY_TRAIN_CP_COMM:
        return e->train_cp_comm_seconds;
    case ENGINE_KEY_TRAIN_FP8_CAST:
        return e->train_fp8_cast_seconds;
    case ENGINE_KEY_TRAIN_MOE:
        return e->train_moe_seconds;
    case ENGINE_KEY_COUNT:
        break;
    }
    return NAN;
}

#define GIB_ 1073741824.0

/* The runtime buffers' values text (memory.overhead, serving.overhead_bytes). */
static void explain_overhead(const struct engine_scenario *sc, const struct engine_estimate *e,
                             char *v, size_t n) {
    switch (sc->serving.runtime) {
    case ENGINE_RUNTIME_VLLM:
    case ENGINE_RUNTIME_TRTLLM: {
        char graphs[64] = "";
        if (isfinite(e->serving.cuda_graph_bytes))
            snprintf(graphs, sizeof graphs, " + CUDA graphs %.4g GiB",
                     e->serving.cuda_graph_bytes / GIB_);
        snprintf(v, n,
                 "activation peak of a profile run of %.0f tokens over %.0f requests %.4g GiB + "
                 "non-torch memory %.4g GiB%s = %.4g GiB",
                 e->serving.max_num_batched_tokens,
                 fmin(e->serving.max_num_seqs, e->serving.max_num_batched_tokens),
                 e->serving.activation_peak_bytes / GIB_, e->serving.non_torch_bytes / GIB_, graphs,
                 e->memory.overhead / GIB_);
        break;
    }
    case ENGINE_RUNTIME_SGLANG:
        snprintf(v, n, "0: SGLang's activations and CUDA graphs live in the (1 - "
                       "mem_fraction_static) it leaves (memory.reserve)");
        break;
    case ENGINE_RUNTIME_LLAMACPP:
        snprintf(v, n, "compute buffer of one ubatch of %u tokens = %.4g MiB",
                 engine_runtime_ubatch(sc), e->memory.overhead / 1048576.0);
        break;
    case ENGINE_RUNTIME_OLLAMA:
        snprintf(v, n, "graph %.4g MiB + one layer's worth of buffer = %.4g MiB",
                 e->serving.compute_buffer_bytes / 1048576.0, e->memory.overhead / 1048576.0);
        break;
    default:
        snprintf(v, n, "plain: no runtime buffers beyond one step's logits (activations)");
        break;
    }
}

/* Which module is the largest of the fullest stage (memory.zero3_working). */
static const char *largest_name(const struct engine_scenario *sc) {
    const struct engine_model *m = &sc->model;
    double emb = (double)m->vocab * m->hidden;
    double ffn = (double)m->hidden * m->ffn;
    if (m->vocab && sc->pp == 1 && emb >= ffn)
        return "the embedding V x h";
    return "its largest matrix";
}

/* Values of the gradients, master copy and optimizer states in full
 * training: the recipe's bytes, the convention, ZeRO and offload. */
static void explain_states(const struct engine_scenario *sc, const struct engine_estimate *e,
                           const char *what, double recipe_bytes, double bytes, char *v,
                           size_t n) {
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    const char *how = "";
    if (sc->memory_convention == ENGINE_MEMCONV_DEEPSPEED && r->master > 0 &&
        !strcmp(what, "gradients"))
        how = sc->zero >= 3 ? " (deepspeed: FP32 gradients 4 B / d; the 16-bit ones in the "
                              "gathered layer)"
              : sc->zero == 2 ? " (deepspeed: 16-bit partition 2 B / d + FP32 partition 4 B / d)"
                              : " (deepspeed: 16-bit gradients whole + FP32 partition 4 B / d)";
    else if (sc->memory_convention == ENGINE_MEMCONV_MEGATRON && r->master > 0 &&
             !strcmp(what, "gradients"))
        how = " (megatron: FP32 main gradients 4 B, whole)";
    char off[96] = "";
    if (sc->offload != ENGINE_OFFLOAD_NONE)
        snprintf(off, sizeof off, "; --offload %s: in %s, not on the GPU",
                 engine_offload_name(sc->offload),
                 sc->offload == ENGINE_OFFLOAD_CPU ? "host RAM" : "host RAM / NVMe");
    snprintf(v, n, "recipe %s: %.0f B/param, %s convention%s, ZeRO-%u over d=%u%s = %.4g GB",
             r->id, recipe_bytes, engine_memory_convention_name(sc->memory_convention), how,
             sc->zero, sc->dp, off, bytes / 1e9);
    (void)e;
}

/* Fill the substituted-values text of one key. */
static void explain_values(const struct engine_scenario *sc, const struct engine_estimate *e,
                           enum engine_key k, char *v, size_t n) {
    const struct engine_model *m = &sc->model;
    double bits = e->bits_per_weight, G = 1e9;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    switch (k) {
    case ENGINE_KEY_PARAMS_TOTAL:
        if (m->has_arch)
            snprintf(v, n, "V=%u h=%u L=%u a=%u kv=%u d=%u f=%u%s%s -> %.10g", m->vocab, m->hidden,
                     m->layers, m->heads, m->kv_heads ? m->kv_heads : m->heads,
                     m->head_dim ? m->head_dim : m->hidden / (m->heads ? m->heads : 1), m->ffn,
                     m->gated ? " gated" : "", m->tied ? " tied" : "", e->params_total);
        else
            snprintf(v, n,
                     "bare size N = %.4g; x = (N / 196608)^(1/3) = %.4g: shape derived h=%u L=%u "
                     "a=%u kv=%u d=%u f=%u%s V=%u",
                     e->params_total, cbrt(e->params_total / 196608.0), m->hidden, m->layers,
                     m->heads, m->kv_heads ? m->kv_heads : m->heads, m->head_dim, m->ffn,
                     m->gated ? " gated" : "", m->vocab);
        break;
    case ENGINE_KEY_PARAMS_ACTIVE:
        if (m->experts)
            snprintf(v, n, "%.4g of %.4g (%u of %u experts + %u shared per MoE layer)",
                     e->params_active, e->params_total, m->active_experts, m->experts,
                     m->shared_experts);
        else
            snprintf(v, n, "dense model: all %.4g parameters are active", e->params_total);
        break;
    case ENGINE_KEY_MEM_WEIGHTS: {
        /* Parameters on the fullest GPU, back from its bytes. */
        bool train = sc->mode == ENGINE_MODE_TRAIN;
        double per = train ? r->weights : bits / 8;
        double on_gpu = e->memory.weights / per * (train && sc->zero >= 3 ? sc->dp : 1);
        if (sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA) {
            snprintf(v, n,
                     "frozen base %.4g params / (t=%u * p=%u) * %.4g bits / 8 + adapters "
                     "%.4g params * %.0f B = %.4g GB",
                     e->params_total, sc->tp, sc->pp, bits, e->params_trainable, r->weights,
                     e->memory.weights / G);
            break;
        }
        if (!train && m->file_bytes && m->has_arch) {
            snprintf(v, n,
                     "the model file's tensor bytes: %.4g GB in all (%.4g params, %.4g bits per "
                     "weight), on the fullest GPU its layers' and embedding/head bytes / t=%u, "
                     "p=%u, %.0f of %u layers on the GPUs = %.4g GB",
                     (e->params_total * e->bits_per_weight / 8.0) / G, e->params_total,
                     e->bits_per_weight, sc->tp, sc->pp, e->serving.gpu_layers, m->layers,
                     e->memory.weights / G);
            break;
        }
        if (train && sc->offload == ENGINE_OFFLOAD_NVME) {
            snprintf(v, n, "--offload nvme: the parameters live on NVMe (memory.nvme), gathered "
                           "a layer at a time (memory.zero3_working) = %.4g GB",
                     e->memory.weights / G);
            break;
        }
        char extra[160] = "";
        if (engine_ep(sc) > 1)
            snprintf(extra, sizeof extra,
                     "; the routed experts / (t x ep=%u), under ZeRO-3 / (d / ep = %u)",
                     engine_ep(sc), sc->dp / engine_ep(sc));
        if (!train && e->serving.gpu_layers < m->layers)
            snprintf(extra, sizeof extra, "; %.0f of %u layers on the GPUs, the rest in host RAM",
                     e->serving.gpu_layers, m->layers);
        if (!train && e->serving.embed_16bit_bytes > 0) {
            size_t used = strlen(extra);
            snprintf(extra + used, sizeof extra - used,
                     "; embedding and head in 16-bit (+%.4g GB in all)",
                     e->serving.embed_16bit_bytes / G);
        }
        snprintf(v, n,
                 "%.4g params on the fullest GPU (%.4g in all, t=%u x p=%u%s) * %.4g B%s%s = %.4g "
                 "GB",
                 on_gpu, e->params_total, sc->tp, sc->pp,
                 sc->pp > 1 ? "; stage 0 adds the embedding, the last stage the head" : "", per,
                 train && sc->zero >= 3 ? " / d" : "", extra, e->memory.weights / G);
        break;
    }
    case ENGINE_KEY_MEM_KV_CACHE: {
        double kvb = engine_format_bits(&sc->kv_format) / 8;
        unsigned kvh = m->kv_heads ? m->kv_heads : m->heads;
        char window[112] = "", rt[128] = "";
        if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime == ENGINE_RUNTIME_VLLM)
            snprintf(rt, sizeof rt, "; vLLM whole blocks of %u tokens: %.0f blocks",
                     sc->serving.block_size, e->serving.kv_blocks_needed);
        else if (sc->mode == ENGINE_MODE_INFER && isfinite(e->serving.context_padded))
            snprintf(rt, sizeof rt, "; llama.cpp pads n_ctx to %.0f", e->serving.context_padded);
        if (sc->mode == ENGINE_MODE_INFER && e->serving.gpu_layers < m->layers) {
            size_t used = strlen(rt);
            snprintf(rt + used, sizeof rt - used, "; %.0f of %u layers on the GPUs",
                     e->serving.gpu_layers, m->layers);
        }
        if (m->sliding_window && m->sliding_window < sc->context)
            snprintf(window, sizeof window, "; %u of %u layers keep only the last %u tokens",
                     m->sliding_layers ? m->sliding_layers : m->layers, m->layers,
                     m->sliding_window);
        if (m->kv_lora_rank)
            snprintf(v, n,
                     "MLA latent: %u layers * (%u + %u) * %u tokens * batch %u * %.3g B / p=%u "
                     "(each TP rank keeps the whole latent) = %.4g GB",
                     m->layers, m->kv_lora_rank, m->rope_dim, sc->context, sc->batch, kvb, sc->pp,
                     e->memory.kv_cache / G);
        else
            snprintf(v, n,
                     "2 * %u layers * %u KV heads * %u * %u tokens * batch %u * %.3g B, "
                     "%u KV heads per GPU (t=%u), layers / p=%u%s%s = %.4g GB",
                     m->layers, kvh, m->head_dim ? m->head_dim : m->hidden / m->heads, sc->context,
                     sc->batch, kvb, (kvh + sc->tp - 1) / sc->tp, sc->tp, sc->pp, window, rt,
                     e->memory.kv_cache / G);
        break;
    }
    case ENGINE_KEY_MEM_ACTIVATIONS:
        snprintf(v, n, "%.4g GB/layer * %.4g layers + logits %.4g GB = %.4g GB",
                 (isnan(e->act_per_layer_bytes) ? 0 : e->act_per_layer_bytes) / G,
                 isnan(e->act_layers_held) ? 0 : e->act_layers_held,
                 (isnan(e->act_logits_bytes) ? 0 : e->act_logits_bytes) / G,
                 e->memory.activations / G);
        break;
    case ENGINE_KEY_MEM_GRADIENTS:
        if (sc->mode == ENGINE_MODE_INFER) {
            snprintf(v, n, "no training state in inference: 0 GB");
            break;
        }
        if (sc->mode == ENGINE_MODE_TRAIN) {
            explain_states(sc, e, "gradients", r->grads, e->memory.gradients, v, n);
            break;
        }
        snprintf(v, n, "recipe %s: %.0f B/param, ZeRO-%u over d=%u = %.4g GB", r->id, r->grads,
                 sc->zero, sc->dp, e->memory.gradients / G);
        break;
    case ENGINE_KEY_MEM_MASTER:
        if (sc->mode == ENGINE_MODE_INFER) {
            snprintf(v, n, "no training state in inference: 0 GB");
            break;
        }
        if (sc->mode == ENGINE_MODE_TRAIN) {
            explain_states(sc, e, "master", r->master, e->memory.master_weights, v, n);
            break;
        }
        snprintf(v, n, "recipe %s: %.0f B/param, ZeRO-%u over d=%u = %.4g GB", r->id, r->master,
                 sc->zero, sc->dp, e->memory.master_weights / G);
        break;
    case ENGINE_KEY_MEM_OPTIMIZER:
        if (sc->mode == ENGINE_MODE_INFER) {
            snprintf(v, n, "no training state in inference: 0 GB");
            break;
        }
        if (r->factored)
            snprintf(v, n,
                     "recipe %s: factored FP32 second moment, 4 B * (rows + columns) per matrix "
                     "(vectors whole), / t=%u, ZeRO-%u over d=%u = %.4g GB",
                     r->id, sc->tp, sc->zero, sc->dp, e->memory.optimizer / G);
        else if (engine_ep(sc) > 1)
            snprintf(v, n,
                     "recipe %s: %.0f B/param, ZeRO-%u over d=%u (the experts over d/ep = %u) = "
                     "%.4g GB",
                     r->id, r->optimizer, sc->zero, sc->dp, sc->dp / engine_ep(sc),
                     e->memory.optimizer / G);
        else if (sc->mode == ENGINE_MODE_TRAIN)
            explain_states(sc, e, "optimizer", r->optimizer, e->memory.optimizer, v, n);
        else
            snprintf(v, n, "recipe %s: %.0f B/param, ZeRO-%u over d=%u = %.4g GB", r->id,
                     r->optimizer, sc->zero, sc->dp, e->memory.optimizer / G);
        break;
    case ENGINE_KEY_MEM_RESERVE:
        if (sc->mode == ENGINE_MODE_INFER && (sc->serving.runtime == ENGINE_RUNTIME_VLLM ||
                                               sc->serving.runtime == ENGINE_RUNTIME_SGLANG ||
                                               sc->serving.runtime == ENGINE_RUNTIME_TRTLLM))
            snprintf(v, n,
                     "the data sheet's %.4g GiB - the %.4g GiB the runtime requests (fraction "
                     "%.3g) = %.4g GiB: what CUDA does not report (%.4g GiB), the CUDA context, "
                     "other processes%s",
                     e->capacity / GIB_, e->serving.requested_bytes / GIB_,
                     e->serving.memory_fraction, e->memory.reserve / GIB_,
                     (e->capacity - e->serving.memory_reported_bytes) / GIB_,
                     sc->serving.runtime == ENGINE_RUNTIME_SGLANG
                         ? ", SGLang's activations and CUDA graphs"
                         : isfinite(e->serving.cuda_graph_bytes)
                               ? ""
                               : ", the CUDA graphs (captured after the KV cache is sized)");
        else if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime == ENGINE_RUNTIME_LLAMACPP)
            snprintf(v, n, "%.4g GB kept free on the device (llama.cpp --fit-target 1024 MiB)",
                     e->memory.reserve / G);
        else if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime == ENGINE_RUNTIME_OLLAMA)
            snprintf(v, n, "%.4g GB: Ollama's per-GPU minimum (CUDA: 457 MiB)",
                     e->memory.reserve / G);
        else
            snprintf(v, n, "%.4g GB", e->memory.reserve / G);
        break;
    case ENGINE_KEY_MEM_TOTAL: {
        char working[160] = "";
        if (e->memory.zero3_working > 0)
            snprintf(working, sizeof working, " + gathered layer %.4g", e->memory.zero3_working / G);
        if (e->memory.transient > 0 || e->memory.allocator > 0 || e->memory.fp8_weights > 0) {
            size_t w = strlen(working);
            snprintf(working + w, sizeof working - w,
                     " + transient %.4g + allocator %.4g + FP8 copies %.4g",
                     e->memory.transient / G, e->memory.allocator / G,
                     e->memory.fp8_weights / G);
        }
        snprintf(v, n, "%.4g + %.4g + %.4g + %.4g + %.4g + %.4g + %.4g%s%.4g%s = %.4g GB",
                 e->memory.weights / G, e->memory.kv_cache / G, e->memory.activations / G,
                 e->memory.gradients / G, e->memory.master_weights / G, e->memory.optimizer / G,
                 e->memory.reserve / G, " + buffers ",
                 isnan(e->memory.overhead) ? 0 : e->memory.overhead / G, working,
                 e->memory.total / G);
        break;
    }
    case ENGINE_KEY_MEM_ZERO3_WORKING:
        if (sc->mode == ENGINE_MODE_INFER)
            snprintf(v, n, "no training state in inference: 0 GB");
        else if (!(e->memory.zero3_working > 0))
            snprintf(v, n, "0 GB: %s", sc->zero < 3 ? "ZeRO below 3 keeps whole layers"
                                                    : "the paper's idealised ZeRO-3 counts none "
                                                      "(--memory-convention deepspeed does)");
        else
            snprintf(v, n,
                     "largest module %.10g params (%s) / t=%u * 2 * %.0f B = %.4g GB",
                     e->largest_layer_params, largest_name(sc), sc->tp,
                     r->weights, e->memory.zero3_working / G);
        break;
    case ENGINE_KEY_MEM_NVME:
        if (sc->mode == ENGINE_MODE_INFER) {
            snprintf(v, n, "no training state in inference: 0 GB");
            break;
        }
        snprintf(v, n, "%s convention, --offload %s: %.4g GB per GPU, %.4g GB in all",
                 engine_memory_convention_name(sc->memory_convention),
                 engine_offload_name(sc->offload), e->memory.nvme / G,
                 e->memory.nvme * sc->gpus / G);
        break;
    case ENGINE_KEY_TRAIN_OFFLOAD_BYTES:
        if (sc->offload == ENGINE_OFFLOAD_NONE)
            snprintf(v, n, "no offload: 0 B");
        else
            snprintf(v, n, "--offload %s, %.0f micro-batches, %.0f B weights, d=%u: %.4g GB per "
                           "GPU per step",
                     engine_offload_name(sc->offload), e->train_micro_batches, r->weights, sc->dp,
                     e->train_offload_bytes_per_step / G);
        break;
    case ENGINE_KEY_MEM_TRANSIENT:
    case ENGINE_KEY_MEM_ALLOCATOR:
        if (sc->memory_convention != ENGINE_MEMCONV_PEAK || sc->mode != ENGINE_MODE_TRAIN)
            snprintf(v, n, "0 GB: the %s convention counts the states and activations, not "
                           "the step's peak (--memory-convention peak)",
                     engine_memory_convention_name(sc->memory_convention));
        else if (k == ENGINE_KEY_MEM_TRANSIENT)
            snprintf(v, n, "peak at the %s (ZeRO-%u: %s): %.4g GB beside %.4g GB of activations",
                     engine_peak_phase_name(e->peak_phase), sc->zero,
                     sc->offload != ENGINE_OFFLOAD_NONE || sc->zero == 2 ? "DeepSpeed"
                     : sc->zero >= 3                                     ? "FSDP2 as torchtitan"
                                                                         : "Megatron-LM",
                     e->memory.transient / G, e->memory.activations / G);
        else
            snprintf(v, n, "0.05 * (%.4g + %.4g) GB%s = %.4g GB", e->memory.activations / G,
                     e->memory.transient / G,
                     e->peak_phase == ENGINE_PEAK_LOSS_BACKWARD && sc->zero >= 2
                         ? " + the freed 16-bit logits"
                         : "",
                     e->memory.allocator / G);
        break;
    case ENGINE_KEY_MEM_FP8_WEIGHTS:
        if (!engine_train_fp8(sc))
            snprintf(v, n, "0 GB: training in %s (--format fp8 or mxfp8 trains in FP8)",
                     engine_compute_name(engine_compute_column(sc)));
        else
            snprintf(v, n, "2 x %.4g bits / 8 per GEMM parameter%s = %.4g GB",
                     engine_format_bits(&sc->weight_format),
                     sc->zero >= 3 ? " of one gathered layer" : " of the stage over t",
                     e->memory.fp8_weights / G);
        break;
    case ENGINE_KEY_TRAIN_TOKENS_PER_GPU:
        snprintf(v, n, "%.4g tokens / %.4g s / %u GPUs = %.4g tokens/s", e->train_tokens_per_step,
                 e->train_step_seconds, sc->gpus, e->train_tokens_per_s_per_gpu);
        break;
    case ENGINE_KEY_TRAIN_STAGE_IMBALANCE:
        snprintf(v, n, "p=%u: the slowest stage runs %.4g x the mean%s", sc->pp,
                 e->train_stage_imbalance,
                 sc->pp > 1 ? " (its layers, embedding or head)" : " (one stage)");
        break;
    case ENGINE_KEY_TRAIN_CP_COMM:
        if (engine_cp(sc) == 1)
            snprintf(v, n, "no context parallelism (--cp 1): 0 s");
        else
            snprintf(v, n, "cp=%u, t=%u, %u tokens of %u per GPU, over %s: %.4g s per step not "
                           "hidden by the attention",
                     engine_cp(sc), sc->tp, sc->context / engine_cp(sc), sc->context,
                     (uint64_t)sc->tp * engine_cp(sc) <=
                             (sc->gpus_per_node ? sc->gpus_per_node
                                                : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node
                                                                         : 1))
                         ? "NVLink"
                         : "the network",
                     e->train_cp_comm_seconds);
        break;
    case ENGINE_KEY_TRAIN_FP8_CAST:
        if (!engine_train_fp8(sc))
            snprintf(v, n, "no FP8 training: 0 s");
        else
            snprintf(v, n, "%s at %.4g GB/s: %.4g s per step", sc->weight_format.name,
                     e->bandwidth_bytes_per_s / G, e->train_fp8_cast_seconds);
        break;
    case ENGINE_KEY_TRAIN_MOE:
        if (!(m->experts > 0))
            snprintf(v, n, "a dense model: 0 s");
        else
            snprintf(v, n, "E=%u, k=%u, ep=%u, imbalance %.3g%s: %.4g s per step", m->experts,
                     m->active_experts, engine_ep(sc), engine_ep(sc) > 1 ? engine_moe_imbalance(sc) : 1.0,
                     sc->moe_imbalance > 0 ? " (--moe-imbalance)" : " (default)",
                     e->train_moe_seconds);
        break;
    case ENGINE_KEY_TRAIN_OFFLOAD_SECONDS:
        snprintf(v, n, "%.4g GB / %.4g GB/s%s = %.4g s per step (of %.4g s)",
                 e->train_offload_bytes_per_step / G, e->host_link_bytes_per_s / G,
                 sc->host_link_bytes_per_s > 0 ? "" : " (PCIe 5.0 x16, assumed)",
                 e->train_offload_seconds, e->train_step_seconds);
        break;
    case ENGINE_KEY_CAPACITY:
        snprintf(v, n, "%s: %.4g GB = %.4g GiB", sc->gpu.name, e->capacity / G,
                 e->capacity / 1073741824.0);
        break;
    case ENGINE_KEY_FITS:
        snprintf(v, n, "%.4g GB %s %.4g GB", e->memory.total / G, e->fits ? "<=" : ">",
                 e->capacity / G);
        break;
    case ENGINE_KEY_DECODE_TOKENS:
        snprintf(v, n, "min(%.4g * %.2g, %.4g * %.2g) = %.4g tokens/s",
                 e->decode_tokens_per_s_memory_bound, sc->bw_efficiency,
                 e->decode_tokens_per_s_compute_bound, sc->flops_efficiency,
                 e->decode_tokens_per_s);
        break;
    case ENGINE_KEY_DECODE_MEMORY_BOUND: {
        char lat[80] = "";
        if (sc->tp > 1)
            snprintf(lat, sizeof lat, " + 2 * %u layers * %.3g us", m->layers,
                     sc->allreduce_latency_s * 1e6);
        snprintf(v, n, "%u * %u / (%u * %.4g GB / %.4g GB/s%s) = %.4g tokens/s", sc->dp, sc->batch,
                 sc->pp, e->decode_bytes_per_step / G, e->bandwidth_bytes_per_s / G, lat,
                 e->decode_tokens_per_s_memory_bound);
        break;
    }
    case ENGINE_KEY_DECODE_COMPUTE_BOUND:
        snprintf(v, n, "%u * %.4g TFLOP/s / %.4g GFLOP = %.4g tokens/s", sc->gpus,
                 e->peak_flop_per_s / 1e12, e->decode_flops_per_token / G,
                 e->decode_tokens_per_s_compute_bound);
        break;
    case ENGINE_KEY_DECODE_PER_SEQUENCE:
        snprintf(v, n, "%.4g / (%u * %u) = %.4g tokens/s", e->decode_tokens_per_s, sc->dp,
                 sc->batch, e->decode_tokens_per_s_per_sequence);
        break;
    case ENGINE_KEY_DECODE_BYTES_PER_STEP:
        snprintf(v, n, "weights read %.4g GB + KV %.4g GB = %.4g GB",
                 (e->decode_bytes_per_step - e->memory.kv_cache) / G, e->memory.kv_cache / G,
                 e->decode_bytes_per_step / G);
        break;
    case ENGINE_KEY_RIDGE:
        snprintf(v, n, "%.4g TFLOP/s / %.4g GB/s = %.4g FLOP/byte", e->peak_flop_per_s / 1e12,
                 e->bandwidth_bytes_per_s / G, e->ridge_flop_per_byte);
        break;
    case ENGINE_KEY_COMPUTE_BOUND_BATCH:
        snprintf(v, n, "%.4g * %.4g B / 2 = %.4g", e->ridge_flop_per_byte, bits / 8,
                 e->compute_bound_batch);
        break;
    case ENGINE_KEY_KV_PER_TOKEN:
        snprintf(v, n, "%.4g KB per token per sequence (%s)", e->kv_bytes_per_token / 1e3,
                 sc->kv_format.name);
        break;
    case ENGINE_KEY_ACT_PER_LAYER:
        if (sc->recompute == ENGINE_RECOMPUTE_FULL &&
            (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK || sc->recompute_num_layers > 1))
            snprintf(v, n,
                     "s=%u b=%u h=%u a=%u t=%u, full recompute, --recompute-method %s, "
                     "--recompute-num-layers %u%s: on average %.4g GB per layer",
                     sc->context, sc->batch, m->hidden, m->heads, sc->tp,
                     engine_recompute_method_name(sc->recompute_method),
                     sc->recompute_num_layers, sc->sequence_parallel ? ", SP" : "",
                     e->act_per_layer_bytes / G);
        else
            snprintf(v, n, "s=%u b=%u h=%u a=%u t=%u, %s recompute%s = %.4g GB", sc->context,
                     sc->batch, m->hidden, m->heads, sc->tp,
                     engine_recompute_name(sc->recompute), sc->sequence_parallel ? ", SP" : "",
                     e->act_per_layer_bytes / G);
        break;
    case ENGINE_KEY_ACT_LAYERS_HELD:
        if (sc->interleave > 1 && sc->pp > 1)
            snprintf(v, n,
                     "%u layers / p=%u, interleaved v=%u: the first stage holds p (1 + (p-1)/(p "
                     "v)) = %.4g micro-batches' worth (m=%u) = %.4g",
                     m->layers, sc->pp, sc->interleave,
                     sc->pp * (1.0 + (sc->pp - 1.0) / ((double)sc->pp * sc->interleave)),
                     engine_micro_batches(sc), e->act_layers_held);
        else
            snprintf(v, n, "%u layers / p=%u * min(m=%u, p) = %.4g", m->layers, sc->pp,
                     engine_micro_batches(sc), e->act_layers_held);
        break;
    case ENGINE_KEY_ACT_LOGITS:
        snprintf(v, n, "4 * %u * %u * %u / t=%u on the last stage%s = %.4g GB",
                 sc->mode == ENGINE_MODE_INFER ? 1 : sc->context, sc->batch, m->vocab, sc->tp,
                 sc->pp > 1 && e->act_logits_bytes == 0 ? " (the fullest GPU is an earlier stage)"
                                                        : "",
                 e->act_logits_bytes / G);
        break;
    case ENGINE_KEY_PREFILL:
        snprintf(v, n,
                 "prompt %u tokens in %.0f step(s) of %.0f (%s) over t=%u p=%u: compute alone "
                 "%.4g s at %.4g TFLOP/s, bytes alone %.4g s at %.4g GB/s, TP/PP communication "
                 "%.4g s; max per step, pipelined = %.4g s",
                 sc->prompt ? sc->prompt : sc->context, e->serving.prefill_chunks,
                 e->serving.prefill_chunk_tokens, engine_runtime_name(sc->serving.runtime),
                 sc->tp, sc->pp, e->serving.prefill_compute_s, e->peak_flop_per_s / 1e12,
                 e->serving.prefill_bytes_s, e->bandwidth_bytes_per_s / G,
                 e->serving.prefill_comm_s, e->prefill_seconds);
        break;
    case ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN: {
        double kn = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0;
        double attn = e->train_flops_per_token - kn * e->params_active;
        if (sc->flops_model == ENGINE_FLOPS_6N)
            snprintf(v, n, "%g * %.4g (--flops-model 6n: no attention term) = %.4g FLOP", kn,
                     e->params_active, e->train_flops_per_token);
        else
            snprintf(v, n,
                     "%g * %.4g + 6 * L=%u * s=%u * a=%u * (d_qk + d_v) = %.4g + %.4g = %.4g FLOP "
                     "(attention %+.1f%%)",
                     kn, e->params_active, m->layers, sc->context, m->heads,
                     kn * e->params_active, attn, e->train_flops_per_token,
                     100.0 * attn / (kn * e->params_active));
        break;
    }
    case ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN:
        snprintf(v, n, "%.4g model + %.4g recomputed (%s) = %.4g FLOP", e->train_flops_per_token,
                 e->train_hw_flops_per_token - e->train_flops_per_token,
                 engine_recompute_name(sc->recompute), e->train_hw_flops_per_token);
        break;
    case ENGINE_KEY_TRAIN_STEP: {
        if (sc->throughput_tokens_per_s > 0)
            snprintf(v, n, "%.4g tokens per step / --throughput %.4g tokens/s = %.4g s",
                     e->train_tokens_per_step, sc->throughput_tokens_per_s,
                     e->train_step_seconds);
        else if (sc->mfu > 0)
            snprintf(v, n,
                     "%.4g FLOP * %.4g tokens / (%u * %.4g TFLOP/s * MFU %.4g) = %.4g s (the "
                     "bubble and communication are inside the MFU)",
                     e->train_flops_per_token, e->train_tokens_per_step, sc->gpus,
                     e->peak_flop_per_s / 1e12, sc->mfu, e->train_step_seconds);
        else
            snprintf(v, n,
                     "%.4g FLOP * %.4g tokens / (%u * %.4g TFLOP/s * %.3g kernel efficiency) = "
                     "%.4g s; with the memory-bound FP8 casts %.3g s, MoE %.3g s "
                     "the slowest stage runs %.4g x the mean, / (1 - %.3g) + TP %.3g s + PP "
                     "%.3g s + EP %.3g s + CP %.3g s + DP not hidden %.3g s = %.4g s",
                     e->train_hw_flops_per_token, e->train_tokens_per_step, sc->gpus,
                     e->peak_flop_per_s / 1e12, e->train_kernel_efficiency,
                     e->train_compute_seconds, e->train_fp8_cast_seconds, e->train_moe_seconds, e->train_stage_imbalance,
                     e->train_bubble_fraction, e->train_tp_comm_seconds,
                     e->train_pp_comm_seconds, e->train_all_to_all_seconds,
                     e->train_cp_comm_seconds,
                     fmax(0.0, e->train_dp_comm_seconds - e->train_compute_seconds * 2.0 / 3.0),
                     e->train_step_seconds);
        break;
    }
    case ENGINE_KEY_TRAIN_MFU:
        if (sc->throughput_tokens_per_s > 0)
            snprintf(v, n, "%.4g FLOP * %.4g tokens/s / (%u * %.4g TFLOP/s) = %.4g (implied by "
                     "--throughput)",
                     e->train_flops_per_token, sc->throughput_tokens_per_s, sc->gpus,
                     e->peak_flop_per_s / 1e12, e->train_mfu);
        else if (sc->mfu > 0)
            snprintf(v, n, "--mfu %.4g, given (end to end)", sc->mfu);
        else
            snprintf(v, n,
                     "%.4g FLOP * %.4g tokens / (%u * %.4g TFLOP/s * %.4g s) = %.4g (kernels at "
                     "%.3g of peak%s, bubble %.3g, TP %.3g s, PP %.3g s, DP not hidden %.3g s)",
                     e->train_flops_per_token, e->train_tokens_per_step, sc->gpus,
                     e->peak_flop_per_s / 1e12, e->train_step_seconds, e->train_mfu,
                     e->train_kernel_efficiency,
                     sc->flops_efficiency_given ? ", --flops-efficiency"
                                                : ", the default: Korthikanti Table 5",
                     e->train_bubble_fraction, e->train_tp_comm_seconds,
                     e->train_pp_comm_seconds,
                     fmax(0.0, e->train_dp_comm_seconds - e->train_compute_seconds * 2.0 / 3.0));
        break;
    case ENGINE_KEY_TRAIN_HFU:
        snprintf(v, n, "%.4g * %.4g / %.4g = %.4g", e->train_mfu, e->train_hw_flops_per_token,
                 e->train_flops_per_token, e->train_hfu);
        break;
    case ENGINE_KEY_TRAIN_PP_COMM:
        snprintf(v, n, "p=%u, v=%u, m=%u, t=%u: %.4g s per step", sc->pp, sc->interleave,
                 engine_micro_batches(sc), sc->tp, e->train_pp_comm_seconds);
        break;
    case ENGINE_KEY_TRAIN_ENERGY:
        snprintf(v, n, "%.4g GPU-hours * 3600 * %.4g W = %.4g J = %.4g MWh (%.4g J per token)",
                 e->train_gpu_hours, sc->gpu.tdp_w, e->train_energy_joules,
                 e->train_energy_joules / 3.6e9, e->train_energy_joules_per_token);
        break;
    case ENGINE_KEY_DECODE_JOULES_PER_TOKEN:
        snprintf(v, n, "%u GPUs * %.4g W / %.4g tokens/s = %.4g J per token", sc->gpus,
                 sc->gpu.tdp_w, e->decode_tokens_per_s, e->decode_joules_per_token);
        break;
    case ENGINE_KEY_TRAIN_SYSTEM_ENERGY:
        snprintf(v, n, "ceil(%u / %u) = %.0f %s * %.4g W * %.4g s = %.4g J = %.4g MWh", sc->gpus,
                 sc->system_gpus, e->systems, sc->system_id, sc->system_power_w,
                 e->train_days * 86400.0, e->train_system_energy_joules,
                 e->train_system_energy_joules / 3.6e9);
        break;
    case ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN:
        snprintf(v, n, "ceil(%u / %u) = %.0f %s * %.4g W / %.4g tokens/s = %.4g J per token",
                 sc->gpus, sc->system_gpus, e->systems, sc->system_id, sc->system_power_w,
                 e->decode_tokens_per_s, e->decode_system_joules_per_token);
        break;
    case ENGINE_KEY_TRAIN_COST_SPOT:
        snprintf(v, n, "%.4g GPU-hours * $%.4g/h spot = $%.4g", e->train_gpu_hours,
                 sc->gpu.spot_price_per_hour, e->train_cost_spot_usd);
        break;
    case ENGINE_KEY_TRAIN_GLOBAL_BATCH:
        snprintf(v, n, "%u * %u * %u = %.0f sequences (%.4g tokens of %u)%s", sc->batch,
                 engine_micro_batches(sc), sc->dp, e->train_global_batch,
                 e->train_tokens_per_step, sc->context,
                 sc->global_batch ? ", --global-batch" : "");
        break;
    case ENGINE_KEY_TRAIN_MICRO_BATCHES:
        if (sc->global_batch)
            snprintf(v, n, "%u / (%u * %u) = %.0f", sc->global_batch, sc->batch, sc->dp,
                     e->train_micro_batches);
        else
            snprintf(v, n, "--micro-batches %u (no --global-batch)", sc->micro_batches);
        break;
    case ENGINE_KEY_TRAIN_BUBBLE:
        snprintf(v, n, "(%u - 1) / (%u * %u + %u - 1) = %.4g", sc->pp, sc->interleave,
                 engine_micro_batches(sc), sc->pp, e->train_bubble_fraction);
        break;
    case ENGINE_KEY_TRAIN_TP_COMM:
        snprintf(v, n, "t=%u: %.4g s per step", sc->tp, e->train_tp_comm_seconds);
        break;
    case ENGINE_KEY_TRAIN_DP_COMM:
        if (engine_ep(sc) > 1)
            snprintf(v, n,
                     "d=%u (the experts' gradients over d/ep = %u expert data-parallel ranks): "
                     "%.4g s per step",
                     sc->dp, sc->dp / engine_ep(sc), e->train_dp_comm_seconds);
        else
            snprintf(v, n, "d=%u: %.4g s per step", sc->dp, e->train_dp_comm_seconds);
        break;
    case ENGINE_KEY_TRAIN_ALL_TO_ALL:
        if (engine_ep(sc) > 1)
            snprintf(v, n,
                     "ep=%u, k=%u of %u experts, t=%u, m=%u, s=%u, b=%u, h=%u, over %s: %.4g s "
                     "per step",
                     engine_ep(sc), m->active_experts, m->experts, sc->tp,
                     engine_micro_batches(sc), sc->context, sc->batch, m->hidden,
                     (uint64_t)sc->tp * engine_ep(sc) <=
                             (sc->gpus_per_node ? sc->gpus_per_node
                                                : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node
                                                                         : 1))
                         ? "NVLink (t x ep GPUs in a node)"
                         : "the network (t x ep GPUs span nodes)",
                     e->train_all_to_all_seconds);
        else
            snprintf(v, n, "no expert parallelism (--ep 1): 0 s");
        break;
    case ENGINE_KEY_TRAIN_DAYS:
        if (sc->throughput_tokens_per_s > 0) {
            snprintf(v, n, "%.4g tokens / %.4g tokens/s = %.4g s = %.4g h = %.4g days",
                     e->train_tokens, sc->throughput_tokens_per_s,
                     e->train_tokens / sc->throughput_tokens_per_s,
                     e->train_tokens / sc->throughput_tokens_per_s / 3600, e->train_days);
            break;
        }
        snprintf(v, n, "%.4g tokens%s / %.4g per step * %.4g s = %.4g days", e->train_tokens,
                 sc->training_tokens_given || sc->training_tokens > 0 ? ""
                 : sc->mode == ENGINE_MODE_TRAIN ? " (20 per parameter, Hoffmann et al. 2022)"
                                                 : " (a 100M-token fine-tuning set)",
                 e->train_tokens_per_step, e->train_step_seconds, e->train_days);
        break;
    case ENGINE_KEY_TRAIN_GPU_HOURS:
        snprintf(v, n, "%.4g days * 24 * %u GPUs = %.4g GPU-hours", e->train_days, sc->gpus,
                 e->train_gpu_hours);
        break;
    case ENGINE_KEY_TRAIN_COST:
        snprintf(v, n, "%.4g GPU-hours * $%.4g/h = $%.4g", e->train_gpu_hours,
                 engine_price_per_hour(sc),
                 e->train_cost_usd);
        break;
    case ENGINE_KEY_DECODE_FLOPS_PER_TOKEN:
        snprintf(v, n, "2 * %.4g + attention at %u tokens = %.4g GFLOP", e->params_active,
                 sc->context, e->decode_flops_per_token / G);
        break;
    case ENGINE_KEY_ARITHMETIC_INTENSITY:
        snprintf(v, n, "%u * %.4g GFLOP / %u GPUs / %.4g GB = %.4g FLOP/byte (ridge %.4g)",
                 sc->batch, e->decode_flops_per_token / G, sc->tp * sc->pp,
                 e->decode_bytes_per_step / G, e->arithmetic_intensity, e->ridge_flop_per_byte);
        break;
    case ENGINE_KEY_TRAIN_TOKENS_PER_STEP:
        snprintf(v, n, "%u * %u * %u * %u = %.4g tokens", sc->batch, engine_micro_batches(sc),
                 sc->dp,
                 sc->context, e->train_tokens_per_step);
        break;
    case ENGINE_KEY_MEM_OVERHEAD:
    case ENGINE_KEY_SERVING_OVERHEAD:
        explain_overhead(sc, e, v, n);
        break;
    case ENGINE_KEY_MEM_HOST:
        if (sc->mode != ENGINE_MODE_INFER) {
            if (sc->offload == ENGINE_OFFLOAD_NONE)
                snprintf(v, n, "no offload (--offload none): 0 GB of training state in host RAM");
            else
                snprintf(v, n,
                         "%s convention, --offload %s: %.4g GB per GPU in host RAM, %.4g GB per "
                         "node (DeepSpeed's estimator adds 1.5x as a buffer)",
                         engine_memory_convention_name(sc->memory_convention),
                         engine_offload_name(sc->offload), e->memory.host / G,
                         e->host_bytes_per_node / G);
            break;
        }
        snprintf(v, n,
                 "%.0f of %u layers in host RAM%s%s: %.4g GB (a decode step reads %.4g GB of it)",
                 e->serving.host_layers, m->layers,
                 sc->serving.cpu_moe_layers ? ", the experts of the first --n-cpu-moe layers" : "",
                 sc->serving.runtime == ENGINE_RUNTIME_LLAMACPP ||
                         sc->serving.runtime == ENGINE_RUNTIME_OLLAMA
                     ? ", the token embedding (llama.cpp keeps it on the CPU)"
                     : "",
                 e->memory.host / G, e->serving.decode_host_bytes / G);
        break;
    case ENGINE_KEY_SERVING_TTFT:
        snprintf(v, n,
                 "prompt %u tokens, %u other sequence(s) decoding at %u tokens, steps of %.0f "
                 "tokens (%s) = %.4g s (alone: prefill %.4g s)",
                 sc->prompt ? sc->prompt : sc->context, sc->batch - 1, sc->context,
                 e->serving.prefill_chunk_tokens, engine_runtime_name(sc->serving.runtime),
                 e->serving.ttft_s, e->prefill_seconds);
        break;
    case ENGINE_KEY_SERVING_TPOT:
        snprintf(v, n, "1 / %.4g tokens/s = %.4g ms (GPU %.4g ms + host %.4g ms per step)",
                 e->decode_tokens_per_s_per_sequence, e->serving.tpot_s * 1e3,
                 e->serving.decode_gpu_s * 1e3, e->serving.decode_host_s * 1e3);
        break;
    case ENGINE_KEY_SERVING_AVAILABLE_KV:
        snprintf(v, n,
                 "requested %.4g GiB - weights %.4g GiB - runtime buffers %.4g GiB = %.4g GiB "
                 "(%.4g GB)",
                 e->serving.requested_bytes / GIB_, e->memory.weights / GIB_,
                 e->memory.overhead / GIB_, e->serving.available_kv_bytes / GIB_,
                 e->serving.available_kv_bytes / G);
        break;
    case ENGINE_KEY_SERVING_KV_BLOCKS: {
        double kvb = engine_format_bits(&sc->kv_format) / 8;
        unsigned kvh = m->kv_heads ? m->kv_heads : m->heads;
        unsigned per = m->kv_lora_rank ? 1 : (kvh + sc->tp - 1) / sc->tp;
        snprintf(v, n,
                 "floor(%.6g B / (%s%u tokens * %u KV heads * %u * %.3g B = page) / %u layers) = "
                 "%.0f blocks",
                 e->serving.available_kv_bytes, m->kv_lora_rank ? "" : "2 * ",
                 (unsigned)engine_runtime_block(sc), per,
                 m->kv_lora_rank ? m->kv_lora_rank + m->rope_dim
                                 : (m->head_dim ? m->head_dim : m->hidden / m->heads),
                 kvb, (m->layers + sc->pp - 1) / sc->pp, e->serving.kv_blocks);
        break;
    }
    case ENGINE_KEY_SERVING_KV_TOKENS:
        snprintf(v, n, "%.0f blocks * %.0f = %.0f tokens (this load needs %.0f blocks)",
                 e->serving.kv_blocks, engine_runtime_block(sc), e->serving.kv_tokens,
                 e->serving.kv_blocks_needed);
        break;
    case ENGINE_KEY_SERVING_MAX_CONCURRENCY:
        snprintf(v, n, "%.0f / ceil(%.0f / %.0f) = %.0f / %.0f = %.4gx", e->serving.kv_blocks,
                 e->serving.max_model_len, engine_runtime_block(sc), e->serving.kv_blocks,
                 ceil(e->serving.max_model_len / engine_runtime_block(sc)),
                 e->serving.max_concurrency);
        break;
    case ENGINE_KEY_SERVING_MAX_MODEL_LEN:
        if (e->serving.max_model_len_that_fits >= e->serving.max_model_len)
            snprintf(v, n, "one request of max_model_len %.0f fits (%.0f blocks of %.0f)",
                     e->serving.max_model_len,
                     ceil(e->serving.max_model_len / engine_runtime_block(sc)),
                     e->serving.kv_blocks);
        else
            snprintf(v, n,
                     "max_model_len %.0f needs %.0f blocks, only %.0f: vLLM refuses to start; "
                     "the longest that fits is %.0f * %.0f = %.0f",
                     e->serving.max_model_len,
                     ceil(e->serving.max_model_len / engine_runtime_block(sc)),
                     e->serving.kv_blocks, e->serving.kv_blocks, engine_runtime_block(sc),
                     e->serving.max_model_len_that_fits);
        break;
    case ENGINE_KEY_SERVING_COMPUTE_BUFFER:
        snprintf(v, n,
                 "u=%u, n_kv=%.0f (n_ctx %u padded to %.0f x %u sequences), heads %u/t=%u, "
                 "flash attention %s = %.4g MiB",
                 engine_runtime_ubatch(sc), e->serving.context_padded * sc->batch, sc->context,
                 e->serving.context_padded, sc->batch, m->heads, sc->tp,
                 engine_runtime_flash_attention(sc) ? "on" : "off",
                 e->serving.compute_buffer_bytes / 1048576.0);
        break;
    case ENGINE_KEY_SERVING_GPU_LAYERS:
        snprintf(v, n, "%.0f of %u layers on the GPUs%s%s", e->serving.gpu_layers, m->layers,
                 e->gpu_layers_fitted ? " (the most that fit: the runtime chooses)" : "",
                 e->serving.gpu_layers >= 1 ? ", the output layer with them" : "");
        break;
    case ENGINE_KEY_SERVING_HOST_BW:
        snprintf(v, n, "%.4g GB/s%s: %.4g GB / %.4g GB/s = %.4g ms per decode step",
                 e->serving.host_bytes_per_s / G,
                 sc->serving.host_bytes_per_s > 0
                     ? (sc->serving.host_measured ? " (measured)" : "")
                     : " (assumed: dual-channel DDR5)",
                 e->serving.decode_host_bytes / G, e->serving.host_bytes_per_s / G,
                 e->serving.decode_host_s * 1e3);
        break;
    case ENGINE_KEY_SERVING_MEMORY_REPORTED:
        snprintf(v, n, "%.4g GiB (data sheet %.4g GiB)%s", e->serving.memory_reported_bytes / GIB_,
                 e->capacity / GIB_,
                 sc->gpu.memory_reported_bytes > 0 ? "" : ": not known, the data sheet's taken");
        break;
    case ENGINE_KEY_SERVING_REQUESTED:
        if (sc->serving.runtime == ENGINE_RUNTIME_SGLANG)
            snprintf(v, n, "mem_fraction_static %.3g * (%.4g - CUDA context %.4g) GiB = %.4g GiB",
                     e->serving.memory_fraction, e->serving.memory_reported_bytes / GIB_,
                     e->serving.cuda_context_bytes / GIB_, e->serving.requested_bytes / GIB_);
        else if (sc->serving.runtime == ENGINE_RUNTIME_TRTLLM)
            snprintf(v, n,
                     "weights %.4g + peak %.4g + %.3g * (%.4g - %.4g - %.4g) GiB = %.4g GiB",
                     e->memory.weights / GIB_, e->memory.overhead / GIB_,
                     e->serving.memory_fraction, e->serving.memory_reported_bytes / GIB_,
                     e->memory.weights / GIB_, e->memory.overhead / GIB_,
                     e->serving.requested_bytes / GIB_);
        else
            snprintf(v, n, "%.3g * %.4g GiB = %.4g GiB", e->serving.memory_fraction,
                     e->serving.memory_reported_bytes / GIB_, e->serving.requested_bytes / GIB_);
        break;
    case ENGINE_KEY_SERVING_ROTARY_CACHE:
        snprintf(v, n, "%u positions * %u * 2 B = %.4g MiB",
                 m->max_context ? m->max_context : sc->context,
                 m->kv_lora_rank ? m->rope_dim : (m->head_dim ? m->head_dim : m->hidden / m->heads),
                 e->serving.rotary_cache_bytes / 1048576.0);
        break;
    case ENGINE_KEY_SERVING_ACTIVATION_PEAK:
        snprintf(v, n,
                 "max(forward %.4g GiB, sampler %.4g GiB) + cuBLAS workspaces %.4g MiB = %.4g GiB "
                 "(T = %.0f tokens, R = %.0f requests)",
                 e->serving.forward_peak_bytes / GIB_, e->serving.sampler_peak_bytes / GIB_,
                 e->serving.cublas_workspace_bytes / 1048576.0,
                 e->serving.activation_peak_bytes / GIB_, e->serving.max_num_batched_tokens,
                 fmin(e->serving.max_num_seqs, e->serving.max_num_batched_tokens));
        break;
    case ENGINE_KEY_SERVING_NON_TORCH:
        snprintf(v, n, "%.4g GiB (%s, %u GPU(s) a replica)", e->serving.non_torch_bytes / GIB_,
                 sc->tp * sc->pp > 1 ? "with NCCL's buffers" : "one GPU: no NCCL buffers",
                 sc->tp * sc->pp);
        break;
    case ENGINE_KEY_SERVING_CUDA_GRAPHS:
        if (isfinite(e->serving.cuda_graph_bytes))
            snprintf(v, n, "%.4g GiB counted before the KV cache%s",
                     e->serving.cuda_graph_bytes / GIB_,
                     sc->serving.cuda_graph_bytes > 0 ? " (--cuda-graph-memory)" : "");
        else
            snprintf(v, n, "not counted: this release captures them after the KV cache, out of "
                           "the headroom");
        break;
    case ENGINE_KEY_SERVING_STEADY_CONCURRENCY:
        if (!isfinite(e->serving.steady_concurrency))
            snprintf(v, n, "no output tokens (--prompt %u of --context %u) or a sliding window: "
                           "not modelled",
                     sc->prompt ? sc->prompt : sc->context, sc->context);
        else
            snprintf(v, n,
                     "prompt %u + output %u: %.4g tokens a sequence on average; %.4g sequences at "
                     "once%s",
                     sc->prompt ? sc->prompt : sc->context,
                     sc->context - (sc->prompt ? sc->prompt : sc->context),
                     e->serving.steady_context, e->serving.steady_concurrency,
                     sc->serving.request_rate > 0 ? " (Little's law at --request-rate)"
                                                  : " (saturated)");
        break;
    case ENGINE_KEY_SERVING_STEADY_TOKENS:
        if (!isfinite(e->serving.steady_tokens_per_s))
            snprintf(v, n, "see serving.steady_concurrency");
        else
            snprintf(v, n,
                     "%.4g sequences / step %.4g ms = %.4g output tokens/s (%.4g requests/s)",
                     e->serving.steady_concurrency, e->serving.steady_step_s * 1e3,
                     e->serving.steady_tokens_per_s, e->serving.steady_request_rate);
        break;
    case ENGINE_KEY_DECODE_BATCH1:
        snprintf(v, n,
                 "1 / (bytes %.4g ms + kernels %.4g ms + sampler %.4g ms) = %.4g tokens/s (the "
                 "bandwidth alone: %.4g)",
                 (1.0 / e->serving.batch1_tokens_per_s - e->serving.token_fixed_s) * 1e3,
                 e->serving.token_launch_s * 1e3, e->serving.token_sample_s * 1e3,
                 e->serving.batch1_tokens_per_s,
                 1.0 / (1.0 / e->serving.batch1_tokens_per_s - e->serving.token_fixed_s));
        break;
    case ENGINE_KEY_PREFILL_ALLREDUCE:
        snprintf(v, n, "%.0f step(s) of %.0f tokens, t=%u: %.4g ms of TP all-reduces",
                 e->serving.prefill_chunks, e->serving.prefill_chunk_tokens, sc->tp,
                 e->serving.prefill_allreduce_s * 1e3);
        break;
    case ENGINE_KEY_COUNT:
        v[0] = '\0';
        break;
    }
}

/* Explain one key of this estimate. */
void engine_explain(const struct engine_scenario *sc, const struct engine_estimate *e,
                    enum engine_key k, struct engine_explanation *out) {
    memset(out, 0, sizeof *out);
    if ((unsigned)k >= ENGINE_KEY_COUNT)
        return;
    out->key = keys[k].name;
    out->label = keys[k].label;
    out->formula = keys[k].formula;
    out->source = keys[k].source;
    if (e->invalid)
        snprintf(out->values, sizeof out->values, "scenario is invalid");
    else if (!engine_key_applies(sc, k) && sc->system_gpus == 0 &&
             (k == ENGINE_KEY_TRAIN_SYSTEM_ENERGY || k == ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN))
        snprintf(out->values, sizeof out->values, "needs a system (--system ID)");
    else if (!engine_key_applies(sc, k) && sc->mode == ENGINE_MODE_INFER &&
             k == ENGINE_KEY_SERVING_CUDA_GRAPHS && sc->serving.runtime == ENGINE_RUNTIME_VLLM)
        snprintf(out->values, sizeof out->values,
                 "not counted: vLLM before 0.21 captures its CUDA graphs after the KV cache is "
                 "sized, out of the 1 - gpu_memory_utilization headroom");
    else if (!engine_key_applies(sc, k) && sc->mode == ENGINE_MODE_INFER &&
             (k == ENGINE_KEY_SERVING_STEADY_CONCURRENCY || k == ENGINE_KEY_SERVING_STEADY_TOKENS))
        snprintf(out->values, sizeof out->values,
                 "needs output tokens: a --prompt shorter than --context %u", sc->context);
    else if (!engine_key_applies(sc, k) && sc->mode == ENGINE_MODE_INFER && keys[k].runtimes) {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        snprintf(out->values, sizeof out->values, "does not apply to %s", who);
    } else if (!engine_key_applies(sc, k))
        snprintf(out->values, sizeof out->values, "does not apply in %s mode",
                 engine_mode_name(sc->mode));
    else
        explain_values(sc, e, k, out->values, sizeof out->values);
}

/* Text of one warning. */
void engine_warning_text(const struct engine_scenario *sc, const struct engine_estimate *e,
                         enum engine_warning w, char *buf, size_t n) {
    uint32_t gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    switch (w) {
    case ENGINE_WARN_TP_ACROSS_NODES:
        snprintf(buf, n,
                 "TP=%u spans nodes of %u GPUs: its all-reduces leave the node's fast links",
                 sc->tp, gpn);
        break;
    case ENGINE_WARN_BUBBLE:
        snprintf(buf, n,
                 "pipeline bubble %.0f%%: %u micro-batches on %u stages; use at least 4 x p = %u "
                 "micro-batches (GPipe), a global batch of %llu sequences at this micro-batch "
                 "size and dp",
                 100 * e->train_bubble_fraction, engine_micro_batches(sc), sc->pp, 4 * sc->pp,
                 4ull * sc->pp * sc->batch * sc->dp);
        break;
    case ENGINE_WARN_CONTEXT_OVER_MAX:
        snprintf(buf, n, "context %u exceeds the model's maximum %u", sc->context,
                 sc->model.max_context);
        break;
    case ENGINE_WARN_DERIVED_SHAPE:
        snprintf(
            buf, n,
            "shape derived from the size: h=%u, L=%u, %u heads, %u KV heads (KV and activations "
            "approximate)",
            sc->model.hidden, sc->model.layers, sc->model.heads,
            sc->model.kv_heads ? sc->model.kv_heads : sc->model.heads);
        break;
    case ENGINE_WARN_KV_REPLICATED:
        snprintf(buf, n, "TP=%u exceeds the %u KV heads: each GPU keeps a full KV head", sc->tp,
                 sc->model.kv_heads);
        break;
    case ENGINE_WARN_NO_FORMAT_FLOPS:
        if (engine_train_mxfp8(sc) && sc->gpu.flops[ENGINE_COMPUTE_FP8] > 0)
            snprintf(buf, n, "%s has no block-scaled (MX) tensor cores: MXFP8 training needs "
                             "Blackwell; its GEMMs counted at BF16",
                     sc->gpu.name);
        else if (engine_train_fp8(sc))
            snprintf(buf, n, "%s has no FP8 tensor cores (Transformer Engine refuses FP8 "
                             "there): the GEMMs counted at BF16",
                     sc->gpu.name);
        else
            snprintf(buf, n, "%s has no %s figure: FP16 FLOP/s used", sc->gpu.name,
                     engine_compute_name(engine_compute_column(sc)));
        break;
    case ENGINE_WARN_DOES_NOT_FIT:
        snprintf(buf, n, "needs %.3gx the memory of one GPU (%.4g GB short)", e->memory_ratio,
                 -e->spare_bytes / 1e9);
        break;
    case ENGINE_WARN_ZERO_WITHOUT_DP:
        snprintf(buf, n, "ZeRO-%u has no effect with DP=1", sc->zero);
        break;
    case ENGINE_WARN_COMM_BOUND:
        snprintf(buf, n, "communication (%.3g s) exceeds compute (%.3g s) per step",
                 e->train_tp_comm_seconds + e->train_pp_comm_seconds + e->train_dp_comm_seconds,
                 e->train_step_seconds);
        break;
    case ENGINE_WARN_NO_PRICE:
        snprintf(buf, n, "no price for %s: pass --price to get a cost", sc->gpu.name);
        break;
    case ENGINE_WARN_CALIBRATED:
        /* name only what was measured: the other figure is the data sheet's */
        if (sc->measured_bytes_per_s > 0 && sc->measured_flop_per_s > 0)
            snprintf(buf, n,
                     "calibrated: measured %.4g GB/s and %.4g TFLOP/s replace the data sheet",
                     e->bandwidth_bytes_per_s / 1e9, e->peak_flop_per_s / 1e12);
        else if (sc->measured_bytes_per_s > 0)
            snprintf(buf, n, "calibrated: measured %.4g GB/s replaces the data-sheet bandwidth",
                     e->bandwidth_bytes_per_s / 1e9);
        else
            snprintf(buf, n, "calibrated: measured %.4g TFLOP/s replace the data-sheet FLOP/s",
                     e->peak_flop_per_s / 1e12);
        break;
    case ENGINE_WARN_MOE_ROUTING:
        snprintf(buf, n,
                 "MoE at batch %u: a step reads the experts any sequence routes to, "
                 "not just %u",
                 sc->batch, sc->model.active_experts);
        break;
    case ENGINE_WARN_UNEVEN_STAGES:
        snprintf(buf, n,
                 "pp=%u does not divide the %u layers: the fullest stage holds %u "
                 "(Llama 3.1 405B ran 126 layers on 16 stages)",
                 sc->pp, sc->model.layers, (sc->model.layers + sc->pp - 1) / sc->pp);
        break;
    case ENGINE_WARN_KV_POOL_SHORT:
        snprintf(buf, n,
                 "vLLM: %u sequences of %u tokens need %.0f KV blocks, the cache has %.0f (at most "
                 "%.0f such sequences at once): more concurrency runs out of KV cache",
                 sc->batch, sc->context, e->serving.kv_blocks_needed, e->serving.kv_blocks,
                 floor(e->serving.kv_blocks / ceil((double)sc->context / sc->serving.block_size)));
        break;
    case ENGINE_WARN_RUNTIME_REFUSES: {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        const struct engine_serving_estimate *v = &e->serving;
        if (sc->serving.runtime != ENGINE_RUNTIME_VLLM)
            snprintf(buf, n,
                     "%s would refuse to start: no memory left for the KV cache (%.4g GiB "
                     "requested, weights %.4g GiB); %s",
                     who, v->requested_bytes / GIB_, e->memory.weights / GIB_,
                     sc->serving.runtime == ENGINE_RUNTIME_SGLANG
                         ? "SGLang: \"Not enough memory. Please try to increase "
                           "--mem-fraction-static.\""
                         : "raise --free-gpu-memory-fraction or use more GPUs");
        else if (v->available_kv_bytes <= 0)
            snprintf(buf, n,
                     "%s would refuse to start: weights %.4g GiB + runtime buffers %.4g GiB exceed "
                     "the %.4g GiB requested; vLLM: \"No available memory for the cache blocks. "
                     "Try increasing `gpu_memory_utilization` when initializing the engine.\"",
                     who, e->memory.weights / GIB_, e->memory.overhead / GIB_,
                     v->requested_bytes / GIB_);
        else
            snprintf(buf, n,
                     "%s would refuse to start: one request of max_model_len %.0f needs %.2f GiB "
                     "of KV cache, more than the %.2f GiB available; the largest --max-model-len "
                     "that fits is %.0f; vLLM: \"Try increasing `gpu_memory_utilization` or "
                     "decreasing `max_model_len` when initializing the engine.\"",
                     who, v->max_model_len,
                     ceil(v->max_model_len / engine_runtime_block(sc)) * engine_runtime_block(sc) *
                         e->kv_bytes_per_token / sc->tp / sc->pp / GIB_,
                     v->available_kv_bytes / GIB_, v->max_model_len_that_fits);
        break;
    }
    case ENGINE_WARN_CONTEXT_OVER_NATIVE:
        snprintf(buf, n,
                 "context %u exceeds the %u tokens %s had before rope scaling (%s, factor %.3g) "
                 "extended it to %u: past its native length the positions are interpolated",
                 sc->context, sc->model.native_context,
                 sc->model.name[0] ? sc->model.name : sc->model.id,
                 sc->model.rope_scaling[0] ? sc->model.rope_scaling : "rope",
                 sc->model.rope_factor, sc->model.max_context);
        break;
    case ENGINE_WARN_OFFLOADED:
        snprintf(buf, n,
                 "%.0f of %u layers in host RAM%s: each token reads %.4g GB there at %.4g GB/s "
                 "(%.4g ms of %.4g ms per step)",
                 e->serving.host_layers, sc->model.layers,
                 sc->serving.cpu_moe_layers ? " (and the experts of --n-cpu-moe layers)" : "",
                 e->serving.decode_host_bytes / 1e9, e->serving.host_bytes_per_s / 1e9,
                 e->serving.decode_host_s * 1e3, e->serving.tpot_s * 1e3);
        break;
    case ENGINE_WARN_HOST_BW_ASSUMED:
        snprintf(buf, n,
                 "host bandwidth assumed %.4g GB/s (dual-channel DDR5): give --host-bandwidth or "
                 "--host-cpu ID, or measure it (Measure pane)",
                 ENGINE_DEFAULT_HOST_BW / 1e9);
        break;
    default:
        snprintf(buf, n, "unknown warning");
    }
}

/* Text of one invalid-input bit. */
void engine_invalid_text(const struct engine_scenario *sc, uint32_t bit, char *buf, size_t n) {
    switch (bit) {
    case ENGINE_INVALID_LAYOUT:
        if (engine_cp(sc) > 1)
            snprintf(buf, n, "tp x cp x pp x dp = %u x %u x %u x %u = %llu, not the %u GPUs",
                     sc->tp, engine_cp(sc), sc->pp, sc->dp,
                     (unsigned long long)sc->tp * engine_cp(sc) * sc->pp * sc->dp, sc->gpus);
        else
            snprintf(buf, n, "tp x pp x dp = %u x %u x %u = %llu, not the %u GPUs", sc->tp,
                     sc->pp, sc->dp, (unsigned long long)sc->tp * sc->pp * sc->dp, sc->gpus);
        break;
    case ENGINE_INVALID_TP_HEADS:
        snprintf(buf, n, "tp=%u does not divide the %u attention heads", sc->tp, sc->model.heads);
        break;
    case ENGINE_INVALID_PP_LAYERS:
        snprintf(buf, n, "pp=%u exceeds the %u layers", sc->pp, sc->model.layers);
        break;
    case ENGINE_INVALID_ZERO:
        snprintf(buf, n, "ZeRO stage %u does not exist (0..3)", sc->zero);
        break;
    case ENGINE_INVALID_SIZE:
        snprintf(buf, n, "the model has no size (zero or negative parameters or shape)");
        break;
    case ENGINE_INVALID_GPU:
        snprintf(buf, n, "the GPU needs positive memory, bandwidth and FP16 FLOP/s");
        break;
    case ENGINE_INVALID_WORKLOAD:
        snprintf(buf, n, "gpus, batch, context, tp, pp, dp and micro-batches must be at least 1");
        break;
    case ENGINE_INVALID_FORMAT:
        snprintf(buf, n, "the weight or KV format has no bits");
        break;
    case ENGINE_INVALID_EFFICIENCY:
        snprintf(buf, n, "efficiencies and MFU must be in (0, 1]");
        break;
    case ENGINE_INVALID_PROMPT:
        snprintf(buf, n, "--prompt %u is longer than --context %u (the context holds the prompt)",
                 sc->prompt, sc->context);
        break;
    case ENGINE_INVALID_BATCH:
        snprintf(buf, n,
                 "--global-batch %u sequences is not a multiple of --micro-batch-size %u x --dp "
                 "%u = %llu (gradient accumulation = global / (micro x dp) must be whole)",
                 sc->global_batch, sc->batch, sc->dp, (unsigned long long)sc->batch * sc->dp);
        break;
    case ENGINE_INVALID_OFFLOAD:
        if (sc->mode != ENGINE_MODE_TRAIN)
            snprintf(buf, n, "--offload %s needs --mode train (ZeRO-Offload moves full "
                             "training's states)", engine_offload_name(sc->offload));
        else if (sc->memory_convention == ENGINE_MEMCONV_MEGATRON)
            snprintf(buf, n, "--offload %s is DeepSpeed's (ZeRO-Offload): give "
                             "--memory-convention paper or deepspeed, not megatron",
                     engine_offload_name(sc->offload));
        else if (sc->zero == 0)
            snprintf(buf, n, "--offload %s needs --zero 1, 2 or 3 (ZeRO-Offload partitions the "
                             "offloaded states over --dp)", engine_offload_name(sc->offload));
        else if (sc->offload == ENGINE_OFFLOAD_NVME && sc->zero < 3)
            snprintf(buf, n, "--offload nvme needs --zero 3 (ZeRO-Infinity offloads the "
                             "parameters, which only ZeRO-3 partitions); --zero %u", sc->zero);
        else
            snprintf(buf, n, "--offload or --host-link-bw out of range");
        break;
    case ENGINE_INVALID_CONVENTION:
        snprintf(buf, n, "--memory-convention megatron has no ZeRO-%u: Megatron-LM's "
                         "distributed optimizer is ZeRO-1 (--zero 0 or 1, or --memory-convention "
                         "paper or deepspeed)", sc->zero);
        break;
    case ENGINE_INVALID_CP:
        if (sc->mode == ENGINE_MODE_INFER)
            snprintf(buf, n, "--cp %u applies to training (--mode train, lora, qlora)", sc->cp);
        else
            snprintf(buf, n, "--cp %u needs a context divisible by 2 x %u = %u (each rank takes "
                             "a chunk from each end; Megatron-LM), not %u",
                     sc->cp, sc->cp, 2 * sc->cp, sc->context);
        break;
    case ENGINE_INVALID_MOE:
        snprintf(buf, n, "--moe-imbalance %.3g must be at least 1 (the busiest expert rank's "
                         "tokens over the mean); recompute modules must be Megatron-LM's",
                 sc->moe_imbalance);
        break;
    case ENGINE_INVALID_SERVING:
        snprintf(buf, n,
                 "runtime settings out of range: --gpu-memory-utilization in (0, 1], --block-size "
                 "at least 1, --cuda-graph-memory and --request-rate not negative, --gpu-layers and --n-cpu-moe at most the %u layers (--gpu-layers at "
                 "least --pp), --host-bandwidth positive",
                 sc->model.layers);
        break;
    case ENGINE_INVALID_EP:
        if (sc->mode == ENGINE_MODE_INFER)
            snprintf(buf, n, "--ep %u applies to training (--mode train, lora, qlora)", sc->ep);
        else if (!sc->model.has_arch || sc->model.experts == 0)
            snprintf(buf, n, "--ep %u needs a mixture-of-experts model (%s has no experts)",
                     sc->ep, sc->model.id);
        else if (sc->model.experts % sc->ep)
            snprintf(buf, n, "--ep %u does not divide the %u experts of each MoE layer", sc->ep,
                     sc->model.experts);
        else
            snprintf(buf, n,
                     "--ep %u does not divide --dp %u (expert parallelism runs inside data "
                     "parallelism, as in Megatron-LM)",
                     sc->ep, sc->dp);
        break;
    case ENGINE_INVALID_RECOMPUTE:
        snprintf(buf, n,
                 "--recompute-num-layers %u exceeds the %u layers, or the recompute method is "
                 "unknown",
                 sc->recompute_num_layers, sc->model.layers);
        break;
    default:
        snprintf(buf, n, "invalid scenario");
    }
}
