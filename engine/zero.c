/*
 * zero.c: the training states per GPU under ZeRO, by memory convention,
 * and what offload moves off the GPU (engine.h: enum
 * engine_memory_convention, enum engine_offload).
 *
 * Bytes per parameter of the recipe: w weights, g gradients, m master
 * copy, o optimizer states; d the data-parallel degree, z the ZeRO stage.
 * A recipe is mixed precision when it keeps a master copy (m > 0).
 *
 * paper (the default; the course's and the engine spec's figures):
 *   ZeRO (Rajbhandari et al. 2020 §5.1-5.3): stage 1 divides m and o by d,
 *   stage 2 also g, stage 3 also w: (2 + 2 + K) Psi / N_d at stage 3, no
 *   working memory. Offload cpu: ZeRO-Offload (Ren et al. 2021 §4.1): the
 *   16-bit parameters stay on the GPU, the 16-bit gradients, master copy
 *   and optimizer states (2 + 12 = 14 B) go to host RAM, partitioned over
 *   d ("16M to 2M" of GPU memory). Offload nvme: ZeRO-Infinity (Rajbhandari
 *   et al. 2021 §5): every model state on NVMe, none on the GPU. The
 *   paper's §3 model-state working memory (the largest operator's 16-bit
 *   parameters and gradients, 4 B x its parameters) is what the deepspeed
 *   convention counts as the gathered layer; the idealised figures count
 *   none, with or without offload, so offload never adds GPU memory.
 *
 * deepspeed (DeepSpeed v0.17, deepspeed/runtime/zero/stage_1_and_2.py and
 *   stage3.py; docs/code-docs/source/memory.rst):
 *   - the optimizer steps on an FP32 copy of the gradients of its partition
 *     (single_partition_of_fp32_groups[i].grad, fp32_partitioned_groups_flat
 *     .grad), made from the 16-bit ones before those are freed: the 16-bit
 *     gradients (w bytes; whole below stage 2, partitioned at stage 2) and
 *     4 B FP32 gradients partitioned as the master copy. Stage 2: 2 + 18/d
 *     (Llama 3.1 8B on 8 GPUs: 34.1e9 B, not the paper's 32.1e9 with
 *     FP32 gradients or 30.1e9 with 16-bit ones); stage 1: 4 + 16/d, the
 *     figure DeepSpeed's estimate_zero2_model_states_mem_needs prints
 *     (4 N + 16 N / G, its whole 16-bit gradients).
 *   - stage 3: estimate_zero3_model_states_mem_needs: 18 B per parameter
 *     over all GPUs (16-bit parameter 2, FP32 gradient, master, momentum,
 *     variance 4 each) plus largest_layer_memory = 4 B x the largest layer's
 *     parameters ("2 bytes fp16 params are gathered and 2 bytes fp16 grads
 *     are computed", memory.rst): 2 w per parameter of that layer here.
 *     Offload of the optimizer (cpu): the GPU keeps 4 LLP + 2 N / G, host
 *     RAM 16 N / G (its "case 3"); with the parameters too (nvme here):
 *     4 LLP on the GPU (its "case 2"), the 16-bit parameters, master and
 *     optimizer states on NVMe, the FP32 gradients (4 B) pinned in host
 *     RAM (memory.rst "Pinned Memory": 2 B parameters + 4 B gradients).
 *     Stage 2 with the optimizer offloaded: 2 N on the GPU.
 *   - recipes without a master copy (adam-fp32, adam-bf16) step on their
 *     own gradients: no second copy.
 *   DeepSpeed's host figures add additional_buffer_factor = 1.5 and, for
 *   stage 2 or without zero.Init, the FP32 model every process builds at
 *   start-up (4 B x GPUs per node); vramlab reports the states themselves.
 *
 * megatron (Megatron-LM megatron/training/theoretical_memory_usage.py):
 *   mixed precision accumulates FP32 main gradients (4 B, whole): 18 B per
 *   parameter, 6 + 12/d with --use-distributed-optimizer (ZeRO-1 here).
 *
 * Traffic of offload per GPU per step over its host link (ZeRO-Offload
 * §4.2: "2M gradients out, 2M parameters in"): cpu: the 16-bit gradients
 * of its partition out once per micro-batch (DeepSpeed accumulates them in
 * host memory), the updated 16-bit parameters back once; nvme (parameters
 * off the GPU too): the 16-bit parameters in for the forward and again for
 * the backward of every micro-batch and the gradients out: 3 w Psi / d per
 * micro-batch. The NVMe drives' own bandwidth and the CPU's Adam step are
 * not modelled.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

static const char *const convention_names[ENGINE_MEMCONV_COUNT] = {"paper", "deepspeed",
                                                                   "megatron", "peak"};
static const char *const offload_names[ENGINE_OFFLOAD_COUNT] = {"none", "cpu", "nvme"};

/* Name of a memory convention. */
const char *engine_memory_convention_name(enum engine_memory_convention c) {
    return (unsigned)c < ENGINE_MEMCONV_COUNT ? convention_names[c] : "?";
}

/* Name of an offload target. */
const char *engine_offload_name(enum engine_offload o) {
    return (unsigned)o < ENGINE_OFFLOAD_COUNT ? offload_names[o] : "?";
}

/* The host link of a scenario (see engine.h). */
double engine_host_link_bandwidth(const struct engine_scenario *sc) {
    double bw = sc->host_link_bytes_per_s;
    return isfinite(bw) && bw > 0 ? bw : ENGINE_DEFAULT_HOST_LINK_BW;
}

/* The invalid bits of the ZeRO, convention and offload settings. */
uint32_t engine_zero_validate(const struct engine_scenario *sc) {
    uint32_t bad = 0;
    if ((unsigned)sc->memory_convention >= ENGINE_MEMCONV_COUNT ||
        (sc->memory_convention == ENGINE_MEMCONV_MEGATRON && sc->zero >= 2 &&
         sc->mode == ENGINE_MODE_TRAIN))
        bad |= ENGINE_INVALID_CONVENTION;
    if (!isfinite(sc->host_link_bytes_per_s) || sc->host_link_bytes_per_s < 0)
        bad |= ENGINE_INVALID_OFFLOAD;
    if ((unsigned)sc->offload >= ENGINE_OFFLOAD_COUNT)
        bad |= ENGINE_INVALID_OFFLOAD;
    else if (sc->offload != ENGINE_OFFLOAD_NONE &&
             (sc->mode != ENGINE_MODE_TRAIN || sc->zero == 0 ||
              (sc->offload == ENGINE_OFFLOAD_NVME && sc->zero < 3) ||
              sc->memory_convention == ENGINE_MEMCONV_MEGATRON))
        bad |= ENGINE_INVALID_OFFLOAD;
    return bad;
}

/* The largest module's own parameters among what a stage holds: the
 * embedding, the head (its own, or the tied copy a later stage keeps),
 * and the largest matrix of its dense and MoE layers. */
double engine_largest_layer_of(const struct engine_model *m, const struct engine_shape *s,
                               bool embed, bool head, double dense_layers, double moe_layers) {
    double h = s->hidden, best = 0;
    if (embed || head)
        best = s->vocab * h; /* token embedding; an untied head is the same shape */
    if (dense_layers + moe_layers <= 0)
        return best;
    /* Attention: q (h x a d_qk), output (a d_v x h), k and v (h x kv d). */
    double q = h * s->heads * s->qk_dim, o = s->heads * s->v_dim * h;
    double kv = s->mla ? h * ((double)m->kv_lora_rank + m->rope_dim) : h * s->kv_heads * s->head_dim;
    best = fmax(best, fmax(q, fmax(o, kv)));
    if (s->mla && m->kv_lora_rank)
        best = fmax(best, (double)m->kv_lora_rank * s->heads * (m->nope_dim + s->v_dim));
    if (dense_layers > 0)
        best = fmax(best, h * s->ffn); /* gate, up and down: h x f each */
    if (moe_layers > 0 && m->experts) {
        double fe = m->moe_ffn ? m->moe_ffn : m->ffn;
        best = fmax(best, h * fe); /* one expert's matrix */
        if (m->shared_experts)
            best = fmax(best, h * fe * m->shared_experts); /* the shared experts' one MLP */
        best = fmax(best, h * m->experts);              /* the router */
    }
    return best;
}

/* The whole model's largest module (see engine.h). */
double engine_params_largest_layer(const struct engine_model *m) {
    struct engine_shape s;
    engine_shape_of(m, &s);
    double moe = s.moe ? s.layers - s.dense_layers : 0;
    return engine_largest_layer_of(m, &s, m->vocab > 0, m->vocab > 0, s.layers - moe, moe);
}

/* Training states of one GPU holding `params` parameters (its stage's
 * over t) whose largest module has `largest` parameters (over t): fills
 * weights, gradients, master_weights, optimizer, zero3_working, host and
 * nvme of *mem (full training; see the top of this file). The recipe comes
 * from the caller (engine.c's table: this file stays below engine.c). */
void engine_zero_states_of(const struct engine_scenario *sc, const struct engine_recipe_info *r,
                           double params, double largest, struct engine_memory *mem) {
    double z = sc->zero, d = sc->dp;
    double dw = z >= 3 ? d : 1, dg = z >= 2 ? d : 1, dm = z >= 1 ? d : 1;
    bool mixed = r->master > 0;
    enum engine_memory_convention conv = sc->memory_convention;
    if (conv == ENGINE_MEMCONV_PEAK) {
        /* The framework of the ZeRO stage (engine/peak.c): DeepSpeed for
         * ZeRO-2 and offload, Megatron-LM for ZeRO-0 and 1, FSDP2 for
         * ZeRO-3: each parameter's shard kept at the master precision
         * (FP32 with a master copy: the sharded parameter is the master),
         * its gradient reduced and kept in FP32 (torchtitan's
         * mixed_precision_reduce float32), the optimizer states; the
         * 16-bit weights exist only gathered, a layer at a time
         * (memory.transient). */
        if (sc->offload != ENGINE_OFFLOAD_NONE || z == 2) {
            conv = ENGINE_MEMCONV_DEEPSPEED;
        } else if (z <= 1) {
            conv = ENGINE_MEMCONV_MEGATRON;
        } else {
            mem->weights = mixed ? 0 : params * r->weights / d;
            mem->master_weights = params * r->master / d;
            mem->gradients = params * (mixed ? 4.0 : r->grads) / d;
            mem->optimizer = params * r->optimizer / d;
            mem->zero3_working = mem->host = mem->nvme = 0;
            return;
        }
    }
    double w = r->weights, g16 = r->grads, g32 = 0, working = 0;
    if (conv == ENGINE_MEMCONV_DEEPSPEED && mixed) {
        g16 = z >= 3 ? 0 : w; /* stage 3 counts them in the working memory */
        g32 = 4;
    } else if (conv == ENGINE_MEMCONV_MEGATRON && mixed) {
        g16 = 0;
        g32 = 4; /* main_grad, whole: the distributed optimizer shards states only */
    }
    double grads_gpu = g16 / dg + g32 / (conv == ENGINE_MEMCONV_MEGATRON ? 1 : dm);
    if (z >= 3 && conv == ENGINE_MEMCONV_DEEPSPEED)
        working = 2.0 * w * largest;
    mem->weights = params * w / dw;
    mem->gradients = params * grads_gpu;
    mem->master_weights = params * r->master / dm;
    mem->optimizer = params * r->optimizer / dm;
    mem->zero3_working = working;
    mem->host = mem->nvme = 0;
    if (sc->offload == ENGINE_OFFLOAD_NONE)
        return;
    /* Offload: the master copy and optimizer states always leave; the
     * gradients follow them (the paper's 16-bit ones, DeepSpeed's FP32
     * copy, which it builds on the host: none stay on the GPU). */
    double off_grads = conv == ENGINE_MEMCONV_DEEPSPEED && mixed ? g32 / d : r->grads / d;
    double states = params * (r->master + r->optimizer) / d;
    mem->gradients = 0;
    mem->master_weights = 0;
    mem->optimizer = 0;
    if (sc->offload == ENGINE_OFFLOAD_CPU) {
        mem->host = states + params * off_grads;
        return;
    }
    /* nvme: the parameters too; the GPU keeps only the gathered layer
     * (deepspeed; the paper's idealised figure counts none). */
    mem->weights = 0;
    if (conv == ENGINE_MEMCONV_DEEPSPEED && mixed) {
        mem->nvme = states + params * w / d;
        mem->host = params * off_grads; /* the pinned FP32 gradients */
    } else {
        mem->nvme = states + params * (w / d + off_grads);
    }
}

/* GPU <-> host bytes of one GPU per step under offload (see the top). */
double engine_offload_bytes(const struct engine_scenario *sc, double w, double params,
                            double micro) {
    double d = sc->dp;
    switch (sc->offload) {
    case ENGINE_OFFLOAD_CPU:
        return (micro * w + w) * params / d;
    case ENGINE_OFFLOAD_NVME:
        return micro * 3.0 * w * params / d;
    default:
        return 0;
    }
}
