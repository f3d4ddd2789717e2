/*
 * training.c: the training step, its time and cost. Model FLOPs 6 N + 12
 * L h s per token (PaLM appendix B; --flops-model 6n drops the attention
 * term), recompute adding to the hardware FLOPs only (Korthikanti et al.
 * 2022 §5); a given MFU is end to end: step = model FLOPs / (G * peak *
 * MFU), nothing added. Without one the MFU is predicted: hardware FLOPs at
 * the kernel efficiency, stretched by the GPipe bubble (p-1)/(m+p-1)
 * (Huang et al. 2019; interleaved (p-1)/(v m + p-1), Narayanan et al. 2021
 * §2.2), plus the TP all-reduces, the PP hand-offs, the MoE all-to-alls
 * and the part of the DP all-reduce the backward pass cannot hide. Days,
 * GPU-hours, cost and energy from the step. Units: seconds, FLOP, USD, J.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* Default fine-tuning set of LoRA and QLoRA runs, in tokens. */
#define LORA_DEFAULT_TOKENS 1e8

/* Model and hardware FLOPs per trained token. Model FLOPs (MFU's
 * numerator): 6 N (4 N for LoRA: no weight gradients) plus, with the
 * attention model, the score and value products 2 L s a (d_qk + d_v)
 * forward and twice that backward, 6 L s a (d_qk + d_v) = 12 L h s for
 * d_qk = d_v = h/a (PaLM appendix B, Chowdhery et al. 2022; Narayanan et
 * al. 2021 eq. 3's 1 + s/6h). Hardware FLOPs (HFU's) add what recompute
 * runs again: the whole forward 2 N + 2 L s a (d_qk + d_v) under full
 * recompute, the attention forward under selective (Korthikanti et al.
 * 2022 §5). */
static double recompute_fraction(const struct engine_ctx *c);
static void train_flops(const struct engine_ctx *c, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    double n = e->params_active;
    double k = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0;
    double attn_fwd = 0; /* per token, forward */
    if (sc->flops_model == ENGINE_FLOPS_6N_ATTENTION)
        attn_fwd = 2.0 * c->L * c->ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->train_flops_per_token = k * n + 3.0 * attn_fwd;
    double again = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_FULL)
        again = (2.0 * n + attn_fwd) * recompute_fraction(c);
    else if (sc->recompute == ENGINE_RECOMPUTE_SELECTIVE)
        again = attn_fwd;
    e->train_hw_flops_per_token = e->train_flops_per_token + again;
}

/* The fraction of the layers full recompute re-runs: all of them under
 * the uniform method, N of a stage's layers under block (Megatron-LM
 * --recompute-method block --recompute-num-layers N). */
static double recompute_fraction(const struct engine_ctx *c) {
    if (c->sc->recompute_method != ENGINE_RECOMPUTE_BLOCK || !(c->lps > 0))
        return 1.0;
    return engine_recompute_layers(c, c->lps) / c->lps;
}

/* The expert-parallel all-to-alls of one step on GPU stage i: per MoE
 * layer and micro-batch, two forward (dispatch the tokens to their experts,
 * combine the results) and two backward, each GPU sending the (ep - 1) / ep
 * of its s b / t tokens x k experts x h x 2 bytes that leave it (nccl-tests'
 * all-to-all: bus bandwidth = algorithm bandwidth x (n - 1) / n), over
 * NVLink when the t x ep GPUs of an EP group (Megatron-LM's rank order
 * tp-cp-ep-dp-pp) share a node, else the network. */
static double ep_all_to_all_seconds(const struct engine_ctx *c, double stage) {
    if (c->ep <= 1 || !c->s.moe)
        return 0;
    const struct engine_scenario *sc = c->sc;
    double dn, mn;
    engine_stage_layers(c, stage, &dn, &mn);
    double k = sc->model.active_experts;
    double bytes = c->ctx * c->b / c->t * k * c->s.hidden * 2.0;
    double one =
        (c->ep - 1.0) / c->ep * bytes / engine_link_bw(c, c->t * c->ep) + sc->allreduce_latency_s;
    return 4.0 * mn * sc->micro_batches * one;
}

/* Gradient bytes one GPU of stage i all-reduces over the d replicas, and
 * (under expert parallelism) its experts' over the d / ep expert
 * data-parallel ranks. */
static double ep_expert_dp_comm(const struct engine_ctx *c, double stage, double bw, double lat) {
    if (c->ep <= 1)
        return 0;
    double bytes = engine_stage_expert_params(c, stage) / (c->t * c->ep) *
                   engine_recipe_info(c->sc->recipe)->grads;
    if (c->sc->mode != ENGINE_MODE_TRAIN)
        return 0; /* frozen experts: LoRA's adapters are dense */
    return engine_allreduce_seconds(bytes, c->d / c->ep, bw, lat);
}

/* Micro-batches per replica of a training step (see engine.h). */
uint32_t engine_micro_batches(const struct engine_scenario *sc) {
    uint64_t per = (uint64_t)sc->batch * sc->dp;
    if (sc->mode != ENGINE_MODE_INFER && sc->global_batch && per && sc->global_batch % per == 0)
        return (uint32_t)(sc->global_batch / per);
    return sc->micro_batches;
}

/* The kernel efficiency of training (see engine.h). */
double engine_train_kernel_efficiency(const struct engine_scenario *sc) {
    return sc->flops_efficiency_given ? sc->flops_efficiency
                                      : ENGINE_DEFAULT_TRAIN_KERNEL_EFFICIENCY;
}

/* Training time, bubble, communication and MFU (training modes). */
void engine_estimate_training(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    train_flops(c, e);
    e->train_micro_batches = sc->micro_batches;
    e->train_global_batch = (double)sc->batch * sc->micro_batches * c->d;
    e->train_tokens_per_step = e->train_global_batch * c->ctx;
    double g = c->t * c->p * c->d;
    double peak = e->peak_flop_per_s;
    double eff = engine_train_kernel_efficiency(sc);
    e->train_kernel_efficiency = eff;
    e->train_compute_seconds =
        e->train_hw_flops_per_token * e->train_tokens_per_step / (g * peak * eff);
    double m = sc->micro_batches, v = sc->interleave;
    e->train_bubble_fraction = (c->p - 1.0) / (v * m + c->p - 1.0);
    double intra = engine_allreduce_bandwidth(sc, false);
    /* TP: 2 all-reduces of s b h 16-bit activations per layer forward, 2 backward. */
    double act_bytes = c->ctx * c->b * c->s.hidden * 2.0;
    double lat = sc->allreduce_latency_s;
    double tp_bw = c->t <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    e->train_tp_comm_seconds =
        c->t > 1 ? 4.0 * c->lps * m * engine_allreduce_seconds(act_bytes, c->t, tp_bw, lat) : 0;
    /* PP: each of the v m + p - 1 slots of the schedule hands one
     * micro-batch's activations forward and their gradient backward; each
     * TP rank sends 1/t of them (Megatron's scatter/gather, Narayanan et al.
     * 2021 §4.1), across nodes when the stages do not share one. */
    e->train_pp_comm_seconds =
        c->p > 1
            ? 2.0 * (v * m + c->p - 1.0) * (act_bytes / c->t / engine_link_bw(c, c->t * c->p) + lat)
            : 0;
    /* DP: one all-reduce of the gradients of the most loaded GPU per step. */
    double grad_bytes;
    if (sc->mode == ENGINE_MODE_TRAIN)
        grad_bytes = engine_stage_params_gpu(c, stage) * engine_recipe_info(sc->recipe)->grads;
    else
        grad_bytes = e->params_trainable / (c->t * c->p) * engine_recipe_info(sc->recipe)->grads;
    double dp_bw = c->t * c->p * c->d <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    double dp = engine_allreduce_seconds(grad_bytes, c->d, dp_bw, lat);
    if (sc->zero >= 3)
        dp *= 1.5; /* ZeRO-3 adds a parameter all-gather (ZeRO §7.2.2: 1.5x traffic) */
    dp += ep_expert_dp_comm(c, stage, dp_bw, lat) * (sc->zero >= 3 ? 1.5 : 1.0);
    e->train_dp_comm_seconds = dp;
    e->train_all_to_all_seconds = ep_all_to_all_seconds(c, stage);
    /* Offload (engine/zero.c): this GPU's partition crosses its host link. */
    e->host_link_bytes_per_s = engine_host_link_bandwidth(sc);
    e->train_offload_bytes_per_step =
        sc->mode == ENGINE_MODE_TRAIN
            ? engine_offload_bytes(sc, engine_recipe_info(sc->recipe)->weights,
                                   engine_stage_params(c, stage) / c->t, m)
            : 0;
    e->train_offload_seconds = e->train_offload_bytes_per_step / e->host_link_bytes_per_s;
    e->host_bytes_per_node = e->memory.host * fmin(c->gpn, g);
    double model_flops = e->train_flops_per_token * e->train_tokens_per_step;
    if (engine_pos(sc->throughput_tokens_per_s)) {
        /* A known throughput (seed 002): the step is its tokens at that
         * rate, the MFU what the rate implies. */
        e->train_step_seconds = e->train_tokens_per_step / sc->throughput_tokens_per_s;
        e->train_mfu = model_flops / (g * peak * e->train_step_seconds);
    } else if (engine_pos(sc->mfu)) {
        /* MFU given: end to end, as papers report it; nothing is added. */
        e->train_mfu = sc->mfu;
        e->train_step_seconds = model_flops / (g * peak * sc->mfu);
    } else {
        /* Predicted: the kernels' time stretched by the pipeline bubble,
         * plus the TP all-reduces and PP hand-offs (on the critical path)
         * and whatever of the DP all-reduce the backward pass (2/3 of the
         * compute) cannot hide. */
        double compute = e->train_compute_seconds;
        e->train_step_seconds = compute / (1.0 - e->train_bubble_fraction) +
                                e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                                e->train_all_to_all_seconds + fmax(0.0, dp - compute * 2.0 / 3.0) +
                                e->train_offload_seconds;
        e->train_mfu = model_flops / (g * peak * e->train_step_seconds);
    }
    e->train_hfu = e->train_mfu * e->train_hw_flops_per_token / e->train_flops_per_token;
    /* Default tokens: Chinchilla's 20 per parameter for pre-training
     * (Hoffmann et al. 2022); a 100M-token fine-tuning set for LoRA. */
    double tokens = engine_training_tokens(sc, e->params_total);
    e->train_tokens = tokens;
    double seconds = tokens / e->train_tokens_per_step * e->train_step_seconds;
    e->train_days = seconds / 86400.0;
    e->train_gpu_hours = seconds / 3600.0 * g;
    /* A price of 0 given by the user (one's own GPUs) costs nothing; no
     * price at all (none given, none in the catalog) has no cost. */
    double price = engine_price_per_hour(sc);
    e->train_cost_usd = engine_pos(price) || sc->price_given ? e->train_gpu_hours * price : NAN;
    e->train_cost_spot_usd = engine_pos(sc->gpu.spot_price_per_hour)
                                 ? e->train_gpu_hours * sc->gpu.spot_price_per_hour
                                 : NAN;
    /* Energy at board power (seed 003: watts and watt-hours answer
     * different questions): every GPU at its tdp the whole run. */
    if (engine_pos(sc->gpu.tdp_w)) {
        e->train_energy_joules = e->train_gpu_hours * 3600.0 * sc->gpu.tdp_w;
        e->train_energy_joules_per_token = e->train_energy_joules / tokens;
    }
    /* At the systems' power: whole systems for the whole run (wall time). */
    if (engine_system_count(sc, e) > 0)
        e->train_system_energy_joules = e->systems * sc->system_power_w * seconds;
}

/* The training tokens a scenario uses (see engine.h). */
double engine_training_tokens(const struct engine_scenario *sc, double params_total) {
    if (sc->training_tokens_given || engine_pos(sc->training_tokens))
        return sc->training_tokens;
    return sc->mode == ENGINE_MODE_TRAIN ? 20.0 * params_total : LORA_DEFAULT_TOKENS;
}

/* The price per GPU-hour a scenario uses (see engine.h). */
double engine_price_per_hour(const struct engine_scenario *sc) {
    if (sc->price_given || engine_pos(sc->price_per_hour))
        return sc->price_per_hour;
    return engine_pos(sc->gpu.price_per_hour) ? sc->gpu.price_per_hour : 0;
}
