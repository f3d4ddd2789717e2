/*
 * engine.h: the pure model of vramlab.
 *
 * A scenario (model, formats, GPU, layout, workload) goes in; an estimate
 * (per-GPU memory, fit, speed ceilings, training time and cost) comes out.
 * No I/O, no curses, no YAML, no globals, no allocation, no exit(): the TUI,
 * the headless commands and the tests only read struct engine_estimate.
 *
 * Units: bytes, seconds, FLOP, FLOP/s and bytes/s, all decimal; parameters
 * as plain counts. Memory is carried in double (exact for integers below
 * 2^53, far above any memory size). Formulas and sources: shared spec
 * engine.md, seeds/000 (main course text), and the papers named next to each
 * function in engine.c.
 *
 * Every output key has an explanation (formula, values substituted, source)
 * produced on demand by engine_explain(), so the estimate path stays pure
 * arithmetic.
 */
#ifndef VRAMLAB_ENGINE_H
#define VRAMLAB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENGINE_ID_MAX   48
#define ENGINE_NAME_MAX 64
/* Most transformer layers whose exact bytes a model file can give. */
#define ENGINE_FILE_LAYERS_MAX 256
/* Weight width classes (the CPU's measured dot rates, a file's tensors by
 * type): below 6 bits a weight, below 12, from 12. */
enum { ENGINE_WIDTH_4 = 0, ENGINE_WIDTH_8, ENGINE_WIDTH_16, ENGINE_WIDTHS };
/* The width class of a weight of `bits` bits (scales included). */
int engine_width_class(double bits);

/* ---- catalog entities (filled by catalog/ or by hand) ----------------- */

enum engine_norm { ENGINE_NORM_RMS = 0, ENGINE_NORM_LAYER };
/* Which linear layers carry a bias vector. */
enum engine_bias { ENGINE_BIAS_NONE = 0, ENGINE_BIAS_QKV, ENGINE_BIAS_ALL };

/* Which FLOP/s column of the GPU runs the matrix products of a format. */
enum engine_compute {
    ENGINE_COMPUTE_FP16 = 0,
    ENGINE_COMPUTE_BF16,
    ENGINE_COMPUTE_FP32,
    ENGINE_COMPUTE_FP8,
    ENGINE_COMPUTE_INT8,
    ENGINE_COMPUTE_FP4,
    ENGINE_COMPUTE_COUNT
};

/*
 * A model. With has_arch the parameter count is computed exactly from the
 * shape; without it (a bare size) only params_total is known and the shape
 * used for KV cache and activations is derived (engine_model_derive).
 */
struct engine_model {
    char id[ENGINE_ID_MAX];
    char name[ENGINE_NAME_MAX];
    char family[ENGINE_ID_MAX];
    const char *source;      /* where the figures come from; may be NULL */
    double params_published; /* published total, 0 when unknown */
    double params_size;      /* bare-size models: the size N; else 0 */
    bool has_arch;           /* shape known from a config */
    bool derived;            /* shape derived from a bare size */

    uint32_t layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    bool tied;  /* input embedding shared with the output head */
    bool gated; /* SwiGLU/GeGLU MLP: 3*h*f instead of 2*h*f */
    enum engine_bias bias;
    enum engine_norm norm;
    uint32_t norms_per_layer; /* 0 means the usual 2 */
    bool qk_norm;             /* per-head norms on q and k (Qwen3, Gemma 3) */
    uint32_t pos_embeddings;  /* learned absolute positions (GPT-3, OPT); 0 = rotary */
    uint32_t max_context;
    /* Rope scaling (config.json rope_scaling: yarn, llama3, dynamic,
     * linear...): the context the model was trained at before it was
     * extended (original_max_position_embeddings); 0 = not extended. */
    uint32_t native_context;
    double rope_factor;       /* the scaling factor; 0 = none */
    char rope_scaling[16];    /* its type ("yarn"); "" = none */
    uint32_t sliding_window; /* 0 = none */
    uint32_t sliding_layers; /* layers using the window (0 with a window = all) */

    /* Mixture of experts (experts == 0: dense). */
    uint32_t experts, active_experts, shared_experts;
    uint32_t moe_ffn;      /* expert intermediate size; 0 = ffn */
    uint32_t dense_layers; /* leading layers with a dense MLP of size ffn */

    /* Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank == 0: none. */
    uint32_t q_lora_rank, kv_lora_rank, rope_dim, nope_dim, v_head_dim;

    /* Exact figures read from a model file's tensors (catalog/modelfile.c,
     * `--model-file`). With file_bytes, inference weights are these bytes
     * (per layer, embedding, head) instead of parameters x the weight
     * format's bits, and params_total is the file's element count. */
    bool file_bytes;
    double file_params;                       /* elements of every tensor */
    double file_embed_params, file_embed_bytes; /* token (+ position) embedding */
    double file_head_params, file_head_bytes; /* output head, final norm, every other tensor */
    double file_layer_params;                 /* of all layers together */
    double file_expert_params, file_expert_bytes; /* routed experts of all layers */
    double file_layer_bytes[ENGINE_FILE_LAYERS_MAX]; /* each transformer layer's tensors */
    double file_width_params[ENGINE_WIDTHS]; /* elements by width class (ENGINE_WIDTH_*) */
    /* Published pre-training global batch in tokens (Llama 3 405B 16M,
     * Llama 2 4M, GPT-3 3.2M); 0 = not published. */
    double global_batch_tokens;
};

/* A number format for weights or for the KV cache (ggml's type traits). */
enum engine_format_kind { ENGINE_FMT_FLOAT = 0, ENGINE_FMT_INT, ENGINE_FMT_BLOCK };

/* llama.cpp's mixed quantization types (llama-quantize's ftypes): a base
 * type with some tensors of some layers upgraded and the output in Q6_K
 * (engine/gguf_mix.c, after llama.cpp src/llama-quant.cpp). */
enum engine_gguf_mix {
    ENGINE_MIX_NONE = 0,
    ENGINE_MIX_Q2_K,
    ENGINE_MIX_Q3_K_S,
    ENGINE_MIX_Q3_K_M,
    ENGINE_MIX_Q3_K_L,
    ENGINE_MIX_Q4_K_S,
    ENGINE_MIX_Q4_K_M,
    ENGINE_MIX_Q5_K_S,
    ENGINE_MIX_Q5_K_M,
    ENGINE_MIX_COUNT
};

struct engine_format {
    char id[ENGINE_ID_MAX];
    char name[ENGINE_NAME_MAX];
    const char *source;
    enum engine_format_kind kind;
    double bits;             /* bits per stored element */
    uint32_t block;          /* weights sharing one scale; 0 = none */
    double scale_bits;       /* bits of each block's scale */
    double zero_bits;        /* bits of each block's zero point / min */
    uint32_t super_block;    /* second-level block (double quant); 0 = none */
    double super_scale_bits; /* bits per super block */
    enum engine_compute compute;
    /* A llama.cpp mix (Q4_K_M...): the weights take its per-tensor types
     * instead of `bits` everywhere; ENGINE_MIX_NONE for a plain format. */
    enum engine_gguf_mix mix;
    /* IEEE-like formats (0 where not applicable). */
    uint32_t sign_bits, exponent_bits, mantissa_bits;
    double decimal_digits, max_value;
};

/* A CPU as the device (--device cpu, issue 26): the rates its cores
 * measured (`vramlab measure --device cpu`), as inputs. A quantized GEMV on
 * a few cores is bound by the cores' dequantize-and-dot rate, not by
 * memory (docs/benchmarks.md: W4A16 at 0.39 C on 2 AVX2 cores). Width
 * classes: ENGINE_WIDTH_*. All zero: not a CPU, or not measured. */
#define ENGINE_CORE_BATCHES 4
struct engine_core_rates {
    /* Weights per second the cores dequantize and dot with all threads
     * (each weight used by `batch` vectors), at up to ENGINE_CORE_BATCHES
     * batches in increasing order; batch 0 ends the list. */
    double weights_per_s[ENGINE_WIDTHS][ENGINE_CORE_BATCHES];
    uint32_t batch[ENGINE_WIDTHS][ENGINE_CORE_BATCHES];
    /* what measured it: the probe's test ("w4a16"), or "llama.cpp Q4_1" */
    char kernel[ENGINE_WIDTHS][24];
    uint32_t threads;
};

struct engine_gpu {
    char id[ENGINE_ID_MAX];
    char name[ENGINE_NAME_MAX];
    char vendor[24];
    char interconnect[32];
    const char *source;
    double memory_bytes;
    double bandwidth_bytes_per_s;
    double flops[ENGINE_COMPUTE_COUNT]; /* dense, no sparsity; 0 = unsupported */
    double link_bytes_per_s;            /* per-GPU intra-node bandwidth */
    uint32_t gpus_per_node;
    double tdp_w;
    double price_per_hour, spot_price_per_hour; /* USD; 0 = unknown */
    char price_date[16];
    bool unified_memory;
    bool cpu;                      /* this device is a CPU (--device cpu) */
    struct engine_core_rates core; /* its cores' measured rates */
    /* The total CUDA reports (torch.cuda.mem_get_info), below the data
     * sheet's: what ECC and the driver keep (H100 80GB: 79.18 GiB); the
     * runtimes take their fractions of this. 0 = not known: memory_bytes. */
    double memory_reported_bytes;
};

/* ---- the scenario ------------------------------------------------------ */

enum engine_mode { ENGINE_MODE_INFER = 0, ENGINE_MODE_TRAIN, ENGINE_MODE_LORA, ENGINE_MODE_QLORA };
enum engine_recompute {
    ENGINE_RECOMPUTE_NONE = 0,
    ENGINE_RECOMPUTE_SELECTIVE, /* Megatron's selective: --recompute-modules (core_attn) */
    ENGINE_RECOMPUTE_FULL,
    /* torchtitan's op-level selective checkpointing (selective_ac_option
     * "op"): each layer keeps its input, the outputs of every other matrix
     * product (the 1st, 3rd, ...) and the attention's output; the rest is
     * recomputed (torchtitan parallelize_llama.py, _save_list). */
    ENGINE_RECOMPUTE_OP,
    ENGINE_RECOMPUTE_COUNT
};
/* The submodules Megatron-LM's selective recompute re-runs
 * (--recompute-modules, transformer_config.py recompute_modules; default
 * core_attn): bits of engine_scenario.recompute_modules. */
enum engine_recompute_module {
    ENGINE_RECOMPUTE_CORE_ATTN = 1u << 0,      /* the attention scores (s^2 terms) */
    ENGINE_RECOMPUTE_LAYERNORM = 1u << 1,      /* both norms' outputs (output-discarding) */
    ENGINE_RECOMPUTE_MLP = 1u << 2,            /* the dense MLP: only its input kept */
    ENGINE_RECOMPUTE_MOE = 1u << 3,            /* the MoE layer: only its input kept */
    ENGINE_RECOMPUTE_MOE_ACT = 1u << 4,        /* the experts' activation output */
    ENGINE_RECOMPUTE_SHARED_EXPERTS = 1u << 5, /* the shared experts' interior */
    ENGINE_RECOMPUTE_MLA_UP_PROJ = 1u << 6,    /* MLA's up-projected q, k, v */
    ENGINE_RECOMPUTE_MODULE_COUNT = 7
};
/* How full recompute picks its layers (Megatron-LM --recompute-method, with
 * --recompute-num-layers N): uniform checkpoints the input of every group
 * of N layers and re-runs a group at a time (N = 1: every layer); block
 * recomputes the first N layers of each pipeline stage and stores the rest
 * whole (no recompute). */
enum engine_recompute_method {
    ENGINE_RECOMPUTE_UNIFORM = 0,
    ENGINE_RECOMPUTE_BLOCK,
    ENGINE_RECOMPUTE_METHOD_COUNT
};
/* Optimizer recipes: bytes per parameter of each training state. */
enum engine_recipe {
    ENGINE_RECIPE_ADAM_MIXED = 0,
    ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS,
    ENGINE_RECIPE_ADAM_FP32,
    ENGINE_RECIPE_ADAM_BF16,
    ENGINE_RECIPE_ADAM_8BIT,
    ENGINE_RECIPE_SGD_MOMENTUM,
    ENGINE_RECIPE_LION,            /* one state: the momentum (Chen et al. 2023) */
    ENGINE_RECIPE_LION_FP32_GRADS, /* the same with FP32 gradients (Megatron's main grads) */
    ENGINE_RECIPE_ADAFACTOR,       /* factored second moment (Shazeer and Stern 2018) */
    ENGINE_RECIPE_COUNT
};

/*
 * Inference runtimes whose start-up accounting a scenario follows (each
 * from its own source, the release named in engine/runtime.c; a runtime
 * may have several profiles, one per release whose rules differ:
 * `--runtime vllm@0.21`):
 *  - plain: vramlab's own (weights + KV + one step's logits + --reserve);
 *  - vllm: vLLM 0.11 (0.11 to 0.20, the default) or 0.21 (and later):
 *    gpu_memory_utilization of the memory CUDA reports, minus weights, the
 *    profile run's activation peak, non-torch memory (and from 0.21 the
 *    CUDA graphs), the rest as KV blocks of block_size tokens;
 *  - llama.cpp: model, KV and compute buffers per device, -ngl partial
 *    offload, --fit's 1 GiB margin per device;
 *  - ollama: llama.cpp under Ollama's scheduler (457 MiB per-GPU minimum,
 *    one layer of buffer, its graph estimate and defaults);
 *  - sglang: mem_fraction_static of the free memory at start holds the
 *    weights and the KV pool (its default from the GPU's memory);
 *  - trtllm: TensorRT-LLM's PyTorch flow: free_gpu_memory_fraction of
 *    what is free after the weights and a profiled forward pass.
 */
enum engine_runtime {
    ENGINE_RUNTIME_PLAIN = 0,
    ENGINE_RUNTIME_VLLM,
    ENGINE_RUNTIME_LLAMACPP,
    ENGINE_RUNTIME_OLLAMA,
    ENGINE_RUNTIME_SGLANG,
    ENGINE_RUNTIME_TRTLLM,
    ENGINE_RUNTIME_COUNT
};

/* Serving settings (inference); 0 means the runtime's default where said. */
struct engine_serving {
    enum engine_runtime runtime;
    /* The release whose rules the runtime's profile follows, as major *
     * 100 + minor (vLLM 11 = 0.11, 21 = 0.21); 0 = the runtime's default
     * profile (engine_runtime_version). */
    uint32_t runtime_version;
    /* The runtime's memory fraction: vLLM's gpu_memory_utilization,
     * SGLang's mem_fraction_static, TensorRT-LLM's free_gpu_memory_fraction;
     * (0, 1], 0 = the runtime's default (engine_runtime_memory_fraction). */
    double gpu_memory_utilization;
    uint32_t block_size;             /* vLLM KV block in tokens; default 16 */
    uint32_t max_num_batched_tokens; /* vLLM chunk budget (SGLang chunked_prefill_size,
                                        TensorRT-LLM max_num_tokens); 0 = the default */
    uint32_t max_num_seqs;           /* vLLM (TensorRT-LLM max_batch_size); 0 = the default */
    /* vLLM 0.21 and later: the CUDA-graph memory its profiler estimates
     * ("Estimated CUDA graph memory"); 0 = vramlab's estimate. */
    double cuda_graph_bytes;
    /* Steady state of a workload: requests arriving per second (Poisson or
     * not, only the mean matters to the mean concurrency); 0 = saturated,
     * as trtllm-bench and `vllm bench throughput` run. */
    double request_rate;
    uint32_t max_model_len;          /* vLLM; 0 = the context */
    uint32_t ubatch;                 /* llama.cpp/Ollama n_ubatch; 0 = 512 */
    int flash_attention;             /* llama.cpp/Ollama: 1 on, 0 off, -1 the runtime's default */
    bool fit;                        /* llama.cpp --fit: pick the layers that fit */
    int32_t gpu_layers;              /* transformer layers on the GPUs, when given */
    bool gpu_layers_given;           /* else all (or what --fit / Ollama fit) */
    uint32_t cpu_moe_layers;         /* MoE experts of the first N layers in host RAM */
    double host_bytes_per_s;         /* host memory bandwidth; 0 = the default */
    bool host_measured;              /* host_bytes_per_s was measured (Measure pane) */
    bool keep_embeddings_16bit;      /* embedding and output head in 16-bit */
};

/* Model FLOPs per trained token (what MFU counts): 6 N plus causal
 * self-attention 6 L s a (d_qk + d_v) = 12 L h s, counted as PaLM appendix B
 * does (Chowdhery et al. 2022; Narayanan et al. 2021 eq. 3: 1 + s/6h); or
 * the bare 6 N of Kaplan et al. 2020 (seed 000's arithmetic). */
enum engine_flops_model { ENGINE_FLOPS_6N_ATTENTION = 0, ENGINE_FLOPS_6N, ENGINE_FLOPS_MODEL_COUNT };

/* The kernel efficiency of training when --flops-efficiency is not given:
 * the hardware FLOP utilisation of Megatron-LM's 530B and 1T runs,
 * bubble and communication included (Korthikanti et al. 2022, Table 5:
 * 57.0%). Their kernels run at least that fast; vramlab takes it as the
 * rate of the kernels themselves, then adds its own bubble and exposed
 * communication (an assumption, stated in explain). */
#define ENGINE_DEFAULT_TRAIN_KERNEL_EFFICIENCY 0.57

/*
 * Whose accounting of the training states (engine/zero.c has the formulas
 * and the sources, the versions named there):
 *  - paper (the default): the ZeRO paper's idealised (2 + 2 + K) Psi / N_d
 *    (Rajbhandari et al. 2020 §5; seed 000 teaches it), ZeRO-Offload's and
 *    ZeRO-Infinity's papers for the offloaded states;
 *  - deepspeed: as DeepSpeed allocates them: the FP32 copy of the
 *    gradients the optimizer steps on beside the 16-bit ones (both
 *    partitions under ZeRO-2), and under ZeRO-3 its estimator's 18 B per
 *    parameter plus 4 B x the gathered largest layer;
 *  - megatron: Megatron-LM's theoretical_memory_usage.py: FP32 main
 *    gradients, 18 B per parameter, 6 + 12/d with the distributed
 *    optimizer (ZeRO-1); ZeRO-2 and 3 and offload are not Megatron's.
 */
enum engine_memory_convention {
    ENGINE_MEMCONV_PAPER = 0,
    ENGINE_MEMCONV_DEEPSPEED,
    ENGINE_MEMCONV_MEGATRON,
    /* peak: what torch.cuda.max_memory_reserved() reports and torchtitan
     * and Megatron-LM print: the states as the framework of the ZeRO stage
     * holds them (ZeRO-3: FSDP2 as torchtitan runs it; ZeRO-0/1:
     * Megatron-LM's DDP and distributed optimizer; ZeRO-2: DeepSpeed),
     * plus the activations held and the transient buffers of the phase of
     * the step that peaks, plus the caching allocator's waste
     * (engine/peak.c). */
    ENGINE_MEMCONV_PEAK,
    ENGINE_MEMCONV_COUNT
};

/* The phase of a training step where the memory peaks (--memory-convention
 * peak; engine/peak.c). */
enum engine_peak_phase {
    ENGINE_PEAK_NONE = 0,     /* not computed (another convention) */
    ENGINE_PEAK_LOSS_FORWARD, /* the last stage's logits and loss, forward */
    ENGINE_PEAK_LOSS_BACKWARD, /* the loss's backward (its gradient of the logits) */
    ENGINE_PEAK_LAYER_BACKWARD, /* a layer's backward: its recomputed forward and gradients */
    ENGINE_PEAK_OPTIMIZER,    /* the optimizer step */
    ENGINE_PEAK_PHASE_COUNT
};

/* The default MoE load imbalance (--moe-imbalance): the busiest expert
 * rank's tokens over the mean. Switch Transformer trains with an expert
 * capacity factor of 1.25 (Fedus et al. 2022, §2.2 and Table 1): room for
 * a quarter more than the even share, the imbalance its routing is sized
 * for; dropless training has no cap, and Megatron-Bridge's benchmarks
 * force a balanced routing (1.0). */
#define ENGINE_DEFAULT_MOE_IMBALANCE 1.25

/* Where ZeRO keeps the training states: all on the GPUs; the optimizer
 * states, master weights and FP32 gradients in host RAM (ZeRO-Offload,
 * Ren et al. 2021); on NVMe with the parameters too (ZeRO-Infinity,
 * Rajbhandari et al. 2021; ZeRO-3 only). */
enum engine_offload {
    ENGINE_OFFLOAD_NONE = 0,
    ENGINE_OFFLOAD_CPU,
    ENGINE_OFFLOAD_NVME,
    ENGINE_OFFLOAD_COUNT
};

/* The GPU's host link when --host-link-bw is not given: PCIe 5.0 x16, one
 * direction, 32 GT/s x 16 lanes x 128/130 (encoding) / 8 = 63.0 GB/s
 * (PCI-SIG PCIe 5.0 base specification; H100 SXM and PCIe attach so). */
#define ENGINE_DEFAULT_HOST_LINK_BW (32e9 * 16.0 * 128.0 / 130.0 / 8.0)

struct engine_recipe_info {
    const char *id;
    double weights, grads, master, optimizer; /* bytes per parameter */
    const char *source;
    /* Adafactor: besides `optimizer` bytes per parameter, a factored FP32
     * second moment of rows + columns per weight matrix (full size for
     * vectors) instead of rows x columns (Shazeer and Stern 2018 §3). */
    bool factored;
};

struct engine_scenario {
    struct engine_model model;
    struct engine_format weight_format;
    struct engine_format kv_format;
    struct engine_gpu gpu;

    uint32_t gpus;                 /* G; must equal tp*cp*pp*dp */
    uint32_t gpus_per_node;        /* 0 = the GPU's own */
    double intra_node_bytes_per_s; /* 0 = the GPU's link bandwidth */
    double inter_node_bytes_per_s; /* per GPU, across nodes */
    double allreduce_latency_s;    /* per all-reduce */
    uint32_t tp, pp, dp;
    uint32_t zero;          /* ZeRO stage 0..3 */
    enum engine_memory_convention memory_convention; /* whose training-state accounting */
    enum engine_offload offload;   /* training states off the GPU (ZeRO-Offload/Infinity) */
    double host_link_bytes_per_s;  /* per GPU, one way; 0 = ENGINE_DEFAULT_HOST_LINK_BW */
    uint32_t micro_batches; /* m per step per data-parallel replica (gradient accumulation) */
    /* Training: sequences per optimizer step over all replicas (Megatron's
     * --global-batch-size); 0 = batch * micro_batches * dp. Given, the
     * micro-batches are derived: global / (batch * dp), which must divide. */
    uint32_t global_batch;
    uint32_t interleave;    /* v virtual stages per GPU; 1 = plain 1F1B */
    bool sequence_parallel;
    /* Expert parallelism (MoE training, Megatron-LM's
     * --expert-model-parallel-size): the routed experts of each MoE layer
     * split over ep GPUs of a data-parallel group (EP inside DP: ep divides
     * dp and the experts); their states shard over the d/ep expert
     * data-parallel ranks. 0 or 1 = none. */
    uint32_t ep;
    /* Context parallelism (Megatron-LM --context-parallel-size, torchtitan
     * context_parallel_degree): each sequence split over cp GPUs (G = tp x
     * cp x pp x dp), their activations divided by cp, the keys and values
     * passed around a ring each layer; the states shard over dp x cp as
     * data parallelism's. 0 or 1 = none. */
    uint32_t cp;
    /* MoE training: the busiest expert rank's tokens over the mean (>= 1);
     * 0 = ENGINE_DEFAULT_MOE_IMBALANCE. */
    double moe_imbalance;
    /* Megatron-LM --recompute-modules under selective recompute (enum
     * engine_recompute_module bits); 0 = its default, core_attn. */
    uint32_t recompute_modules;
    /* Full recompute's method and its --recompute-num-layers N (0 = 1 for
     * uniform, every layer of the stage for block). */
    enum engine_recompute_method recompute_method;
    uint32_t recompute_num_layers;

    enum engine_mode mode;
    uint32_t batch; /* inference: sequences per replica; training: sequences per
                       micro-batch per replica (Megatron's --micro-batch-size) */
    uint32_t context; /* tokens per sequence */
    uint32_t prompt;  /* prefill tokens; 0 = context */
    enum engine_recompute recompute;
    enum engine_recipe recipe;
    uint32_t lora_rank;
    /* Model FLOPs utilisation end to end, as papers report it (PaLM
     * appendix B, Llama 3, Megatron): step = model FLOPs / (G peak MFU),
     * bubble and communication already inside it. 0 = not given: vramlab
     * predicts it from the kernel efficiency, the bubble and the
     * communication the schedule cannot hide. */
    double mfu;
    enum engine_flops_model flops_model;
    double training_tokens;  /* 0 = the default (20 per parameter; 100M for LoRA) */
    bool training_tokens_given; /* training_tokens is the user's, even 0 */
    /* --mode train as full fine-tuning (--fine-tune): the default tokens
     * are a fine-tuning set's, as LoRA's, not a pre-training run's. */
    bool fine_tune;
    /* Seed 002's method: a known training throughput in tokens/s of the
     * whole deployment; given (> 0), the run takes tokens / throughput and
     * the MFU is what that rate implies. 0 = from the step time. */
    double throughput_tokens_per_s;
    double price_per_hour;   /* 0 = the GPU's on-demand price */
    bool price_given;        /* price_per_hour is the user's, even 0 (own GPUs) */
    double reserve_bytes;    /* CUDA context, fragmentation */
    double bw_efficiency;    /* fraction of data-sheet bandwidth reached */
    double flops_efficiency; /* fraction of data-sheet FLOP/s reached */
    bool flops_efficiency_given; /* else training kernels run at
                                    ENGINE_DEFAULT_TRAIN_KERNEL_EFFICIENCY */
    /* Training: the fraction of peak the attention kernels (the score and
     * value products) reach, when it differs from the GEMMs' (FlashAttention-2
     * reaches about 35% of an H100's, Shah et al. 2024); 0 = the kernel
     * efficiency. */
    double attention_efficiency;
    /* Calibration from the measure pane (0 = use the data sheet). */
    double measured_bytes_per_s;
    double measured_flop_per_s;
    struct engine_serving serving; /* runtime, concurrency, offload (inference) */
    /* The system the GPUs come in (--system: a server or a rack), for the
     * energy at the system's power: gpus per system and its maximum power;
     * system_gpus 0 = none given (energy at board power only). */
    char system_id[ENGINE_ID_MAX];
    uint32_t system_gpus;
    double system_power_w;
};

/* ---- the estimate ------------------------------------------------------ */

enum engine_invalid {
    ENGINE_INVALID_NONE = 0,
    ENGINE_INVALID_LAYOUT = 1u << 0,     /* tp*pp*dp != gpus */
    ENGINE_INVALID_TP_HEADS = 1u << 1,   /* tp does not divide heads */
    ENGINE_INVALID_PP_LAYERS = 1u << 2,  /* pp exceeds the layers */
    ENGINE_INVALID_ZERO = 1u << 3,       /* ZeRO stage above 3 */
    ENGINE_INVALID_SIZE = 1u << 4,       /* no parameters or zero/negative shape */
    ENGINE_INVALID_GPU = 1u << 5,        /* zero memory or bandwidth or FLOP/s */
    ENGINE_INVALID_WORKLOAD = 1u << 6,   /* zero batch/context/gpus */
    ENGINE_INVALID_FORMAT = 1u << 7,     /* zero bits */
    ENGINE_INVALID_EFFICIENCY = 1u << 8, /* efficiency outside (0,1], MFU outside [0,1] */
    ENGINE_INVALID_PROMPT = 1u << 9,     /* prompt longer than the context */
    ENGINE_INVALID_SERVING = 1u << 10,   /* runtime settings out of range */
    ENGINE_INVALID_BATCH = 1u << 11,     /* global batch not a multiple of batch x dp */
    ENGINE_INVALID_EP = 1u << 14,        /* ep without experts, or not dividing dp or experts */
    ENGINE_INVALID_RECOMPUTE = 1u << 15, /* recompute method or layers out of range */
    ENGINE_INVALID_OFFLOAD = 1u << 16,   /* offload outside full training, with ZeRO 0, nvme
                                            below ZeRO-3, or under the megatron convention */
    ENGINE_INVALID_CONVENTION = 1u << 17, /* megatron with ZeRO-2/3; unknown convention */
    ENGINE_INVALID_CP = 1u << 20,         /* cp in inference, or not dividing the context by 2 cp */
    ENGINE_INVALID_MOE = 1u << 21,        /* --moe-imbalance below 1, recompute modules unknown */
};

enum engine_warning {
    ENGINE_WARN_TP_ACROSS_NODES = 1u << 0,
    ENGINE_WARN_BUBBLE = 1u << 1, /* m < 4p */
    ENGINE_WARN_CONTEXT_OVER_MAX = 1u << 2,
    ENGINE_WARN_DERIVED_SHAPE = 1u << 3,
    ENGINE_WARN_KV_REPLICATED = 1u << 4, /* tp > kv heads */
    ENGINE_WARN_NO_FORMAT_FLOPS = 1u << 5,
    ENGINE_WARN_DOES_NOT_FIT = 1u << 6,
    ENGINE_WARN_ZERO_WITHOUT_DP = 1u << 7,
    ENGINE_WARN_COMM_BOUND = 1u << 8, /* TP or DP communication > compute */
    ENGINE_WARN_NO_PRICE = 1u << 9,
    ENGINE_WARN_CALIBRATED = 1u << 10,
    ENGINE_WARN_MOE_ROUTING = 1u << 11,   /* decode reads more experts at batch > 1 */
    ENGINE_WARN_UNEVEN_STAGES = 1u << 12, /* p does not divide the layers */
    ENGINE_WARN_KV_POOL_SHORT = 1u << 13, /* vLLM: the load needs more KV blocks than exist */
    ENGINE_WARN_HOST_BW_ASSUMED = 1u << 14, /* layers in host RAM, host bandwidth assumed */
    ENGINE_WARN_OFFLOADED = 1u << 15,     /* layers or experts in host RAM */
    ENGINE_WARN_RUNTIME_REFUSES = 1u << 16, /* vLLM/SGLang/TensorRT-LLM would not start */
    ENGINE_WARN_CONTEXT_OVER_NATIVE = 1u << 17, /* past the native context, in rope scaling */
};
#define ENGINE_WARNING_COUNT 18

/* Per GPU; total = every field but host and nvme. overhead: the runtime's
 * buffers (vLLM's activation peak and non-torch memory, llama.cpp's compute
 * buffer, Ollama's graph and layer buffer); host: what sits in host RAM
 * instead (inference: partial offload, llama.cpp's token embedding, per
 * replica; training: this GPU's share of the offloaded states); nvme: this
 * GPU's share of the states on NVMe (ZeRO-Infinity); zero3_working: the
 * gathered largest layer of ZeRO-3 (DeepSpeed's 4 B x its parameters). */
struct engine_memory {
    double weights, kv_cache, activations, gradients, master_weights, optimizer, reserve, total;
    double overhead, host;
    double zero3_working, nvme;
    /* --memory-convention peak (engine/peak.c): the peak phase's transient
     * buffers (gathered parameters, gradient reduce buffers, the loss's
     * FP32 logits) and the caching allocator's waste; 0 otherwise. */
    double transient, allocator;
    /* FP8 training: the FP8 copies of the GEMM weights beside the 16-bit
     * ones (Transformer Engine's cached weight and its transpose, or the
     * row- and column-wise MXFP8 copies); 0 otherwise. */
    double fp8_weights;
};

/* Serving figures (inference; NaN where they do not apply). */
struct engine_serving_estimate {
    double ttft_s;               /* first token of a request while batch-1 others decode */
    double tpot_s;               /* time per output token of one sequence at this batch */
    double prefill_chunk_tokens; /* tokens per prefill step of the runtime */
    double prefill_chunks;       /* steps of one prompt */
    double prefill_comm_s;       /* TP all-reduces and PP hand-offs of one prompt */
    double prefill_compute_s;    /* of one prompt: the compute ceiling alone */
    double prefill_bytes_s;      /* of one prompt: the bytes alone */
    /* vLLM's start-up figures. */
    double available_kv_bytes;   /* utilisation x total - weights - overheads */
    double kv_blocks, kv_tokens, max_concurrency, max_model_len_that_fits;
    double kv_blocks_needed;     /* of this load: batch x ceil(context / block) */
    double activation_peak_bytes, non_torch_bytes, max_model_len;
    double max_num_batched_tokens, max_num_seqs;
    /* llama.cpp / Ollama. */
    double compute_buffer_bytes; /* per GPU */
    double overhead_bytes;       /* memory.overhead: every runtime buffer per GPU */
    double context_padded;       /* llama.cpp's n_ctx rounded up to 256 */
    double gpu_layers;           /* transformer layers on the GPUs */
    double host_layers;          /* and in host RAM */
    double host_bytes_per_s;     /* the host bandwidth used */
    double decode_host_bytes;    /* bytes one decode step reads from host RAM */
    double decode_gpu_s, decode_host_s; /* the two parts of a memory-bound step */
    double embed_16bit_bytes;    /* extra of --keep-embeddings-16bit (whole model) */
    /* Start-up memory of vLLM, SGLang and TensorRT-LLM, per GPU
     * (engine/runtime.c has the rules and their sources). */
    double memory_reported_bytes;  /* the total the runtime sees (CUDA's) */
    double memory_fraction;        /* utilisation / mem_fraction_static / free fraction used */
    double requested_bytes;        /* vLLM: fraction x total; SGLang: fraction x free at start */
    double rotary_cache_bytes;     /* vLLM's cos/sin cache, loaded with the weights */
    double forward_peak_bytes;     /* profile run: one forward of the token budget */
    double sampler_peak_bytes;     /* profile run: the sampler on max_num_seqs requests */
    double cublas_workspace_bytes; /* PyTorch's cuBLAS + cuBLASLt workspaces */
    double cuda_graph_bytes;       /* counted before the KV cache (vLLM >= 0.21) */
    double cuda_context_bytes;     /* taken before the runtime measures free memory */
    double runtime_refuses;        /* 1: the runtime would refuse to start; 0: it starts */
    /* Steady state of the workload: prompt P, output O = context - P, each
     * sequence holding on average P + (O + 1) / 2 tokens of KV. */
    double steady_context;         /* that average */
    double steady_concurrency;     /* sequences decoding at once */
    double steady_step_s;          /* one step of them (and their prompts' share) */
    double steady_tokens_per_s;    /* output tokens/s of the whole deployment */
    double steady_request_rate;    /* requests completed per second */
    /* Decode at batch 1 as a runtime runs it: the bytes at the data sheet's
     * bandwidth plus a fixed cost per token (kernels, sampling). */
    double batch1_tokens_per_s;
    double token_fixed_s, token_launch_s, token_sample_s;
    double prefill_allreduce_s;    /* TP all-reduces of one prompt's prefill */
};

struct engine_estimate {
    uint32_t invalid;  /* enum engine_invalid bits; 0 = valid */
    uint32_t warnings; /* enum engine_warning bits */

    double params_total, params_active;
    double params_trainable; /* LoRA adapters, or all in training */
    double bits_per_weight;  /* effective, with scales */

    struct engine_memory memory; /* per GPU, most loaded GPU */
    double capacity;             /* bytes per GPU */
    bool fits;
    double spare_bytes;  /* capacity - total (negative: short) */
    double memory_ratio; /* total / capacity */

    uint32_t tp, pp, dp, gpus;

    /* Decode (inference): whole-deployment rates (dp x batch x per sequence). */
    double decode_tokens_per_s;
    double decode_tokens_per_s_memory_bound;
    double decode_tokens_per_s_compute_bound;
    double decode_tokens_per_s_per_sequence;
    /* A CPU device: batch / (the dotted weights of each width class / its
     * measured rate); NaN elsewhere (docs: engine.md, issue 26). */
    double decode_tokens_per_s_core_bound;
    double core_seconds_per_step; /* that step's dot products */
    double decode_bytes_per_step; /* bytes each GPU reads per step */
    double decode_flops_per_token;
    double ridge_flop_per_byte;   /* peak / bandwidth */
    double arithmetic_intensity;  /* FLOP per byte of this scenario's decode step */
    double compute_bound_batch;   /* B* where weights alone turn compute bound */
    double bandwidth_bytes_per_s; /* data sheet, or measured */
    double peak_flop_per_s;       /* data sheet for the format, or measured */
    double kv_bytes_per_token;    /* whole model, one sequence */
    double prefill_seconds;       /* one prompt alone, in the runtime's chunks */
    struct engine_serving_estimate serving;
    bool gpu_layers_fitted;       /* the GPU layers were chosen to fit (llama.cpp --fit, Ollama) */

    /* Activations (training). */
    double act_per_layer_bytes;
    double act_layers_held;
    double act_logits_bytes;

    /* Training (NaN where not applicable: inference mode). */
    double train_flops_per_token;    /* model FLOPs (MFU's numerator), no recompute */
    double train_hw_flops_per_token; /* with the recomputed forward (HFU's) */
    double train_tokens_per_step;
    double train_global_batch;    /* sequences per step, all replicas */
    double train_micro_batches;   /* gradient-accumulation steps per replica */
    double train_tokens;          /* tokens of the whole run (default filled in) */
    double train_compute_seconds; /* per step: hardware FLOPs at the kernel efficiency */
    double train_step_seconds;    /* given MFU: model FLOPs / (G peak MFU); predicted:
                                     compute / (1 - bubble) + TP + PP + exposed DP comm */
    double train_bubble_fraction;
    double train_tp_comm_seconds; /* per step */
    double train_pp_comm_seconds; /* per step, on the critical path */
    double train_dp_comm_seconds; /* per step */
    double train_all_to_all_seconds; /* per step: the expert-parallel all-to-alls (0 without EP) */
    double train_kernel_efficiency; /* the fraction of peak the kernels run at */
    double train_mfu;             /* model FLOPs / (G peak step): given, or predicted */
    double train_hfu;             /* hardware FLOPs (recompute included) / (G peak step) */
    double train_days;
    double train_gpu_hours;
    double train_cost_usd;
    double train_cost_spot_usd; /* GPU-hours x the catalog's spot price; NaN: none */
    /* Energy at the board power (tdp): an upper bound; NaN without a tdp. */
    double train_energy_joules;   /* GPU-hours x 3600 x tdp */
    double train_energy_joules_per_token;
    double decode_joules_per_token; /* G x tdp / decode tokens/s (the ceiling) */
    /* With a system (--system): whole systems, at their maximum power (an
     * upper bound: CPUs, NICs and fans included); NaN without a system. */
    double systems;                        /* ceil(G / GPUs per system) */
    double train_system_energy_joules;     /* systems x power x wall time */
    double decode_system_joules_per_token; /* systems x power / decode tokens/s */

    /* Where the step peaks (--memory-convention peak; NONE otherwise). */
    enum engine_peak_phase peak_phase;
    /* Training speed mechanisms (NaN in inference). */
    double train_tokens_per_s_per_gpu; /* tokens per step / step / G */
    double train_stage_imbalance;  /* the slowest stage's work over the mean (>= 1) */
    double train_cp_comm_seconds;  /* per step: the ring's K/V exchange not hidden */
    double train_fp8_cast_seconds; /* per step: FP8 scaling casts (memory-bound) */
    double train_moe_seconds;      /* per step: routing and permutation, expert GEMMs'
                                      weight reads beyond their FLOPs, imbalance */

    /* ZeRO and offload (training; NaN in inference). */
    double largest_layer_params;    /* the fullest stage's largest module, whole (before t) */
    double train_offload_bytes_per_step; /* GPU <-> host traffic of one GPU per step */
    double train_offload_seconds;   /* that traffic at the host link, per step */
    double host_link_bytes_per_s;   /* the host link used */
    double host_bytes_per_node;     /* memory.host x the GPUs of a node */
};

/* Keys of every figure the engine computes, in output order (the JSON's,
 * and by group the text report's): the figure registry (engine/figures.h:
 * JSON path, unit kind, label, explanation) is indexed by them. */
enum engine_key {
    ENGINE_KEY_PARAMS_TOTAL = 0,
    ENGINE_KEY_PARAMS_ACTIVE,
    ENGINE_KEY_PARAMS_TRAINABLE,
    ENGINE_KEY_BITS_PER_WEIGHT,
    ENGINE_KEY_MEM_WEIGHTS,
    ENGINE_KEY_MEM_KV_CACHE,
    ENGINE_KEY_MEM_ACTIVATIONS,
    ENGINE_KEY_MEM_GRADIENTS,
    ENGINE_KEY_MEM_MASTER,
    ENGINE_KEY_MEM_OPTIMIZER,
    ENGINE_KEY_MEM_RESERVE,
    ENGINE_KEY_MEM_ZERO3_WORKING,
    ENGINE_KEY_MEM_OVERHEAD,
    ENGINE_KEY_MEM_TRANSIENT,
    ENGINE_KEY_MEM_ALLOCATOR,
    ENGINE_KEY_MEM_FP8_WEIGHTS,
    ENGINE_KEY_MEM_TOTAL,
    ENGINE_KEY_MEM_HOST,
    ENGINE_KEY_MEM_NVME,
    ENGINE_KEY_MEM_HOST_PER_NODE,
    ENGINE_KEY_MEM_SPARE,
    ENGINE_KEY_MEM_RATIO,
    ENGINE_KEY_CAPACITY,
    ENGINE_KEY_FITS,
    ENGINE_KEY_DECODE_TOKENS,
    ENGINE_KEY_DECODE_MEMORY_BOUND,
    ENGINE_KEY_DECODE_COMPUTE_BOUND,
    ENGINE_KEY_DECODE_CORE_BOUND, /* a CPU: its cores' measured dot rates (issue 26) */
    ENGINE_KEY_DECODE_PER_SEQUENCE,
    ENGINE_KEY_DECODE_BYTES_PER_STEP,
    ENGINE_KEY_DECODE_FLOPS_PER_TOKEN,
    ENGINE_KEY_RIDGE,
    ENGINE_KEY_ARITHMETIC_INTENSITY,
    ENGINE_KEY_COMPUTE_BOUND_BATCH,
    ENGINE_KEY_DECODE_JOULES_PER_TOKEN,
    ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN,
    ENGINE_KEY_BANDWIDTH,
    ENGINE_KEY_PEAK_FLOPS,
    ENGINE_KEY_DECODE_BATCH1,
    ENGINE_KEY_KV_PER_TOKEN,
    ENGINE_KEY_PREFILL,
    ENGINE_KEY_PREFILL_ALLREDUCE,
    ENGINE_KEY_SERVING_TTFT,
    ENGINE_KEY_SERVING_TPOT,
    ENGINE_KEY_SERVING_AVAILABLE_KV,
    ENGINE_KEY_SERVING_KV_BLOCKS,
    ENGINE_KEY_SERVING_KV_TOKENS,
    ENGINE_KEY_SERVING_MAX_CONCURRENCY,
    ENGINE_KEY_SERVING_MAX_MODEL_LEN,
    ENGINE_KEY_SERVING_COMPUTE_BUFFER,
    ENGINE_KEY_SERVING_OVERHEAD,
    ENGINE_KEY_SERVING_GPU_LAYERS,
    ENGINE_KEY_SERVING_HOST_BW,
    ENGINE_KEY_SERVING_MEMORY_REPORTED,
    ENGINE_KEY_SERVING_REQUESTED,
    ENGINE_KEY_SERVING_ROTARY_CACHE,
    ENGINE_KEY_SERVING_ACTIVATION_PEAK,
    ENGINE_KEY_SERVING_NON_TORCH,
    ENGINE_KEY_SERVING_CUDA_GRAPHS,
    ENGINE_KEY_SERVING_MEMORY_FRACTION,
    ENGINE_KEY_SERVING_REFUSES,
    ENGINE_KEY_SERVING_STEADY_CONCURRENCY,
    ENGINE_KEY_SERVING_STEADY_TOKENS,
    ENGINE_KEY_SERVING_STEADY_RATE,
    ENGINE_KEY_ACT_PER_LAYER,
    ENGINE_KEY_ACT_LAYERS_HELD,
    ENGINE_KEY_ACT_LOGITS,
    ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN,
    ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN,
    ENGINE_KEY_TRAIN_TOKENS_PER_STEP,
    ENGINE_KEY_TRAIN_GLOBAL_BATCH,
    ENGINE_KEY_TRAIN_MICRO_BATCHES,
    ENGINE_KEY_TRAIN_TOKENS,
    ENGINE_KEY_TRAIN_COMPUTE,
    ENGINE_KEY_TRAIN_STEP,
    ENGINE_KEY_TRAIN_TOKENS_PER_GPU,
    ENGINE_KEY_TRAIN_STAGE_IMBALANCE,
    ENGINE_KEY_TRAIN_FP8_CAST,
    ENGINE_KEY_TRAIN_MOE,
    ENGINE_KEY_TRAIN_CP_COMM,
    ENGINE_KEY_TRAIN_BUBBLE,
    ENGINE_KEY_TRAIN_TP_COMM,
    ENGINE_KEY_TRAIN_PP_COMM,
    ENGINE_KEY_TRAIN_DP_COMM,
    ENGINE_KEY_TRAIN_ALL_TO_ALL,
    ENGINE_KEY_TRAIN_OFFLOAD_BYTES,
    ENGINE_KEY_TRAIN_OFFLOAD_SECONDS,
    ENGINE_KEY_TRAIN_HOST_LINK,
    ENGINE_KEY_TRAIN_LARGEST_LAYER,
    ENGINE_KEY_TRAIN_MFU,
    ENGINE_KEY_TRAIN_HFU,
    ENGINE_KEY_TRAIN_DAYS,
    ENGINE_KEY_TRAIN_GPU_HOURS,
    ENGINE_KEY_TRAIN_COST,
    ENGINE_KEY_TRAIN_COST_SPOT,
    ENGINE_KEY_TRAIN_ENERGY,
    ENGINE_KEY_TRAIN_ENERGY_PER_TOKEN,
    ENGINE_KEY_TRAIN_SYSTEM_ENERGY,
    ENGINE_KEY_COUNT
};

/* One explanation: formula as text, the same with values, and the source
 * (engine_explain: English; engine_explain_for: a reader's language and
 * units, engine/figures.h). */
struct engine_explanation {
    const char *key;     /* JSON path, e.g. "memory.weights" */
    const char *label;   /* short human label, e.g. "weights" */
    const char *formula; /* symbolic formula with named inputs */
    char values[768];    /* the formula with this scenario's numbers */
    const char *source;  /* paper and section, data sheet, runtime file and version, or course text */
};

/* ---- API ---------------------------------------------------------------- */

/* Fill a scenario with the documented defaults (no model, no GPU). */
void engine_scenario_defaults(struct engine_scenario *sc);

/* The ring all-reduce model of TP and DP communication (engine.md):
 * 2(k-1)/k x bytes / bytes_per_s + latency_s over k ranks, 0 for k <= 1;
 * the bandwidth is one way per link (nccl-tests' bus bandwidth). */
double engine_allreduce_seconds(double bytes, double ranks, double bytes_per_s, double latency_s);
/* The bandwidth that model uses for a scenario: within a node the
 * intra-node figure (--intra-node-bw, else the GPU's link) halved, as
 * vendors quote both directions together; across nodes the inter-node
 * figure (--inter-node-bw), per direction already. */
double engine_allreduce_bandwidth(const struct engine_scenario *sc, bool across_nodes);

/* Compute the estimate of a scenario; never fails, reports invalid input. */
void engine_estimate(const struct engine_scenario *sc, struct engine_estimate *est);

/* Exact parameter counts of a model with an architecture (or its bare size). */
double engine_params_total(const struct engine_model *m);
double engine_params_active(const struct engine_model *m);
/* Parameters of the embedding (and untied head), of one layer, and of the rest. */
double engine_params_embedding(const struct engine_model *m);
double engine_params_layer(const struct engine_model *m, uint32_t layer_index, bool active_only);

/* Make a bare-size model of N parameters with the derived shape (engine.md). */
void engine_model_from_size(struct engine_model *m, double params);

/* Effective bits per weight of a format, scales included. */
double engine_format_bits(const struct engine_format *f);
/* A llama.cpp mix's name ("q4_k_m"), and a copy of a model with the bytes
 * llama-quantize gives it under that mix, as a model file would have them
 * (file_bytes and the per-layer sizes); false without an architecture. */
const char *engine_gguf_mix_name(enum engine_gguf_mix x);
bool engine_gguf_mix_model(const struct engine_model *m, enum engine_gguf_mix x,
                           struct engine_model *out);

/* Recipe table lookups. */
const struct engine_recipe_info *engine_recipe_info(enum engine_recipe r);
int engine_recipe_parse(const char *id, enum engine_recipe *out);

/* Names of modes, recompute policies, compute columns (a mode's parser
 * takes "inference" and "training" too; engine/param_table.c reads the
 * others by these names). */
const char *engine_mode_name(enum engine_mode m);
int engine_mode_parse(const char *s, enum engine_mode *out);
const char *engine_recompute_name(enum engine_recompute r);
/* "uniform" and "block" (Megatron-LM --recompute-method). */
const char *engine_recompute_method_name(enum engine_recompute_method m);
/* The expert-parallel degree of a scenario: ep, 1 when 0. */
uint32_t engine_ep(const struct engine_scenario *sc);
/* The context-parallel degree: cp, 1 when 0. */
uint32_t engine_cp(const struct engine_scenario *sc);
/* The MoE load imbalance a scenario uses: moe_imbalance, else the default. */
double engine_moe_imbalance(const struct engine_scenario *sc);
/* Megatron-LM's recompute module names ("core_attn", "layernorm", "mlp",
 * "moe", "moe_act", "shared_experts", "mla_up_proj"): the name of bit i,
 * and a comma-separated list into bits (0 on success; *bad points at the
 * first unknown name). */
const char *engine_recompute_module_name(unsigned i);
int engine_recompute_modules_parse(const char *list, uint32_t *bits, const char **bad);
/* The recompute modules a scenario uses (core_attn when none given). */
uint32_t engine_recompute_modules(const struct engine_scenario *sc);
/* The peak phase's name ("loss forward", ...), "" for NONE. */
const char *engine_peak_phase_name(enum engine_peak_phase p);
/* Whether full training runs its GEMMs in FP8 (--format with an FP8
 * compute column), and in MXFP8 (32-element blocks with a shared scale). */
bool engine_train_fp8(const struct engine_scenario *sc);
bool engine_train_mxfp8(const struct engine_scenario *sc);
/* "6n-attention" (the default) and "6n". */
const char *engine_flops_model_name(enum engine_flops_model f);
/* The kernel efficiency of a training scenario: --flops-efficiency when
 * given, else ENGINE_DEFAULT_TRAIN_KERNEL_EFFICIENCY. */
double engine_train_kernel_efficiency(const struct engine_scenario *sc);
/* The micro-batches (gradient-accumulation steps) per replica of a
 * training step: global_batch / (batch * dp) when a global batch is given
 * and divides, else micro_batches. */
uint32_t engine_micro_batches(const struct engine_scenario *sc);
const char *engine_compute_name(enum engine_compute c);
/* "paper" (the default), "deepspeed", "megatron"; "none", "cpu", "nvme". */
const char *engine_memory_convention_name(enum engine_memory_convention c);
const char *engine_offload_name(enum engine_offload o);
/* The host link a scenario uses: --host-link-bw, else ENGINE_DEFAULT_HOST_LINK_BW. */
double engine_host_link_bandwidth(const struct engine_scenario *sc);
/* Parameters of the largest single module (DeepSpeed's model_to_params:
 * a module's own parameters, not its children's): the embedding, the
 * untied head, or the largest matrix of a layer. */
double engine_params_largest_layer(const struct engine_model *m);
/* The training states of one GPU in full training holding `params`
 * parameters (its pipeline stage's, over t) whose largest module has
 * `largest` parameters (over t), by the scenario's recipe, ZeRO stage, dp,
 * memory convention and offload: fills weights, gradients,
 * master_weights, optimizer, zero3_working, host and nvme of *mem and
 * leaves the rest (engine/zero.c). */
void engine_zero_states(const struct engine_scenario *sc, double params, double largest,
                        struct engine_memory *mem);
/* The FLOP/s column a scenario computes in: the weight format's in
 * inference, the recipe's in full training (BF16, FP32 for adam-fp32),
 * BF16 for LoRA and QLoRA (the adapters and the dequantised base). */
enum engine_compute engine_compute_column(const struct engine_scenario *sc);
/* The training tokens and the price per GPU-hour a scenario uses: the
 * user's when given (0 included), else the defaults (tokens: 20 per
 * parameter of params_total in pre-training, ENGINE_FINE_TUNE_TOKENS for
 * LoRA, QLoRA and --fine-tune; price: the GPU's on-demand price, 0 when
 * unknown). */
double engine_training_tokens(const struct engine_scenario *sc, double params_total);
/* Where a scenario's training tokens come from. */
enum engine_tokens_source {
    ENGINE_TOKENS_GIVEN = 0,  /* --tokens, --dataset, --throughput's run */
    ENGINE_TOKENS_CHINCHILLA, /* pre-training: 20 per parameter (Hoffmann et al. 2022) */
    ENGINE_TOKENS_FINE_TUNE   /* a fine-tuning set: ENGINE_FINE_TUNE_TOKENS */
};
enum engine_tokens_source engine_training_tokens_source(const struct engine_scenario *sc);
/* Pre-training's compute-optimal tokens per parameter: Hoffmann et al.
 * 2022 (Chinchilla) Table 3, about 20. */
#define ENGINE_CHINCHILLA_TOKENS_PER_PARAM 20.0
/* The default fine-tuning set (LoRA, QLoRA, --fine-tune): 1e8 tokens, the
 * order of the instruction sets the LoRA-era recipes train on (Alpaca's
 * 52K examples, FLAN subsets, Dettmers et al. 2023's OASST1 and FLAN v2
 * mixtures: 10^7 to 10^8 tokens); a bound from above, stated as such. */
#define ENGINE_FINE_TUNE_TOKENS 1e8
double engine_price_per_hour(const struct engine_scenario *sc);
/* Runtime names ("plain", "vllm", "llama.cpp", "ollama", "sglang",
 * "trtllm") and parser. */
const char *engine_runtime_name(enum engine_runtime r);
int engine_runtime_parse(const char *s, enum engine_runtime *out);
/* NAME[@VERSION] ("vllm@0.11", "vllm@0.21.1", "sglang"): the runtime and
 * the profile of that release into *version (0 without @). Returns 0, -1
 * for an unknown name, -2 for a version the runtime has no profile for
 * (vLLM before 0.11; a version given to a runtime with one profile). */
int engine_runtime_spec_parse(const char *s, enum engine_runtime *out, uint32_t *version);
/* The profile a scenario's runtime follows (vLLM: 11 or 21; others: their
 * one profile's release), and its name for people ("vLLM 0.11",
 * "SGLang 0.5", "TensorRT-LLM 1.0"). */
uint32_t engine_runtime_version(const struct engine_serving *v);
void engine_runtime_profile_name(const struct engine_serving *v, char *buf, size_t len);
/* The runtime's memory fraction when not given: vLLM 0.9 (0.92 from
 * 0.21), SGLang's mem_fraction_static heuristic for the GPU and layout,
 * TensorRT-LLM 0.9; NaN for the runtimes without one. */
double engine_runtime_memory_fraction(const struct engine_scenario *sc);
/* The runtime defaults a scenario leaves at 0 (engine/runtime.c): vLLM's
 * max_num_batched_tokens and max_num_seqs for `vllm serve` on this GPU,
 * llama.cpp's n_ubatch, the prefill chunk each runtime schedules. */
uint32_t engine_vllm_max_num_batched_tokens(const struct engine_scenario *sc);
uint32_t engine_vllm_max_num_seqs(const struct engine_scenario *sc);
uint32_t engine_runtime_ubatch(const struct engine_scenario *sc);
bool engine_runtime_flash_attention(const struct engine_scenario *sc);
/* The host bandwidth a scenario uses for layers in host RAM: the given or
 * measured one, else ENGINE_DEFAULT_HOST_BW (a dual-channel DDR5 desktop). */
#define ENGINE_DEFAULT_HOST_BW 80e9
double engine_host_bandwidth(const struct engine_scenario *sc);

/* Explain one figure for this scenario and estimate, in English with the
 * C locale's marks and decimal GB: the JSON's explain object, stable for
 * machines (engine_explain_for in engine/figures.h: a reader's). */
void engine_explain(const struct engine_scenario *sc, const struct engine_estimate *est,
                    enum engine_key key, struct engine_explanation *out);
/* The JSON path of a key ("memory.weights"), and lookup by path. */
const char *engine_key_name(enum engine_key key);
int engine_key_parse(const char *name, enum engine_key *out);
/* Whether a key applies to this scenario (training keys in inference mode do not). */
bool engine_key_applies(const struct engine_scenario *sc, enum engine_key key);
/* Value of a key in an estimate (NaN where it does not apply). */
double engine_key_value(const struct engine_estimate *est, enum engine_key key);

/* Text of each warning / invalid bit, with this scenario's numbers, in
 * the reader's language, units and marks (engine/format.h: the words
 * through f's translate, the numbers through the one formatter; f NULL:
 * English, decimal GB, what the JSON writes). */
struct engine_numfmt;
void engine_warning_text(const struct engine_numfmt *f, const struct engine_scenario *sc,
                         const struct engine_estimate *est, enum engine_warning w, char *buf,
                         size_t len);
void engine_invalid_text(const struct engine_numfmt *f, const struct engine_scenario *sc,
                         uint32_t invalid_bit, char *buf, size_t len);

/* ---- inverse questions ---------------------------------------------------- */

/* Largest batch (>= 1) that fits; 0 when batch 1 does not fit. In
 * inference this is the most concurrent sequences of --context tokens. */
uint32_t engine_max_batch(const struct engine_scenario *sc);
/* Longest context that fits (0 when 1 token does not fit), searched up to
 * the model's max_context when it has one (*capped set when that maximum,
 * not memory, stopped it; cap may be NULL) and ENGINE_MAX_CONTEXT_SEARCH. */
#define ENGINE_MAX_CONTEXT_SEARCH (1u << 26)
uint32_t engine_max_context(const struct engine_scenario *sc);
uint32_t engine_max_context_capped(const struct engine_scenario *sc, bool *capped);
/* Most transformer layers on the GPUs that fit (partial offload), 0..L;
 * -1 when not even 0 fits (the output head and buffers alone). */
int32_t engine_max_gpu_layers(const struct engine_scenario *sc);
/* Index of the largest model of models[] that fits (by params_total); -1: none. */
int engine_largest_fitting(const struct engine_scenario *sc, const struct engine_model *models,
                           size_t n_models);

/* ---- the layout space (engine/search.c enumerates it, in one place) -------
 * A point of the space is a layout of G GPUs: the degrees (t, cp, p, d)
 * with t x cp x p x d = G and, in the training modes, the knobs a search
 * may choose: sequence parallelism, the ZeRO stage and the recompute
 * level; the context-parallel degree cp is the scenario's unless the
 * search may choose it too (ENGINE_KNOB_CP, training: 2 cp divides the
 * context). A knob the caller does not leave free stays as the scenario
 * has it; the micro-batches follow a given global batch (global / (b d)). */
enum engine_knob {
    ENGINE_KNOB_SEQUENCE_PARALLEL = 1u << 0,
    ENGINE_KNOB_ZERO = 1u << 1,      /* ZeRO stage 0..3 */
    ENGINE_KNOB_RECOMPUTE = 1u << 2, /* none, selective, full */
    ENGINE_KNOB_CP = 1u << 3,        /* the context-parallel degree */
};
#define ENGINE_KNOBS_TRAINING                                                                      \
    (ENGINE_KNOB_SEQUENCE_PARALLEL | ENGINE_KNOB_ZERO | ENGINE_KNOB_RECOMPUTE | ENGINE_KNOB_CP)

/* Layout search: one candidate with its verdict. */
enum engine_reject {
    ENGINE_REJECT_NONE = 0,
    ENGINE_REJECT_TP_HEADS,  /* t does not divide attention heads */
    ENGINE_REJECT_TP_NODE,   /* t exceeds GPUs per node */
    ENGINE_REJECT_PP_LAYERS, /* p exceeds the layers */
    ENGINE_REJECT_MEMORY,    /* does not fit */
    ENGINE_REJECT_BATCH,     /* micro-batch size x d does not divide the global batch */
    ENGINE_REJECT_EP,        /* ep does not divide d */
};

struct engine_layout {
    uint32_t tp, cp, pp, dp; /* cp: 1 without context parallelism */
    /* The knobs of this layout (the scenario's where not free) and the
     * micro-batches per replica they run with. */
    uint32_t zero;
    bool sequence_parallel;
    enum engine_recompute recompute;
    uint32_t micro_batches;
    enum engine_reject reject;
    bool fits;
    double memory_total;    /* per GPU */
    double throughput;      /* tokens/s: decode (inference) or trained (training),
                               bubble and exposed communication included */
    double step_seconds;    /* training; NaN in inference */
    double bubble_fraction; /* training; NaN in inference */
    double per_sequence;    /* inference: decode tokens/s of one sequence; NaN in training */
};

/* What ranks fitting layouts: total tokens/s (the default), per-sequence
 * tokens/s (latency; training: step time), or memory per GPU (least first). */
enum engine_rank { ENGINE_RANK_THROUGHPUT = 0, ENGINE_RANK_LATENCY, ENGINE_RANK_MEMORY };
const char *engine_rank_name(enum engine_rank r);
int engine_rank_parse(const char *s, enum engine_rank *out);

/* How a search ranks and which knobs it may choose (engine_knob bits; they
 * apply in the training modes only). */
struct engine_space {
    enum engine_rank rank;
    unsigned knobs;
};

/* Enumerate the layouts of G GPUs: each (t,cp,p,d) once, with the best knobs
 * of the free ones; fill up to cap of them ranked (valid and fitting
 * first, then by the ranking, throughput breaking ties, then smaller t, p);
 * returns how many candidates exist (may exceed cap). space NULL: by
 * throughput, no knob free. */
size_t engine_search_space(const struct engine_scenario *sc, uint32_t gpus,
                           const struct engine_space *space, struct engine_layout *out, size_t cap);
/* The same with no knob free: by throughput, or ranked by `rank`. */
size_t engine_search_layouts(const struct engine_scenario *sc, uint32_t gpus,
                             struct engine_layout *out, size_t cap);
size_t engine_search_layouts_ranked(const struct engine_scenario *sc, uint32_t gpus,
                                    enum engine_rank rank, struct engine_layout *out,
                                    size_t cap);
/* THE best layout of G GPUs, which `search` ranks first, `plan --gpus N`
 * takes, the explorer's GPU count takes and its advice names: the first
 * that fits, else the valid one needing the least memory per GPU. False
 * when no layout of G GPUs is valid. engine_best_layout: no knob free, by
 * throughput. */
bool engine_best_layout_in(const struct engine_scenario *sc, uint32_t gpus,
                           const struct engine_space *space, struct engine_layout *out);
bool engine_best_layout(const struct engine_scenario *sc, uint32_t gpus,
                        struct engine_layout *out);
/* Give a scenario the layout: G, t, cp, p, d, the knobs (training modes) and
 * the micro-batches a global batch gives at this d. */
void engine_layout_apply(struct engine_scenario *sc, const struct engine_layout *l);
const char *engine_reject_text(enum engine_reject r);

/* ---- fewest GPUs ------------------------------------------------------------
 * The fewest GPUs of the scenario's kind for which some layout of the space
 * fits (the same space as the search), then the best layout of that count.
 * Memory never rises with d at fixed t, cp, p and knobs (states shard over d,
 * fewer micro-batches are in flight), so each (t, cp, p) needs one check at the
 * largest d that could still beat the best count found, and a binary
 * search over d only where that check fits; the knob choices that can
 * never hold less memory than another are not tried (sequence parallelism
 * off, recompute none, ZeRO-1 where ZeRO-2 is valid, ZeRO-0). Inference
 * memory does not depend on d (a replica is whole): d only makes up a
 * count above `above`. */
enum engine_fewest_status {
    ENGINE_FEWEST_FOUND = 0,
    ENGINE_FEWEST_NONE_UP_TO_MAX, /* none up to max_gpus; some larger count fits */
    ENGINE_FEWEST_NONE_AT_ALL,    /* no count fits: the widest layout does not */
    ENGINE_FEWEST_CANCELLED,      /* cancel() said stop */
};
struct engine_fewest_query {
    struct engine_space space;
    uint32_t above;    /* answers above this count only (0: from 1) */
    uint32_t max_gpus; /* largest count searched (0: ENGINE_FEWEST_MAX_GPUS) */
    /* Asked now and then; true stops the search (NULL: never). The engine
     * only calls it: a caller's flag read from another thread is the
     * caller's business. */
    bool (*cancel)(void *arg);
    void *cancel_arg;
};
#define ENGINE_FEWEST_MAX_GPUS 65536u
struct engine_fewest {
    enum engine_fewest_status status;
    uint32_t gpus;               /* 0 unless found */
    struct engine_layout layout; /* the best layout of that count */
    uint64_t estimates;          /* estimates the search made (for tests, benchmarks) */
};
/* A few recent answers, keyed by the scenario (its layout aside) and the
 * query: owned by the caller (the engine keeps nothing), zeroed to start. */
#define ENGINE_SEARCH_CACHE_SLOTS 4
struct engine_search_cache {
    struct {
        bool used;
        uint64_t age;
        struct engine_scenario key;
        struct engine_space space;
        uint32_t above, max_gpus;
        struct engine_fewest answer;
    } slot[ENGINE_SEARCH_CACHE_SLOTS];
    uint64_t clock, hits, misses;
};
/* The fewest GPUs (0 when none; see out->status). cache may be NULL. */
uint32_t engine_fewest_gpus(const struct engine_scenario *sc, const struct engine_fewest_query *q,
                            struct engine_search_cache *cache, struct engine_fewest *out);
/* The same with no knob free, by throughput, up to max_gpus; the scenario
 * with the winning layout into *best (may be NULL). */
uint32_t engine_min_gpus(const struct engine_scenario *sc, uint32_t max_gpus,
                         struct engine_scenario *best);

#endif
