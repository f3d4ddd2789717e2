/*
 * state_fields.c: the table of editable and read-out fields, how each one
 * steps, and the recomputation (estimate, verdict, tokens/s-vs-batch curve).
 *
 * Stepping only reaches valid scenarios: TP walks the divisors of the
 * attention heads up to the GPUs of one node, PP any stage count up to the
 * layers (uneven stages are named), and the GPU count is always tp x pp x dp
 * (changing the count takes the best layout for it; DP steps alone). A refused or skipped
 * value leaves a message naming the reason. Lists (models, formats, GPUs)
 * clamp at their ends; numbers walk a "nice" ladder (1..16 by one, then
 * eight steps per octave) and PgUp/PgDn double or halve them.
 */
#include "config.h"

#include "tui/state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

#define F(id, pane, param, label, help) [id] = {id, pane, param, label, help}
static const struct tui_field_info tui_fields[TUI_F_COUNT] = {
    F(TUI_F_MODEL, TUI_PANE_MODEL, PARAM_MODEL, N_("model"), N_("catalog model (Enter: pick, / filter)")),
    F(TUI_F_SIZE, TUI_PANE_MODEL, PARAM_PARAMS, N_("size"), N_("bare parameter count, log slider 100M..2T")),
    F(TUI_F_WFORMAT, TUI_PANE_FORMAT, PARAM_FORMAT, N_("weights"), N_("number format of the weights")),
    F(TUI_F_GROUP, TUI_PANE_FORMAT, PARAM_FORMAT, N_("group"), N_("weights sharing one scale")),
    F(TUI_F_KVFORMAT, TUI_PANE_FORMAT, PARAM_KV_FORMAT, N_("KV cache"), N_("number format of the KV cache")),
    F(TUI_F_GPU, TUI_PANE_GPU, PARAM_GPU, N_("GPU"), N_("catalog GPU (Enter: pick)")),
    F(TUI_F_GPUS, TUI_PANE_GPU, PARAM_GPUS, N_("count"), N_("number of GPUs = TP x PP x DP")),
    F(TUI_F_MODE, TUI_PANE_LAYOUT, PARAM_MODE, N_("mode"), N_("inference, training, LoRA, QLoRA")),
    F(TUI_F_BATCH, TUI_PANE_LAYOUT, PARAM_BATCH, N_("batch"), N_("sequences per replica")),
    F(TUI_F_CONTEXT, TUI_PANE_LAYOUT, PARAM_CONTEXT, N_("ctx"), N_("tokens per sequence")),
    F(TUI_F_TP, TUI_PANE_LAYOUT, PARAM_TP, N_("TP"), N_("tensor parallel: divides the heads")),
    F(TUI_F_PP, TUI_PANE_LAYOUT, PARAM_PP, N_("PP"), N_("pipeline stages: at most the layers")),
    F(TUI_F_DP, TUI_PANE_LAYOUT, PARAM_DP, N_("DP"), N_("data parallel replicas")),
    F(TUI_F_ZERO, TUI_PANE_LAYOUT, PARAM_ZERO, N_("ZeRO"), N_("ZeRO stage 0..3 (training)")),
    F(TUI_F_MICRO, TUI_PANE_LAYOUT, PARAM_MICRO_BATCHES, N_("mb"), N_("micro-batches per step (training)")),
    F(TUI_F_RECOMPUTE, TUI_PANE_LAYOUT, PARAM_RECOMPUTE, N_("recompute"), N_("activation recomputation (training)")),
    F(TUI_F_RECIPE, TUI_PANE_LAYOUT, PARAM_OPTIMIZER, N_("optimizer"), N_("optimizer recipe (training)")),
    F(TUI_F_EP, TUI_PANE_LAYOUT, PARAM_EP, N_("EP"), N_("expert parallel inside DP (MoE training)")),
    F(TUI_F_MEM_WEIGHTS, TUI_PANE_MEMORY, PARAM_COUNT, N_("weights"), N_("weights per GPU")),
    F(TUI_F_MEM_KV, TUI_PANE_MEMORY, PARAM_COUNT, N_("KV cache"), N_("KV cache per GPU")),
    F(TUI_F_MEM_ACT, TUI_PANE_MEMORY, PARAM_COUNT, N_("activations"), N_("activations per GPU")),
    F(TUI_F_MEM_GRADS, TUI_PANE_MEMORY, PARAM_COUNT, N_("gradients"), N_("gradients per GPU")),
    F(TUI_F_MEM_MASTER, TUI_PANE_MEMORY, PARAM_COUNT, N_("master"), N_("FP32 master weights per GPU")),
    F(TUI_F_MEM_OPT, TUI_PANE_MEMORY, PARAM_COUNT, N_("optimizer"), N_("optimizer state per GPU")),
    F(TUI_F_MEM_RESERVE, TUI_PANE_MEMORY, PARAM_COUNT, N_("reserve"), N_("CUDA context and fragmentation")),
    F(TUI_F_MEM_OVERHEAD, TUI_PANE_MEMORY, PARAM_COUNT, N_("buffers"), N_("the runtime's buffers per GPU")),
    F(TUI_F_MEM_TOTAL, TUI_PANE_MEMORY, PARAM_COUNT, N_("total"), N_("total per GPU against capacity")),
    F(TUI_F_MEM_HOST, TUI_PANE_MEMORY, PARAM_COUNT, N_("host RAM"), N_("layers kept in host RAM")),
    F(TUI_F_DECODE, TUI_PANE_SPEED, PARAM_COUNT, N_("decode"), N_("decode tokens/s, whole deployment")),
    F(TUI_F_DECODE_MEM, TUI_PANE_SPEED, PARAM_COUNT, N_("memory-bound"), N_("bandwidth ceiling")),
    F(TUI_F_DECODE_COMPUTE, TUI_PANE_SPEED, PARAM_COUNT, N_("compute-bound"), N_("FLOP/s ceiling")),
    F(TUI_F_PER_SEQ, TUI_PANE_SPEED, PARAM_COUNT, N_("per sequence"), N_("tokens/s of one sequence")),
    F(TUI_F_PREFILL, TUI_PANE_SPEED, PARAM_COUNT, N_("prefill"), N_("time to read the prompt")),
    F(TUI_F_TTFT, TUI_PANE_SPEED, PARAM_COUNT, N_("TTFT"), N_("time to first token at this batch")),
    F(TUI_F_TPOT, TUI_PANE_SPEED, PARAM_COUNT, N_("TPOT"), N_("time per output token of one sequence")),
    F(TUI_F_RIDGE, TUI_PANE_ROOF, PARAM_COUNT, N_("ridge"), N_("peak FLOP/s / bandwidth")),
    F(TUI_F_BSTAR, TUI_PANE_ROOF, PARAM_COUNT, N_("B*"), N_("batch where decode turns compute-bound")),
    F(TUI_F_TRAIN_STEP, TUI_PANE_SPEED, PARAM_COUNT, N_("step"), N_("time of one optimizer step")),
    F(TUI_F_TRAIN_BUBBLE, TUI_PANE_SPEED, PARAM_COUNT, N_("bubble"), N_("pipeline idle fraction")),
    F(TUI_F_TRAIN_DAYS, TUI_PANE_SPEED, PARAM_COUNT, N_("days"), N_("days to train on the tokens")),
    F(TUI_F_TRAIN_HOURS, TUI_PANE_SPEED, PARAM_COUNT, N_("GPU-hours"), N_("GPU-hours to train")),
    F(TUI_F_TRAIN_COST, TUI_PANE_SPEED, PARAM_COUNT, N_("cost"), N_("cost at the catalog price")),
    F(TUI_F_MEASURE, TUI_PANE_MEASURE, PARAM_MEASURED_BW, N_("measure"), N_("run the bundled kernels")),
};
#undef F

static const uint32_t tui_groups[] = {16, 32, 64, 128, 256};
#define TUI_MAX_GPUS 65536u

/* The parameters the explorer sets by a key rather than a field: O opens
 * a model file, a applies the Measure pane's rates, u switches GB/GiB. */
static const enum param_id tui_param_keys[] = {PARAM_MODEL_FILE, PARAM_MEASURED_BW,
                                               PARAM_MEASURED_FLOPS, PARAM_UNITS};

/* Whether the explorer sets a parameter: a field edits it or a key does
 * (the parameter table's PARAM_F_TUI says it should). */
bool tui_param_reached(enum param_id id) {
    for (int f = 0; f < TUI_F_COUNT; f++)
        if (tui_fields[f].param == id)
            return true;
    for (size_t i = 0; i < sizeof(tui_param_keys) / sizeof(tui_param_keys[0]); i++)
        if (tui_param_keys[i] == id)
            return true;
    return false;
}

/* The row of the field table. */
const struct tui_field_info *tui_field_info(enum tui_field f) {
    return &tui_fields[(unsigned)f < TUI_F_COUNT ? f : 0];
}

/* Whether a field means something in the current scenario. */
bool tui_field_applies(const struct tui_state *st, enum tui_field f) {
    bool infer = st->opt.sc.mode == ENGINE_MODE_INFER;
    const struct engine_format *wf = &st->opt.sc.weight_format;
    switch (f) {
    case TUI_F_GROUP:
        /* (Inference from a model file: the file's types, no group.) */
        return wf->block > 0 && st->opt.sc.mode != ENGINE_MODE_TRAIN &&
               !(infer && st->opt.model_file && st->opt.sc.model.file_bytes);
    case TUI_F_KVFORMAT:
    case TUI_F_MEM_KV:
    case TUI_F_DECODE:
    case TUI_F_DECODE_MEM:
    case TUI_F_DECODE_COMPUTE:
    case TUI_F_PER_SEQ:
    case TUI_F_PREFILL:
    case TUI_F_TTFT:
    case TUI_F_TPOT:
    case TUI_F_BSTAR:
        return infer;
    case TUI_F_MEM_OVERHEAD:
        /* Training: DeepSpeed's ZeRO-3 buffer of the gathered layer. */
        return infer ? st->opt.sc.serving.runtime != ENGINE_RUNTIME_PLAIN
                     : st->est.memory.zero3_working > 0;
    case TUI_F_MEM_HOST:
        return st->est.memory.host > 0 || (!infer && st->est.memory.nvme > 0);
    case TUI_F_EP:
        return !infer && st->opt.sc.model.has_arch && st->opt.sc.model.experts > 0;
    case TUI_F_ZERO:
    case TUI_F_MICRO:
    case TUI_F_RECOMPUTE:
    case TUI_F_RECIPE:
    case TUI_F_MEM_ACT:
    case TUI_F_MEM_GRADS:
    case TUI_F_MEM_MASTER:
    case TUI_F_MEM_OPT:
    case TUI_F_TRAIN_STEP:
    case TUI_F_TRAIN_BUBBLE:
    case TUI_F_TRAIN_DAYS:
    case TUI_F_TRAIN_HOURS:
    case TUI_F_TRAIN_COST:
        return !infer;
    default:
        return true;
    }
}

/* The engine key whose explanation a field shows. */
int tui_field_key(const struct tui_state *st, enum tui_field f) {
    bool infer = st->opt.sc.mode == ENGINE_MODE_INFER;
    switch (f) {
    case TUI_F_MODEL:
    case TUI_F_SIZE:
        return ENGINE_KEY_PARAMS_TOTAL;
    case TUI_F_WFORMAT:
    case TUI_F_GROUP:
    case TUI_F_MEM_WEIGHTS:
    case TUI_F_TP:
        return ENGINE_KEY_MEM_WEIGHTS;
    case TUI_F_KVFORMAT:
    case TUI_F_MEM_KV:
        return ENGINE_KEY_MEM_KV_CACHE;
    case TUI_F_CONTEXT:
        return infer ? ENGINE_KEY_MEM_KV_CACHE : ENGINE_KEY_MEM_ACTIVATIONS;
    case TUI_F_GPU:
        return ENGINE_KEY_CAPACITY;
    case TUI_F_GPUS:
    case TUI_F_DP:
    case TUI_F_MEM_TOTAL:
        return ENGINE_KEY_MEM_TOTAL;
    case TUI_F_MODE:
        return ENGINE_KEY_FITS;
    case TUI_F_BATCH:
        return infer ? ENGINE_KEY_DECODE_TOKENS : ENGINE_KEY_MEM_ACTIVATIONS;
    case TUI_F_PP:
    case TUI_F_MICRO:
    case TUI_F_TRAIN_BUBBLE:
        return infer ? ENGINE_KEY_MEM_WEIGHTS : ENGINE_KEY_TRAIN_BUBBLE;
    case TUI_F_ZERO:
    case TUI_F_RECIPE:
    case TUI_F_MEM_OPT:
        return ENGINE_KEY_MEM_OPTIMIZER;
    case TUI_F_RECOMPUTE:
    case TUI_F_MEM_ACT:
        return ENGINE_KEY_MEM_ACTIVATIONS;
    case TUI_F_EP:
        return ENGINE_KEY_MEM_TOTAL;
    case TUI_F_MEM_GRADS:
        return ENGINE_KEY_MEM_GRADIENTS;
    case TUI_F_MEM_MASTER:
        return ENGINE_KEY_MEM_MASTER;
    case TUI_F_MEM_RESERVE:
        return ENGINE_KEY_MEM_RESERVE;
    case TUI_F_DECODE:
        return ENGINE_KEY_DECODE_TOKENS;
    case TUI_F_DECODE_MEM:
        return ENGINE_KEY_DECODE_MEMORY_BOUND;
    case TUI_F_MEASURE: /* the pane redoes the bandwidth ceiling */
        return infer ? ENGINE_KEY_DECODE_MEMORY_BOUND : ENGINE_KEY_MEM_TOTAL;
    case TUI_F_DECODE_COMPUTE:
        return ENGINE_KEY_DECODE_COMPUTE_BOUND;
    case TUI_F_PER_SEQ:
        return ENGINE_KEY_DECODE_PER_SEQUENCE;
    case TUI_F_PREFILL:
        return ENGINE_KEY_PREFILL;
    case TUI_F_TTFT:
        return ENGINE_KEY_SERVING_TTFT;
    case TUI_F_TPOT:
        return ENGINE_KEY_SERVING_TPOT;
    case TUI_F_MEM_OVERHEAD:
        return st->opt.sc.mode == ENGINE_MODE_INFER ? ENGINE_KEY_MEM_OVERHEAD
                                                    : ENGINE_KEY_MEM_ZERO3_WORKING;
    case TUI_F_MEM_HOST:
        return st->opt.sc.mode != ENGINE_MODE_INFER && !(st->est.memory.host > 0)
                   ? ENGINE_KEY_MEM_NVME
                   : ENGINE_KEY_MEM_HOST;
    case TUI_F_RIDGE:
        return ENGINE_KEY_RIDGE;
    case TUI_F_BSTAR:
        return ENGINE_KEY_COMPUTE_BOUND_BATCH;
    case TUI_F_TRAIN_STEP:
        return ENGINE_KEY_TRAIN_STEP;
    case TUI_F_TRAIN_DAYS:
        return ENGINE_KEY_TRAIN_DAYS;
    case TUI_F_TRAIN_HOURS:
        return ENGINE_KEY_TRAIN_GPU_HOURS;
    case TUI_F_TRAIN_COST:
        return ENGINE_KEY_TRAIN_COST;
    default:
        return ENGINE_KEY_MEM_TOTAL;
    }
}

/* The size of slider position step: 1e8 * 10^(step/16). */
double tui_size_of_step(int step) {
    return TUI_SIZE_MIN * pow(10.0, step / 16.0);
}

/* The slider position nearest a parameter count. */
int tui_step_of_size(double params) {
    if (!(params > TUI_SIZE_MIN))
        return 0;
    int s = (int)lround(16.0 * log10(params / TUI_SIZE_MIN));
    return s > TUI_SIZE_STEPS ? TUI_SIZE_STEPS : s;
}

/* One step along the nice ladder: by one up to 16, then eight per octave. */
static uint32_t ladder(uint32_t v, int dir, bool big, uint32_t lo, uint32_t hi) {
    uint64_t n = v;
    if (big) {
        n = dir > 0 ? n * 2 : n / 2;
    } else {
        uint64_t base = dir > 0 ? n : (n > 0 ? n - 1 : 0);
        uint64_t p = 1;
        while (p * 2 <= base)
            p *= 2;
        uint64_t step = base < 16 ? 1 : p / 8;
        n = dir > 0 ? n + step : (n > step ? n - step : 0);
    }
    if (n < lo)
        n = lo;
    if (n > hi)
        n = hi;
    return (uint32_t)n;
}

/* Clamp a list index moved by delta into [0, n). */
static int list_move(int i, int delta, size_t n) {
    long v = (long)i + delta;
    if (v < 0)
        v = 0;
    if (n > 0 && v >= (long)n)
        v = (long)n - 1;
    return (int)v;
}

/* Move a format index by delta entries among those the field lists (the KV
 * cache's or the weights'); clamps at the ends. */
static int format_move(const struct catalog *cat, int i, int delta, bool kv) {
    int step = delta > 0 ? 1 : -1, left = delta > 0 ? delta : -delta, at = i;
    if (i < 0) {
        at = -1;
        step = 1;
        left = 1;
    }
    for (int c = at + step; left > 0 && c >= 0 && c < (int)cat->n_formats; c += step) {
        const struct engine_format *f = &cat->formats[c];
        if (kv ? tui_format_for_kv(f) : tui_format_for_weights(f)) {
            i = c;
            left--;
        }
    }
    return i;
}

/* Rebuild the bare-size model of the slider position. */
static void set_size_model(struct tui_state *st) {
    struct engine_model *m = &st->opt.sc.model;
    char buf[32];
    engine_model_from_size(m, tui_size_of_step(st->size_step));
    report_count(tui_size_of_step(st->size_step), buf, sizeof(buf));
    if (m->name[0] == '\0' || st->model_index >= 0)
        snprintf(m->name, sizeof(m->name), "%s (size)", buf);
    st->model_index = -1;
    st->opt.model_custom = true;
    st->opt.model_file = NULL;
    st->opt.model_path[0] = '\0';
}

/* Change the weight format's group size: switch to the catalog's format of
 * that group when there is one (int4-g32 -> int4-g128), else rename. */
static void set_group(struct tui_state *st, uint32_t block) {
    struct engine_format *wf = &st->opt.sc.weight_format;
    if (st->cat) {
        for (size_t i = 0; i < st->cat->n_formats; i++) {
            const struct engine_format *f = &st->cat->formats[i];
            if (f->block == block && f->kind == wf->kind && f->bits == wf->bits &&
                f->scale_bits == wf->scale_bits && f->zero_bits == wf->zero_bits &&
                f->super_block == wf->super_block) {
                *wf = *f;
                st->wfmt_index = (int)i;
                return;
            }
        }
    }
    wf->block = block;
    char *g = strrchr(wf->name, ' ');
    if (g && g[1] == 'g')
        *g = '\0';
    size_t len = strlen(wf->name);
    snprintf(wf->name + len, sizeof(wf->name) - len, " g%u", block);
}

/* Make tp and pp valid for the current model, keeping dp; fix gpus. */
/* Another GPU: the system no longer applies (see state.h). */
void tui_state_leave_system(struct tui_state *st) {
    st->opt.has_system = false;
    st->opt.sc.system_id[0] = '\0';
    st->opt.sc.system_gpus = 0;
    st->opt.sc.system_power_w = 0;
}

void tui_state_fix_layout(struct tui_state *st) {
    tui_state_fix_layout_within(st, tui_gpus_per_node(&st->opt.sc));
}

/* The same, with TP at most max_tp (see state.h). */
void tui_state_fix_layout_within(struct tui_state *st, uint32_t max_tp) {
    struct engine_scenario *sc = &st->opt.sc;
    if (sc->tp == 0)
        sc->tp = 1;
    if (sc->pp == 0)
        sc->pp = 1;
    if (sc->dp == 0)
        sc->dp = 1;
    while (sc->tp > 1 &&
           ((sc->model.heads > 0 && sc->model.heads % sc->tp != 0) || sc->tp > max_tp))
        sc->tp--;
    if (sc->model.layers > 0 && sc->pp > sc->model.layers)
        sc->pp = sc->model.layers;
    sc->gpus = sc->tp * sc->pp * sc->dp;
}

/* Step TP to the next divisor of n in direction dir, at most node (the GPUs
 * of one node); say why values were skipped. Returns the new value (old
 * when none). */
static uint32_t step_divisor(struct tui_state *st, const char *what, uint32_t cur, uint32_t n,
                             const char *of, uint32_t node, int dir, bool big) {
    uint32_t limit = n > 0 ? n : 1024;
    uint32_t v = cur, first_skip = 0, over_node = 0;
    int moves = big ? 3 : 1;
    while (moves-- > 0) {
        uint32_t c = v;
        for (;;) {
            c = dir > 0 ? c + 1 : c - 1;
            if (c < 1 || c > limit) {
                c = 0;
                break;
            }
            if (n == 0 ? (c & (c - 1)) == 0 : n % c == 0) {
                if (c <= node)
                    break;
                over_node = c;
                c = 0;
                break;
            }
            if (!first_skip)
                first_skip = c;
        }
        if (c == 0)
            break;
        v = c;
    }
    if (over_node) {
        snprintf(st->message, sizeof(st->message),
                 _("%s %u skipped: more than the %u GPUs of one node"), what, over_node, node);
    } else if (v == cur) {
        if (dir > 0)
            snprintf(st->message, sizeof(st->message), _("%s %u is the most: %u %s"), what, cur,
                     limit, of);
        else
            snprintf(st->message, sizeof(st->message), _("%s is at least 1"), what);
    } else if (first_skip) {
        snprintf(st->message, sizeof(st->message), _("%s %u skipped: %u %s are not divisible by %u"),
                 what, first_skip, n, of, first_skip);
    }
    return v;
}

/* The next expert-parallel degree from ep in direction dir: the divisors of
 * both the experts and DP (EP runs inside DP, Megatron-LM). */
static void step_ep(struct tui_state *st, int dir) {
    struct engine_scenario *sc = &st->opt.sc;
    uint32_t e = sc->model.experts, ep = engine_ep(sc), next = ep;
    for (uint32_t k = dir > 0 ? ep + 1 : ep - 1; k >= 1 && k <= e; k = dir > 0 ? k + 1 : k - 1) {
        if (e % k == 0 && sc->dp % k == 0) {
            next = k;
            break;
        }
    }
    if (next == ep)
        snprintf(st->message, sizeof(st->message),
                 dir > 0 ? _("EP %u is the most: it divides the %u experts and DP %u")
                         : _("EP %u is the least"),
                 ep, e, sc->dp);
    sc->ep = next;
}

/* Apply one step to a field; returns dirty flags. */
unsigned tui_field_step(struct tui_state *st, enum tui_field f, int dir, bool big) {
    struct engine_scenario *sc = &st->opt.sc;
    const struct catalog *cat = st->cat;
    int delta = dir * (big ? 10 : 1);
    st->message[0] = '\0';
    if (!tui_field_applies(st, f)) {
        snprintf(st->message, sizeof(st->message), _("%s applies to %s only"),
                 _(tui_fields[f].label),
                 sc->mode == ENGINE_MODE_INFER ? _("training") : _("inference"));
        return TUI_DIRTY_REPAINT;
    }
    if (f == TUI_F_WFORMAT && sc->mode == ENGINE_MODE_TRAIN) {
        tui_state_recipe_note(st);
        return TUI_DIRTY_REPAINT;
    }
    if (f == TUI_F_WFORMAT && sc->mode == ENGINE_MODE_INFER && st->opt.model_file &&
        sc->model.file_bytes) {
        snprintf(st->message, sizeof(st->message),
                 _("the weights are the file's tensors; pick a catalog model to choose a format"));
        return TUI_DIRTY_REPAINT;
    }
    switch (f) {
    case TUI_F_MODEL: {
        if (!cat || cat->n_models == 0)
            return TUI_DIRTY_REPAINT;
        int i = st->model_index < 0 ? 0 : list_move(st->model_index, delta, cat->n_models);
        if (i == st->model_index)
            return TUI_DIRTY_REPAINT;
        st->model_index = i;
        sc->model = cat->models[i];
        st->opt.model_custom = false;
        st->opt.model_file = NULL;
        st->opt.model_path[0] = '\0';
        st->size_step = tui_step_of_size(engine_params_total(&sc->model));
        tui_state_fix_layout(st);
        break;
    }
    case TUI_F_SIZE: {
        int s = st->size_step + dir * (big ? 8 : 1);
        s = s < 0 ? 0 : s > TUI_SIZE_STEPS ? TUI_SIZE_STEPS : s;
        if (s == st->size_step && st->model_index < 0)
            return TUI_DIRTY_REPAINT;
        st->size_step = s;
        set_size_model(st);
        tui_state_fix_layout(st);
        break;
    }
    case TUI_F_WFORMAT:
    case TUI_F_KVFORMAT: {
        int *idx = f == TUI_F_WFORMAT ? &st->wfmt_index : &st->kvfmt_index;
        if (!cat || cat->n_formats == 0)
            return TUI_DIRTY_REPAINT;
        int i = format_move(cat, *idx, delta, f == TUI_F_KVFORMAT);
        if (i == *idx)
            return TUI_DIRTY_REPAINT;
        *idx = i;
        if (f == TUI_F_WFORMAT)
            sc->weight_format = cat->formats[i];
        else
            sc->kv_format = cat->formats[i];
        break;
    }
    case TUI_F_GROUP: {
        size_t n = sizeof(tui_groups) / sizeof(tui_groups[0]), k = 0;
        while (k < n && tui_groups[k] < sc->weight_format.block)
            k++;
        int j = list_move((int)k, dir * (big ? 2 : 1), n);
        set_group(st, tui_groups[j]);
        break;
    }
    case TUI_F_GPU: {
        if (!cat || cat->n_gpus == 0)
            return TUI_DIRTY_REPAINT;
        int i = st->gpu_index < 0 ? 0 : list_move(st->gpu_index, delta, cat->n_gpus);
        if (i == st->gpu_index)
            return TUI_DIRTY_REPAINT;
        st->gpu_index = i;
        sc->gpu = cat->gpus[i];
        st->opt.gpu_custom = false;
        tui_state_leave_system(st);
        tui_state_fix_layout(st);
        break;
    }
    case TUI_F_GPUS: {
        uint32_t g = ladder(sc->gpus, dir, big, 1, TUI_MAX_GPUS);
        if (g == sc->gpus || !tui_state_set_gpus(st, g))
            return TUI_DIRTY_REPAINT;
        snprintf(st->message, sizeof(st->message), _("%u GPUs: best layout TP=%u PP=%u DP=%u"),
                 g, sc->tp, sc->pp, sc->dp);
        break;
    }
    case TUI_F_DP:
        sc->dp = ladder(sc->dp, dir, big, 1, TUI_MAX_GPUS / (sc->tp * sc->pp));
        sc->gpus = sc->tp * sc->pp * sc->dp;
        break;
    case TUI_F_MODE:
        tui_state_set_mode(st, (enum engine_mode)list_move((int)sc->mode, dir, 4));
        break;
    case TUI_F_BATCH:
        sc->batch = ladder(sc->batch, dir, big, 1, 1u << 20);
        break;
    case TUI_F_CONTEXT:
        sc->context = ladder(sc->context, dir, big, 1, 1u << 24);
        break;
    case TUI_F_TP:
    case TUI_F_PP: {
        /* TP must divide the heads; PP may split the layers unevenly (the
         * engine allows it: Llama 3.1 405B ran 126 layers on 16 stages),
         * but not exceed them. */
        bool tp = f == TUI_F_TP;
        uint32_t *v = tp ? &sc->tp : &sc->pp;
        uint32_t nv = tp ? step_divisor(st, "TP", *v, sc->model.heads, _("heads"),
                                      tui_gpus_per_node(sc), dir, big)
                         : ladder(*v, dir, big, 1, sc->model.layers ? sc->model.layers : 1024);
        if (!tp && nv == *v)
            snprintf(st->message, sizeof(st->message),
                     dir > 0 ? _("PP %u: one layer per stage") : _("PP %u is the least"), nv);
        if ((uint64_t)sc->gpus / *v * nv > TUI_MAX_GPUS) {
            snprintf(st->message, sizeof(st->message), _("%s %u would need more than %u GPUs"),
                     tp ? "TP" : "PP", nv, TUI_MAX_GPUS);
            return TUI_DIRTY_REPAINT;
        }
        *v = nv;
        sc->gpus = sc->tp * sc->pp * sc->dp;
        if (!tp && sc->model.layers % nv != 0)
            snprintf(st->message, sizeof(st->message),
                     _("PP %u: uneven stages, %u layers do not divide by %u (the last is shorter)"),
                     nv, sc->model.layers, nv);
        break;
    }
    case TUI_F_ZERO:
        sc->zero = (uint32_t)list_move((int)sc->zero, dir, 4);
        if (sc->zero > 0 && sc->dp == 1)
            snprintf(st->message, sizeof(st->message), _("ZeRO shards over DP: with DP 1 it saves nothing"));
        break;
    case TUI_F_MICRO:
        /* The micro-batches shown are the engine's (from a --global-batch
         * when one was given); stepping them sets them, and the global
         * batch then follows from them. */
        sc->micro_batches = ladder(engine_micro_batches(sc), dir, big, 1, 1u << 16);
        if (sc->global_batch) {
            snprintf(st->message, sizeof(st->message),
                     _("micro-batches set: the global batch follows (was %u sequences)"),
                     sc->global_batch);
            sc->global_batch = 0;
        }
        break;
    case TUI_F_RECOMPUTE:
        sc->recompute = (enum engine_recompute)list_move((int)sc->recompute, dir, 3);
        st->opt.recompute_given = true;
        break;
    case TUI_F_RECIPE:
        sc->recipe = (enum engine_recipe)list_move((int)sc->recipe, dir, ENGINE_RECIPE_COUNT);
        break;
    case TUI_F_EP:
        step_ep(st, dir);
        break;
    default:
        return TUI_DIRTY_REPAINT;
    }
    return TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
}

/* Keep EP valid when the mode, the model or DP change under it: the
 * largest divisor of both the experts and DP not above it (1 outside MoE
 * training), with a message naming the reason. */
static void fix_ep(struct tui_state *st) {
    struct engine_scenario *sc = &st->opt.sc;
    uint32_t ep = engine_ep(sc), e = sc->model.has_arch ? sc->model.experts : 0;
    if (ep == 1)
        return;
    uint32_t k = ep;
    if (sc->mode == ENGINE_MODE_INFER || e == 0)
        k = 1;
    while (k > 1 && (e % k || sc->dp % k))
        k--;
    if (k == ep)
        return;
    sc->ep = k;
    snprintf(st->message, sizeof(st->message),
             _("EP %u -> %u: EP divides the experts and DP (%u experts, DP %u) in MoE training"),
             ep, k, e, sc->dp);
}

/* Recompute the estimate, the verdict and the tokens/s-vs-batch curve. */
void tui_state_recompute(struct tui_state *st) {
    struct engine_scenario trial;
    struct engine_estimate e;

    /* A Measure pane run on this machine's CPU is the host bandwidth of a
     * partial offload (its copy rate), unless the user gave one. */
    struct engine_serving *v = &st->opt.sc.serving;
    double cpu_bw = st->measure.on_cpu ? tui_measure_rate(&st->measure, "copy") : 0;
    if (cpu_bw > 0 && (!(v->host_bytes_per_s > 0) || v->host_measured)) {
        v->host_bytes_per_s = cpu_bw;
        v->host_measured = true;
    }
    fix_ep(st);
    engine_estimate(&st->opt.sc, &st->est);
    st->recomputes++;
    tui_state_verdict(st);
    if (st->opt.sc.mode != ENGINE_MODE_INFER)
        return;
    trial = st->opt.sc;
    for (int i = 0; i < TUI_CURVE_POINTS; i++) {
        trial.batch = 1u << i;
        engine_estimate(&trial, &e);
        st->curve_batch[i] = trial.batch;
        st->curve_tokens[i] = e.invalid ? 0 : e.decode_tokens_per_s;
        st->curve_fits[i] = e.invalid == 0 && e.fits;
    }
}

/* Record a measured result: per test, keep the batch-1 row with the most
 * threads (the all-threads CPU row; the GPU has one). */
void tui_measure_add(struct tui_measure *m, const char *test, double bytes_per_s,
                     double threads, double batch) {
    if (!test || !(bytes_per_s > 0) || batch > 1)
        return;
    for (size_t i = 0; i < m->n_rows; i++) {
        struct tui_measure_row *r = &m->rows[i];
        if (strcmp(r->test, test) == 0) {
            if (threads >= r->threads) {
                r->bytes_per_s = bytes_per_s;
                r->threads = threads;
            }
            return;
        }
    }
    if (m->n_rows >= TUI_MEASURE_ROWS)
        return;
    struct tui_measure_row *r = &m->rows[m->n_rows++];
    snprintf(r->test, sizeof(r->test), "%s", test);
    r->bytes_per_s = bytes_per_s;
    r->threads = threads;
    r->batch = batch;
}

/* The measured rate of a test, or 0. */
double tui_measure_rate(const struct tui_measure *m, const char *test) {
    for (size_t i = 0; i < m->n_rows; i++)
        if (strcmp(m->rows[i].test, test) == 0)
            return m->rows[i].bytes_per_s;
    return 0;
}

/* The first field of a pane that applies now, or TUI_F_COUNT. */
enum tui_field tui_field_first(const struct tui_state *st, enum tui_pane p) {
    for (int f = 0; f < TUI_F_COUNT; f++)
        if (tui_field_info((enum tui_field)f)->pane == p && tui_field_applies(st, f))
            return (enum tui_field)f;
    return TUI_F_COUNT;
}

/* Keep every pane's focused field on one that applies (after a mode change). */
void tui_state_fix_focus(struct tui_state *st) {
    for (int p = 0; p < TUI_PANE_COUNT; p++) {
        enum tui_field f = st->focus[p];
        if (f >= TUI_F_COUNT || tui_field_info(f)->pane != (enum tui_pane)p ||
            !tui_field_applies(st, f))
            st->focus[p] = tui_field_first(st, (enum tui_pane)p);
    }
}
