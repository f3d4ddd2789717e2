/*
 * options_table.c: the options table {name, argument kind, help} and the
 * helpers both halves of the parser use (tui/options.c: the first pass and
 * help; tui/options_build.c: the second pass): an option's name, the error
 * printer, token counts, model ids. It uses neither half, so both include
 * only what is below them (docs/architecture.md).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/commands.h"
#include "tui/i18n.h"
#include "tui/options_internal.h"

/* The options table: every scenario option of product.md and more. */
const struct opt_def opt_table[] = {
    {OPT_MODEL, "model", ARG_REQUIRED, "ID", N_("catalog model (default llama-3.1-8b)")},
    {OPT_PARAMS, "params", ARG_REQUIRED, "N", N_("bare model size instead: 70B, 405e9")},
    {OPT_MODEL_CONFIG, "model-config", ARG_REQUIRED, "FILE", N_("a Hugging Face config.json")},
    {OPT_MODEL_FILE, "model-file", ARG_REQUIRED, "PATH",
     N_("GGUF or safetensors file, index .json or HF folder (headers)")},
    {OPT_FORMAT, "format", ARG_REQUIRED, "ID", N_("weight format (default fp16; bf16 training)")},
    {OPT_KV_FORMAT, "kv-format", ARG_REQUIRED, "ID", N_("KV cache format (default fp16)")},
    {OPT_GPU, "gpu", ARG_REQUIRED, "ID", N_("catalog GPU (default h100-sxm)")},
    {OPT_SYSTEM, "system", ARG_REQUIRED, "ID",
     N_("catalog system (dgx-h100, gb300-nvl72): its GPU, GPUs per node, links and power")},
    {OPT_GPUS, "gpus", ARG_REQUIRED, "N", N_("number of GPUs (default tp*pp*dp, or 1)")},
    {OPT_TP, "tp", ARG_REQUIRED, "N", N_("tensor-parallel degree")},
    {OPT_PP, "pp", ARG_REQUIRED, "N", N_("pipeline-parallel degree")},
    {OPT_DP, "dp", ARG_REQUIRED, "N", N_("data-parallel degree")},
    {OPT_ZERO, "zero", ARG_REQUIRED, "0..3", N_("ZeRO stage")},
    {OPT_MEMORY_CONVENTION, "memory-convention", ARG_REQUIRED, "C",
     N_("training states as counted by: paper (default) | deepspeed | megatron")},
    {OPT_OFFLOAD, "offload", ARG_REQUIRED, "WHERE",
     N_("training states off the GPU: none (default) | cpu (ZeRO-Offload) | nvme (ZeRO-Infinity)")},
    {OPT_HOST_LINK_BW, "host-link-bw", ARG_REQUIRED, "BW",
     N_("per-GPU host link for offload (default PCIe 5.0 x16: 63GB/s)")},
    {OPT_MODE, "mode", ARG_REQUIRED, "MODE", N_("infer | train | lora | qlora")},
    {OPT_BATCH, "batch", ARG_REQUIRED, "N",
     N_("sequences per replica at once (default 1); training: per micro-batch")},
    {OPT_CONTEXT, "context", ARG_REQUIRED, "N",
     N_("tokens per sequence (default 4096; 8k, 128K: k = 1024)")},
    {OPT_PROMPT, "prompt", ARG_REQUIRED, "N", N_("prefill tokens (default: the context; 8k)")},
    {OPT_MICRO_BATCHES, "micro-batches", ARG_REQUIRED, "N",
     N_("micro-batches per step per replica (gradient accumulation)")},
    {OPT_GLOBAL_BATCH, "global-batch", ARG_REQUIRED, "N",
     N_("sequences per step, all replicas; or tokens: 16M-tokens (M = 1024k)")},
    {OPT_MICRO_BATCH_SIZE, "micro-batch-size", ARG_REQUIRED, "N",
     N_("training: sequences per micro-batch (--batch's meaning there)")},
    {OPT_RECOMPUTE, "recompute", ARG_REQUIRED, "R",
     N_("none | selective (attention-only) | full (default selective; full for LoRA/QLoRA)")},
    {OPT_OPTIMIZER, "optimizer", ARG_REQUIRED, "RECIPE", N_("training recipe (default adam-mixed)")},
    {OPT_MFU, "mfu", ARG_REQUIRED, "X",
     N_("model FLOP utilisation end to end (0.4 or 40%; default: predicted)")},
    {OPT_TOKENS, "tokens", ARG_REQUIRED, "N", N_("training tokens: 15.6T")},
    {OPT_THROUGHPUT, "throughput", ARG_REQUIRED, "TOK/S",
     N_("training tokens/s of the whole deployment (1000; 1000/gpu: per GPU)")},
    {OPT_DATASET, "dataset", ARG_REQUIRED, "NxT",
     N_("training set: N examples of T tokens, 10000x512")},
    {OPT_DATASET_TOKENS, "dataset-tokens", ARG_REQUIRED, "N", N_("training set in tokens: 5.12M")},
    {OPT_EPOCHS, "epochs", ARG_REQUIRED, "E", N_("passes over the training set (default 1)")},
    {OPT_UNITS, "units", ARG_REQUIRED, "U", N_("gb (1e9, default) | gib (2^30)")},
    {OPT_RESERVE, "reserve", ARG_REQUIRED, "BYTES", N_("per-GPU reserve: 1GB, 512MiB")},
    {OPT_CATALOG, "catalog", ARG_REQUIRED, "FILE", N_("extra catalog YAML file")},
    {OPT_SEQUENCE_PARALLEL, "sequence-parallel", ARG_NONE, NULL, N_("sequence parallelism with TP")},
    {OPT_INTERLEAVE, "interleave", ARG_REQUIRED, "V", N_("virtual pipeline stages per GPU")},
    {OPT_EP, "ep", ARG_REQUIRED, "N",
     N_("MoE training: expert-parallel degree inside DP (divides --dp and the experts)")},
    {OPT_RECOMPUTE_METHOD, "recompute-method", ARG_REQUIRED, "M",
     N_("full recompute: uniform (default) | block (Megatron-LM)")},
    {OPT_RECOMPUTE_NUM_LAYERS, "recompute-num-layers", ARG_REQUIRED, "N",
     N_("full recompute: layers per checkpoint (uniform) or recomputed per stage (block)")},
    {OPT_GPUS_PER_NODE, "gpus-per-node", ARG_REQUIRED, "N", N_("GPUs per node (default: the GPU's)")},
    {OPT_INTRA_BW, "intra-node-bw", ARG_REQUIRED, "BW", N_("per-GPU link bandwidth: 900GB/s")},
    {OPT_INTER_BW, "inter-node-bw", ARG_REQUIRED, "BW", N_("per-GPU network bandwidth: 50GB/s")},
    {OPT_ALLREDUCE_LATENCY, "allreduce-latency", ARG_REQUIRED, "T", N_("per all-reduce: 5us")},
    {OPT_BW_EFFICIENCY, "bw-efficiency", ARG_REQUIRED, "X", N_("fraction of data-sheet bandwidth")},
    {OPT_FLOPS_EFFICIENCY, "flops-efficiency", ARG_REQUIRED, "X",
     N_("fraction of data-sheet FLOP/s (default 1; training kernels 0.57)")},
    {OPT_FLOPS_MODEL, "flops-model", ARG_REQUIRED, "M",
     N_("training FLOPs: 6n-attention (default) | 6n")},
    {OPT_LORA_RANK, "lora-rank", ARG_REQUIRED, "R", N_("LoRA rank")},
    {OPT_PRICE, "price", ARG_REQUIRED, "USD", N_("price per GPU-hour: 2.49 or $2.49/h")},
    {OPT_MEASURED_BW, "measured-bw", ARG_REQUIRED, "BW",
     N_("calibrate: measured bandwidth per GPU instead of the data sheet, 3.0TB/s")},
    {OPT_MEASURED_FLOPS, "measured-flops", ARG_REQUIRED, "F",
     N_("calibrate: measured FLOP/s per GPU instead of the data sheet, 700T")},
    {OPT_MEASURED_ALLREDUCE, "measured-allreduce", ARG_REQUIRED, "FILE",
     N_("calibrate: link bandwidth and latency from a saved all-reduce measurement")},
    {OPT_RUNTIME, "runtime", ARG_REQUIRED, "R",
     N_("plain (default) | vllm[@0.11|@0.21] | llama.cpp | ollama | sglang | trtllm: whose "
        "memory accounting, as of which release")},
    {OPT_GPU_MEMORY_UTILIZATION, "gpu-memory-utilization", ARG_REQUIRED, "X",
     N_("vLLM: fraction of the memory CUDA reports it takes (default 0.9; 0.92 from 0.21)")},
    {OPT_BLOCK_SIZE, "block-size", ARG_REQUIRED, "N", N_("vLLM: KV block in tokens (default 16)")},
    {OPT_MAX_NUM_BATCHED_TOKENS, "max-num-batched-tokens", ARG_REQUIRED, "N",
     N_("vLLM: tokens per step (default 8192 on 70+ GiB GPUs but A100, else 2048)")},
    {OPT_MAX_NUM_SEQS, "max-num-seqs", ARG_REQUIRED, "N",
     N_("vLLM: sequences per step (default 1024, or 256)")},
    {OPT_MAX_MODEL_LEN, "max-model-len", ARG_REQUIRED, "N",
     N_("vLLM: longest request (default --context, else the model's maximum)")},
    {OPT_MEM_FRACTION_STATIC, "mem-fraction-static", ARG_REQUIRED, "X",
     N_("SGLang: fraction of the free memory for weights and KV (default: its heuristic)")},
    {OPT_FREE_GPU_MEMORY_FRACTION, "free-gpu-memory-fraction", ARG_REQUIRED, "X",
     N_("TensorRT-LLM: fraction of the memory left after the weights for KV (default 0.9)")},
    {OPT_CUDA_GRAPH_MEMORY, "cuda-graph-memory", ARG_REQUIRED, "BYTES",
     N_("vLLM 0.21+: CUDA-graph memory its log estimates (default vramlab's estimate)")},
    {OPT_REQUEST_RATE, "request-rate", ARG_REQUIRED, "R",
     N_("requests per second arriving, for the steady state (default: saturated)")},
    {OPT_UBATCH, "ubatch", ARG_REQUIRED, "N", N_("llama.cpp/Ollama: physical batch (default 512)")},
    {OPT_FLASH_ATTENTION, "flash-attention", ARG_REQUIRED, "on|off|auto",
     N_("llama.cpp/Ollama: flash attention (auto: llama.cpp on, Ollama off)")},
    {OPT_FIT, "fit", ARG_OPTIONAL, "on|off",
     N_("llama.cpp: put as many layers on the GPU as fit, 1 GiB free (default on)")},
    {OPT_GPU_LAYERS, "gpu-layers", ARG_REQUIRED, "N",
     N_("layers on the GPUs, the rest in host RAM (llama.cpp -ngl N+1)")},
    {OPT_N_CPU_MOE, "n-cpu-moe", ARG_REQUIRED, "N",
     N_("MoE experts of the first N layers in host RAM (llama.cpp --n-cpu-moe)")},
    {OPT_HOST_BANDWIDTH, "host-bandwidth", ARG_REQUIRED, "BW",
     N_("host RAM bandwidth for offloaded layers (default 80GB/s)")},
    {OPT_HOST_CPU, "host-cpu", ARG_REQUIRED, "ID",
     N_("host CPU from the catalog: its memory bandwidth")},
    {OPT_CONCURRENCY, "concurrency", ARG_REQUIRED, "N",
     N_("sequences of --context tokens at once (inference's --batch)")},
    {OPT_MAX_CONCURRENCY, "max-concurrency", ARG_NONE, NULL,
     N_("run at the most concurrent sequences that fit")},
    {OPT_KEEP_EMBEDDINGS_16BIT, "keep-embeddings-16bit", ARG_NONE, NULL,
     N_("embedding and output head in 16-bit under a quantized format")},
    {OPT_RANK, "rank", ARG_REQUIRED, "R",
     N_("search: throughput (default) | latency | memory")},
    {OPT_LAYERS, "layers", ARG_REQUIRED, "N", N_("custom model: transformer layers")},
    {OPT_HIDDEN, "hidden", ARG_REQUIRED, "N", N_("custom model: hidden size")},
    {OPT_HEADS, "heads", ARG_REQUIRED, "N", N_("custom model: attention heads")},
    {OPT_KV_HEADS, "kv-heads", ARG_REQUIRED, "N", N_("custom model: KV heads (default heads)")},
    {OPT_HEAD_DIM, "head-dim", ARG_REQUIRED, "N", N_("custom model: head size (default hidden/heads)")},
    {OPT_FFN, "ffn", ARG_REQUIRED, "N", N_("custom model: MLP size (default 4*hidden)")},
    {OPT_VOCAB, "vocab", ARG_REQUIRED, "N", N_("custom model: vocabulary size")},
    {OPT_TIED, "tied", ARG_OPTIONAL, "yes|no", N_("custom model: head tied to the embedding")},
    {OPT_GATED, "gated", ARG_OPTIONAL, "yes|no", N_("custom model: gated (SwiGLU) MLP")},
    {OPT_BIAS, "bias", ARG_OPTIONAL, "none|qkv|all", N_("custom model: biases (flag alone: all)")},
    {OPT_NORM, "norm", ARG_REQUIRED, "rms|layer", N_("custom model: RMSNorm or LayerNorm")},
    {OPT_POS_EMBEDDINGS, "pos-embeddings", ARG_REQUIRED, "N", N_("custom model: learned positions")},
    {OPT_EXPERTS, "experts", ARG_REQUIRED, "N", N_("custom model: MoE experts")},
    {OPT_ACTIVE_EXPERTS, "active-experts", ARG_REQUIRED, "N", N_("custom model: experts per token")},
    {OPT_SHARED_EXPERTS, "shared-experts", ARG_REQUIRED, "N", N_("custom model: shared experts")},
    {OPT_GPU_MEMORY, "gpu-memory", ARG_REQUIRED, "BYTES", N_("custom GPU: memory, 80GiB")},
    {OPT_GPU_BANDWIDTH, "gpu-bandwidth", ARG_REQUIRED, "BW", N_("custom GPU: bandwidth, 3.35TB/s")},
    {OPT_GPU_FLOPS, "gpu-flops", ARG_REQUIRED, "F", N_("custom GPU: 16-bit FLOP/s, 989T")},
    {OPT_JSON, "json", ARG_NONE, NULL, N_("print one JSON object")},
    {OPT_EXPLAIN, "explain", ARG_NONE, NULL, N_("plan: each figure's formula, values, source")},
    {OPT_NO_COLOR, "no-color", ARG_NONE, NULL, N_("explorer: no colours")},
    {OPT_NO_MOUSE, "no-mouse", ARG_NONE, NULL, N_("explorer: no mouse")},
    {OPT_ASCII, "ascii", ARG_NONE, NULL, N_("explorer: ASCII drawing only")},
    {OPT_THEME, "theme", ARG_REQUIRED, "NAME", N_("explorer: dark | light | high-contrast")},
    {OPT_SCENARIO, "scenario", ARG_REQUIRED, "FILE", N_("start from a scenario file (docs/lessons.md)")},
    {OPT_LESSON, "lesson", ARG_REQUIRED, "FILE|NAME", N_("explorer: step through a lesson")},
    {OPT_FRESH, "fresh", ARG_NONE, NULL, N_("explorer: do not restore the last scenario")},
    {OPT_PRESENT, "present", ARG_NONE, NULL, N_("explorer: start in presentation mode")},
    {OPT_HELP, "help", ARG_NONE, NULL, N_("show this help")},
};
const size_t opt_table_len = sizeof(opt_table) / sizeof(opt_table[0]);
#define OPT_TABLE_LEN (sizeof(opt_table) / sizeof(opt_table[0]))

/* The name (without dashes) of an option (the table is kept in enum order). */
const char *opt_name(enum opt_id id) {
    if ((size_t)id < OPT_TABLE_LEN && opt_table[id].id == id)
        return opt_table[id].name;
    for (size_t i = 0; i < OPT_TABLE_LEN; i++)
        if (opt_table[i].id == id)
            return opt_table[i].name;
    return "?";
}

/* Print "vramlab: " and a formatted message to stderr. */
void opt_error(const char *fmt, ...) {
    va_list ap;
    fputs("vramlab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, _(fmt), ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The option named name (without dashes), or NULL. */
const struct opt_def *opt_find(const char *name, size_t len) {
    for (size_t i = 0; i < OPT_TABLE_LEN; i++) {
        if (strlen(opt_table[i].name) == len && strncmp(opt_table[i].name, name, len) == 0)
            return &opt_table[i];
    }
    return NULL;
}


/* The catalog id a Hugging Face model name would have: the part after the
 * last '/', lower-cased, other characters than [a-z0-9.] turned into '-'. */
void options_model_id_of(const char *name, char *out, size_t len) {
    const char *slash = strrchr(name, '/');
    size_t n = 0;
    bool dash = false;

    if (slash && slash[1])
        name = slash + 1;
    for (; *name && n + 2 < len; name++) {
        char ch = *name;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.') {
            if (dash && n > 0)
                out[n++] = '-';
            out[n++] = ch;
            dash = false;
        } else {
            dash = true;
        }
    }
    out[n] = '\0';
}

/* A token count: an integer, or with k (x1024) or M (x1024^2) as model
 * cards mean it ("128K context" is 131,072 tokens): 8k, 128K, 1.5k, 1M. */
int opt_tokens(const char *flag, const char *s, bool allow_zero, uint32_t *out) {
    char *end;
    double v, scale = 1;

    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        goto bad;
    v = strtod(s, &end);
    if (end == s)
        goto bad;
    if (*end == 'k' || *end == 'K')
        scale = 1024;
    else if (*end == 'm' || *end == 'M')
        scale = 1024.0 * 1024.0;
    if (scale > 1)
        end++;
    else if (strpbrk(s, ".eExX"))
        goto bad; /* a bare count is a whole number */
    v *= scale;
    if (*end || !(v >= (allow_zero ? 0 : 1)) || v > (double)(1u << 30) || v != floor(v))
        goto bad;
    *out = (uint32_t)v;
    return 0;
bad:
    opt_error("--%s: expected a whole number of tokens like 4096, 8k or 128K (k = 1024, "
              "M = 1024k) up to 2^30, found '%s'",
              flag, s ? s : "");
    return -1;
}
