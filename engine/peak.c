/*
 * peak.c: training memory as the frameworks measure it
 * (--memory-convention peak): torch.cuda.max_memory_reserved(), the figure
 * torchtitan prints after each step ("memory: ... GiB", metrics.py
 * reserved_bytes.all.peak) and Megatron-LM reports as "max reserved". Not
 * the sum of every buffer the step ever makes but the largest moment: the
 * states, the activations held at that moment, the transient buffers of
 * the phase, and what the caching allocator holds but cannot use.
 *
 * The framework each ZeRO stage stands for (the states: engine/zero.c):
 *  - ZeRO-3: PyTorch FSDP2 as torchtitan runs it (parallelize_llama.py
 *    apply_fsdp, v0.1 / commit 9dec370): FP32 parameter shards (the master),
 *    FP32 gradient shards (mixed_precision_reduce float32), Adam's two FP32
 *    states, all over d x cp; every layer's 16-bit weights gathered for its
 *    forward and backward, the next one prefetched; the last layer not
 *    resharded after the forward (it is needed at once), and with pipeline
 *    parallelism no layer is (reshard_after_forward=False); the gradient of
 *    a layer made whole in 16-bit, cast to FP32 and reduce-scattered; the
 *    loss torch.nn.functional.cross_entropy(pred.float()), or with tensor
 *    parallelism PyTorch's loss_parallel (DTensor log-softmax and its
 *    backward on the vocabulary shards); Adam with foreach=True, whose
 *    step makes one FP32 temporary the size of the shards (torch.optim
 *    _multi_tensor_adamw: exp_avg_sq_sqrt);
 *  - ZeRO-0 and 1: Megatron-LM (DDP with its contiguous FP32 main-gradient
 *    buffer, the distributed optimizer): no gathers; the gradient reduce
 *    at the last micro-batch runs in place on the buffer; the loss
 *    vocab_parallel_cross_entropy (cross_entropy.py: an FP32 copy of the
 *    logits turned into the softmax in place, kept for the backward, whose
 *    gradient is made in place and cast to 16-bit); TE's fused Adam in
 *    place;
 *  - ZeRO-2 (and any offload): DeepSpeed, its reduce bucket
 *    (reduce_bucket_size 5e8 elements, 16-bit) at the layer's backward and
 *    the loss as PyTorch's.
 *
 * Phases of the step (the largest wins and is named):
 *  - loss forward, last stage: the activations held, the head's input and
 *    the final norm's (Megatron 4 h per token as theoretical_memory_usage.py
 *    counts it; PyTorch's eager RMSNorm 10 h: its FP32 copy and result and
 *    the 16-bit output), the logits and the loss's working set per token
 *    and vocabulary entry on the GPU: PyTorch 2 + 4 + 4 = 10 bytes
 *    (16-bit logits, their FP32 copy, log_softmax's output), loss_parallel
 *    14 (its shifted copy and exp too), Megatron 2 + 4 = 6;
 *  - loss backward: the saved output, the gradient coming in and the one
 *    going out: PyTorch 12, loss_parallel 16 (exp of the output and its
 *    product as well), Megatron 6 (in place, then the 16-bit cast);
 *  - a layer's backward: the held activations, the layer rematerialised
 *    with its gradients (engine/memory.c engine_act_layer_components), under
 *    FSDP two gathered layers, the 16-bit gradient and its FP32 copy being
 *    reduce-scattered, and on the last stage the head's gathered weights
 *    and whole 16-bit gradient (the root module reduces them at the end);
 *  - optimizer step: no activations; foreach Adam's temporary.
 *
 * The caching allocator (what "reserved" adds to "allocated"): blocks
 * freed and too small for any later request stay reserved: the 16-bit
 * logits PyTorch frees after its FP32 copy, smaller than every later
 * request of the loss (2 bytes per token and vocabulary entry, at the loss
 * backward); the gradient shards, freed by zero_grad(set_to_none) and
 * re-made each step, are already in the states. On what churns
 * (activations and transients) 5% for the rest, the overhead factor of
 * Megatron-LM's theoretical_memory_usage.py ("buffer for optimizer and
 * miscellaneous temporaries (5% overhead)"). The states are allocated once
 * and not counted in it.
 *
 * Checked against torchtitan's published peaks (tests/golden/
 * measured_training.tsv): Llama 3.1 8B on 8 and 128 H100, local batch 2 x
 * 8192, op checkpointing (77.0 and 62.0 GiB), and at 32K with full
 * checkpointing (83.9 GiB).
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* The framework a ZeRO stage stands for under the peak convention. */
enum peak_framework { FW_MEGATRON, FW_FSDP, FW_DEEPSPEED };

static enum peak_framework framework_of(const struct engine_scenario *sc) {
    if (sc->offload != ENGINE_OFFLOAD_NONE || sc->zero == 2)
        return FW_DEEPSPEED;
    return sc->zero >= 3 ? FW_FSDP : FW_MEGATRON;
}

/* DeepSpeed's default reduce_bucket_size, in elements (DeepSpeed config
 * documentation, zero_optimization.reduce_bucket_size: 5e8). */
#define DEEPSPEED_REDUCE_BUCKET 5e8

/* The share of the churning memory the caching allocator holds beyond the
 * blocks in use: Megatron-LM theoretical_memory_usage.py's overhead factor
 * 1.05. */
#define ALLOCATOR_SLACK 0.05

/* Parameters of one layer of stage i on one GPU (the widest of its kinds):
 * over t, the routed experts over t ep. */
static double layer_params_gpu(const struct engine_ctx *c, bool moe) {
    double p = moe ? c->s.params_moe_layer : c->s.params_dense_layer;
    if (moe && c->ep > 1)
        p -= c->s.params_experts_layer * (1.0 - 1.0 / c->ep);
    return p / c->t;
}

/* The peak of GPU stage i: sets the activations held at the phase that
 * peaks, its transient buffers and the allocator's waste; returns the
 * phase; layers: the stage's. */
static enum engine_peak_phase peak_memory(const struct engine_ctx *c, double i, double layers,
                                          struct engine_memory *mem,
                                          struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    enum peak_framework fw = framework_of(sc);
    bool last = i == c->p - 1;
    double h = c->s.hidden, t = c->t, tok = c->s_loc * c->b;
    double vt = c->s.vocab / t, w16 = r->weights;

    /* Activations held at the peak of the schedule. */
    double dn, mn, first, n;
    engine_stage_range(c, i, &first, &n);
    engine_layer_split(c, first, n, &dn, &mn);
    double wd = 0, wm = 0;
    double ad = engine_act_layer_components(c, false, &wd);
    double am = mn > 0 ? engine_act_layer_components(c, true, &wm) : 0;
    double per_mb = dn * ad + mn * am;
    if (sc->recompute == ENGINE_RECOMPUTE_FULL) {
        /* Megatron-LM's methods: uniform keeps one checkpoint per group of
         * N layers, block recomputes N layers of the stage, keeps the rest. */
        struct engine_scenario none = *sc;
        none.recompute = ENGINE_RECOMPUTE_NONE;
        struct engine_ctx cn = *c;
        cn.sc = &none;
        double full_d = engine_act_layer_components(&cn, false, NULL);
        double full_m = mn > 0 ? engine_act_layer_components(&cn, true, NULL) : 0;
        double k = engine_recompute_layers(c, layers);
        double mean_ck = layers > 0 ? per_mb / layers : ad;
        double mean_full = layers > 0 ? (dn * full_d + mn * full_m) / layers : full_d;
        if (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK)
            per_mb = k * mean_ck + (layers - k) * mean_full;
        else
            per_mb = ceil(layers / k) * mean_ck;
        /* A uniform group of k layers re-runs at once. */
        if (sc->recompute_method != ENGINE_RECOMPUTE_BLOCK && k > 1) {
            wd *= fmin(k, layers);
            wm *= fmin(k, layers);
        }
    }
    double inflight = engine_inflight_microbatches(c, i);
    double held = per_mb * inflight;
    double working = fmax(dn > 0 ? wd : 0, mn > 0 ? wm : 0);

    /* The framework's transient buffers. */
    double pl = layer_params_gpu(c, mn > 0 && (dn == 0 || c->s.params_moe_layer > c->s.params_dense_layer));
    double gathered_fwd = 0, layer_bwd = 0;
    if (fw == FW_FSDP) {
        /* The last layer stays gathered after the forward; under pipeline
         * parallelism every layer of the stage does. */
        gathered_fwd = w16 * (c->p > 1 ? engine_stage_params_gpu(c, i) : pl);
        /* Its backward: this layer and the next prefetched, the 16-bit
         * gradient made whole and its FP32 copy for the reduce-scatter. */
        layer_bwd = 2.0 * w16 * pl + (w16 + 4.0) * pl;
    } else if (fw == FW_DEEPSPEED) {
        layer_bwd = w16 * fmin(DEEPSPEED_REDUCE_BUCKET, engine_stage_params_gpu(c, i));
    }
    /* The loss (last stage): bytes per token and vocabulary entry. */
    bool torch_ce = fw != FW_MEGATRON;
    double ce_f = torch_ce ? (t > 1 ? 14.0 : 10.0) : 6.0;
    double ce_b = torch_ce ? (t > 1 ? 16.0 : 12.0) : 6.0;
    double rt = sc->sequence_parallel ? t : 1.0;
    double head_in = last ? (torch_ce ? 8.0 * h / rt + 2.0 * h : 4.0 * h / rt) * tok : 0;
    double loss_f = last ? ce_f * tok * vt : 0, loss_b = last ? ce_b * tok * vt : 0;
    double waste_loss = last && torch_ce ? 2.0 * tok * vt : 0;
    /* The head during the backward under FSDP: gathered, and its whole
     * 16-bit gradient until the root reduces it at the end. */
    double head_bwd = last && fw == FW_FSDP ? 2.0 * w16 * c->s.params_head / t : 0;
    /* The optimizer step: foreach Adam's FP32 temporary of the shards. */
    double opt_tmp = fw == FW_FSDP && r->optimizer >= 8
                         ? 4.0 * engine_stage_params_gpu(c, i) / c->dz
                         : 0;

    struct {
        enum engine_peak_phase phase;
        double act, trans, waste;
    } ph[4] = {
        {ENGINE_PEAK_LOSS_FORWARD, held, head_in + loss_f + gathered_fwd, 0},
        {ENGINE_PEAK_LOSS_BACKWARD, held, head_in + loss_b + gathered_fwd, waste_loss},
        {ENGINE_PEAK_LAYER_BACKWARD, held, working + layer_bwd + head_bwd, 0},
        {ENGINE_PEAK_OPTIMIZER, 0, opt_tmp, 0},
    };
    int best = -1;
    double best_v = -1;
    for (int k = 0; k < 4; k++) {
        if (!last && (ph[k].phase == ENGINE_PEAK_LOSS_FORWARD ||
                      ph[k].phase == ENGINE_PEAK_LOSS_BACKWARD))
            continue;
        double v = (ph[k].act + ph[k].trans) * (1.0 + ALLOCATOR_SLACK) + ph[k].waste;
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    mem->activations = ph[best].act;
    mem->transient = ph[best].trans;
    mem->allocator = (ph[best].act + ph[best].trans) * ALLOCATOR_SLACK + ph[best].waste;
    est->act_per_layer_bytes = layers > 0 ? per_mb / layers : ad;
    est->act_layers_held = layers * inflight;
    est->act_logits_bytes = ph[best].phase == ENGINE_PEAK_LOSS_FORWARD    ? loss_f
                            : ph[best].phase == ENGINE_PEAK_LOSS_BACKWARD ? loss_b
                                                                          : 0;
    return ph[best].phase;
}

/* The stage's memory, at its peak under the peak convention (see
 * engine/internal.h). */
double engine_stage_memory_peak(const struct engine_ctx *c, double i, struct engine_memory *mem,
                                struct engine_estimate *est) {
    double total = engine_stage_memory(c, i, mem, est);
    const struct engine_scenario *sc = c->sc;
    est->peak_phase = ENGINE_PEAK_NONE;
    if (sc->mode != ENGINE_MODE_TRAIN || sc->memory_convention != ENGINE_MEMCONV_PEAK)
        return total;
    double dn, mn;
    engine_stage_layers(c, i, &dn, &mn);
    total -= mem->activations;
    est->peak_phase = peak_memory(c, i, dn + mn, mem, est);
    total += mem->activations + mem->transient + mem->allocator;
    mem->total = total;
    return total;
}
