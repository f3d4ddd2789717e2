/*
 * explain.c: every figure's explanation (the formula, the values of this
 * scenario substituted, the source), in a reader's language and units
 * (engine_explain_for) or in English with decimal GB for the JSON
 * (engine_explain). The formula, label and source are the registry's
 * (engine/figures.c); the values are written by explain_memory.c,
 * explain_speed.c and explain_training.c through explain_text.c: every
 * number through the one formatter (engine/format.c), every word through
 * the reader's translate function.
 */
#include <stdio.h>
#include <string.h>

#include "engine/explain_internal.h"

/* Explain one figure for a reader (see figures.h). */
void engine_explain_for(const struct engine_numfmt *f, const struct engine_scenario *sc,
                        const struct engine_estimate *e, enum engine_key k,
                        struct engine_explanation *out) {
    struct engine_numfmt english;
    struct xp buf, *x = &buf;
    memset(out, 0, sizeof *out);
    if ((unsigned)k >= ENGINE_KEY_COUNT)
        return;
    xp_begin(x, &english, f, sc, e, out->values, sizeof out->values);
    f = x->f;
    const struct engine_figure *fig = engine_figure(k);
    out->key = fig->path;
    out->label = engine_numfmt_tr(f, fig->label);
    out->formula = engine_numfmt_tr(f, fig->formula);
    out->source = engine_numfmt_tr(f, fig->source);
    if (e->invalid)
        xp_set(x, "%s", XT("the scenario is invalid"));
    else if (!engine_key_applies(sc, k) && sc->system_gpus == 0 &&
             (k == ENGINE_KEY_TRAIN_SYSTEM_ENERGY || k == ENGINE_KEY_DECODE_SYSTEM_JOULES_PER_TOKEN))
        xp_set(x, "%s", XT("needs a system (--system ID)"));
    else if (!engine_key_applies(sc, k) && !engine_pos(sc->gpu.tdp_w) &&
             (k == ENGINE_KEY_DECODE_JOULES_PER_TOKEN || k == ENGINE_KEY_TRAIN_ENERGY ||
              k == ENGINE_KEY_TRAIN_ENERGY_PER_TOKEN))
        xp_set(x, "%s", XT("needs the device's board power (a catalogue GPU's TDP)"));
    else if (!engine_key_applies(sc, k) && sc->mode == ENGINE_MODE_INFER &&
             k == ENGINE_KEY_SERVING_CUDA_GRAPHS && sc->serving.runtime == ENGINE_RUNTIME_VLLM)
        xp_set(x, "%s",
               XT("not counted: vLLM before 0.21 captures its CUDA graphs after the KV cache is "
                  "sized, out of the 1 - gpu_memory_utilization headroom"));
    else if (!engine_key_applies(sc, k) && sc->mode == ENGINE_MODE_INFER &&
             (k == ENGINE_KEY_SERVING_STEADY_CONCURRENCY ||
              k == ENGINE_KEY_SERVING_STEADY_TOKENS || k == ENGINE_KEY_SERVING_STEADY_RATE))
        xp_set(x, XT("needs output tokens: a --prompt shorter than --context %u"), sc->context);
    else if (!engine_key_applies(sc, k)) {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        xp_set(x, XT("does not apply to this scenario (mode %s, runtime %s)"),
               engine_mode_name(sc->mode), who);
    }
    else if (!explain_memory(x, k) && !explain_speed(x, k) && !explain_training(x, k))
        out->values[0] = '\0';
}

/* Explain one figure in English with decimal GB (see engine.h). */
void engine_explain(const struct engine_scenario *sc, const struct engine_estimate *e,
                    enum engine_key k, struct engine_explanation *out) {
    struct engine_numfmt f;
    engine_numfmt_english(&f);
    engine_explain_for(&f, sc, e, k, out);
}
