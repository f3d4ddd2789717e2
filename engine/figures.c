/*
 * figures.c: the figure registry (see figures.h): one row per figure the
 * engine computes, its JSON path, unit kind, label, formula and source,
 * the modes and runtimes it applies to, and when the text report gives it
 * a line. The values of each explanation are written by explain*.c.
 *
 * Sources cite what a reader can look up: a paper with its section or
 * table, a data sheet, a runtime's source file and version, or the course
 * text (the lessons' seeds, by section); never a file of vramlab's
 * (tests/test_figures.c checks).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/figures.h"
#include "engine/internal.h"

/* Marks a text for xgettext (po/Makevars: N_); translated where shown. */
#define N_(s) s

/* Which modes a figure applies to. */
enum {
    IN = 1u << 0,   /* inference */
    TR = 1u << 1,   /* full training, LoRA, QLoRA */
    BOTH = IN | TR,
    FULL = 1u << 2, /* full training only (with TR) */
    SYS = 1u << 3,  /* needs a system (--system) */
    V21 = 1u << 4,  /* vLLM from 0.21 (CUDA graphs counted before the KV cache) */
    STEADY = 1u << 5, /* a workload with output tokens (--prompt shorter than --context) */
    CORE = 1u << 6,   /* a CPU as the device, its cores' rates measured (--device cpu) */
    POWER = 1u << 7,  /* needs the device's board power (a catalogue GPU's TDP) */
};

/* When the text report lists a figure that applies and is a number. */
enum text_rule {
    TX_ALWAYS = 0,
    TX_NONZERO,        /* not when 0 (runtime buffers, host RAM, NVMe...) */
    TX_NONZERO_TRAIN,  /* not when 0 in inference (the training states) */
    TX_DIFFERS,        /* active parameters: not when equal to the total */
    TX_OFFLOAD,        /* with --offload cpu or nvme */
    TX_EP,             /* with --ep above 1 */
    TX_HOST_DECODE,    /* layers in host RAM that a decode step reads */
    TX_ZERO3_WORKING,  /* with a ZeRO-3 gathered layer */
    TX_SAME_AS,        /* shown as the figure of same_as */
    TX_TP,             /* with TP above 1 */
};

#define RT(r) (1u << (r))
#define RT_GGML (RT(ENGINE_RUNTIME_LLAMACPP) | RT(ENGINE_RUNTIME_OLLAMA))
#define RT_PAGED (RT(ENGINE_RUNTIME_VLLM) | RT(ENGINE_RUNTIME_SGLANG) | RT(ENGINE_RUNTIME_TRTLLM))
#define RT_PROFILED (RT(ENGINE_RUNTIME_VLLM) | RT(ENGINE_RUNTIME_TRTLLM))
#define OFF(field) offsetof(struct engine_estimate, field)
#define NONE ENGINE_KEY_COUNT
#define U(u) ENGINE_UNIT_##u
#define G(g) ENGINE_GROUP_##g

static const struct engine_figure rows[ENGINE_KEY_COUNT] = {
    [ENGINE_KEY_PARAMS_TOTAL] =
        {"params.total", OFF(params_total), U(COUNT), G(PARAMS), BOTH, 0, TX_ALWAYS, NONE,
         N_("total parameters"),
         N_("embedding V*h + L * (attention + MLP + norms) + head V*h (unless tied); a bare size "
            "N is N, its shape derived: x = (N / (12 * 128^2))^(1/3), L = round(x), h = 128 x "
            "rounded to 128 (1024 above 1024), a = h/128, 8 KV heads of 128, gated MLP 3.5 h, "
            "V = 128256"),
         N_("the model's config.json (Hugging Face); Kaplan et al. 2020 §2.1 (N = 12 L h^2); "
            "Llama 3 (Dubey et al. 2024) Table 3 (GQA with 8 KV heads, SwiGLU, 128K "
            "vocabulary)")},
    [ENGINE_KEY_PARAMS_ACTIVE] =
        {"params.active", OFF(params_active), U(COUNT), G(PARAMS), BOTH, 0, TX_DIFFERS, NONE,
         N_("active per token"),
         N_("as params.total with only the k routed (+ shared) experts of each MoE layer"),
         N_("Switch Transformer (Fedus et al. 2022) §2.1; Mixtral (Jiang et al. 2024) §2.1 "
            "(top-2 of 8 experts: 13B active of 47B); DeepSeek-V3 technical report §2.1 "
            "(shared experts)")},
    [ENGINE_KEY_PARAMS_TRAINABLE] =
        {"params.trainable", OFF(params_trainable), U(COUNT), G(PARAMS), TR, 0, TX_ALWAYS, NONE,
         N_("trainable"),
         N_("full training: every parameter; LoRA and QLoRA: r * (d_in + d_out) for each "
            "adapted matrix (q, k, v, o and the MLP's) of the L layers"),
         N_("LoRA (Hu et al. 2021) §4.1 (W0 + B A, B: d x r, A: r x k); QLoRA (Dettmers et al. "
            "2023) §3")},
    [ENGINE_KEY_BITS_PER_WEIGHT] =
        {"params.bits_per_weight", OFF(bits_per_weight), U(BITS), G(PARAMS), BOTH, 0, TX_ALWAYS,
         NONE, N_("bits per weight"),
         N_("the format's bits + each block's scale (and zero point) bits / block size (+ the "
            "super-block's scale); full training: the recipe's weight bytes * 8; a model file: "
            "its tensor bytes * 8 / its elements"),
         N_("course text, lesson seed-000, \"Cuantización por grupos\" (a 16-bit scale per 32 "
            "weights: 4 + 16/32 = 4.5 bits); llama.cpp ggml/src/ggml-common.h block layouts (December 2025 source)")},
    [ENGINE_KEY_MEM_WEIGHTS] =
        {"memory.weights", OFF(memory.weights), U(BYTES), G(MEMORY), BOTH, 0, TX_ALWAYS, NONE,
         N_("weights"),
         N_("params on the GPU * bits per weight / 8 (training: the recipe's bytes; / d under "
            "ZeRO-3); K/V projections of whole heads per TP rank (replicated when t exceeds the "
            "KV heads); --ep: routed experts / (t * ep), sharded over d / ep"),
         N_("course text, lesson seed-000, \"Bytes por parámetro y formatos\" (M = N * b); "
            "vLLM 0.10.1.1 linear.py QKVParallelLinear (KV head replicas); Megatron-LM "
            "theoretical_memory_usage.py (experts / (etp * ep))")},
    [ENGINE_KEY_MEM_KV_CACHE] =
        {"memory.kv_cache", OFF(memory.kv_cache), U(BYTES), G(MEMORY), BOTH, 0, TX_ALWAYS, NONE,
         N_("KV cache"),
         N_("2 * layers * kv_heads * head_dim * context * batch * bytes (per GPU: layers / p, "
            "KV heads / t)"),
         N_("vLLM (Kwon et al. 2023) §3 (2 x 5120 x 40 x 2 B = 800 KB per token of OPT-13B); "
            "GQA (Ainslie et al. 2023) §2")},
    [ENGINE_KEY_MEM_ACTIVATIONS] =
        {"memory.activations", OFF(memory.activations), U(BYTES), G(MEMORY), BOTH, 0,
         TX_NONZERO_TRAIN, NONE, N_("activations"),
         N_("activations per layer * layers held + logits 4*s*b*V/t (inference: one step's "
            "logits)"),
         N_("Korthikanti et al. 2022 §4 (activation memory per layer)")},
    [ENGINE_KEY_MEM_GRADIENTS] =
        {"memory.gradients", OFF(memory.gradients), U(BYTES), G(MEMORY), BOTH, 0,
         TX_NONZERO_TRAIN, NONE, N_("gradients"),
         N_("params on the GPU * gradient bytes (/ d under ZeRO-2 and 3); --memory-convention "
            "deepspeed adds the FP32 copy Adam steps on (4 B / d), megatron keeps FP32 main "
            "gradients (4 B) instead"),
         N_("ZeRO (Rajbhandari et al. 2020) §3.1, §5; DeepSpeed v0.17 stage_1_and_2.py; "
            "Megatron-LM theoretical_memory_usage.py")},
    [ENGINE_KEY_MEM_MASTER] =
        {"memory.master_weights", OFF(memory.master_weights), U(BYTES), G(MEMORY), BOTH, 0,
         TX_NONZERO_TRAIN, NONE, N_("master weights"),
         N_("params on the GPU * master-copy bytes (/ d under ZeRO-1, 2, 3)"),
         N_("Micikevicius et al. 2018 §3.1 (FP32 master copy); ZeRO (Rajbhandari et al. 2020) "
            "§3.1")},
    [ENGINE_KEY_MEM_OPTIMIZER] =
        {"memory.optimizer", OFF(memory.optimizer), U(BYTES), G(MEMORY), BOTH, 0,
         TX_NONZERO_TRAIN, NONE, N_("optimizer states"),
         N_("params on the GPU * optimizer bytes (Adam: 2 x 4; Lion, SGD: 4) (/ d under ZeRO-1, "
            "2, 3); Adafactor: 4 bytes * (rows + columns) per matrix, whole vectors"),
         N_("Kingma and Ba 2015 §2 (two moments); ZeRO (Rajbhandari et al. 2020) §3.1 (K = 12 "
            "with the master copy); Lion (Chen et al. 2023) §2; Adafactor (Shazeer and Stern "
            "2018) §3")},
    [ENGINE_KEY_MEM_RESERVE] =
        {"memory.reserve", OFF(memory.reserve), U(BYTES), G(MEMORY), BOTH, 0, TX_ALWAYS, NONE,
         N_("reserve"),
         N_("a fixed reserve for the CUDA context and the allocator's slack (--reserve); "
            "runtimes: what they keep free"),
         N_("PyTorch documentation, CUDA semantics, \"Memory management\" (the CUDA context "
            "and cached blocks are outside the tensors); vLLM 0.10.1.1 gpu_worker.py; llama.cpp "
            "common/arg.cpp --fit-target (December 2025 source)")},
    [ENGINE_KEY_MEM_ZERO3_WORKING] =
        {"memory.zero3_working", OFF(memory.zero3_working), U(BYTES), G(MEMORY), BOTH, 0,
         TX_NONZERO, NONE, N_("ZeRO-3 gathered layer"),
         N_("ZeRO-3 under the deepspeed convention (any offload): the largest module gathered "
            "whole with its gradient, 2 * weight bytes * its parameters / t (DeepSpeed: "
            "largest_layer_memory = 4 * largest_layer_params)"),
         N_("DeepSpeed v0.17 stage3.py estimate_zero3_model_states_mem_needs, memory.rst; "
            "ZeRO-Infinity (Rajbhandari et al. 2021) §3 (model-state working memory)")},
    [ENGINE_KEY_MEM_OVERHEAD] =
        {"memory.overhead", OFF(memory.overhead), U(BYTES), G(MEMORY), BOTH, 0, TX_NONZERO, NONE,
         N_("runtime buffers"),
         N_("plain 0; vLLM: the activation peak of a profile run of max_num_batched_tokens + "
            "non-torch memory (+ CUDA graphs from 0.21); TensorRT-LLM: the forward peak + memory "
            "outside torch; SGLang 0 (its reserve holds them); llama.cpp: the compute buffer; "
            "Ollama: its graph + one layer's worth"),
         N_("vLLM 0.11 gpu_worker.py determine_available_memory; TensorRT-LLM 1.0 _util.py "
            "configure_kv_cache_capacity; llama.cpp llama-context.cpp graph reserve (December "
            "2025 source); Ollama llm/memory.go EstimateGPULayers")},
    [ENGINE_KEY_MEM_TRANSIENT] =
        {"memory.transient", OFF(memory.transient), U(BYTES), G(MEMORY), BOTH, 0, TX_NONZERO, NONE,
         N_("transient buffers"),
         N_("--memory-convention peak: the buffers of the phase that peaks: loss forward (head "
            "and norm inputs + logits and the loss per token x vocabulary entry: PyTorch 10 B, "
            "loss_parallel 14, Megatron 6), loss backward (12, 16, 6), a layer's backward (the "
            "layer rematerialised and its gradients; FSDP: 2 gathered layers, the 16-bit "
            "gradient and its FP32 copy for the reduce-scatter; the head's weights and "
            "gradient), the optimizer step (foreach Adam's FP32 temporary); FSDP keeps the last "
            "layer gathered (every layer of a pipeline stage)"),
         N_("torchtitan parallelize_llama.py apply_fsdp, train.py loss_fn; PyTorch documentation, "
            "FSDP2 (mixed_precision reduce float32), loss_parallel, _multi_tensor_adamw; "
            "Megatron-LM cross_entropy.py vocab_parallel_cross_entropy; DeepSpeed v0.17 "
            "reduce_bucket_size 5e8")},
    [ENGINE_KEY_MEM_ALLOCATOR] =
        {"memory.allocator", OFF(memory.allocator), U(BYTES), G(MEMORY), BOTH, 0, TX_NONZERO, NONE,
         N_("allocator"),
         N_("--memory-convention peak: what the caching allocator reserves beyond the blocks in "
            "use: 5% of the activations and transients + the 16-bit logits PyTorch frees after "
            "their FP32 copy (2 B per token x vocabulary entry, too small for any later request "
            "of the loss)"),
         N_("Megatron-LM theoretical_memory_usage.py (\"5% overhead\"); PyTorch documentation, "
            "CUDA semantics, \"Memory management\" (the caching allocator: "
            "torch.cuda.max_memory_reserved)")},
    [ENGINE_KEY_MEM_FP8_WEIGHTS] =
        {"memory.fp8_weights", OFF(memory.fp8_weights), U(BYTES), G(MEMORY), BOTH, 0, TX_NONZERO,
         NONE, N_("FP8 weight copies"),
         N_("--format fp8|mxfp8 in training: the layers' GEMM weights also in FP8, twice (the "
            "copy and its transpose on Hopper; row- and column-wise MXFP8 with a scale per 32): "
            "2 x bits/8 B per GEMM parameter on the GPU (ZeRO-3: one gathered layer); the 16-bit "
            "weights and master copy stay"),
         N_("Transformer Engine documentation, Linear (the FP8 weight cache, "
            "is_first_microbatch); OCP Microscaling Formats (MX) Specification v1.0; torchao "
            "float8")},
    [ENGINE_KEY_MEM_TOTAL] =
        {"memory.total", OFF(memory.total), U(BYTES), G(MEMORY), BOTH, 0, TX_ALWAYS, NONE,
         N_("total per GPU"),
         N_("weights + KV cache + activations + gradients + master + optimizer + reserve + "
            "runtime buffers + ZeRO-3 gathered layer + FP8 weight copies; --memory-convention "
            "peak: the step's peak, the activations held and the transients of the phase that "
            "peaks + the allocator's waste"),
         N_("course text, lesson seed-003, \"Inferencia y entrenamiento ocupan memoria "
            "distinta\"; course text, lesson seed-002, \"Componentes de Memoria de GPU\"; "
            "torchtitan metrics.py (max_memory_reserved) for the peak")},
    [ENGINE_KEY_MEM_HOST] =
        {"memory.host", OFF(memory.host), U(BYTES), G(MEMORY), BOTH, 0, TX_NONZERO, NONE,
         N_("host RAM (not in total)"),
         N_("inference: layers not on a GPU (weights and their KV) + --n-cpu-moe experts + the "
            "embedding and head where not on a GPU + llama.cpp's host compute buffer (per "
            "replica); training: this GPU's share of the states --offload moves to host RAM "
            "(not in total)"),
         N_("llama.cpp llama-model.cpp (-ngl from the top, token embedding on the CPU), "
            "llama-kv-cache.cpp (KV on its layer's device) (December 2025 source); ZeRO-Offload (Ren et al. "
            "2021) §4; DeepSpeed v0.17 memory.rst")},
    [ENGINE_KEY_MEM_NVME] =
        {"memory.nvme", OFF(memory.nvme), U(BYTES), G(MEMORY), BOTH, 0, TX_NONZERO, NONE,
         N_("NVMe (not in total)"),
         N_("--offload nvme (ZeRO-Infinity): this GPU's share of the states on NVMe: paper every "
            "state, (w + g + m + o) / d; deepspeed the 16-bit parameters, master and optimizer "
            "states (w + m + o) / d, the FP32 gradients pinned in host RAM (not in total)"),
         N_("ZeRO-Infinity (Rajbhandari et al. 2021) §5; DeepSpeed v0.17 offload_param / "
            "offload_optimizer device nvme, memory.rst")},
    [ENGINE_KEY_MEM_HOST_PER_NODE] =
        {"memory.host_per_node", OFF(host_bytes_per_node), U(BYTES), G(MEMORY), TR, 0,
         TX_OFFLOAD, NONE, N_("host RAM per node"),
         N_("memory.host * the GPUs of a node (DeepSpeed's estimator adds 1.5x as a buffer)"),
         N_("DeepSpeed v0.17 stage3.py estimate_zero3_model_states_mem_needs (cpu_offload, "
            "per node); ZeRO-Offload (Ren et al. 2021) §4")},
    [ENGINE_KEY_MEM_SPARE] =
        {"memory.spare_bytes", OFF(spare_bytes), U(BYTES), G(VERDICT), BOTH, 0, TX_ALWAYS, NONE,
         N_("spare"), N_("capacity - memory.total (negative: short)"),
         N_("the GPU's data sheet (capacity); course text, lesson seed-000, \"Bytes por "
            "parámetro y formatos\" (which GPU it fits)")},
    [ENGINE_KEY_MEM_RATIO] =
        {"memory.ratio", OFF(memory_ratio), U(FRACTION), G(VERDICT), BOTH, 0, TX_ALWAYS, NONE,
         N_("of capacity"), N_("memory.total / capacity"),
         N_("the GPU's data sheet (capacity); course text, lesson seed-000, \"Bytes por "
            "parámetro y formatos\" (which GPU it fits)")},
    [ENGINE_KEY_CAPACITY] =
        {"capacity", OFF(capacity), U(BYTES), G(MEMORY), BOTH, 0, TX_ALWAYS, NONE,
         N_("capacity"), N_("the GPU's memory (bytes)"),
         N_("the GPU's data sheet (NVIDIA H100: \"80 GB\" = 80 * 2^30 bytes); course text, lesson "
            "seed-000, \"Bytes por parámetro y formatos\" (GB against GiB)")},
    [ENGINE_KEY_FITS] =
        {"fits", SIZE_MAX, U(BOOL), G(VERDICT), BOTH, 0, TX_ALWAYS, NONE, N_("fits"),
         N_("memory.total <= capacity"),
         N_("course text, lesson seed-000, \"Qué lograrás\" (decide which GPU a model fits)")},
    [ENGINE_KEY_DECODE_TOKENS] =
        {"decode.tokens_per_s", OFF(decode_tokens_per_s), U(TOKENS_PER_S), G(SPEED), IN, 0,
         TX_ALWAYS, NONE, N_("decode (lower ceiling)"),
         N_("min(memory-bound * bandwidth efficiency, compute-bound * FLOP/s efficiency)"),
         N_("the roofline (Williams et al. 2009) §2; course text, lesson seed-000, \"Ancho de "
            "banda: el techo al escribir\"")},
    [ENGINE_KEY_DECODE_MEMORY_BOUND] =
        {"decode.tokens_per_s_memory_bound", OFF(decode_tokens_per_s_memory_bound),
         U(TOKENS_PER_S), G(SPEED), IN, 0, TX_ALWAYS, NONE, N_("memory-bound ceiling"),
         N_("dp * batch / (p * bytes read per GPU per step / bandwidth + 2 * L * latency if "
            "t > 1)"),
         N_("course text, lesson seed-000, \"Ancho de banda: el techo al escribir\" (3350 GB/s / "
            "16 GB = 209 tokens/s)")},
    [ENGINE_KEY_DECODE_COMPUTE_BOUND] =
        {"decode.tokens_per_s_compute_bound", OFF(decode_tokens_per_s_compute_bound),
         U(TOKENS_PER_S), G(SPEED), IN, 0, TX_ALWAYS, NONE, N_("compute-bound ceiling"),
         N_("G * peak FLOP/s / (2 * N_active + 2 * L * ctx * a * (d_qk + d_v))"),
         N_("Kaplan et al. 2020 §2.1 (2 N FLOP per token forward); course text, lesson seed-000, "
            "\"Ancho de banda: el techo al escribir\" (989 TFLOP/s)")},
    [ENGINE_KEY_DECODE_CORE_BOUND] =
        {"decode.tokens_per_s_core_bound", OFF(decode_tokens_per_s_core_bound), U(TOKENS_PER_S),
         G(SPEED), IN | CORE, 0, TX_ALWAYS, NONE, N_("core-bound ceiling"),
         N_("dp * batch / (sum over width classes of the dotted weights (active parameters less "
            "the input embedding, plus a tied head) in that class / the cores' measured rate of "
            "that width at the batch)"),
         N_("Williams et al. 2009 (the roofline's in-core ceilings below the peak); llama.cpp as "
            "llama-cpp-python v0.3.36 vendors it, ggml/src/ggml-cpu/arch/x86/quants.c "
            "ggml_vec_dot_q4_1_q8_1 (each weight dequantized and dotted for every token)")},
    [ENGINE_KEY_DECODE_PER_SEQUENCE] =
        {"decode.tokens_per_s_per_sequence", OFF(decode_tokens_per_s_per_sequence),
         U(TOKENS_PER_S), G(SPEED), IN, 0, TX_ALWAYS, NONE, N_("per sequence"),
         N_("decode.tokens_per_s / (dp * batch)"),
         N_("course text, lesson seed-000, \"Ancho de banda: el techo al escribir\" (batching "
            "shares each weight read)")},
    [ENGINE_KEY_DECODE_BYTES_PER_STEP] =
        {"decode.bytes_per_step", OFF(decode_bytes_per_step), U(BYTES), G(SPEED), IN, 0,
         TX_ALWAYS, NONE, N_("bytes read per step"),
         N_("weights read per GPU (MoE: the experts the batch touches) + KV cache per GPU"),
         N_("course text, lesson seed-000, \"Ancho de banda: el techo al escribir\" (each step "
            "reads every weight)")},
    [ENGINE_KEY_DECODE_FLOPS_PER_TOKEN] =
        {"decode.flops_per_token", OFF(decode_flops_per_token), U(FLOP), G(SPEED), IN, 0,
         TX_ALWAYS, NONE, N_("FLOP per token"),
         N_("2 * N_active (a multiply and an add per weight) + 2 * L * ctx * a * (d_qk + d_v) "
            "(attention)"),
         N_("Kaplan et al. 2020 §2.1, Table 1 (C_forward = 2 N + 2 n_layer n_ctx d_attn); course "
            "text, lesson seed-000, \"Ancho de banda: el techo al escribir\"")},
    [ENGINE_KEY_RIDGE] =
        {"decode.ridge_flop_per_byte", OFF(ridge_flop_per_byte), U(FLOP_PER_BYTE), G(SPEED), BOTH,
         0, TX_ALWAYS, NONE, N_("ridge point"), N_("peak FLOP/s / bandwidth"),
         N_("the roofline (Williams et al. 2009) §2; course text, lesson seed-000, \"Ancho de "
            "banda: el techo al escribir\" (989e12 / 3.35e12 = 295 FLOP/byte)")},
    [ENGINE_KEY_ARITHMETIC_INTENSITY] =
        {"decode.arithmetic_intensity", OFF(arithmetic_intensity), U(FLOP_PER_BYTE), G(SPEED), IN,
         0, TX_ALWAYS, NONE, N_("arithmetic intensity"),
         N_("batch * FLOP per token / (t * p) / bytes read per GPU per step"),
         N_("the roofline (Williams et al. 2009) §2 (operational intensity; compare with the "
            "ridge point)")},
    [ENGINE_KEY_COMPUTE_BOUND_BATCH] =
        {"decode.compute_bound_batch", OFF(compute_bound_batch), U(NUMBER), G(SPEED), IN, 0,
         TX_ALWAYS, NONE, N_("compute bound from batch"),
         N_("ridge * bytes per weight / 2 (a matrix-vector product does 2 FLOP per weight)"),
         N_("course text, lesson seed-000, \"Ancho de banda: el techo al escribir\" (about 590 "
            "FLOP per 2-byte parameter, 2 used)")},
    [ENGINE_KEY_DECODE_JOULES_PER_TOKEN] =
        {"decode.joules_per_token", OFF(decode_joules_per_token), U(ENERGY), G(SPEED), IN | POWER, 0,
         TX_ALWAYS, NONE, N_("energy per token (board power)"),
         N_("G * board power (TDP) / decode tokens/s: the upper bound at the ceiling"),
         N_("the GPU's data sheet (TDP); course text, lesson seed-003, \"Repaso conceptual\" "
            "(power in W, energy in Wh)")},
    [ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN] =
        {"decode.system_joules_per_token", OFF(decode_system_joules_per_token), U(ENERGY),
         G(SPEED), IN | SYS, 0, TX_ALWAYS, NONE, N_("energy per token (system power)"),
         N_("ceil(G / GPUs per system) * system power / decode tokens/s: at the ceiling, whole "
            "systems at their maximum power"),
         N_("the system's data sheet (NVIDIA DGX H100: 10.2 kW); course text, lesson seed-003, "
            "\"Del chip al centro de datos\"")},
    [ENGINE_KEY_BANDWIDTH] =
        {"decode.bandwidth_bytes_per_s", OFF(bandwidth_bytes_per_s), U(BYTES_PER_S), G(SPEED),
         BOTH, 0, TX_ALWAYS, NONE, N_("bandwidth used"),
         N_("the GPU's memory bandwidth, or the measured one (calibration)"),
         N_("the GPU's data sheet (NVIDIA H100 SXM: 3.35 TB/s); STREAM (McCalpin 1995) for a "
            "measured copy")},
    [ENGINE_KEY_PEAK_FLOPS] =
        {"decode.peak_flop_per_s", OFF(peak_flop_per_s), U(FLOP_PER_S), G(SPEED), BOTH, 0,
         TX_ALWAYS, NONE, N_("peak used"),
         N_("the GPU's dense FLOP/s in the format's column (FP16 when it has none), or the "
            "measured one"),
         N_("the GPU's data sheet (NVIDIA H100 SXM: 989 TFLOP/s dense FP16, 1979 with sparsity); "
            "course text, lesson seed-000, \"Ancho de banda: el techo al escribir\"")},
    [ENGINE_KEY_KV_PER_TOKEN] =
        {"kv_cache.bytes_per_token", OFF(kv_bytes_per_token), U(BYTES), G(SPEED), BOTH, 0,
         TX_ALWAYS, NONE, N_("KV cache per token"),
         N_("2 * layers * kv_heads * head_dim * bytes (MLA: layers * (kv_lora + rope) * bytes)"),
         N_("vLLM (Kwon et al. 2023) §3 (800 KB per token of OPT-13B); DeepSeek-V2 (DeepSeek-AI "
            "2024) §2.1 (latent KV)")},
    [ENGINE_KEY_PREFILL] =
        {"prefill.seconds", OFF(prefill_seconds), U(SECONDS), G(SPEED), IN, 0, TX_ALWAYS, NONE,
         N_("prefill (one prompt)"),
         N_("sum over the runtime's steps of max(compute (2 N_layers c + 2 V h + L a (d_qk + "
            "d_v) ((s+c)^2 - s^2)) / (t peak), bytes (weights + KV read and written) / bandwidth) + 2 "
            "TP all-reduces per layer of c h 2 bytes; p stages pipeline the steps: + (p - 1) * "
            "(longest step + hand-off of c h 2 bytes)"),
         N_("llm-analysis (cli99) analysis.py prefill latency (max of compute and memory, "
            "TP all-reduce); GPipe (Huang et al. 2019) §2.2; steps: vLLM 0.10.1.1 "
            "max_num_batched_tokens, llama.cpp n_ubatch (December 2025 source); logits of the "
            "prompt's last token only, the embedding a lookup: vLLM v0.11 "
            "v1/worker/gpu_model_runner.py logits_indices, llama.cpp llama_batch_get_one")},
    [ENGINE_KEY_SERVING_TTFT] =
        {"serving.ttft_s", OFF(serving.ttft_s), U(SECONDS), G(SERVING), IN, 0, TX_ALWAYS, NONE,
         N_("time to first token"),
         N_("the prompt's prefill while batch - 1 other sequences decode: each step carries their "
            "tokens and up to (step budget - their count) prompt tokens (plain: one step)"),
         N_("vLLM 0.10.1.1 v1/core/sched/scheduler.py (decodes first, then chunked prefill within "
            "max_num_batched_tokens); llama.cpp tools/server continuous batching (December 2025 source)")},
    [ENGINE_KEY_SERVING_TPOT] =
        {"serving.tpot_s", OFF(serving.tpot_s), U(SECONDS), G(SERVING), IN, 0, TX_ALWAYS, NONE,
         N_("time per output token"), N_("1 / decode.tokens_per_s_per_sequence at this batch"),
         N_("vLLM 0.10.1.1 benchmarks/benchmark_serving.py (TPOT)")},
    [ENGINE_KEY_SERVING_AVAILABLE_KV] =
        {"serving.available_kv_bytes", OFF(serving.available_kv_bytes), U(BYTES), G(SERVING), IN,
         RT_PAGED, TX_ALWAYS, NONE, N_("available KV cache"),
         N_("vLLM: the total CUDA reports * gpu_memory_utilization - weights - activation peak - "
            "non-torch memory (- CUDA graphs from 0.21); SGLang: mem_fraction_static * free at "
            "start - weights; TensorRT-LLM: free_gpu_memory_fraction * (total - weights - forward "
            "peak - outside torch)"),
         N_("vLLM 0.11 gpu_worker.py determine_available_memory (\"Available KV cache memory\"); "
            "SGLang 0.5 model_runner.py profile_max_num_token; TensorRT-LLM 1.0 _util.py "
            "_cal_max_memory")},
    [ENGINE_KEY_SERVING_KV_BLOCKS] =
        {"serving.kv_blocks", OFF(serving.kv_blocks), U(INT), G(SERVING), IN, RT_PAGED, TX_ALWAYS,
         NONE, N_("KV blocks"),
         N_("floor(available KV / (2 * block_size * kv_heads_per_gpu * head_dim * bytes) / "
            "layers) (TensorRT-LLM blocks of 32 tokens, SGLang one token a slot)"),
         N_("vLLM 0.11 kv_cache_utils.py get_num_blocks; kv_cache_interface.py page_size_bytes; "
            "TensorRT-LLM 1.0 KvCacheConfig tokens_per_block")},
    [ENGINE_KEY_SERVING_KV_TOKENS] =
        {"serving.kv_tokens", OFF(serving.kv_tokens), U(INT), G(SERVING), IN, RT_PAGED, TX_ALWAYS,
         NONE, N_("KV cache tokens"), N_("KV blocks * block_size"),
         N_("vLLM 0.11 kv_cache_utils.py (\"GPU KV cache size: N tokens\")")},
    [ENGINE_KEY_SERVING_MAX_CONCURRENCY] =
        {"serving.max_concurrency", OFF(serving.max_concurrency), U(RATIO), G(SERVING), IN,
         RT_PAGED, TX_ALWAYS, NONE, N_("maximum concurrency"),
         N_("KV blocks / ceil(max_model_len / block_size)"),
         N_("vLLM 0.11 kv_cache_utils.py get_max_concurrency_for_kv_cache_config (\"Maximum "
            "concurrency for N tokens per request\")")},
    [ENGINE_KEY_SERVING_MAX_MODEL_LEN] =
        {"serving.max_model_len_that_fits", OFF(serving.max_model_len_that_fits), U(INT),
         G(SERVING), IN, RT_PAGED, TX_ALWAYS, NONE, N_("longest max_model_len"),
         N_("max_model_len when one request of it fits the KV blocks, else KV blocks * "
            "block_size"),
         N_("vLLM 0.11 kv_cache_utils.py check_enough_kv_cache_memory, "
            "estimate_max_model_len")},
    [ENGINE_KEY_SERVING_COMPUTE_BUFFER] =
        {"serving.compute_buffer_bytes", OFF(serving.compute_buffer_bytes), U(BYTES), G(SERVING),
         IN, RT_GGML, TX_ALWAYS, NONE, N_("compute buffer"),
         N_("llama.cpp: max(4 u (1 + 4 h + n_kv (1 + heads/t)) (no flash attention) or 4 u 4 h, "
            "4 u (2 f/t + 2 h), 4 u (h + V) on the output's GPU); Ollama: its llama graph "
            "estimate"),
         N_("llama.cpp llama-context.cpp graph reserve of one ubatch (December 2025 source; a published log: "
            "Llama 3.1 8B, n_ctx 8192: 560.00 MiB); Ollama fs/ggml/ggml.go GraphSize")},
    [ENGINE_KEY_SERVING_OVERHEAD] =
        {"serving.overhead_bytes", OFF(serving.overhead_bytes), U(BYTES), G(SERVING), IN, 0,
         TX_SAME_AS, ENGINE_KEY_MEM_OVERHEAD, N_("runtime buffers"),
         N_("memory.overhead: the runtime's buffers per GPU"),
         N_("vLLM 0.11 gpu_worker.py determine_available_memory; TensorRT-LLM 1.0 _util.py "
            "configure_kv_cache_capacity; llama.cpp llama-context.cpp graph reserve (December "
            "2025 source); Ollama llm/memory.go EstimateGPULayers")},
    [ENGINE_KEY_SERVING_GPU_LAYERS] =
        {"serving.gpu_layers", OFF(serving.gpu_layers), U(INT), G(SERVING), IN, 0,
         TX_HOST_DECODE, NONE, N_("layers on the GPUs"),
         N_("--gpu-layers, or the most that fit (llama.cpp --fit with a 1 GiB margin per "
            "device, Ollama's scheduler), else all; the output layer goes with the first"),
         N_("llama.cpp common/fit.cpp, llama-model.cpp (December 2025 source); Ollama llm/memory.go")},
    [ENGINE_KEY_SERVING_HOST_BW] =
        {"serving.host_bytes_per_s", OFF(serving.host_bytes_per_s), U(BYTES_PER_S), G(SERVING),
         IN, 0, TX_HOST_DECODE, NONE, N_("host bandwidth"),
         N_("decode step = GPU bytes / GPU bandwidth + host bytes / host bandwidth"),
         N_("the CPU's data sheet (dual-channel DDR5-5000: 2 x 8 B x 5000 MT/s = 80 GB/s); "
            "STREAM (McCalpin 1995) for a measured one")},
    [ENGINE_KEY_DECODE_BATCH1] =
        {"decode.batch1_tokens_per_s", OFF(serving.batch1_tokens_per_s), U(TOKENS_PER_S), G(SPEED),
         IN, 0, TX_ALWAYS, NONE, N_("batch-1 decode (as run)"),
         N_("one stream: 1 / (bytes / bandwidth + kernels * 1.724 us + CPU sampler 13.6 ns * "
            "vocab (llama.cpp, Ollama)), kernels = 17 per layer (19 with q/k norms) + 3"),
         N_("the kernel cost fitted to llama-bench (llama.cpp, December 2025 source): TinyLlama "
            "1.1B Q4_K_M on an RTX 4090, 762 tok/s (geerlingguy/ai-benchmarks #43); the sampler's "
            "to an RTX 5090 row, Llama 3.2 3B Q4_K, 271 tok/s")},
    [ENGINE_KEY_PREFILL_ALLREDUCE] =
        {"prefill.allreduce_seconds", OFF(serving.prefill_allreduce_s), U(SECONDS), G(SPEED), IN, 0,
         TX_TP, NONE, N_("prefill TP all-reduce"),
         N_("steps * 2 * L * (2 (t - 1)/t * c h 2 bytes / link bandwidth + latency)"),
         N_("Megatron-LM (Shoeybi et al. 2019) §3 (two all-reduces per layer in the forward); "
            "llm-analysis (cli99) analysis.py prefill_latency_fwd_tp_comm")},
    [ENGINE_KEY_SERVING_MEMORY_REPORTED] =
        {"serving.memory_reported_bytes", OFF(serving.memory_reported_bytes), U(BYTES), G(SERVING),
         IN, RT_PAGED, TX_ALWAYS, NONE, N_("memory CUDA reports"),
         N_("the GPU's total as torch.cuda.mem_get_info reports it (what ECC and the driver keep "
            "is not in it); the data sheet's when it is not known"),
         N_("CUDA Runtime API documentation, cudaMemGetInfo; llm-d's vLLM 0.11.0 logs on an H100 "
            "80GB (79.18 GiB)")},
    [ENGINE_KEY_SERVING_REQUESTED] =
        {"serving.requested_bytes", OFF(serving.requested_bytes), U(BYTES), G(SERVING), IN, RT_PAGED,
         TX_ALWAYS, NONE, N_("requested by the runtime"),
         N_("vLLM: gpu_memory_utilization * the reported total; SGLang: mem_fraction_static * "
            "(reported - CUDA context); TensorRT-LLM: weights + peak + free_gpu_memory_fraction * "
            "the rest"),
         N_("vLLM 0.11 gpu_worker.py init_device (requested_memory); SGLang 0.5 server_args.py "
            "(mem_fraction_static = (GPU MiB - reserved) / GPU MiB); TensorRT-LLM 1.0 "
            "KvCacheConfig")},
    [ENGINE_KEY_SERVING_ROTARY_CACHE] =
        {"serving.rotary_cache_bytes", OFF(serving.rotary_cache_bytes), U(BYTES), G(SERVING), IN,
         RT(ENGINE_RUNTIME_VLLM), TX_ALWAYS, NONE, N_("rotary cache (in weights)"),
         N_("max_position_embeddings * rotary dim * 2 B, on every TP rank (in the weights)"),
         N_("vLLM 0.11 rotary_embedding.py _compute_cos_sin_cache (Llama-3.1-8B: 14.96 GiB of "
            "parameters + 32 MiB = the 14.99 GiB vLLM logs)")},
    [ENGINE_KEY_SERVING_ACTIVATION_PEAK] =
        {"serving.activation_peak_bytes", OFF(serving.activation_peak_bytes), U(BYTES), G(SERVING),
         IN, RT_PROFILED, TX_ALWAYS, NONE, N_("profile-run activation peak"),
         N_("max(forward of T = max_num_batched_tokens tokens: 2 T (2 h + max(3 f/t, 2 qkv/t)), "
            "sampler of R = min(max_num_seqs, T) requests: 2 T h + 4 R h + 38 R V) + cuBLAS "
            "workspaces (TensorRT-LLM: the forward)"),
         N_("vLLM 0.11 gpu_model_runner.py profile_run, _dummy_sampler_run; topk_topp_sampler.py "
            "(logits.sort); PyTorch SortStable.cu; llm-d's measurements: 4.76 GiB "
            "(Llama-3.1-8B), 5.56 (Qwen3-0.6B)")},
    [ENGINE_KEY_SERVING_NON_TORCH] =
        {"serving.non_torch_bytes", OFF(serving.non_torch_bytes), U(BYTES), G(SERVING), IN,
         RT_PROFILED, TX_ALWAYS, NONE, N_("non-torch memory"),
         N_("vLLM: 0.13 GiB, + 0.42 GiB of NCCL buffers above one GPU; TensorRT-LLM: the CUDA "
            "context 0.61 GiB + those buffers"),
         N_("llm-d's vLLM 0.11.0 measurements on H100 (0.13 at TP 1 in five models, 0.55 and "
            "0.54 at TP 2); vLLM memory_profiling non_torch_increase")},
    [ENGINE_KEY_SERVING_CUDA_GRAPHS] =
        {"serving.cuda_graph_bytes", OFF(serving.cuda_graph_bytes), U(BYTES), G(SERVING), IN | V21,
         RT(ENGINE_RUNTIME_VLLM), TX_ALWAYS, NONE, N_("CUDA graphs (before KV)"),
         N_("vLLM 0.21+: its estimate before the KV cache (--cuda-graph-memory, else 0.25 GiB + "
            "15 MiB per captured graph); vLLM 0.11 captures them after, in the headroom"),
         N_("vLLM PR #38284 (v0.21.0: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on, default "
            "utilisation 0.92); a fit to four published \"Estimated CUDA graph memory\" lines")},
    [ENGINE_KEY_SERVING_MEMORY_FRACTION] =
        {"serving.memory_fraction", OFF(serving.memory_fraction), U(FRACTION), G(SERVING), IN,
         RT_PAGED, TX_ALWAYS, NONE, N_("memory fraction used"),
         N_("vLLM --gpu-memory-utilization, SGLang mem_fraction_static, TensorRT-LLM "
            "free_gpu_memory_fraction: given, else the runtime's default"),
         N_("vLLM 0.11 arg_utils.py (gpu_memory_utilization 0.9); SGLang 0.5 server_args.py "
            "(mem_fraction_static by GPU size); TensorRT-LLM 1.0 KvCacheConfig "
            "(free_gpu_memory_fraction 0.9)")},
    [ENGINE_KEY_SERVING_REFUSES] =
        {"serving.runtime_refuses", OFF(serving.runtime_refuses), U(BOOL), G(SERVING), IN,
         RT_PAGED, TX_ALWAYS, NONE, N_("refuses to start"),
         N_("no KV cache left after the weights and buffers, or fewer blocks than one request of "
            "max_model_len needs"),
         N_("vLLM 0.11 kv_cache_utils.py check_enough_kv_cache_memory (\"No available memory for "
            "the cache blocks\"); SGLang 0.5 model_runner.py (\"Not enough memory\")")},
    [ENGINE_KEY_SERVING_STEADY_CONCURRENCY] =
        {"serving.steady_concurrency", OFF(serving.steady_concurrency), U(NUMBER), G(SERVING),
         IN | STEADY, 0, TX_ALWAYS, NONE, N_("steady-state concurrency"),
         N_("min(KV tokens / (P + (O + 1) / 2), max_num_seqs) sequences (plain: the free memory's "
            "KV; llama.cpp, Ollama: the slots); with --request-rate r: C = r O step(C) (Little's "
            "law)"),
         N_("continuous batching with KV blocks allocated as tokens come: vLLM 0.11 "
            "v1/core/sched/scheduler.py; Little 1961 (L = lambda W)")},
    [ENGINE_KEY_SERVING_STEADY_TOKENS] =
        {"serving.steady_tokens_per_s", OFF(serving.steady_tokens_per_s), U(TOKENS_PER_S),
         G(SERVING), IN | STEADY, 0, TX_ALWAYS, NONE, N_("steady-state output ceiling"),
         N_("d C / max(bytes (weights + C (P + (O + 1) / 2) KV) / bandwidth, C (1 + P/O) FLOP per "
            "token / peak): a ceiling for the workload"),
         N_("TensorRT-LLM 1.0 trtllm-bench throughput (Total Output Throughput); the roofline "
            "(Williams et al. 2009) §2")},
    [ENGINE_KEY_SERVING_STEADY_RATE] =
        {"serving.steady_request_rate", OFF(serving.steady_request_rate), U(NUMBER), G(SERVING),
         IN | STEADY, 0, TX_ALWAYS, NONE, N_("steady-state requests/s"),
         N_("steady-state output tokens/s / O output tokens per request"),
         N_("vLLM 0.11 benchmarks/benchmark_serving.py (request throughput); Little 1961 "
            "(L = lambda W)")},
    [ENGINE_KEY_ACT_PER_LAYER] =
        {"activations.per_layer_bytes", OFF(act_per_layer_bytes), U(BYTES), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("activations per layer"),
         N_("s*b*h*(10 + (4 + 4*kv/a + c*f/h)/t + 5*a*s/(h*t)), c = 4 plain or 6 gated (K, V: "
            "4*ceil(kv/t)/a where t exceeds the KV heads); selective drops 5as/h, full keeps "
            "2sbh per checkpoint (uniform: one per N layers; block: N layers of the stage, the "
            "rest whole); SP divides all by t"),
         N_("Korthikanti et al. 2022 §4, Table 2 (34 = 10 + 24 for GPT shapes); Megatron-LM "
            "arguments.py --recompute-method, --recompute-num-layers")},
    [ENGINE_KEY_ACT_LAYERS_HELD] =
        {"activations.layers_held", OFF(act_layers_held), U(NUMBER), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("layers held"),
         N_("layers of the stage * in-flight micro-batches min(m, p - stage) (1F1B); "
            "interleaved with v chunks min(m v, (v-1) p + 2 (p - stage - 1) + 1) / v: the first "
            "stage p (1 + (p-1)/(p v))"),
         N_("Narayanan et al. 2021 §2.2; Korthikanti et al. 2022 §4.2.3; Megatron-LM "
            "theoretical_memory_usage.py (the interleaved schedule's memory penalty)")},
    [ENGINE_KEY_ACT_LOGITS] =
        {"activations.logits_bytes", OFF(act_logits_bytes), U(BYTES), G(TRAINING), BOTH, 0,
         TX_ALWAYS, NONE, N_("logits"),
         N_("4 * s/cp * b * V / t (FP32 logits on the last stage); --memory-convention peak: the "
            "loss's working set at the phase that peaks"),
         N_("Korthikanti et al. 2022 §4.3 (the output layer's logits)")},
    [ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN] =
        {"training.flops_per_token", OFF(train_flops_per_token), U(FLOP), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("FLOP per token"),
         N_("6 * N + 6 * L * s * a * (d_qk + d_v) (= 12 L h s: causal self-attention counted "
            "whole, forward and backward; LoRA 4 * N + the same; --flops-model 6n: 6 * N alone); "
            "recompute never counts"),
         N_("PaLM (Chowdhery et al. 2022) appendix B; Narayanan et al. 2021 eq. 3 (1 + s/6h); "
            "Kaplan et al. 2020 §2.1 (6 N)")},
    [ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN] =
        {"training.hw_flops_per_token", OFF(train_hw_flops_per_token), U(FLOP), G(TRAINING), TR,
         0, TX_ALWAYS, NONE, N_("with recompute (HFU)"),
         N_("model FLOP per token + what recompute runs again: full 2 N + 2 L s a (d_qk + d_v) "
            "(block: N / layers of the stage of it), selective the attention forward 2 L s a "
            "(d_qk + d_v), none 0"),
         N_("Korthikanti et al. 2022 §5, §6 (hardware FLOPs with recomputation)")},
    [ENGINE_KEY_TRAIN_TOKENS_PER_STEP] =
        {"training.tokens_per_step", OFF(train_tokens_per_step), U(COUNT), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("tokens per step"), N_("batch * micro-batches * d * context"),
         N_("Megatron-LM (Narayanan et al. 2021) §2 (global batch = micro-batch * micro-batches "
            "* d); Llama 3 (Dubey et al. 2024) Table 4")},
    [ENGINE_KEY_TRAIN_GLOBAL_BATCH] =
        {"training.global_batch", OFF(train_global_batch), U(INT), G(TRAINING), TR, 0, TX_ALWAYS,
         NONE, N_("global batch (sequences)"),
         N_("micro-batch size * micro-batches * d sequences per optimizer step (--global-batch, "
            "else the model's published batch in tokens / context, else batch * micro-batches * "
            "d)"),
         N_("Megatron-LM arguments.py --global-batch-size; DeepSpeed v0.17 "
            "train_batch_size; Llama 3 (Dubey et al. 2024) Table 4")},
    [ENGINE_KEY_TRAIN_MICRO_BATCHES] =
        {"training.gradient_accumulation_steps", OFF(train_micro_batches), U(INT), G(TRAINING), TR,
         0, TX_ALWAYS, NONE, N_("micro-batches per replica"),
         N_("global batch / (micro-batch size * d): the micro-batches each replica runs per "
            "step"),
         N_("DeepSpeed v0.17 config (train_batch_size = micro_batch * "
            "gradient_accumulation_steps * dp); course text, lesson seed-002, \"Acumulación de "
            "Gradientes\"")},
    [ENGINE_KEY_TRAIN_TOKENS] =
        {"training.tokens", OFF(train_tokens), U(COUNT), G(TRAINING), TR, 0, TX_ALWAYS, NONE,
         N_("tokens in all"),
         N_("--tokens, else 20 per parameter in full training (Chinchilla) or a 100M-token "
            "fine-tuning set; with --examples: examples * tokens each * epochs"),
         N_("Chinchilla (Hoffmann et al. 2022) Table 3 (about 20 tokens per parameter); course text, "
            "lesson seed-002, \"Estimación del Tiempo de Entrenamiento\"")},
    [ENGINE_KEY_TRAIN_COMPUTE] =
        {"training.compute_seconds", OFF(train_compute_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("kernels' time per step"),
         N_("hardware FLOP per token * tokens per step / (G * peak * kernel efficiency)"),
         N_("PaLM (Chowdhery et al. 2022) appendix B; kernel efficiency: Korthikanti et al. 2022 "
            "Table 5 (57.0%)")},
    [ENGINE_KEY_TRAIN_STEP] =
        {"training.step_seconds", OFF(train_step_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("step time"),
         N_("--mfu given (end to end): model FLOP per token * tokens per step / (G * peak * "
            "MFU), nothing added; else m * the slowest stage's time per micro-batch (its share of "
            "the hardware FLOPs at the kernel efficiency, GEMMs at the FP8 rate under --format "
            "fp8, attention at --attention-efficiency, + its FP8 casts and MoE routing) / (1 - "
            "bubble) + TP comm + PP comm + EP all-to-all + CP ring not hidden + the DP comm the "
            "backward pass cannot hide (+ offload)"),
         N_("PaLM (Chowdhery et al. 2022) appendix B; Llama 3 (Dubey et al. 2024) Table 4 (MFU "
            "end to end); GPipe (Huang et al. 2019) §2.2 (bubble); Narayanan et al. 2021 §3")},
    [ENGINE_KEY_TRAIN_TOKENS_PER_GPU] =
        {"training.tokens_per_s_per_gpu", OFF(train_tokens_per_s_per_gpu), U(TOKENS_PER_S),
         G(TRAINING), TR, 0, TX_ALWAYS, NONE, N_("tokens/s per GPU"),
         N_("tokens per step / step time / G (what Megatron-Bridge and torchtitan report)"),
         N_("Megatron-Bridge documentation, performance summary (Tokens / sec / GPU); "
            "torchtitan metrics.py (TPS per GPU)")},
    [ENGINE_KEY_TRAIN_STAGE_IMBALANCE] =
        {"training.stage_imbalance", OFF(train_stage_imbalance), U(RATIO), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("slowest stage / mean"),
         N_("p * max over stages of its time per micro-batch / sum of them; a stage's time is its "
            "share of the hardware FLOPs (its layers; the embedding on the first, the head on "
            "the last) at the kernel efficiency, GEMMs at the FP8 rate under --format fp8, + its "
            "memory-bound work (FP8 casts, MoE routing); the step runs at the slowest"),
         N_("Narayanan et al. 2021 §2.2 (1F1B: every slot waits for the slowest stage)")},
    [ENGINE_KEY_TRAIN_FP8_CAST] =
        {"training.fp8_cast_seconds", OFF(train_fp8_cast_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_NONZERO, NONE, N_("FP8 scaling casts per step"),
         N_("per token and layer, each GEMM input (forward) and output gradient (backward) read "
            "for its amax, read and written in FP8 row- and column-wise: 6 B an element (MXFP8 4 "
            "+ 1/16); / bandwidth, * the slowest stage's layers * tokens of a micro-batch * m; + "
            "the weights cast once a step (6 B each)"),
         N_("Transformer Engine documentation, FP8 recipes (Float8CurrentScaling, "
            "MXFP8BlockScaling); torchao float8 (dynamic scaling)")},
    [ENGINE_KEY_TRAIN_MOE] =
        {"training.moe_seconds", OFF(train_moe_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_NONZERO, NONE, N_("MoE routing and experts per step"),
         N_("per MoE layer per micro-batch: permutations 12 (1 + k) h B per token / bandwidth + "
            "each local expert's grouped GEMM as a roofline, max(imbalance * its FLOPs / (peak * "
            "efficiency), its weights read 3 times + inputs and outputs / bandwidth), less its "
            "balanced FLOPs (already in the stage's time); tokens per local expert s b k ep / "
            "(cp E); * the slowest stage's MoE layers * m"),
         N_("Megatron Core 0.13 moe/moe_utils.py permute, unpermute, grouped GEMM; the roofline "
            "(Williams et al. 2009) §2; --moe-imbalance default 1.25: Switch Transformer's "
            "capacity factor (Fedus et al. 2022 §2.2)")},
    [ENGINE_KEY_TRAIN_CP_COMM] =
        {"training.cp_comm_seconds", OFF(train_cp_comm_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_NONZERO, NONE, N_("CP ring exposed per step"),
         N_("per layer per micro-batch: (3 + 1 under full recompute) * (cp - 1) hops of K and V "
            "(s/cp * b * kv heads/t * (d_qk + d_v) * 2 B) over the t * cp ranks' link, less the "
            "attention of the layer that hides them; * layers of the stage * m"),
         N_("Ring Attention (Liu et al. 2023) §3; Megatron Core 0.13 context parallelism (p2p "
            "ring, cp_comm_type p2p); torchtitan context_parallel")},
    [ENGINE_KEY_TRAIN_BUBBLE] =
        {"training.bubble_fraction", OFF(train_bubble_fraction), U(FRACTION), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("pipeline bubble"), N_("(p - 1) / (v * m + p - 1)"),
         N_("GPipe (Huang et al. 2019) §2.2; Narayanan et al. 2021 §2.2")},
    [ENGINE_KEY_TRAIN_TP_COMM] =
        {"training.tp_comm_seconds", OFF(train_tp_comm_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("TP all-reduce per step"),
         N_("4 all-reduces per layer per micro-batch * (2 (t-1)/t * 2 s b h / (link BW / 2) + "
            "latency)"),
         N_("Megatron-LM (Shoeybi et al. 2019) §3 (two all-reduces forward, two backward); "
            "nccl-tests doc/PERFORMANCE.md (bus bandwidth)")},
    [ENGINE_KEY_TRAIN_PP_COMM] =
        {"training.pp_comm_seconds", OFF(train_pp_comm_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("PP hand-offs per step"),
         N_("2 * (v * m + p - 1) * (s b h 2 bytes / t / link BW + latency): one activation "
            "forward and one gradient backward per slot of the schedule, each TP rank sending "
            "1/t"),
         N_("Narayanan et al. 2021 §4.1 (scatter/gather of the pipeline hand-offs)")},
    [ENGINE_KEY_TRAIN_DP_COMM] =
        {"training.dp_comm_seconds", OFF(train_dp_comm_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("DP all-reduce per step"),
         N_("2 (d-1)/d * gradient bytes per GPU / one-way link BW (inter-node, or half the "
            "NVLink figure inside a node; x1.5 under ZeRO-3)"),
         N_("ZeRO (Rajbhandari et al. 2020) §7 (ring all-reduce: 2 Psi per GPU; 3 Psi under "
            "ZeRO-3); nccl-tests doc/PERFORMANCE.md (bus bandwidth)")},
    [ENGINE_KEY_TRAIN_ALL_TO_ALL] =
        {"training.all_to_all_seconds", OFF(train_all_to_all_seconds), U(SECONDS), G(TRAINING),
         TR, 0, TX_EP, NONE, N_("EP all-to-all per step"),
         N_("4 all-to-alls (dispatch and combine, forward and backward) per MoE layer per "
            "micro-batch * ((ep - 1)/ep * s b / t * k * h * 2 bytes / one-way link BW + "
            "latency); NVLink when t * ep GPUs share a node; added to the predicted step"),
         N_("Megatron Core 0.13 moe/token_dispatcher.py MoEAlltoAllTokenDispatcher (EP inside "
            "DP); nccl-tests doc/PERFORMANCE.md (all-to-all bus bandwidth (n - 1)/n)")},
    [ENGINE_KEY_TRAIN_OFFLOAD_BYTES] =
        {"training.offload_bytes_per_step", OFF(train_offload_bytes_per_step), U(BYTES),
         G(TRAINING), TR, 0, TX_OFFLOAD, NONE, N_("offload traffic per step"),
         N_("per GPU over its host link: cpu (m * w + w) * params / d (16-bit gradients out each "
            "micro-batch, updated parameters in once); nvme 3 * m * w * params / d (parameters "
            "in for the forward and the backward, gradients out)"),
         N_("ZeRO-Offload (Ren et al. 2021) §4.2 (\"2M gradients out, 2M parameters in\"); "
            "ZeRO-Infinity (Rajbhandari et al. 2021) §5")},
    [ENGINE_KEY_TRAIN_OFFLOAD_SECONDS] =
        {"training.offload_seconds", OFF(train_offload_seconds), U(SECONDS), G(TRAINING), TR, 0,
         TX_OFFLOAD, NONE, N_("offload time per step"),
         N_("offload bytes per step / host link bandwidth (--host-link-bw, default PCIe 5.0 x16 "
            "one way: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s); added in full to a predicted step "
            "(an upper bound: DeepSpeed overlaps part of it), inside a given --mfu"),
         N_("PCI-SIG PCI Express Base Specification 5.0 (32 GT/s, 128b/130b); ZeRO-Offload "
            "(Ren et al. 2021) §4.2")},
    [ENGINE_KEY_TRAIN_HOST_LINK] =
        {"training.host_link_bytes_per_s", OFF(host_link_bytes_per_s), U(BYTES_PER_S),
         G(TRAINING), TR, 0, TX_OFFLOAD, NONE, N_("host link"),
         N_("--host-link-bw, else PCIe 5.0 x16 one way: 32 GT/s x 16 x 128/130 / 8"),
         N_("PCI-SIG PCI Express Base Specification 5.0 (32 GT/s, 128b/130b encoding)")},
    [ENGINE_KEY_TRAIN_LARGEST_LAYER] =
        {"training.largest_layer_params", OFF(largest_layer_params), U(COUNT), G(TRAINING),
         TR | FULL, 0, TX_ZERO3_WORKING, NONE, N_("largest module"),
         N_("the largest module's own parameters in the fullest stage: the embedding V * h, the "
            "untied head, or a layer's largest matrix"),
         N_("DeepSpeed v0.17 stage3.py model_to_params (largest_layer_params)")},
    [ENGINE_KEY_TRAIN_MFU] =
        {"training.mfu", OFF(train_mfu), U(FRACTION), G(TRAINING), TR, 0, TX_ALWAYS, NONE,
         N_("MFU"),
         N_("model FLOP per token * tokens per step / (G * peak * step time): --mfu when given, "
            "else predicted from the kernel efficiency (--flops-efficiency, default 0.57), the "
            "bubble and the exposed communication"),
         N_("PaLM (Chowdhery et al. 2022) appendix B; kernel default: Korthikanti et al. 2022 "
            "Table 5 (HFU 57.0% of Megatron's 530B and 1T runs); Llama 3 (Dubey et al. 2024) "
            "Table 4 (38-43% for 405B)")},
    [ENGINE_KEY_TRAIN_HFU] =
        {"training.hfu", OFF(train_hfu), U(FRACTION), G(TRAINING), TR, 0, TX_ALWAYS, NONE,
         N_("HFU"),
         N_("MFU * hardware FLOP per token / model FLOP per token (recomputed forward "
            "included)"),
         N_("Korthikanti et al. 2022 §6 (MFU against HFU)")},
    [ENGINE_KEY_TRAIN_DAYS] =
        {"training.days", OFF(train_days), U(DAYS), G(TRAINING), TR, 0, TX_ALWAYS, NONE,
         N_("training time"),
         N_("tokens / tokens per step * step time / 86400; with --throughput: tokens / "
            "throughput / 86400, tokens = examples * tokens each * epochs"),
         N_("Llama 3 (Dubey et al. 2024) Table 4 (16,384 H100 at 38-43% MFU); course text, "
            "lesson seed-002, \"Estimación del Tiempo de Entrenamiento\" (time = dataset * "
            "epochs / throughput)")},
    [ENGINE_KEY_TRAIN_GPU_HOURS] =
        {"training.gpu_hours", OFF(train_gpu_hours), U(HOURS), G(TRAINING), TR, 0, TX_ALWAYS,
         NONE, N_("GPU-hours"), N_("training seconds / 3600 * G"),
         N_("the Llama 3.1 model card (39.3M H100 GPU-hours); course text, lesson seed-002, "
            "\"Estimación de Costos en la Nube\"")},
    [ENGINE_KEY_TRAIN_COST] =
        {"training.cost_usd", OFF(train_cost_usd), U(MONEY), G(TRAINING), TR, 0, TX_ALWAYS, NONE,
         N_("cost"), N_("GPU-hours * price per GPU-hour"),
         N_("the cloud's on-demand price list, as dated in the GPU's catalogue entry, or --price; "
            "course text, lesson seed-002, \"Estimación de Costos en la Nube\"")},
    [ENGINE_KEY_TRAIN_COST_SPOT] =
        {"training.cost_spot_usd", OFF(train_cost_spot_usd), U(MONEY), G(TRAINING), TR, 0,
         TX_ALWAYS, NONE, N_("cost at spot prices"),
         N_("GPU-hours * the spot price per GPU-hour"),
         N_("course text, lesson seed-002, \"Estimación de Costos en la Nube\" (T4 $0.15, A10G "
            "$0.45, A100-40GB $1.20, A100-80GB $1.80, H100 $2.40 per hour)")},
    [ENGINE_KEY_TRAIN_ENERGY] =
        {"training.energy_joules", OFF(train_energy_joules), U(ENERGY), G(TRAINING), TR | POWER, 0,
         TX_ALWAYS, NONE, N_("energy (board power, upper bound)"),
         N_("GPU-hours * 3600 * board power (TDP): an upper bound, every GPU at its TDP the whole "
            "run"),
         N_("the GPU's data sheet (TDP); course text, lesson seed-003, \"Repaso conceptual\" "
            "(power in W, energy in Wh)")},
    [ENGINE_KEY_TRAIN_ENERGY_PER_TOKEN] =
        {"training.energy_joules_per_token", OFF(train_energy_joules_per_token), U(ENERGY),
         G(TRAINING), TR | POWER, 0, TX_ALWAYS, NONE, N_("energy per token"),
         N_("training energy / tokens in all"),
         N_("the GPU's data sheet (TDP); course text, lesson seed-003, \"Repaso conceptual\" "
            "(power in W, energy in Wh)")},
    [ENGINE_KEY_TRAIN_SYSTEM_ENERGY] =
        {"training.system_energy_joules", OFF(train_system_energy_joules), U(ENERGY), G(TRAINING),
         TR | SYS, 0, TX_ALWAYS, NONE, N_("energy (system power, upper bound)"),
         N_("ceil(G / GPUs per system) * system power * wall time: whole systems at their "
            "maximum power (CPUs, NICs and fans included), an upper bound"),
         N_("the system's data sheet (NVIDIA DGX H100: 10.2 kW); course text, lesson seed-003, "
            "\"Del chip al centro de datos\" (a rack of up to 142 kW is a capacity, not a "
            "measured draw)")},
};


size_t engine_figure_count(void) {
    return ENGINE_KEY_COUNT;
}

enum engine_key engine_figure_at(size_t i) {
    return i < ENGINE_KEY_COUNT ? (enum engine_key)i : ENGINE_KEY_COUNT;
}

const struct engine_figure *engine_figure(enum engine_key k) {
    return (unsigned)k < ENGINE_KEY_COUNT ? &rows[k] : NULL;
}

/* JSON path of a key. */
const char *engine_key_name(enum engine_key k) {
    return (unsigned)k < ENGINE_KEY_COUNT ? rows[k].path : "?";
}

/* Key by JSON path; 0 on success. */
int engine_key_parse(const char *name, enum engine_key *out) {
    for (int i = 0; name && i < ENGINE_KEY_COUNT; i++)
        if (strcmp(rows[i].path, name) == 0) {
            *out = (enum engine_key)i;
            return 0;
        }
    return -1;
}

/* Whether a figure has a meaning in this scenario: its modes, its
 * runtimes, a system where it needs one. */
bool engine_key_applies(const struct engine_scenario *sc, enum engine_key k) {
    if ((unsigned)k >= ENGINE_KEY_COUNT)
        return false;
    const struct engine_figure *r = &rows[k];
    bool training = sc->mode != ENGINE_MODE_INFER;
    if ((r->modes & SYS) && sc->system_gpus == 0)
        return false;
    if (!(r->modes & (training ? TR : IN)))
        return false;
    if ((r->modes & FULL) && sc->mode != ENGINE_MODE_TRAIN)
        return false;
    /* CUDA graphs are counted before the KV cache from vLLM 0.21 only; the
     * steady state needs output tokens (a prompt shorter than the context). */
    if ((r->modes & V21) && engine_runtime_version(&sc->serving) < 21)
        return false;
    if ((r->modes & STEADY) && !(sc->prompt > 0 && sc->prompt < sc->context))
        return false;
    if ((r->modes & CORE) && !engine_core_measured(sc))
        return false; /* a CPU's cores only */
    if ((r->modes & POWER) && !engine_pos(sc->gpu.tdp_w))
        return false; /* a custom GPU, a CPU: no board power known */
    if (r->runtimes && (training || !(r->runtimes & RT(sc->serving.runtime))))
        return false;
    return true;
}

/* The raw value of a figure (fits as 1 or 0, NaN when invalid). */
double engine_key_value(const struct engine_estimate *e, enum engine_key k) {
    if ((unsigned)k >= ENGINE_KEY_COUNT)
        return NAN;
    if (rows[k].offset == SIZE_MAX)
        return e->invalid ? NAN : (e->fits ? 1.0 : 0.0);
    return *(const double *)((const char *)e + rows[k].offset);
}

double engine_figure_value(const struct engine_scenario *sc, const struct engine_estimate *e,
                           enum engine_key k) {
    if (!engine_key_applies(sc, k))
        return NAN;
    return engine_key_value(e, k);
}

bool engine_figure_shown(const struct engine_scenario *sc, const struct engine_estimate *e,
                         enum engine_key k) {
    double v = engine_figure_value(sc, e, k);
    if (!isfinite(v))
        return false;
    switch (rows[k].text) {
    case TX_ALWAYS:
        return true;
    case TX_NONZERO:
        return v != 0;
    case TX_NONZERO_TRAIN:
        return v != 0 || sc->mode != ENGINE_MODE_INFER;
    case TX_DIFFERS:
        return v != e->params_total;
    case TX_OFFLOAD:
        return sc->offload != ENGINE_OFFLOAD_NONE;
    case TX_EP:
        return engine_ep(sc) > 1;
    case TX_HOST_DECODE:
        return e->memory.host > 0 && e->serving.decode_host_bytes > 0;
    case TX_ZERO3_WORKING:
        return e->memory.zero3_working > 0;
    case TX_SAME_AS:
        return false;
    case TX_TP:
        return sc->tp > 1;
    }
    return false;
}

size_t engine_figure_format(const struct engine_numfmt *f, const struct engine_scenario *sc,
                            const struct engine_estimate *e, enum engine_key k, char *buf,
                            size_t len) {
    if ((unsigned)k >= ENGINE_KEY_COUNT) {
        if (len > 0)
            buf[0] = '\0';
        return 0;
    }
    return engine_format(f, rows[k].unit, engine_figure_value(sc, e, k), buf, len);
}

const char *engine_figure_label(const struct engine_numfmt *f, enum engine_key k) {
    return (unsigned)k < ENGINE_KEY_COUNT ? engine_numfmt_tr(f, rows[k].label) : "?";
}

int engine_figures_render(const struct engine_numfmt *f, const struct engine_scenario *sc,
                          const struct engine_estimate *e, const char *text, char *out,
                          size_t len, const char **bad) {
    size_t o = 0;
    int unknown = 0;
    if (bad)
        *bad = NULL;
    if (len == 0)
        return 0;
    for (const char *s = text; *s && o + 1 < len;) {
        if (s[0] == '{' && s[1] == '{') {
            out[o++] = '{';
            s += 2;
            continue;
        }
        const char *close = s[0] == '{' ? strchr(s + 1, '}') : NULL;
        enum engine_key k;
        char path[64];
        size_t pl = close ? (size_t)(close - s - 1) : 0;
        if (close && pl > 0 && pl < sizeof path) {
            memcpy(path, s + 1, pl);
            path[pl] = '\0';
            if (engine_key_parse(path, &k) == 0) {
                o += engine_figure_format(f, sc, e, k, out + o, len - o);
                s = close + 1;
                continue;
            }
        }
        if (close && s[0] == '{') {
            if (bad && !unknown)
                *bad = s;
            unknown++;
        }
        out[o++] = *s++;
    }
    out[o < len ? o : len - 1] = '\0';
    return unknown;
}
