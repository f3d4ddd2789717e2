/*
 * memory.c: bytes per GPU, for one pipeline stage (engine.c takes the
 * fullest). All quantities in bytes. Sources:
 *  - weights N * bits_eff / 8 (seed 000: 70B INT4 ~ 39 GB); a model file's
 *    exact per-layer bytes where it has them; K/V projections replicated
 *    per TP rank where t exceeds the KV heads (vLLM's QKVParallelLinear);
 *  - KV cache 2 * L * kv * d * ctx * batch * bytes (GQA-aware), MLA stores
 *    kv_lora + rope per token and layer (DeepSeek-V2 §2.1.2), sliding
 *    windows keep the window;
 *  - training states per parameter by recipe (engine/zero.c: ZeRO stages,
 *    memory conventions, offload), expert parallelism as Megatron-LM's
 *    theoretical_memory_usage.py counts it (experts / (t ep), states over
 *    d / ep), Lion's one state, Adafactor's factored second moment (Shazeer
 *    and Stern 2018 §3);
 *  - activations per layer (Korthikanti et al. 2022, §4, eq. 1-2 and
 *    Table 2), generalised to GQA and gated MLPs (see act_per_layer); the
 *    interleaved schedule's first stage holds 1 + (p-1)/(p v) times more
 *    (§4.2.3); full recompute by Megatron-LM's uniform or block method with
 *    --recompute-num-layers;
 *  - inference: one step's activations and logits, each runtime's buffers
 *    (engine/runtime.c), layers and experts kept in host RAM.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* Dense and MoE layers among the layers [first, first + n). */
void engine_layer_split(const struct engine_ctx *c, double first, double n, double *dense,
                        double *moe) {
    if (n < 0)
        n = 0;
    double dn = fmax(0, fmin(first + n, c->s.dense_layers) - first);
    if (dn > n)
        dn = n;
    *dense = dn;
    *moe = n - dn;
}

/* The layers [first, first + n) of GPU stage i. */
void engine_stage_range(const struct engine_ctx *c, double i, double *first, double *n) {
    double f = i * c->lps;
    double k = fmin(c->lps, c->Lg - f);
    *first = c->first_gpu + f;
    *n = k > 0 ? k : 0;
}

/* Layers of GPU stage i: dense and MoE counts. */
void engine_stage_layers(const struct engine_ctx *c, double i, double *dense, double *moe) {
    double first, n;
    engine_stage_range(c, i, &first, &n);
    engine_layer_split(c, first, n, dense, moe);
}

/* Layers among [first, first + n) whose experts --n-cpu-moe keeps in host RAM. */
static double cpu_moe_in(const struct engine_ctx *c, double first, double n) {
    if (!c->s.moe || c->cpu_moe <= 0)
        return 0;
    double dn, mn;
    engine_layer_split(c, first, n, &dn, &mn);
    double moe_first = first + dn; /* MoE layers follow the dense ones */
    return fmax(0, fmin(moe_first + mn, c->cpu_moe) - moe_first);
}

/* Parameters of the embedding and head held by GPU stage i. */
static double stage_embed_params(const struct engine_ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    if (!m->has_arch)
        return 0;
    double p = 0;
    if (i == 0 && c->embed_gpu)
        p += c->s.params_embed_in;
    if (i == c->p - 1 && c->head_gpu) {
        p += c->s.params_head;
        /* A tied head needs its own copy of the embedding when the
         * embedding is elsewhere (another stage, or host RAM). */
        if (m->tied && (c->p > 1 || !c->embed_gpu))
            p += c->s.vocab * c->s.hidden;
    }
    return p;
}

/* Parameters held by pipeline stage i on its GPUs (before TP and ZeRO
 * division): its layers, less the experts kept in host RAM, plus the
 * embedding (stage 0) and head (last stage) where they live on the GPU. */
double engine_stage_params(const struct engine_ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    double first, n;
    engine_stage_range(c, i, &first, &n);
    if (!m->has_arch)
        return c->s.params_total * n / c->L;
    double dn, mn;
    engine_layer_split(c, first, n, &dn, &mn);
    double p = dn * c->s.params_dense_layer + mn * c->s.params_moe_layer;
    p -= cpu_moe_in(c, first, n) * c->s.params_experts_layer;
    return p + stage_embed_params(c, i);
}

/* Routed experts one decode step reads at batch b (tokens route
 * independently and uniformly: E (1 - (1 - k/E)^b) of E are touched). */
static double experts_touched_fraction(const struct engine_ctx *c, double tokens) {
    const struct engine_model *m = &c->sc->model;
    double e = m->experts, k = m->active_experts;
    return 1.0 - pow(1.0 - k / e, tokens);
}

/* Routed-expert parameters of stage i's GPUs that a step of `tokens`
 * tokens does not read. */
double engine_stage_unread_expert_params(const struct engine_ctx *c, double i, double tokens) {
    const struct engine_model *m = &c->sc->model;
    if (!c->s.moe || m->experts == 0)
        return 0;
    double first, n, dn, mn;
    engine_stage_range(c, i, &first, &n);
    engine_layer_split(c, first, n, &dn, &mn);
    mn -= cpu_moe_in(c, first, n);
    return mn * c->s.params_experts_layer * (1.0 - experts_touched_fraction(c, tokens));
}

/* A model file's bytes of the layers [first, first + n) (whole layers). */
double engine_file_layers_bytes(const struct engine_ctx *c, double first, double n) {
    const struct engine_model *m = &c->sc->model;
    double sum = 0;
    for (double i = ceil(first); i < first + n && i < m->layers && i < ENGINE_FILE_LAYERS_MAX; i++)
        sum += m->file_layer_bytes[(uint32_t)i];
    return sum;
}

/* A model file's bytes of the embedding and head held by GPU stage i (as
 * stage_embed_params: a tied head elsewhere copies the embedding). */
static double stage_embed_file_bytes(const struct engine_ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    double b = 0;
    if (i == 0 && c->embed_gpu)
        b += m->file_embed_bytes;
    if (i == c->p - 1 && c->head_gpu) {
        b += m->file_head_bytes;
        if (m->tied && (c->p > 1 || !c->embed_gpu))
            b += m->file_embed_bytes;
    }
    return b;
}

/* Extra K/V projection parameters one GPU holds when t exceeds (or does not
 * divide) the KV heads: each rank keeps ceil(kv / t) whole heads, so
 * 2 h d (ceil(kv/t) - kv/t) per layer more than an even split (vLLM's
 * QKVParallelLinear replicates KV heads so: num_kv_head_replicas = t / kv).
 * In training the replicas are parameters of each rank like any other:
 * they carry gradients, a master copy and optimizer states. */
static double kv_proj_extra_per_layer_gpu(const struct engine_ctx *c) {
    if (c->s.mla || c->t <= 1)
        return 0;
    double kv = c->s.kv_heads, per = ceil(kv / c->t) - kv / c->t;
    return per > 0 ? 2.0 * c->s.hidden * c->s.head_dim * per : 0;
}

/* Weight bytes on one GPU of stage i: the layers at the format's bits, the
 * embedding and head at bits_e, the replicated K/V projections. */
double engine_stage_weight_bytes_gpu(const struct engine_ctx *c, double i, double unread) {
    double emb = stage_embed_params(c, i);
    double first, n;
    engine_stage_range(c, i, &first, &n);
    if (c->file) {
        double b = engine_file_layers_bytes(c, first, n) -
                   cpu_moe_in(c, first, n) * c->expert_layer_bytes - unread * c->expert_bpp;
        return (b + stage_embed_file_bytes(c, i)) / c->t +
               n * kv_proj_extra_per_layer_gpu(c) * c->bits_w / 8.0;
    }
    double body = engine_stage_params(c, i) - emb - unread;
    return (body * c->bits_w + emb * c->bits_e) / 8.0 / c->t +
           n * kv_proj_extra_per_layer_gpu(c) * c->bits_w / 8.0;
}

/* KV heads one GPU stores: kv / t, never below one (replicated when kv < t). */
static double kv_heads_per_gpu(const struct engine_ctx *c) {
    if (c->s.mla)
        return 1; /* the latent is shared by all heads: each TP rank keeps it whole */
    return ceil(c->s.kv_heads / c->t);
}

/* KV cache bytes of one token of one sequence on one layer of one GPU. */
double engine_kv_bytes_token_layer_gpu(const struct engine_ctx *c) {
    if (c->s.mla)
        return c->s.kv_elems_per_token_layer * c->bytes_kv;
    return 2.0 * kv_heads_per_gpu(c) * c->s.head_dim * c->bytes_kv;
}

/* Host RAM of one replica: the layers below first_gpu (weights and KV), the
 * routed experts --n-cpu-moe keeps there, the embedding and head where they
 * are not on a GPU, llama.cpp's host compute buffer. */
double engine_host_bytes(const struct engine_ctx *c, double *weights_read_per_step,
                         double *kv_read) {
    const struct engine_model *m = &c->sc->model;
    double hl = c->first_gpu, w = 0, read = 0, fbytes = 0, fread_b = 0;
    if (c->file) {
        double dn, mn;
        engine_layer_split(c, 0, hl, &dn, &mn);
        double unread_frac = c->s.moe ? 1.0 - experts_touched_fraction(c, c->b) : 0;
        double moe_gpu = cpu_moe_in(c, c->first_gpu, c->Lg) * c->expert_layer_bytes;
        fbytes = engine_file_layers_bytes(c, 0, hl) + moe_gpu;
        fread_b = fbytes - (mn * c->expert_layer_bytes + moe_gpu) * unread_frac;
    } else if (!m->has_arch) {
        w = c->s.params_total * hl / c->L;
        read = w;
    } else {
        double dn, mn;
        engine_layer_split(c, 0, hl, &dn, &mn);
        double layers = dn * c->s.params_dense_layer + mn * c->s.params_moe_layer;
        double unread_frac = c->s.moe ? 1.0 - experts_touched_fraction(c, c->b) : 0;
        w = layers;
        read = layers - mn * c->s.params_experts_layer * unread_frac;
        /* Experts of GPU layers that --n-cpu-moe keeps in host RAM. */
        double moe_gpu = cpu_moe_in(c, c->first_gpu, c->Lg) * c->s.params_experts_layer;
        w += moe_gpu;
        read += moe_gpu * (1.0 - unread_frac);
    }
    double bytes = w * c->bits_w / 8.0, rbytes = read * c->bits_w / 8.0;
    if (c->file) {
        bytes = fbytes + (c->embed_gpu ? 0 : m->file_embed_bytes) +
                (c->head_gpu ? 0 : m->file_head_bytes);
        rbytes = fread_b + (c->head_gpu ? 0 : m->file_head_bytes);
    } else if (m->has_arch) {
        double emb = 0, head = 0;
        if (!c->embed_gpu)
            emb = c->s.params_embed_in;
        if (!c->head_gpu)
            head = c->s.params_head;
        bytes += (emb + head) * c->bits_e / 8.0;
        rbytes += head * c->bits_e / 8.0; /* the head is read whole; the embedding a row */
    }
    double kv = hl * c->kv_tokens * c->s.kv_elems_per_token_layer * c->bytes_kv;
    if (weights_read_per_step)
        *weights_read_per_step = rbytes;
    if (kv_read)
        *kv_read = kv;
    double buf = 0;
    if (c->rt == ENGINE_RUNTIME_LLAMACPP || c->rt == ENGINE_RUNTIME_OLLAMA)
        buf = engine_llamacpp_host_buffer(&c->s, engine_runtime_ubatch(c->sc));
    return bytes + kv + buf;
}

/*
 * Activation bytes of one transformer layer (Korthikanti et al. 2022, §4.1):
 * s b h (34 + 5 a s / h) without parallelism. The 34 splits into 10 terms
 * that tensor parallelism replicates (two LayerNorm inputs 4, QKV and MLP
 * inputs 2 + 2, two dropout masks 2) and 24 it splits (Q, K 4, V 2, output
 * projection input 2, MLP 16). Generalised: K and V scale with r = kv/a
 * (Q 2 + K,V 4r + out 2 = 4 + 4r), the MLP interior with its width f
 * (4 f/h plain, 6 f/h gated: gate, up and their product). With r = 1 and
 * f = 4h this is the paper's 24 exactly.
 */
static double act_layer_at(const struct engine_ctx *c, enum engine_recompute level) {
    /* Context parallelism: a GPU holds s / cp of each sequence's tokens,
     * whose queries still meet all s keys (the score term keeps s). */
    double s = c->s_loc, b = c->b, h = c->s.hidden, a = c->s.heads, t = c->t;
    double r = c->s.mla ? 1.0 : c->s.kv_heads / c->s.heads;
    double f = c->s.mlp_width;
    double split = 4.0 + (c->s.gated ? 6.0 : 4.0) * f / h;
    /* K and V: 4 r / t, or 4 ceil(kv / t) / a where t exceeds (or does not
     * divide) the KV heads and each rank computes whole replicated heads. */
    double kv_gpu = c->s.mla ? 4.0 * r / t : 4.0 * ceil(c->s.kv_heads / t) / a;
    double repl = 10.0;
    double score = 5.0 * a * c->ctx / h; /* softmax, its dropout mask and output */
    bool sp = c->sc->sequence_parallel;
    switch (level) {
    case ENGINE_RECOMPUTE_FULL:
        return 2.0 * s * b * h / (sp ? t : 1.0);
    case ENGINE_RECOMPUTE_SELECTIVE:
        score = 0; /* attention scores recomputed (flash attention) */
        break;
    case ENGINE_RECOMPUTE_NONE:
    case ENGINE_RECOMPUTE_OP:
    case ENGINE_RECOMPUTE_COUNT:
        break;
    }
    return s * b * h * ((sp ? repl / t : repl) + split / t + kv_gpu + score / t);
}

/*
 * The component model of one layer's activations, per token on one GPU,
 * for what the frameworks choose to keep: torchtitan's op-level selective
 * checkpointing (--recompute op), Megatron-LM's --recompute-modules, and
 * every policy under --memory-convention peak. The components are
 * Korthikanti et al. 2022 §4.1's, named (16-bit, 2 bytes an element):
 *   x1 the layer's input (2h), n1 the first norm's output = the QKV input
 *   (2h), q (2 a d_qk / t), k and v (2 kv d / t, whole KV heads per rank),
 *   the attention's output = the output projection's input (2 a d_v / t),
 *   x2 the residual after attention (2h), n2 the second norm's output =
 *   the MLP's input (2h), the MLP's interior (gated: gate, up and their
 *   product, 6 f / t; plain 4 f / t); an MoE layer's router (FP32 logits
 *   and probabilities, 8 E), its dispatched tokens and expert outputs (2 k
 *   h each), the experts' interior (6 k f_e / t gated) and the shared
 *   experts' (6 f_sh / t); sequence parallelism divides the h-wide parts
 *   by t. Korthikanti's scores (5 a s / t) and dropout masks (h each) only
 *   outside the peak convention: the frameworks run fused (flash)
 *   attention and Llama-style models no dropout; the scores only without
 *   any recompute (a policy that names modules or ops runs fused
 *   attention).
 * What each policy keeps:
 *   full: x1 (the checkpoint);
 *   op (torchtitan parallelize_llama.py, _save_list and the "every second
 *     mm" policy): x1, the outputs of the 1st, 3rd, 5th... matrix product
 *     of the layer in forward order (wq, wk, wv, wo, w1, w3, w2: wq, wv,
 *     w1, w2), the attention's output and log-sum-exp; the routed experts'
 *     grouped products are not in the list (recomputed);
 *   selective (Megatron-LM recompute_modules, default core_attn): all but
 *     what the modules recompute: core_attn the scores, layernorm n1 and
 *     n2, mlp the dense interior, moe everything of the MoE layer but its
 *     input, moe_act the experts' activation output, shared_experts their
 *     interior, mla_up_proj MLA's up-projected q, k, v;
 *   none: all.
 * The busiest expert rank holds --moe-imbalance times the even share of
 * the routed tokens. The working set of the layer's backward is the whole
 * layer rematerialised, less what was kept, plus the gradients of its
 * widest activation (two) and of the residual stream (in and out).
 */
double engine_act_layer_components(const struct engine_ctx *c, bool moe, double *working) {
    const struct engine_scenario *sc = c->sc;
    const struct engine_model *m = &sc->model;
    double h = c->s.hidden, a = c->s.heads, t = c->t, tok = c->s_loc * c->b;
    bool peak = sc->memory_convention == ENGINE_MEMCONV_PEAK;
    double rt = sc->sequence_parallel ? t : 1.0;
    double kvg = c->s.mla ? 0 : ceil(c->s.kv_heads / t);
    double q = 2.0 * a * c->s.qk_dim / t;
    double k = c->s.mla ? 2.0 * a * c->s.qk_dim / t : 2.0 * kvg * c->s.qk_dim;
    double v = c->s.mla ? 2.0 * a * c->s.v_dim / t : 2.0 * kvg * c->s.v_dim;
    double latent = c->s.mla ? 2.0 * ((double)m->kv_lora_rank + m->rope_dim + m->q_lora_rank) : 0;
    double ao = 2.0 * a * c->s.v_dim / t, lse = peak ? 4.0 * a / t : 0;
    double x1 = 2.0 * h / rt, n1 = x1, x2 = x1, n2 = x1;
    /* Scores only for Korthikanti's no-recompute layer: whoever picks
     * modules or ops runs fused attention (Megatron-LM warns that core_attn
     * recompute is then needless). */
    double score = peak || sc->recompute != ENGINE_RECOMPUTE_NONE ? 0 : 5.0 * a * c->ctx / t;
    double masks = peak ? 0 : 2.0 * h / rt;
    double nm = c->s.gated ? 3.0 : 2.0;
    /* The MLP: dense, or router + routed experts + shared experts. */
    double mlp = 0, mlp_act = 0, router = 0, disp = 0, e_in = 0, e_act = 0, shared = 0;
    double widest;
    if (moe && m->experts) {
        double fe = m->moe_ffn ? m->moe_ffn : m->ffn, kk = m->active_experts;
        double imb = c->ep > 1 ? engine_moe_imbalance(sc) : 1.0;
        router = 8.0 * m->experts / rt;
        disp = 2.0 * 2.0 * kk * h * imb; /* dispatched tokens and expert outputs */
        e_in = 2.0 * (nm - 1.0) * kk * fe * imb / t;
        e_act = 2.0 * kk * fe * imb / t;
        shared = 2.0 * nm * m->shared_experts * fe / t;
        widest = 2.0 * kk * fe * imb / t;
    } else {
        double f = c->s.ffn;
        mlp = 2.0 * (nm - 1.0) * f / t;
        mlp_act = 2.0 * f / t;
        widest = 2.0 * f / t;
    }
    double all = x1 + n1 + q + k + v + latent + ao + lse + score + masks + x2 + n2 + mlp + mlp_act +
                 router + disp + e_in + e_act + shared;
    double kept = all;
    switch (sc->recompute) {
    case ENGINE_RECOMPUTE_FULL:
        kept = x1;
        break;
    case ENGINE_RECOMPUTE_OP: {
        /* The matrix products in forward order; every other one is kept. */
        double mm[8];
        int n = 0;
        mm[n++] = q;
        mm[n++] = k;
        mm[n++] = v;
        mm[n++] = 2.0 * h / rt; /* wo */
        if (moe && m->experts) {
            mm[n++] = 2.0 * m->experts / rt; /* the router's gate */
            if (m->shared_experts)
                for (int j = 0; j < (int)nm; j++)
                    mm[n++] = j + 1 < (int)nm ? shared / nm : 2.0 * h / rt;
        } else {
            for (int j = 0; j + 1 < (int)nm; j++)
                mm[n++] = 2.0 * c->s.ffn / t; /* w1 (and w3) */
            mm[n++] = 2.0 * h / rt;           /* w2 */
        }
        kept = x1 + ao + lse + latent;
        for (int j = 0; j < n; j += 2)
            kept += mm[j];
        break;
    }
    case ENGINE_RECOMPUTE_SELECTIVE: {
        uint32_t mod = engine_recompute_modules(sc);
        kept = all;
        if (mod & ENGINE_RECOMPUTE_CORE_ATTN)
            kept -= score;
        if (mod & ENGINE_RECOMPUTE_LAYERNORM)
            kept -= n1 + n2;
        if (mod & ENGINE_RECOMPUTE_MLP)
            kept -= mlp + mlp_act;
        if (mod & ENGINE_RECOMPUTE_MOE)
            kept -= router + disp + e_in + e_act + shared;
        else {
            if (mod & ENGINE_RECOMPUTE_MOE_ACT)
                kept -= e_act;
            if (mod & ENGINE_RECOMPUTE_SHARED_EXPERTS)
                kept -= shared;
        }
        if ((mod & ENGINE_RECOMPUTE_MLA_UP_PROJ) && c->s.mla)
            kept -= q + k + v;
        break;
    }
    case ENGINE_RECOMPUTE_NONE:
    case ENGINE_RECOMPUTE_COUNT:
        break;
    }
    if (working)
        *working = (all - kept + 2.0 * widest + 2.0 * x1) * tok;
    return kept * tok;
}

/* Whether a scenario's activations follow the component model (see above)
 * rather than Korthikanti's closed form: op, recompute modules other than
 * the default, and every policy under the peak convention. */
static bool act_by_components(const struct engine_ctx *c) {
    const struct engine_scenario *sc = c->sc;
    return sc->recompute == ENGINE_RECOMPUTE_OP || sc->memory_convention == ENGINE_MEMCONV_PEAK ||
           (sc->recompute == ENGINE_RECOMPUTE_SELECTIVE &&
            engine_recompute_modules(sc) != ENGINE_RECOMPUTE_CORE_ATTN);
}

/* Activation bytes of one layer at the scenario's recompute level. */
static double act_per_layer(const struct engine_ctx *c) {
    if (act_by_components(c)) {
        /* The stage's mix of dense and MoE layers, as a mean. */
        double dense = engine_act_layer_components(c, false, NULL);
        if (!c->s.moe)
            return dense;
        double moe = engine_act_layer_components(c, true, NULL);
        double L = c->L, dl = c->s.dense_layers;
        return L > 0 ? (dl * dense + (L - dl) * moe) / L : moe;
    }
    return act_layer_at(c, c->sc->recompute);
}

/* Activations of one layer with its attention scores recomputed: the
 * working set of a recomputed layer under full recompute. */
static double act_layer_working(const struct engine_ctx *c) {
    return act_layer_at(c, ENGINE_RECOMPUTE_SELECTIVE);
}

/* ---- training: pipeline in-flight activations, recompute methods -------- */

/* Micro-batches' worth of the stage's layers GPU stage i holds at the peak
 * of the schedule. 1F1B: min(m, p - i), stage i runs p - i forwards before
 * its first backward (Narayanan et al. 2021 §2.2). Interleaved with v model
 * chunks of 1/v of the stage's layers each: Megatron-LM's schedule warms up
 * (v - 1) p + 2 (p - i - 1) chunks and holds one more, at most the m v of a
 * step; on the first stage p v + p - 1 chunks = p (1 + (p - 1) / (p v))
 * micro-batches, the factor of Korthikanti et al. 2022 §4.2.3. */
double engine_inflight_microbatches(const struct engine_ctx *c, double i) {
    double m = c->sc->micro_batches, v = c->sc->interleave, p = c->p;
    if (v <= 1 || p <= 1)
        return fmin(m, p - i);
    return fmin(m * v, (v - 1.0) * p + 2.0 * (p - i - 1.0) + 1.0) / v;
}

/* Layers per checkpointed group of full recompute (uniform), or layers
 * recomputed per stage (block), of a stage of n layers. */
double engine_recompute_layers(const struct engine_ctx *c, double n) {
    double k = c->sc->recompute_num_layers;
    if (c->sc->recompute_method == ENGINE_RECOMPUTE_BLOCK)
        return k > 0 ? fmin(k, n) : n;
    return k > 1 ? k : 1;
}

/* Training activations of GPU stage i with `layers` layers: what one
 * micro-batch leaves stored, times the micro-batches in flight, plus the
 * working set of a recompute and the logits (Korthikanti et al. 2022 Table
 * 2: full recompute keeps 2 s b h per checkpoint). Full recompute, uniform
 * with N layers a group (Megatron-LM --recompute-method uniform
 * --recompute-num-layers N): ceil(layers / N) checkpoints, and N layers
 * re-run at once; block: the first N layers of the stage keep 2 s b h, the
 * others their whole activations (no recompute), one layer re-run at once. */
static void train_activations(const struct engine_ctx *c, double i, double layers,
                              struct engine_memory *mem, struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    double inflight = engine_inflight_microbatches(c, i);
    double stored = layers * act_per_layer(c), working = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_FULL) {
        double ckpt = act_layer_at(c, ENGINE_RECOMPUTE_FULL);
        double k = engine_recompute_layers(c, layers);
        if (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK) {
            stored = k * ckpt + (layers - k) * act_layer_at(c, ENGINE_RECOMPUTE_NONE);
            working = k > 0 ? act_layer_working(c) : 0;
        } else {
            stored = ceil(layers / k) * ckpt;
            working = fmax(1.0, fmin(k, layers)) * act_layer_working(c);
        }
    }
    double logits = (i == c->p - 1) ? 4.0 * c->s_loc * c->b * c->s.vocab / c->t : 0;
    mem->activations = stored * inflight + working + logits;
    est->act_per_layer_bytes = layers > 0 ? stored / layers : act_per_layer(c);
    est->act_layers_held = layers * inflight;
    est->act_logits_bytes = logits;
}

/* ---- training: expert parallelism, Adafactor's factored states ----------- */

/* Routed-expert parameters of GPU stage i (all its MoE layers, undivided). */
double engine_stage_expert_params(const struct engine_ctx *c, double i) {
    if (!c->s.moe)
        return 0;
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    return mn * c->s.params_experts_layer;
}

/* Parameters one GPU of stage i holds whose states shard over the whole
 * data-parallel group: the stage's over t, plus the K/V projections each
 * TP rank replicates where t exceeds the KV heads; under expert
 * parallelism the routed experts are left to ep_expert_states. */
double engine_stage_params_gpu(const struct engine_ctx *c, double i) {
    double p = engine_stage_params(c, i);
    if (c->ep > 1)
        p -= engine_stage_expert_params(c, i);
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    return p / c->t + (dn + mn) * kv_proj_extra_per_layer_gpu(c);
}

/* The routed experts of stage i under expert parallelism, as Megatron-LM's
 * theoretical_memory_usage.py counts them: each GPU holds experts /
 * (etp * ep) with the expert tensor-parallel size etp = t (its default),
 * and ZeRO or the distributed optimizer shards their states over the
 * expert data-parallel group of G / (etp * ep * p) = d / ep ranks (6 + 12 /
 * (d / ep) bytes with its recipe, adam-mixed-fp32-grads at ZeRO-1). */
static void ep_expert_states(const struct engine_ctx *c, double i, struct engine_memory *mem) {
    if (c->ep <= 1)
        return;
    const struct engine_scenario *sc = c->sc;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    double p = engine_stage_expert_params(c, i) / (c->t * c->ep);
    double z = sc->zero, de = c->dz / c->ep;
    if (sc->mode == ENGINE_MODE_TRAIN) {
        /* The experts' states by the memory convention and offload
         * (engine/zero.c), partitioned over their d / ep replicas. */
        struct engine_scenario se = *sc;
        se.dp = (uint32_t)de;
        struct engine_memory em = {0};
        engine_zero_states_of(&se, r, p, 0, &em);
        mem->weights += em.weights;
        mem->gradients += em.gradients;
        mem->master_weights += em.master_weights;
        mem->optimizer += em.optimizer;
        mem->host += em.host;
        mem->nvme += em.nvme;
    } else {
        mem->weights += p * c->bits_w / 8.0 / (z >= 3 ? de : 1); /* frozen (LoRA) */
    }
}

/* The sum of d_in + d_out over the matrices LoRA adapts in one layer (q,
 * k, v, o and the MLP's); their count into *n when n is not NULL. */
static double lora_dims_per_layer(const struct engine_ctx *c, double *n) {
    double h = c->s.hidden, qd = c->s.heads * c->s.qk_dim, kvd = c->s.kv_heads * c->s.head_dim;
    double f = c->s.ffn ? c->s.ffn : 4 * h, nm = c->sc->model.gated ? 3 : 2;
    if (n)
        *n = 4 + nm;
    return (h + qd) + 2 * (h + kvd) + (qd + h) + nm * (h + f);
}

/* Adafactor's factored second moment of one weight matrix of r x c
 * parameters: a row and a column vector, r + c floats instead of r c. */
static double factored(double rows, double cols) {
    return rows + cols;
}

/* Factored-state elements of one layer (MoE or dense), split into what is
 * not a routed expert and the routed experts: q, k, v and o as matrices,
 * the MLP's two or three, each expert's and the router; every other
 * parameter of the layer (norms, biases) is a vector kept whole. MLA's
 * projections count as their GQA equivalents (a few floats apart). */
static void factored_layer(const struct engine_ctx *c, bool moe, double *other, double *experts) {
    const struct engine_shape *s = &c->s;
    double h = s->hidden, qd = s->heads * s->qk_dim, kvd = s->kv_heads * s->head_dim;
    double od = s->heads * s->v_dim, nm = s->gated ? 3.0 : 2.0;
    double mats = factored(qd, h) + 2.0 * factored(kvd, h) + factored(h, od);
    double mat_params = qd * h + 2.0 * kvd * h + od * h;
    double layer = moe ? s->params_moe_layer : s->params_dense_layer;
    *experts = 0;
    if (moe) {
        const struct engine_model *m = &c->sc->model;
        double fe = m->moe_ffn ? m->moe_ffn : m->ffn, e = m->experts, sh = m->shared_experts;
        *experts = e * nm * factored(fe, h);
        mats += sh * nm * factored(fe, h) + factored(e, h);
        mat_params += (e + sh) * nm * fe * h + e * h;
    } else {
        mats += nm * factored(s->ffn, h);
        mat_params += nm * s->ffn * h;
    }
    *other = mats + fmax(0.0, layer - mat_params);
}

/* Add Adafactor's factored FP32 second moment of GPU stage i to the
 * optimizer states (Shazeer and Stern 2018 §3; Hugging Face's Adafactor
 * factors every tensor of two or more dimensions, keeps vectors whole).
 * Per GPU the factors of a sharded matrix are taken as 1/t of the whole
 * (a rank's shard of r/t x c has r/t + c: a few floats more); ZeRO stage
 * 1 and up divides them by d, the experts' by d / ep. */
static void adafactor_states(const struct engine_ctx *c, double i, struct engine_memory *mem) {
    const struct engine_scenario *sc = c->sc;
    if (!engine_recipe_info(sc->recipe)->factored)
        return;
    double dn, mn, o_d, e_d, o_m, e_m;
    engine_stage_layers(c, i, &dn, &mn);
    if (c->lora) {
        /* Adapters A (r x d_in) and B (d_out x r): r + d_in and d_out + r. */
        double nmat, dims = lora_dims_per_layer(c, &nmat);
        double per = dims + 2.0 * sc->lora_rank * nmat;
        mem->optimizer += 4.0 * (dn + mn) * per / c->t / (sc->zero >= 1 ? c->dz : 1);
        return;
    }
    factored_layer(c, false, &o_d, &e_d);
    factored_layer(c, c->s.moe, &o_m, &e_m);
    double other = dn * o_d + mn * o_m, experts = mn * e_m;
    double emb = stage_embed_params(c, i), h = c->s.hidden;
    if (emb > 0) {
        /* Embedding and head matrices V x h, their norms and positions. */
        double n_mat = 0, rest = emb;
        if (i == 0 && c->embed_gpu) {
            n_mat += 1;
            rest -= c->s.vocab * h;
        }
        if (i == c->p - 1 && c->head_gpu && (!c->sc->model.tied || c->p > 1)) {
            n_mat += 1;
            rest -= c->s.vocab * h;
        }
        other += n_mat * factored(c->s.vocab, h) + fmax(0.0, rest);
    }
    double z = sc->zero, de = c->ep > 1 ? c->dz / c->ep : c->dz;
    double oe = c->ep > 1 ? 0 : experts; /* experts with the rest without EP */
    double bytes = 4.0 * (other + oe) / c->t / (z >= 1 ? c->dz : 1);
    if (c->ep > 1)
        bytes += 4.0 * experts / (c->t * c->ep) / (z >= 1 ? de : 1);
    /* --offload moves the optimizer states off the GPU (engine/zero.c). */
    if (sc->mode == ENGINE_MODE_TRAIN && sc->offload == ENGINE_OFFLOAD_CPU)
        mem->host += bytes;
    else if (sc->mode == ENGINE_MODE_TRAIN && sc->offload == ENGINE_OFFLOAD_NVME)
        mem->nvme += bytes;
    else
        mem->optimizer += bytes;
}

/* Weight and KV bytes of one layer on one GPU (Ollama's layer buffer). */
static double layer_bytes_gpu(const struct engine_ctx *c) {
    double p = c->sc->model.has_arch ? c->s.params_dense_layer : c->s.params_total / c->L;
    if (c->s.moe && c->s.dense_layers < c->L)
        p = c->s.params_moe_layer;
    return p * c->bits_w / 8.0 / c->t + kv_proj_extra_per_layer_gpu(c) * c->bits_w / 8.0 +
           c->kv_tokens * engine_kv_bytes_token_layer_gpu(c);
}

/* KV, activations, the runtime's buffers and reserve of GPU stage i in
 * inference (engine/runtime.c has the runtimes' figures and sources). */
static void inference_memory(const struct engine_ctx *c, double i, double layers,
                             struct engine_memory *mem, struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    bool last = i == c->p - 1;
    mem->kv_cache = layers * c->kv_tokens * engine_kv_bytes_token_layer_gpu(c);
    switch (c->rt) {
    case ENGINE_RUNTIME_PLAIN:
    case ENGINE_RUNTIME_COUNT:
        /* One decode step's logits in FP32 for the batch. */
        mem->activations = last ? 4.0 * c->b * c->s.vocab / c->t : 0;
        break;
    case ENGINE_RUNTIME_VLLM:
    case ENGINE_RUNTIME_SGLANG:
    case ENGINE_RUNTIME_TRTLLM:
        /* Each as it sizes its KV cache at start-up (engine/runtime.c). */
        engine_runtime_memory(c, i, mem, est);
        break;
    case ENGINE_RUNTIME_LLAMACPP: {
        double u = engine_runtime_ubatch(sc);
        mem->overhead = engine_llamacpp_compute_buffer(
            &c->s, c->t, u, c->kv_tokens, engine_runtime_flash_attention(sc), last && c->head_gpu);
        est->serving.compute_buffer_bytes = mem->overhead;
        break;
    }
    case ENGINE_RUNTIME_OLLAMA: {
        double u = engine_runtime_ubatch(sc);
        double graph = engine_ollama_graph(&c->s, c->t, fmin(c->kv_tokens, u), c->kv_tokens,
                                           c->Lg >= c->L && c->p == 1);
        est->serving.compute_buffer_bytes = graph;
        /* EstimateGPULayers: the graph, and one layer's worth as a buffer. */
        mem->overhead = graph + layer_bytes_gpu(c);
        break;
    }
    }
    est->serving.overhead_bytes = mem->overhead;
    est->act_logits_bytes = mem->activations;
}

/* The largest module's parameters of GPU stage i (whole, before TP): its
 * layers' largest matrix, the embedding on stage 0, the head (or the tied
 * copy of the embedding) on the last (engine/zero.c). */
static double stage_largest_layer(const struct engine_ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    bool embed = i == 0 && c->embed_gpu;
    bool head = i == c->p - 1 && c->head_gpu && (!m->tied || c->p > 1 || !c->embed_gpu);
    return engine_largest_layer_of(m, &c->s, embed, head, dn, mn);
}

/* FP8 training's copies of the GEMM weights of GPU stage i: Transformer
 * Engine casts each linear layer's 16-bit weight once per step and keeps
 * the FP8 copy and, on Hopper, its transpose for the backward's products
 * (both kept across the micro-batches: is_first_microbatch); MXFP8 keeps a
 * row-wise and a column-wise copy, each with an E8M0 scale per 32 (OCP MX
 * v1.0): 2 x bits / 8 bytes per GEMM parameter either way. The embedding
 * and the output head stay 16-bit (Megatron-LM's output layer is not a TE
 * module; torchtitan's float8 filter skips `output`). Under ZeRO-3 the
 * copies are made from the gathered layer: one layer's worth. */
static double fp8_weight_copies(const struct engine_ctx *c, double i) {
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    double per = 2.0 * engine_format_bits(&c->sc->weight_format) / 8.0;
    double layer_d = c->s.params_dense_layer, layer_m = c->s.params_moe_layer;
    if (c->ep > 1)
        layer_m -= c->s.params_experts_layer * (1.0 - 1.0 / c->ep);
    double params = (dn * layer_d + mn * layer_m) / c->t;
    if (c->sc->zero >= 3)
        params = (mn > 0 ? layer_m : layer_d) / c->t;
    return per * params;
}

/* Memory of pipeline stage i on one GPU into *mem; returns the total. */
double engine_stage_memory(const struct engine_ctx *c, double i, struct engine_memory *mem,
                           struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    double params = engine_stage_params_gpu(c, i);
    *mem = (struct engine_memory){0};
    mem->reserve = sc->reserve_bytes;
    /* The states shard over every rank holding the same parameters: d x
     * cp (context parallelism's ranks are data-parallel to the optimizer:
     * Megatron-LM's data_parallel_group_with_cp, torchtitan's dp_shard_cp). */
    double z = sc->zero, d = c->dz;
    if (sc->mode == ENGINE_MODE_TRAIN) {
        double largest = stage_largest_layer(c, i);
        struct engine_scenario sz = *sc;
        sz.dp = (uint32_t)c->dz;
        engine_zero_states_of(&sz, r, params, largest / c->t, mem);
        est->largest_layer_params = largest;
    } else {
        mem->weights = c->training ? params * c->bits_w / 8.0 / (z >= 3 ? d : 1)
                                   : engine_stage_weight_bytes_gpu(c, i, 0);
    }
    if (c->lora) {
        /* Adapters r (d_in + d_out) on q, k, v, o and the MLP matrices. */
        double per_layer = lora_dims_per_layer(c, NULL);
        double dn, mn;
        engine_stage_layers(c, i, &dn, &mn);
        double trainable = sc->lora_rank * per_layer * (dn + mn) / c->t;
        est->params_trainable = sc->lora_rank * per_layer * c->L;
        mem->weights += trainable * r->weights;
        mem->gradients = trainable * r->grads / (z >= 2 ? d : 1);
        mem->master_weights = trainable * r->master / (z >= 1 ? d : 1);
        mem->optimizer = trainable * r->optimizer / (z >= 1 ? d : 1);
    }
    if (c->training) {
        ep_expert_states(c, i, mem);
        adafactor_states(c, i, mem);
    }
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    double layers = dn + mn;
    if (c->fp8)
        mem->fp8_weights = fp8_weight_copies(c, i);
    if (c->training) {
        train_activations(c, i, layers, mem, est);
    } else {
        inference_memory(c, i, layers, mem, est);
    }
    mem->total = mem->weights + mem->kv_cache + mem->activations + mem->gradients +
                 mem->master_weights + mem->optimizer + mem->reserve + mem->overhead +
                 mem->zero3_working + mem->transient + mem->allocator + mem->fp8_weights;
    return mem->total;
}
