/*
 * cli_limits.c: the inverse questions of `vramlab plan` (engine.md): the
 * largest batch and longest context that fit, the fewest GPUs of this kind,
 * and the largest model of the same catalog family that fits; as the text
 * section "Limits on this hardware" and the JSON object "limits".
 */
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"
#include "tui/i18n.h"
#include "tui/json.h"
#include "tui/report.h"

/* The inverse questions (engine.md): largest batch and longest context that
 * fit this plan (its GPUs, layout and training settings), fewest GPUs of
 * this kind (the engine's search over the layout space: TP, PP, DP and the
 * training knobs no option set, up to PLAN_MAX_GPUS), and the largest model
 * of the same catalog family that fits this layout. */
#define PLAN_MAX_GPUS ENGINE_FEWEST_MAX_GPUS
#define PLAN_MAX_BATCH (1u << 20) /* engine_max_batch's bound */
void plan_limits_compute(const struct catalog *cat, const struct options *o,
                         struct plan_limits *l) {
    const struct engine_scenario *sc_in = &o->sc;
    struct engine_scenario pinned = *sc_in;
    const struct engine_scenario *sc = &pinned;
    struct engine_estimate e;

    memset(l, 0, sizeof(*l));
    /* llama.cpp's --fit and Ollama choose the GPU layers for each scenario
     * (so everything "fits"): the limits hold those layers where they are. */
    engine_estimate(sc_in, &e);
    if (e.gpu_layers_fitted && !e.invalid) {
        pinned.serving.gpu_layers = (int32_t)e.serving.gpu_layers;
        pinned.serving.gpu_layers_given = true;
        pinned.serving.fit = false;
    }
    l->max_batch = engine_max_batch(sc);
    l->max_batch_bound = l->max_batch == PLAN_MAX_BATCH;
    l->batch_fits = l->max_batch >= sc->batch;
    l->max_context = engine_max_context_capped(sc, &l->max_context_capped);
    l->max_context_bound = l->max_context == ENGINE_MAX_CONTEXT_SEARCH;
    /* Partial offload: the most layers on the GPUs that fit (plain,
     * llama.cpp and Ollama offload; vLLM does not; not in training). */
    l->max_gpu_layers = -2;
    if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime != ENGINE_RUNTIME_VLLM &&
        sc->serving.runtime != ENGINE_RUNTIME_SGLANG && sc->serving.runtime != ENGINE_RUNTIME_TRTLLM &&
        !sc->gpu.unified_memory) {
        struct engine_scenario s = *sc;
        s.serving.fit = false;
        l->max_gpu_layers = engine_max_gpu_layers(&s);
    }
    /* Fewest GPUs that hold every layer (no offload). */
    struct engine_scenario whole = *sc_in;
    if (whole.mode == ENGINE_MODE_INFER) {
        whole.serving.gpu_layers_given = false;
        whole.serving.cpu_moe_layers = 0;
        whole.serving.fit = false;
    }
    /* The model's published global batch set the micro-batches of this
     * layout (plan's note): the search keeps that batch at every d. */
    if (whole.mode != ENGINE_MODE_INFER && !whole.global_batch && o->recipe_batch_sequences &&
        whole.batch && o->recipe_batch_sequences % whole.batch == 0)
        whole.global_batch = o->recipe_batch_sequences;
    struct engine_fewest_query q = {.space = {ENGINE_RANK_THROUGHPUT, o->knobs_free},
                                    .max_gpus = PLAN_MAX_GPUS};
    struct engine_fewest f;
    l->min_gpus = engine_fewest_gpus(&whole, &q, NULL, &f);
    l->min_status = f.status;
    l->min_layout = f.layout;
    l->min_knobs = whole.mode == ENGINE_MODE_INFER ? 0 : o->knobs_free;
    if (!cat || !sc->model.family[0] || !strcmp(sc->model.family, "custom"))
        return;
    struct engine_model *fam = malloc(cat->n_models * sizeof(*fam) + 1);
    const struct engine_model **src = malloc(cat->n_models * sizeof(*src) + 1);
    size_t n = 0;
    if (fam && src)
        for (size_t i = 0; i < cat->n_models; i++)
            if (!strcmp(cat->models[i].family, sc->model.family)) {
                src[n] = &cat->models[i];
                fam[n++] = cat->models[i];
            }
    l->has_family = n > 0;
    int k = n ? engine_largest_fitting(sc, fam, n) : -1;
    l->largest = k >= 0 ? src[k] : NULL;
    free(fam);
    free(src);
}

/* The name of a fewest-GPU search's outcome, for the JSON. */
static const char *fewest_status_name(enum engine_fewest_status s) {
    switch (s) {
    case ENGINE_FEWEST_FOUND:
        return "found";
    case ENGINE_FEWEST_NONE_UP_TO_MAX:
        return "none_up_to_max";
    case ENGINE_FEWEST_NONE_AT_ALL:
        return "none_at_all";
    default:
        return "cancelled";
    }
}

/* The knobs a search chose, as a JSON array of their option names. */
static void knobs_json(struct json_writer *w, unsigned knobs) {
    json_begin_array(w);
    if (knobs & ENGINE_KNOB_ZERO)
        json_text(w, "zero");
    if (knobs & ENGINE_KNOB_SEQUENCE_PARALLEL)
        json_text(w, "sequence_parallel");
    if (knobs & ENGINE_KNOB_RECOMPUTE)
        json_text(w, "recompute");
    if (knobs & ENGINE_KNOB_CP)
        json_text(w, "cp");
    json_end_array(w);
}

/* The limits as the JSON object "limits" (null where nothing fits). */
void plan_limits_json(struct json_writer *w, const struct engine_scenario *sc,
                             const struct plan_limits *l) {
    json_key(w, "limits");
    json_begin_object(w);
    json_key(w, "max_batch");
    l->max_batch ? json_number(w, l->max_batch) : json_none(w);
    json_key(w, "max_concurrency");
    l->max_batch && sc->mode == ENGINE_MODE_INFER ? json_number(w, l->max_batch) : json_none(w);
    json_key(w, "max_context");
    l->max_context ? json_number(w, l->max_context) : json_none(w);
    json_key(w, "batch_fits");
    json_bool(w, l->batch_fits);
    json_key(w, "max_context_is_model_max");
    json_bool(w, l->max_context_capped);
    json_key(w, "max_gpu_layers");
    l->max_gpu_layers >= 0 ? json_number(w, l->max_gpu_layers) : json_none(w);
    json_key(w, "min_gpus");
    l->min_gpus ? json_number(w, l->min_gpus) : json_none(w);
    json_key(w, "min_gpus_searched_up_to");
    json_number(w, PLAN_MAX_GPUS);
    json_key(w, "min_gpus_status");
    json_text(w, fewest_status_name(l->min_status));
    json_key(w, "min_gpus_varies");
    knobs_json(w, l->min_knobs);
    json_key(w, "min_gpus_layout");
    if (l->min_gpus) {
        const struct engine_layout *m = &l->min_layout;
        json_begin_object(w);
        json_key(w, "tp");
        json_number(w, m->tp);
        json_key(w, "pp");
        json_number(w, m->pp);
        json_key(w, "dp");
        json_number(w, m->dp);
        if (sc->mode != ENGINE_MODE_INFER) {
            json_key(w, "cp");
            json_number(w, m->cp);
            json_key(w, "zero");
            json_number(w, m->zero);
            json_key(w, "sequence_parallel");
            json_bool(w, m->sequence_parallel);
            json_key(w, "recompute");
            json_text(w, engine_recompute_name(m->recompute));
            json_key(w, "micro_batches");
            json_number(w, m->micro_batches);
        }
        json_end_object(w);
    } else {
        json_none(w);
    }
    json_key(w, "family");
    l->has_family ? json_text(w, sc->model.family) : json_none(w);
    json_key(w, "largest_in_family");
    l->largest ? json_text(w, l->largest->id) : json_none(w);
    json_end_object(w);
}

/* "more than N" for a limit that reached its search bound. */
static void limit_more_than(double bound, const char *unit, char *v, size_t len) {
    char n[32];
    report_int(bound, n, sizeof(n));
    snprintf(v, len, _("more than %s%s"), n, unit);
}

/* The limits section of the text breakdown. */
void plan_limits_text(FILE *f, const struct options *o, const struct plan_limits *l) {
    char v[64], note[160];
    const struct engine_scenario *sc = &o->sc;
    bool infer = sc->mode == ENGINE_MODE_INFER;

    fputs(_("\nLimits on this hardware\n"), f);
    if (l->max_batch_bound)
        limit_more_than(PLAN_MAX_BATCH, "", v, sizeof(v));
    else if (l->max_batch)
        report_int(l->max_batch, v, sizeof(v));
    else
        snprintf(v, sizeof(v), "%s", _("none"));
    if (infer) {
        char nc[24];
        report_int(sc->context, nc, sizeof(nc));
        snprintf(note, sizeof(note), _("sequences of %s tokens at once"), nc);
        plan_line(f, _("most concurrent sequences"), v, note);
    } else {
        plan_line(f, _("largest batch that fits"), v, NULL);
    }
    note[0] = '\0';
    if (!l->batch_fits && l->max_batch > 0) {
        /* The batch itself does not fit at this context: say so, not a
         * context of a token or two. */
        char nb[24], nm[24], nc[24], nx[24];
        report_int(sc->batch, nb, sizeof(nb));
        report_int(l->max_batch, nm, sizeof(nm));
        report_int(sc->context, nc, sizeof(nc));
        report_int(l->max_context, nx, sizeof(nx));
        snprintf(v, sizeof(v), "%s", _("batch too large"));
        if (l->max_context > 0)
            snprintf(note, sizeof(note),
                     _("%s sequences do not fit at %s tokens, at most %s do; with %s the longest "
                       "context is %s"),
                     nb, nc, nm, nb, nx);
        else /* not even a token each (issue 27 item 6): never "a context of 0" */
            snprintf(note, sizeof(note),
                     _("%s sequences do not fit at %s tokens, at most %s do; with %s not even "
                       "one token each fits"),
                     nb, nc, nm, nb);
    } else if (l->max_context_bound)
        limit_more_than(ENGINE_MAX_CONTEXT_SEARCH, "", v, sizeof(v));
    else if (l->max_context)
        report_int(l->max_context, v, sizeof(v));
    else
        snprintf(v, sizeof(v), "%s", _("none"));
    if (l->max_context_capped)
        snprintf(note, sizeof(note), "%s", _("the model's maximum: memory allows more"));
    plan_line(f, _("longest context that fits"), v, note);
    bool ggml = sc->serving.runtime == ENGINE_RUNTIME_LLAMACPP ||
                sc->serving.runtime == ENGINE_RUNTIME_OLLAMA;
    if (l->max_gpu_layers >= -1 && (ggml || sc->serving.gpu_layers_given ||
                                    l->max_gpu_layers < (int32_t)sc->model.layers)) {
        char nl[24];
        report_int(sc->model.layers, nl, sizeof(nl));
        if (l->max_gpu_layers >= 0) {
            report_int(l->max_gpu_layers, v, sizeof(v));
            if (l->max_gpu_layers == (int32_t)sc->model.layers)
                snprintf(note, sizeof(note), _("of %s: all of them"), nl);
            else
                snprintf(note, sizeof(note), _("of %s (the rest in host RAM)"), nl);
        } else {
            snprintf(v, sizeof(v), "%s", _("none"));
            snprintf(note, sizeof(note), "%s", _("the buffers alone do not fit"));
        }
        plan_line(f, _("most layers on the GPU"), v, note);
    }
    if (l->min_gpus) {
        const struct engine_layout *m = &l->min_layout;
        char lay[96];
        size_t k = m->cp > 1 ? (size_t)snprintf(lay, sizeof(lay), "TP %u x CP %u x PP %u x DP %u",
                                                m->tp, m->cp, m->pp, m->dp)
                             : (size_t)snprintf(lay, sizeof(lay), "TP %u x PP %u x DP %u", m->tp,
                                                m->pp, m->dp);
        if (!infer && k < sizeof(lay))
            snprintf(lay + k, sizeof(lay) - k, _(", ZeRO %u%s, %s recompute"), m->zero,
                     m->sequence_parallel ? _(", sequence parallel") : "",
                     _(engine_recompute_name(m->recompute)));
        report_int(l->min_gpus, v, sizeof(v));
        plan_line(f, _("fewest GPUs of this kind"), v, lay);
    } else if (l->min_status == ENGINE_FEWEST_NONE_AT_ALL) {
        plan_line(f, _("fewest GPUs of this kind"), _("none"),
                  infer ? _("no TP x PP holds one replica; more GPUs only add replicas")
                        : _("no layout of any count fits"));
    } else {
        limit_more_than(PLAN_MAX_GPUS, _(" GPUs"), v, sizeof(v));
        plan_line(f, _("fewest GPUs of this kind"), v, NULL);
    }
    if (l->has_family)
        plan_line(f, _("largest of its family that fits"), l->largest ? l->largest->id : _("none"),
                  NULL);
}
