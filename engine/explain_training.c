/*
 * explain_training.c: the values of the training figures (FLOPs per
 * token, the step and its parts, MFU and HFU, the batch, offload, days,
 * GPU-hours, cost, energy), each a translated template filled through the
 * one formatter (explain_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/explain_internal.h"

/* The DP all-reduce the backward pass cannot hide (the step's rule). */
static double dp_exposed(const struct engine_estimate *e) {
    return fmax(0.0, e->train_dp_comm_seconds - e->train_compute_seconds * 2.0 / 3.0);
}

/* The step time: given MFU, given throughput, or predicted. */
static void step(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    if (sc->throughput_tokens_per_s > 0)
        xp_set(x, XT("%s tokens per step / --throughput %s = %s"),
               XCOUNT(e->train_tokens_per_step), XTOKS(sc->throughput_tokens_per_s),
               XSECS(e->train_step_seconds));
    else if (sc->mfu > 0)
        xp_set(x,
               XT("%s * %s tokens / (%u * %s * MFU %s) = %s (the bubble and the communication are "
                  "inside the MFU)"),
               XFLOP(e->train_flops_per_token), XCOUNT(e->train_tokens_per_step), sc->gpus,
               XFLOPS(e->peak_flop_per_s), XPCT(sc->mfu), XSECS(e->train_step_seconds));
    else
        xp_set(x,
               XT("%s * %s tokens / (%u * %s * kernel efficiency %s) = %s; with the memory-bound "
                  "FP8 casts %s and MoE %s the slowest stage runs %s the mean; / (1 - %s) + TP %s "
                  "+ PP %s + EP %s + CP %s + DP not hidden %s = %s"),
               XFLOP(e->train_hw_flops_per_token), XCOUNT(e->train_tokens_per_step), sc->gpus,
               XFLOPS(e->peak_flop_per_s), XPCT(e->train_kernel_efficiency),
               XSECS(e->train_compute_seconds), XSECS(e->train_fp8_cast_seconds),
               XSECS(e->train_moe_seconds), xp_num(x, ENGINE_UNIT_RATIO, e->train_stage_imbalance),
               XPCT(e->train_bubble_fraction), XSECS(e->train_tp_comm_seconds),
               XSECS(e->train_pp_comm_seconds), XSECS(e->train_all_to_all_seconds),
               XSECS(e->train_cp_comm_seconds), XSECS(dp_exposed(e)),
               XSECS(e->train_step_seconds));
}

/* MFU: given, implied by a throughput, or predicted. */
static void mfu(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    if (sc->throughput_tokens_per_s > 0)
        xp_set(x, XT("%s * %s / (%u * %s) = %s (implied by --throughput)"),
               XFLOP(e->train_flops_per_token), XTOKS(sc->throughput_tokens_per_s), sc->gpus,
               XFLOPS(e->peak_flop_per_s), XPCT(e->train_mfu));
    else if (sc->mfu > 0)
        xp_set(x, XT("--mfu %s, given (end to end)"), XPLAIN(sc->mfu));
    else
        xp_set(x,
               XT("%s * %s tokens / (%u * %s * %s) = %s (kernels at %s of peak%s, bubble %s, TP "
                  "%s, PP %s, DP not hidden %s)"),
               XFLOP(e->train_flops_per_token), XCOUNT(e->train_tokens_per_step), sc->gpus,
               XFLOPS(e->peak_flop_per_s), XSECS(e->train_step_seconds), XPCT(e->train_mfu),
               XPCT(e->train_kernel_efficiency),
               sc->flops_efficiency_given ? ", --flops-efficiency"
                                          : XT(", the default: Korthikanti et al. 2022 Table 5"),
               XPCT(e->train_bubble_fraction), XSECS(e->train_tp_comm_seconds),
               XSECS(e->train_pp_comm_seconds), XSECS(dp_exposed(e)));
}

/* Model FLOPs per token: 6 N (4 N for LoRA) and attention. */
static void flops_per_token(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    double kn = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0;
    double attn = e->train_flops_per_token - kn * e->params_active;
    if (sc->flops_model == ENGINE_FLOPS_6N)
        xp_set(x, XT("%g * %s (--flops-model 6n: no attention term) = %s"), kn,
               XCOUNT(e->params_active), XFLOP(e->train_flops_per_token));
    else
        xp_set(x,
               XT("%g * %s + 6 * L=%u * s=%s * a=%u * (d_qk + d_v) = %s + %s = %s (attention "
                  "+%s)"),
               kn, XCOUNT(e->params_active), sc->model.layers, XINT(sc->context),
               sc->model.heads, XFLOP(kn * e->params_active), XFLOP(attn),
               XFLOP(e->train_flops_per_token), XPCT(attn / (kn * e->params_active)));
}

/* The GPUs of a node the scenario uses. */
static uint32_t gpus_per_node(const struct engine_scenario *sc) {
    return sc->gpus_per_node ? sc->gpus_per_node
                             : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
}

/* The EP all-to-alls: over NVLink or the network. */
static void all_to_all(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_model *m = &sc->model;
    uint32_t gpn = gpus_per_node(sc);
    if (engine_ep(sc) <= 1) {
        xp_set(x, XT("no expert parallelism (--ep 1): %s"), XSECS(0));
        return;
    }
    xp_set(x, XT("ep=%u, k=%u of %u experts, t=%u, m=%u, s=%s, b=%s, h=%u, over %s: %s per step"),
           engine_ep(sc), m->active_experts, m->experts, sc->tp, engine_micro_batches(sc),
           XINT(sc->context), XINT(sc->batch), m->hidden,
           (uint64_t)sc->tp * engine_ep(sc) <= gpn
               ? XT("NVLink (t x ep GPUs in a node)")
               : XT("the network (t x ep GPUs span nodes)"),
           XSECS(e->train_all_to_all_seconds));
}

/* The days of the run: tokens over the rate. */
static void days(struct xp *x) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    if (sc->throughput_tokens_per_s > 0) {
        xp_set(x, XT("%s tokens / %s = %s = %s"), XCOUNT(e->train_tokens),
               XTOKS(sc->throughput_tokens_per_s),
               XSECS(e->train_tokens / sc->throughput_tokens_per_s),
               xp_num(x, ENGINE_UNIT_DAYS, e->train_days));
        return;
    }
    enum engine_tokens_source src = engine_training_tokens_source(sc);
    xp_set(x, XT("%s tokens%s / %s per step * %s = %s"), XCOUNT(e->train_tokens),
           src == ENGINE_TOKENS_GIVEN        ? ""
           : src == ENGINE_TOKENS_CHINCHILLA ? XT(" (20 per parameter, Hoffmann et al. 2022)")
                                             : XT(" (a 100M-token fine-tuning set)"),
           XCOUNT(e->train_tokens_per_step), XSECS(e->train_step_seconds),
           xp_num(x, ENGINE_UNIT_DAYS, e->train_days));
}

bool explain_training(struct xp *x, enum engine_key k) {
    const struct engine_scenario *sc = x->sc;
    const struct engine_estimate *e = x->e;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    switch (k) {
    case ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN:
        flops_per_token(x);
        return true;
    case ENGINE_KEY_TRAIN_HW_FLOPS_PER_TOKEN:
        xp_set(x, XT("%s model + %s recomputed (--recompute %s) = %s"),
               XFLOP(e->train_flops_per_token),
               XFLOP(e->train_hw_flops_per_token - e->train_flops_per_token),
               engine_recompute_name(sc->recompute), XFLOP(e->train_hw_flops_per_token));
        return true;
    case ENGINE_KEY_TRAIN_TOKENS_PER_STEP:
        xp_set(x, "%s * %u * %u * %s = %s", XINT(sc->batch), engine_micro_batches(sc), sc->dp,
               XINT(sc->context), XCOUNT(e->train_tokens_per_step));
        return true;
    case ENGINE_KEY_TRAIN_GLOBAL_BATCH:
        xp_set(x, XT("%s * %u * %u = %s sequences (%s tokens of %s)"), XINT(sc->batch),
               engine_micro_batches(sc), sc->dp, XINT(e->train_global_batch),
               XCOUNT(e->train_tokens_per_step), XINT(sc->context));
        if (sc->global_batch)
            xp_add(x, ", --global-batch");
        return true;
    case ENGINE_KEY_TRAIN_MICRO_BATCHES:
        if (sc->global_batch)
            xp_set(x, "%s / (%s * %u) = %s", XINT(sc->global_batch), XINT(sc->batch), sc->dp,
                   XINT(e->train_micro_batches));
        else
            xp_set(x, XT("--micro-batches %u (no --global-batch)"), sc->micro_batches);
        return true;
    case ENGINE_KEY_TRAIN_TOKENS:
        switch (engine_training_tokens_source(sc)) {
        case ENGINE_TOKENS_GIVEN:
            xp_set(x, XT("given: %s tokens"), XCOUNT(e->train_tokens));
            break;
        case ENGINE_TOKENS_CHINCHILLA:
            xp_set(x, XT("20 * %s parameters = %s tokens"), XCOUNT(e->params_total),
                   XCOUNT(e->train_tokens));
            break;
        default:
            xp_set(x, XT("a 100M-token fine-tuning set: %s tokens"), XCOUNT(e->train_tokens));
            break;
        }
        return true;
    case ENGINE_KEY_TRAIN_TOKENS_PER_GPU:
        xp_set(x, XT("%s tokens / %s / %u GPUs = %s"), XCOUNT(e->train_tokens_per_step),
               XSECS(e->train_step_seconds), sc->gpus, XTOKS(e->train_tokens_per_s_per_gpu));
        return true;
    case ENGINE_KEY_TRAIN_STAGE_IMBALANCE:
        xp_set(x, XT("p=%u: the slowest stage runs %s the mean%s"), sc->pp,
               xp_num(x, ENGINE_UNIT_RATIO, e->train_stage_imbalance),
               sc->pp > 1 ? XT(" (its layers, embedding or head)") : XT(" (one stage)"));
        return true;
    case ENGINE_KEY_TRAIN_CP_COMM:
        if (engine_cp(sc) == 1)
            xp_set(x, XT("no context parallelism (--cp 1): %s"), XSECS(0));
        else
            xp_set(x,
                   XT("cp=%u, t=%u, %s tokens of %s per GPU, over %s: %s per step not hidden by "
                      "the attention"),
                   engine_cp(sc), sc->tp, XINT(sc->context / engine_cp(sc)), XINT(sc->context),
                   (uint64_t)sc->tp * engine_cp(sc) <= gpus_per_node(sc) ? "NVLink"
                                                                         : XT("the network"),
                   XSECS(e->train_cp_comm_seconds));
        return true;
    case ENGINE_KEY_TRAIN_FP8_CAST:
        if (!engine_train_fp8(sc))
            xp_set(x, XT("no FP8 training: %s"), XSECS(0));
        else
            xp_set(x, XT("%s at %s: %s per step"), sc->weight_format.name,
                   XBW(e->bandwidth_bytes_per_s), XSECS(e->train_fp8_cast_seconds));
        return true;
    case ENGINE_KEY_TRAIN_MOE:
        if (!(sc->model.experts > 0))
            xp_set(x, XT("a dense model: %s"), XSECS(0));
        else
            xp_set(x, XT("E=%u, k=%u, ep=%u, imbalance %s%s: %s per step"), sc->model.experts,
                   sc->model.active_experts, engine_ep(sc),
                   XPLAIN(engine_ep(sc) > 1 ? engine_moe_imbalance(sc) : 1.0),
                   sc->moe_imbalance > 0 ? " (--moe-imbalance)" : XT(" (default)"),
                   XSECS(e->train_moe_seconds));
        return true;
    case ENGINE_KEY_TRAIN_COMPUTE:
        xp_set(x, XT("%s * %s tokens / (%u * %s * kernel efficiency %s) = %s"),
               XFLOP(e->train_hw_flops_per_token), XCOUNT(e->train_tokens_per_step), sc->gpus,
               XFLOPS(e->peak_flop_per_s), XPCT(e->train_kernel_efficiency),
               XSECS(e->train_compute_seconds));
        return true;
    case ENGINE_KEY_TRAIN_STEP:
        step(x);
        return true;
    case ENGINE_KEY_TRAIN_BUBBLE:
        xp_set(x, "(%u - 1) / (%u * %u + %u - 1) = %s", sc->pp, sc->interleave,
               engine_micro_batches(sc), sc->pp, XPCT(e->train_bubble_fraction));
        return true;
    case ENGINE_KEY_TRAIN_TP_COMM:
        xp_set(x, XT("t=%u: %s per step"), sc->tp, XSECS(e->train_tp_comm_seconds));
        return true;
    case ENGINE_KEY_TRAIN_PP_COMM:
        xp_set(x, XT("p=%u, v=%u, m=%u, t=%u: %s per step"), sc->pp, sc->interleave,
               engine_micro_batches(sc), sc->tp, XSECS(e->train_pp_comm_seconds));
        return true;
    case ENGINE_KEY_TRAIN_DP_COMM:
        if (engine_ep(sc) > 1)
            xp_set(x,
                   XT("d=%u (the experts' gradients over d/ep = %u expert data-parallel ranks): "
                      "%s per step"),
                   sc->dp, sc->dp / engine_ep(sc), XSECS(e->train_dp_comm_seconds));
        else
            xp_set(x, XT("d=%u: %s per step"), sc->dp, XSECS(e->train_dp_comm_seconds));
        return true;
    case ENGINE_KEY_TRAIN_ALL_TO_ALL:
        all_to_all(x);
        return true;
    case ENGINE_KEY_TRAIN_OFFLOAD_BYTES:
        if (sc->offload == ENGINE_OFFLOAD_NONE)
            xp_set(x, XT("no offload: %s"), XBYTES(0));
        else
            xp_set(x, XT("--offload %s, %s micro-batches, weights of %s, d=%u: %s per GPU per step"),
                   engine_offload_name(sc->offload), XINT(e->train_micro_batches), XB(r->weights),
                   sc->dp, XBYTES(e->train_offload_bytes_per_step));
        return true;
    case ENGINE_KEY_TRAIN_OFFLOAD_SECONDS:
        xp_set(x, "%s / %s", XBYTES(e->train_offload_bytes_per_step),
               XBW(e->host_link_bytes_per_s));
        if (!(sc->host_link_bytes_per_s > 0))
            xp_add(x, "%s", XT(" (PCIe 5.0 x16, assumed)"));
        xp_add(x, XT(" = %s per step (of %s)"), XSECS(e->train_offload_seconds),
               XSECS(e->train_step_seconds));
        return true;
    case ENGINE_KEY_TRAIN_HOST_LINK:
        if (sc->host_link_bytes_per_s > 0)
            xp_set(x, "--host-link-bw %s", XBW(e->host_link_bytes_per_s));
        else
            xp_set(x, XT("32 GT/s x 16 lanes x 128/130 / 8 = %s (PCIe 5.0 x16, one way)"),
                   XBW(e->host_link_bytes_per_s));
        return true;
    case ENGINE_KEY_TRAIN_MFU:
        mfu(x);
        return true;
    case ENGINE_KEY_TRAIN_HFU:
        xp_set(x, "%s * %s / %s = %s", XPCT(e->train_mfu), XFLOP(e->train_hw_flops_per_token),
               XFLOP(e->train_flops_per_token), XPCT(e->train_hfu));
        return true;
    case ENGINE_KEY_TRAIN_DAYS:
        days(x);
        return true;
    case ENGINE_KEY_TRAIN_GPU_HOURS:
        xp_set(x, XT("%s * 24 * %u GPUs = %s GPU-hours"),
               xp_num(x, ENGINE_UNIT_DAYS, e->train_days), sc->gpus, XNUM(e->train_gpu_hours));
        return true;
    case ENGINE_KEY_TRAIN_COST:
        xp_set(x, XT("%s GPU-hours * %s/h = %s"), XNUM(e->train_gpu_hours),
               xp_num(x, ENGINE_UNIT_MONEY, engine_price_per_hour(sc)),
               xp_num(x, ENGINE_UNIT_MONEY, e->train_cost_usd));
        return true;
    case ENGINE_KEY_TRAIN_COST_SPOT:
        xp_set(x, XT("%s GPU-hours * %s/h spot = %s"), XNUM(e->train_gpu_hours),
               xp_num(x, ENGINE_UNIT_MONEY, sc->gpu.spot_price_per_hour),
               xp_num(x, ENGINE_UNIT_MONEY, e->train_cost_spot_usd));
        return true;
    case ENGINE_KEY_TRAIN_ENERGY:
        xp_set(x, XT("%s GPU-hours * 3600 * %s = %s (%s per token)"), XNUM(e->train_gpu_hours),
               xp_num(x, ENGINE_UNIT_WATTS, sc->gpu.tdp_w),
               xp_num(x, ENGINE_UNIT_ENERGY, e->train_energy_joules),
               xp_num(x, ENGINE_UNIT_ENERGY, e->train_energy_joules_per_token));
        return true;
    case ENGINE_KEY_TRAIN_ENERGY_PER_TOKEN:
        xp_set(x, XT("%s / %s tokens = %s"), xp_num(x, ENGINE_UNIT_ENERGY, e->train_energy_joules),
               XCOUNT(e->train_tokens),
               xp_num(x, ENGINE_UNIT_ENERGY, e->train_energy_joules_per_token));
        return true;
    case ENGINE_KEY_TRAIN_SYSTEM_ENERGY:
        xp_set(x, XT("ceil(%u / %u) = %s %s * %s * %s = %s"), sc->gpus, sc->system_gpus,
               XINT(e->systems), sc->system_id, xp_num(x, ENGINE_UNIT_WATTS, sc->system_power_w),
               XSECS(e->train_days * 86400.0),
               xp_num(x, ENGINE_UNIT_ENERGY, e->train_system_energy_joules));
        return true;
    default:
        return false;
    }
}
