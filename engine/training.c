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
 *
 * The predicted step is set by the slowest pipeline stage: each stage's
 * time per micro-batch is its share of the FLOPs (its layers, the
 * embedding on the first, the output head on the last) at the kernel
 * efficiency, GEMMs at the FP8 rate under --format fp8 (attention and the
 * head in BF16), plus its memory-bound work: FP8's scaling casts, MoE routing and
 * permutation, the experts' weight reads where a grouped GEMM has too few
 * tokens to be compute bound, and the busiest expert rank's extra tokens
 * (--moe-imbalance). Step = m x the slowest stage / (1 - bubble) + the
 * communication on the critical path: TP all-reduces, PP hand-offs, the
 * EP all-to-alls (over NVLink and the network as the EP group spans
 * nodes), the context-parallel ring's K/V exchange the attention cannot
 * hide, the DP reduce the backward cannot hide.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"


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

/* The matrices of one layer, in parameters (dense or MoE). */
struct layer_mats {
    double wq, wk, wv, wo; /* attention projections */
    double mlp;            /* dense MLP, all its matrices */
    double router, experts_active, shared; /* MoE: the gate, k routed experts, the shared ones */
    double expert;         /* one routed expert's matrices */
};

static void layer_mats_of(const struct engine_ctx *c, bool moe, struct layer_mats *x) {
    const struct engine_model *m = &c->sc->model;
    double h = c->s.hidden, a = c->s.heads, nm = c->s.gated ? 3.0 : 2.0;
    double kvd = c->s.mla ? a : c->s.kv_heads;
    memset(x, 0, sizeof *x);
    x->wq = h * a * c->s.qk_dim;
    x->wk = h * kvd * c->s.qk_dim;
    x->wv = h * kvd * c->s.v_dim;
    x->wo = a * c->s.v_dim * h;
    if (moe && m->experts) {
        double fe = m->moe_ffn ? m->moe_ffn : m->ffn;
        x->router = h * m->experts;
        x->expert = nm * h * fe;
        x->experts_active = m->active_experts * x->expert;
        x->shared = m->shared_experts * x->expert;
    } else {
        x->mlp = nm * h * c->s.ffn;
    }
}

/* FLOPs per token one layer runs again in its backward under selective
 * recompute (GEMMs into *gemm, attention into *attn): Megatron-LM's
 * modules (core_attn: the attention forward, 2 s a (d_qk + d_v); mlp and
 * moe: their forward, 2 x their active parameters; layernorm, moe_act,
 * shared_experts' elementwise parts: none worth counting, shared_experts
 * 2 x its parameters; mla_up_proj: the q, k, v up-projections), or
 * torchtitan's op policy: the products it does not keep (the 2nd, 4th...:
 * wk, wo, w3 of a gated MLP, fc2 of a plain one) and every routed
 * expert's, 2 FLOP per parameter each. */
static void layer_again(const struct engine_ctx *c, bool moe, double *gemm, double *attn) {
    const struct engine_scenario *sc = c->sc;
    struct layer_mats x;
    layer_mats_of(c, moe, &x);
    double attn_fwd = sc->flops_model == ENGINE_FLOPS_6N_ATTENTION
                          ? 2.0 * c->kv_frac_ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim)
                          : 0;
    *gemm = *attn = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_OP) {
        double g = x.wk + x.wo;
        if (moe && sc->model.experts) {
            g += x.experts_active;
            if (x.shared > 0)
                g += x.shared * (c->s.gated ? 2.0 / 3.0 : 0.5);
        } else {
            g += c->s.gated ? x.mlp / 3.0 : x.mlp / 2.0;
        }
        *gemm = 2.0 * g;
        return;
    }
    if (sc->recompute != ENGINE_RECOMPUTE_SELECTIVE)
        return;
    uint32_t mod = engine_recompute_modules(sc);
    if (mod & ENGINE_RECOMPUTE_CORE_ATTN)
        *attn = attn_fwd;
    if ((mod & ENGINE_RECOMPUTE_MLP) && !moe)
        *gemm += 2.0 * x.mlp;
    if ((mod & ENGINE_RECOMPUTE_MOE) && moe)
        *gemm += 2.0 * (x.router + x.experts_active + x.shared);
    else if ((mod & ENGINE_RECOMPUTE_SHARED_EXPERTS) && moe)
        *gemm += 2.0 * x.shared;
    if ((mod & ENGINE_RECOMPUTE_MLA_UP_PROJ) && c->s.mla)
        *gemm += 2.0 * (x.wq + x.wk + x.wv);
}

static void train_flops(const struct engine_ctx *c, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    double n = e->params_active;
    double k = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0;
    double attn_fwd = 0; /* per token, forward */
    /* Sliding-window layers attend to the window, not the context (the
     * mean context per layer, as the KV cache keeps it). */
    if (sc->flops_model == ENGINE_FLOPS_6N_ATTENTION)
        attn_fwd = 2.0 * c->L * c->kv_frac_ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->train_flops_per_token = k * n + 3.0 * attn_fwd;
    double again = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_FULL)
        again = (2.0 * n + attn_fwd) * recompute_fraction(c);
    else if (sc->recompute == ENGINE_RECOMPUTE_SELECTIVE || sc->recompute == ENGINE_RECOMPUTE_OP) {
        double gd, gm, ad, am;
        layer_again(c, false, &gd, &ad);
        layer_again(c, true, &gm, &am);
        double dl = c->s.moe ? c->s.dense_layers : c->L;
        again = dl * (gd + ad) + (c->L - dl) * (gm + am);
    }
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

/* The one-way time of an all-to-all in which one GPU sends `bytes` spread
 * evenly over the ep ranks of its EP group, whose members are `stride`
 * ranks apart (Megatron-LM's rank order tp-cp-ep-dp-pp: t x cp): the part
 * for ranks of its own node goes over NVLink, the part for other nodes
 * over the network, both at once (nccl-tests all-to-all: bus bandwidth =
 * algorithm bandwidth x (n - 1) / n). */
static double all_to_all_s(const struct engine_ctx *c, double bytes, double ep, double stride) {
    double per_node = fmax(1.0, fmin(ep, floor(c->gpn / fmax(1.0, stride))));
    double intra = (per_node - 1.0) / ep * bytes, inter = (ep - per_node) / ep * bytes;
    double t_intra = intra > 0 ? intra / engine_link_bw(c, 1) : 0;
    double t_inter = inter > 0 ? inter / c->sc->inter_node_bytes_per_s : 0;
    return fmax(t_intra, t_inter) + c->sc->allreduce_latency_s;
}

/* The expert-parallel all-to-alls of one step on GPU stage i: per MoE layer
 * and micro-batch, two forward (dispatch the tokens to their experts,
 * combine the results) and two backward, each GPU sending its s b / (t cp)
 * tokens x k experts x h x 2 bytes over the tier its EP group spans; the
 * busiest rank receives --moe-imbalance times its share. */
static double ep_all_to_all_seconds(const struct engine_ctx *c, double stage) {
    if (c->ep <= 1 || !c->s.moe)
        return 0;
    const struct engine_scenario *sc = c->sc;
    double dn, mn;
    engine_stage_layers(c, stage, &dn, &mn);
    double k = sc->model.active_experts;
    double bytes = c->s_loc * c->b / c->t * k * c->s.hidden * 2.0 * engine_moe_imbalance(sc);
    double one = all_to_all_s(c, bytes, c->ep, c->t * c->cp);
    return 4.0 * mn * sc->micro_batches * one;
}

/* Memory-bound and expert work of one MoE layer per micro-batch on one GPU
 * beyond its balanced FLOPs (seconds): the router's and the permutations'
 * memory traffic, 12 (1 + k) h bytes per token (the token permuted to its
 * k experts and back, read and written, forward and twice backward:
 * Megatron-LM's moe_utils permute/unpermute); the grouped GEMM of each
 * local expert as a roofline, max(FLOPs / (peak x efficiency), (3 reads of
 * its weights + its inputs and outputs) / bandwidth) (Williams et al. 2009:
 * an expert with few tokens is bound by its weights), at the busiest
 * rank's --moe-imbalance times the even share T = s b k ep / (cp E). */
static double moe_layer_extra_s(const struct engine_ctx *c, double peak_g, double eff,
                                double bw) {
    const struct engine_model *m = &c->sc->model;
    if (!c->s.moe || !m->experts)
        return 0;
    double h = c->s.hidden, k = m->active_experts, E = m->experts, imb = engine_moe_imbalance(c->sc);
    if (c->ep <= 1)
        imb = 1.0; /* every expert on each GPU: the tokens are all there */
    double fe = m->moe_ffn ? m->moe_ffn : m->ffn, nm = c->s.gated ? 3.0 : 2.0;
    double tok = c->s_loc * c->b;
    double permute = 12.0 * (1.0 + k) * h * tok * imb / bw;
    double local = E / c->ep;
    double te = tok * k * c->ep / E; /* tokens per local expert, even routing */
    double flops_e = 6.0 * nm * h * fe / c->t * te;
    double bytes_e = 2.0 * (3.0 * nm * h * fe / c->t + 3.0 * te * imb * (2.0 * h + nm * fe / c->t));
    double bal = flops_e / (peak_g * eff);
    double busy = fmax(imb * bal, bytes_e / bw);
    return permute + local * (busy - bal);
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

/* Per token, the hardware FLOPs of GPU stage i's share, split into what
 * runs in FP8 under --format fp8 (the layers' GEMMs) and the rest (the
 * attention's products, the embedding and the output head, kept 16-bit). */
static void stage_flops(const struct engine_ctx *c, double i, double *gemm, double *other,
                        double *attn) {
    const struct engine_scenario *sc = c->sc;
    double k = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0;
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    double attn_fwd = sc->flops_model == ENGINE_FLOPS_6N_ATTENTION
                          ? 2.0 * c->kv_frac_ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim)
                          : 0;
    double frac = sc->recompute == ENGINE_RECOMPUTE_FULL ? recompute_fraction(c) : 0;
    double pd = c->sc->model.has_arch ? c->s.params_dense_layer : c->s.params_total / c->L;
    double pm = c->s.params_moe_layer_active;
    double gd = 0, ad = 0, gm = 0, am = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_SELECTIVE || sc->recompute == ENGINE_RECOMPUTE_OP) {
        layer_again(c, false, &gd, &ad);
        layer_again(c, true, &gm, &am);
    }
    *gemm = dn * ((k + 2.0 * frac) * pd + gd) + mn * ((k + 2.0 * frac) * pm + gm);
    *attn = (dn + mn) * (3.0 + frac) * attn_fwd + dn * ad + mn * am;
    double emb = 0;
    if (i == 0)
        emb += c->s.params_embed_in;
    if (i == c->p - 1)
        emb += c->s.params_head;
    *other = (k + 2.0 * frac) * emb;
}

/* Bytes per token one layer's FP8 scaling casts move: each GEMM input in
 * the forward (the QKV and MLP inputs, the attention output, the MLP's
 * interior) and each output gradient in the backward, read for its amax,
 * read again and written in FP8 row- and column-wise (per-tensor current
 * scaling, Megatron-Bridge's FP8-CS and torchao's dynamic scaling: 6
 * bytes an element); MXFP8 computes its block scales in the same pass (4
 * bytes and a scale per 32). */
static double fp8_cast_bytes_token_layer(const struct engine_ctx *c, bool moe) {
    const struct engine_model *m = &c->sc->model;
    double h = c->s.hidden, a = c->s.heads, t = c->t, nm = c->s.gated ? 3.0 : 2.0;
    double kvg = c->s.mla ? a / t : ceil(c->s.kv_heads / t);
    double f = c->s.ffn;
    if (moe && m->experts)
        f = (double)m->active_experts * (m->moe_ffn ? m->moe_ffn : m->ffn) +
            (double)m->shared_experts * (m->moe_ffn ? m->moe_ffn : m->ffn);
    double in = 2.0 * h + a * c->s.v_dim / t + f / t;
    double grads = a * c->s.qk_dim / t + kvg * (c->s.qk_dim + c->s.v_dim) + 2.0 * h +
                   (nm - 1.0) * f / t;
    double per = c->mx ? 4.0 + 2.0 / 32.0 : 6.0;
    return per * (in + grads);
}

/* Training time, bubble, communication and MFU (training modes). */
void engine_estimate_training(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    train_flops(c, e);
    e->train_micro_batches = sc->micro_batches;
    e->train_global_batch = (double)sc->batch * sc->micro_batches * c->d;
    e->train_tokens_per_step = e->train_global_batch * c->ctx;
    double g = c->t * c->cp * c->p * c->d;
    double peak = e->peak_flop_per_s;
    double eff = engine_train_kernel_efficiency(sc);
    e->train_kernel_efficiency = eff;
    double m = sc->micro_batches, v = sc->interleave;
    double bw = e->bandwidth_bytes_per_s;
    /* The GEMMs' rate: FP8 where the format and the GPU have it. */
    double peak_g = peak;
    if (c->fp8 && engine_pos(sc->gpu.flops[ENGINE_COMPUTE_FP8]) &&
        (!c->mx || engine_pos(sc->gpu.flops[ENGINE_COMPUTE_FP4])))
        peak_g = engine_pos(sc->measured_flop_per_s)
                     ? peak * sc->gpu.flops[ENGINE_COMPUTE_FP8] / sc->gpu.flops[ENGINE_COMPUTE_BF16]
                     : sc->gpu.flops[ENGINE_COMPUTE_FP8];
    /* Each stage's time per micro-batch on one of its GPUs: its FLOPs
     * (normalised to the whole model's hardware FLOPs) and its
     * memory-bound work. */
    double tok = c->s_loc * c->b; /* tokens of a micro-batch on one GPU */
    double sum_g = 0, sum_o = 0;
    for (double i = 0; i < c->p; i++) {
        double gm, ot, at;
        stage_flops(c, i, &gm, &ot, &at);
        sum_g += gm;
        sum_o += ot + at;
    }
    double norm = sum_g + sum_o > 0 ? e->train_hw_flops_per_token / (sum_g + sum_o) : 1.0;
    double eff_a = engine_pos(sc->attention_efficiency) ? sc->attention_efficiency : eff;
    double slowest = 0, sum_t = 0, flops_t = 0, cast_slow = 0, moe_slow = 0;
    double moe_layer = moe_layer_extra_s(c, peak_g, eff, bw);
    double weight_cast = 0;
    for (double i = 0; i < c->p; i++) {
        double gm, ot, at, dn, mn;
        stage_flops(c, i, &gm, &ot, &at);
        engine_stage_layers(c, i, &dn, &mn);
        double ft = ((gm * norm / peak_g + ot * norm / peak) / eff + at * norm / (peak * eff_a)) *
                    tok / c->t;
        double cast = 0;
        if (c->fp8)
            cast = (dn * fp8_cast_bytes_token_layer(c, false) +
                    mn * fp8_cast_bytes_token_layer(c, true)) *
                   tok / bw;
        double moe = mn * moe_layer;
        double ti = ft + cast + moe;
        flops_t += ft;
        sum_t += ti;
        if (ti > slowest) {
            slowest = ti;
            cast_slow = cast;
            moe_slow = moe;
        }
        if (c->fp8 && i == stage) /* the 16-bit weights cast once a step (6 B each) */
            weight_cast = 6.0 * (engine_stage_params_gpu(c, i)) / bw;
    }
    e->train_compute_seconds = flops_t * m / c->p;
    e->train_stage_imbalance = sum_t > 0 ? c->p * slowest / sum_t : 1.0;
    e->train_fp8_cast_seconds = c->fp8 ? cast_slow * m + weight_cast : 0;
    e->train_moe_seconds = moe_slow * m;
    e->train_bubble_fraction = (c->p - 1.0) / (v * m + c->p - 1.0);
    double intra = engine_allreduce_bandwidth(sc, false);
    /* TP: 2 all-reduces of s b h 16-bit activations per layer forward, 2 backward. */
    double act_bytes = c->s_loc * c->b * c->s.hidden * 2.0;
    double lat = sc->allreduce_latency_s;
    double tp_bw = c->t <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    e->train_tp_comm_seconds =
        c->t > 1 ? 4.0 * c->lps * m * engine_allreduce_seconds(act_bytes, c->t, tp_bw, lat) : 0;
    /* PP: each of the v m + p - 1 slots of the schedule hands one
     * micro-batch's activations forward and their gradient backward; each
     * TP rank sends 1/t of them (Megatron's scatter/gather, Narayanan et al.
     * 2021 §4.1), across nodes when the stages do not share one. */
    e->train_pp_comm_seconds =
        c->p > 1 ? 2.0 * (v * m + c->p - 1.0) *
                       (act_bytes / c->t / engine_link_bw(c, c->t * c->cp * c->p) + lat)
                 : 0;
    /* CP: the ring passes each rank's K and V (its s / cp tokens, its KV
     * heads) to the next, cp - 1 times in the forward, and K, V and their
     * gradients cp - 1 times each in the backward (Megatron-LM's
     * p2p ring, torchtitan's ring attention), one more forward under full
     * recompute; each hop overlaps the attention of the chunk in hand
     * (Liu et al. 2023, Ring Attention §3): what the attention of a layer
     * cannot hide is exposed. The ring spans t x cp ranks (rank order
     * tp-cp-ep-dp-pp). */
    e->train_cp_comm_seconds = 0;
    if (c->cp > 1) {
        double kvg = c->s.mla ? c->s.heads / c->t : ceil(c->s.kv_heads / c->t);
        double kv = tok * kvg * (c->s.qk_dim + c->s.v_dim) * 2.0;
        double hops = (3.0 + (sc->recompute == ENGINE_RECOMPUTE_FULL ? 1.0 : 0.0)) * (c->cp - 1.0);
        double comm = hops * (kv / engine_link_bw(c, c->t * c->cp) + lat);
        double attn = 2.0 * c->kv_frac_ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim) * 3.0 * tok /
                      (c->t * peak * eff_a);
        e->train_cp_comm_seconds = c->lps * m * fmax(0.0, comm - attn);
    }
    /* DP: one all-reduce of the gradients of the most loaded GPU per step,
     * over the d x cp ranks that hold the same parameters. */
    double grad_bytes;
    if (sc->mode == ENGINE_MODE_TRAIN)
        grad_bytes = engine_stage_params_gpu(c, stage) * engine_recipe_info(sc->recipe)->grads;
    else
        grad_bytes = e->params_trainable / (c->t * c->p) * engine_recipe_info(sc->recipe)->grads;
    double dp_bw = g <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    double dp = engine_allreduce_seconds(grad_bytes, c->dz, dp_bw, lat);
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
        /* Predicted: the slowest stage's time stretched by the pipeline
         * bubble, plus the TP all-reduces, PP hand-offs, EP all-to-alls and
         * CP ring (on the critical path) and whatever of the DP all-reduce
         * the backward pass (2/3 of the compute) cannot hide. */
        double compute = e->train_compute_seconds;
        e->train_step_seconds = slowest * m / (1.0 - e->train_bubble_fraction) +
                                e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                                e->train_all_to_all_seconds + e->train_cp_comm_seconds +
                                e->train_fp8_cast_seconds - cast_slow * m +
                                fmax(0.0, dp - compute * 2.0 / 3.0) + e->train_offload_seconds;
        e->train_mfu = model_flops / (g * peak * e->train_step_seconds);
    }
    e->train_tokens_per_s_per_gpu = e->train_tokens_per_step / e->train_step_seconds / g;
    e->train_hfu = e->train_mfu * e->train_hw_flops_per_token / e->train_flops_per_token;
    /* Default tokens: Chinchilla's 20 per parameter for pre-training
     * (Hoffmann et al. 2022); a fine-tuning set for LoRA, QLoRA and
     * --fine-tune (engine.h: ENGINE_FINE_TUNE_TOKENS). */
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
    switch (engine_training_tokens_source(sc)) {
    case ENGINE_TOKENS_CHINCHILLA:
        return ENGINE_CHINCHILLA_TOKENS_PER_PARAM * params_total;
    case ENGINE_TOKENS_FINE_TUNE:
        return ENGINE_FINE_TUNE_TOKENS;
    case ENGINE_TOKENS_GIVEN:
        break;
    }
    return sc->training_tokens;
}

/* Where the training tokens come from (see engine.h). */
enum engine_tokens_source engine_training_tokens_source(const struct engine_scenario *sc) {
    if (sc->training_tokens_given || engine_pos(sc->training_tokens))
        return ENGINE_TOKENS_GIVEN;
    return sc->mode == ENGINE_MODE_TRAIN && !sc->fine_tune ? ENGINE_TOKENS_CHINCHILLA
                                                           : ENGINE_TOKENS_FINE_TUNE;
}

/* The price per GPU-hour a scenario uses (see engine.h). */
double engine_price_per_hour(const struct engine_scenario *sc) {
    if (sc->price_given || engine_pos(sc->price_per_hour))
        return sc->price_per_hour;
    return engine_pos(sc->gpu.price_per_hour) ? sc->gpu.price_per_hour : 0;
}
