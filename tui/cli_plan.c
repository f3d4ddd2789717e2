/*
 * cli_plan.c: `vramlab plan`, one scenario's full breakdown as an aligned
 * text table or one JSON object (product.md "Headless commands").
 *
 * The JSON keys of product.md are a contract: they come from the figure
 * registry (engine/figures.h), which also drives the text output and
 * --explain, so all show the same figures. JSON numbers are the engine's
 * doubles in base units (bytes, seconds, FLOP, parameters), exact; null
 * where a figure does not apply (engine_key_applies, or NaN); the explain
 * object is English with decimal GB (machine-stable). The text uses the
 * one formatter with --units and the locale. The whole output is built in memory and
 * written only when complete: nothing half-written on error.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/figures.h"
#include "tui/cli.h"
#include "tui/json.h"
#include "tui/lesson_text.h"
#include "tui/i18n.h"
#include "tui/report.h"

/* The reader's conventions for the text output: --units, the locale. */
static const struct engine_numfmt *plan_numfmt(const struct options *o) {
    return i18n_numfmt(o->units == UNITS_GIB);
}

/* The JSON object and member of a figure's path ("memory", "kv_cache";
 * "", "capacity"). */
static void plan_split_path(const char *path, char *group, size_t gl, const char **name) {
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : 0;
    if (n >= gl)
        n = gl - 1;
    memcpy(group, path, n);
    group[n] = '\0';
    *name = dot ? dot + 1 : path;
}

/* Write the scenario echo object (inputs, for scripts that log runs). */
static void plan_json_scenario(struct json_writer *w, const struct options *o) {
    const struct engine_scenario *sc = &o->sc;

    json_key(w, "scenario");
    json_begin_object(w);
    json_key(w, "model");
    json_text(w, sc->model.id);
    json_key(w, "model_name");
    json_text(w, sc->model.name);
    json_key(w, "format");
    json_text(w, sc->weight_format.id);
    json_key(w, "kv_format");
    json_text(w, sc->kv_format.id);
    json_key(w, "gpu");
    json_text(w, sc->gpu.id);
    json_key(w, "system");
    if (sc->system_gpus > 0)
        json_text(w, sc->system_id);
    else
        json_none(w);
    json_key(w, "systems");
    if (sc->system_gpus > 0 && sc->gpus > 0)
        json_number(w, ceil((double)sc->gpus / sc->system_gpus));
    else
        json_none(w);
    json_key(w, "mode");
    json_text(w, engine_mode_name(sc->mode));
    json_key(w, "batch");
    json_number(w, sc->batch);
    json_key(w, "context");
    json_number(w, sc->context);
    json_key(w, "prompt");
    json_number(w, sc->prompt ? sc->prompt : sc->context);
    json_key(w, "zero");
    json_number(w, sc->zero);
    json_key(w, "memory_convention");
    json_text(w, engine_memory_convention_name(sc->memory_convention));
    json_key(w, "offload");
    json_text(w, engine_offload_name(sc->offload));
    json_key(w, "micro_batches");
    json_number(w, sc->micro_batches);
    json_key(w, "ep");
    json_number(w, engine_ep(sc));
    json_key(w, "cp");
    json_number(w, engine_cp(sc));
    json_key(w, "moe_imbalance");
    json_number(w, engine_moe_imbalance(sc));
    json_key(w, "fine_tune");
    json_bool(w, sc->fine_tune);
    json_key(w, "interleave");
    json_number(w, sc->interleave);
    json_key(w, "recompute");
    json_text(w, engine_recompute_name(sc->recompute));
    json_key(w, "recompute_method");
    json_text(w, engine_recompute_method_name(sc->recompute_method));
    json_key(w, "recompute_num_layers");
    json_number(w, sc->recompute_num_layers);
    json_key(w, "recompute_modules");
    json_begin_array(w);
    for (unsigned i = 0; sc->mode != ENGINE_MODE_INFER && sc->recompute == ENGINE_RECOMPUTE_SELECTIVE &&
                         i < ENGINE_RECOMPUTE_MODULE_COUNT;
         i++)
        if (engine_recompute_modules(sc) & (1u << i))
            json_text(w, engine_recompute_module_name(i));
    json_end_array(w);
    json_key(w, "optimizer");
    json_text(w, engine_recipe_info(sc->recipe)->id);
    json_key(w, "flops_model");
    json_text(w, engine_flops_model_name(sc->flops_model));
    json_key(w, "mfu_given");
    json_bool(w, sc->mfu > 0);
    json_key(w, "runtime");
    json_text(w, engine_runtime_name(sc->serving.runtime));
    {
        char who[48];
        engine_runtime_profile_name(&sc->serving, who, sizeof who);
        json_key(w, "runtime_profile");
        json_text(w, who);
    }
    json_key(w, "request_rate");
    if (sc->serving.request_rate > 0)
        json_number(w, sc->serving.request_rate);
    else
        json_none(w);
    json_key(w, "units");
    json_text(w, o->units == UNITS_GIB ? "gib" : "gb");
    json_end_object(w);
}

/* The model file's object (--model-file): its path and the tensor types,
 * as gguf-dump names them, with their tensors, parameters and bytes. */
static void plan_json_model_file(struct json_writer *w, const struct catalog_model_file *mf) {
    json_key(w, "model");
    json_begin_object(w);
    json_key(w, "file");
    json_text(w, mf->path);
    json_key(w, "format");
    json_text(w, mf->format);
    json_key(w, "version");
    json_number(w, mf->version);
    json_key(w, "architecture");
    json_text(w, mf->arch);
    json_key(w, "files");
    json_number(w, mf->shards);
    json_key(w, "file_bytes");
    json_number(w, mf->file_size);
    json_key(w, "quantization");
    json_text(w, mf->quant);
    json_key(w, "tensors");
    json_number(w, (double)mf->tensors);
    json_key(w, "parameters");
    json_number(w, mf->params);
    json_key(w, "bytes");
    json_number(w, mf->bytes);
    json_key(w, "bits_per_weight");
    json_number(w, mf->params > 0 ? mf->bytes * 8.0 / mf->params : 0);
    json_key(w, "tensor_types");
    json_begin_array(w);
    for (size_t i = 0; i < mf->n_types; i++) {
        json_begin_object(w);
        json_key(w, "type");
        json_text(w, mf->types[i].name);
        json_key(w, "tensors");
        json_number(w, (double)mf->types[i].tensors);
        json_key(w, "parameters");
        json_number(w, mf->types[i].params);
        json_key(w, "bytes");
        json_number(w, mf->types[i].bytes);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

/* Write the whole plan as one JSON object. */
void plan_write_json(FILE *f, const struct options *o, const struct engine_estimate *est,
                     const struct plan_limits *limits, const struct cli_notes *notes) {
    const struct engine_scenario *sc = &o->sc;
    struct json_writer w;
    bool open_group = false;

    json_init(&w, f);
    json_begin_object(&w);
    plan_json_scenario(&w, o);
    if (o->model_file)
        plan_json_model_file(&w, o->model_file);
    char group[32] = "";
    for (size_t i = 0; i < engine_figure_count(); i++) {
        enum engine_key k = engine_figure_at(i);
        const struct engine_figure *fig = engine_figure(k);
        char g[32];
        const char *name;
        plan_split_path(fig->path, g, sizeof(g), &name);
        /* Consecutive figures of an object share it. */
        if (open_group && strcmp(group, g) != 0) {
            json_end_object(&w);
            open_group = false;
        }
        if (!open_group && g[0]) {
            json_key(&w, g);
            json_begin_object(&w);
            open_group = true;
            snprintf(group, sizeof(group), "%s", g);
        }
        json_key(&w, name);
        /* fits is a JSON boolean (product.md); every other figure a number
         * (runtime_refuses 0 or 1), null where it does not apply. */
        if (k == ENGINE_KEY_FITS)
            json_bool(&w, engine_figure_value(sc, est, k) != 0);
        else
            json_number(&w, engine_figure_value(sc, est, k));
        if (k == ENGINE_KEY_MEM_TOTAL) {
            /* --memory-convention peak: the phase of the step that peaks. */
            json_key(&w, "peak_phase");
            if (est->peak_phase != ENGINE_PEAK_NONE)
                json_text(&w, engine_peak_phase_name(est->peak_phase));
            else
                json_none(&w);
        }
        if (k == ENGINE_KEY_FITS) {
            json_key(&w, "layout");
            json_begin_object(&w);
            json_key(&w, "tp");
            json_number(&w, est->tp);
            json_key(&w, "pp");
            json_number(&w, est->pp);
            json_key(&w, "dp");
            json_number(&w, est->dp);
            json_key(&w, "gpus");
            json_number(&w, est->gpus);
            json_end_object(&w);
        }
    }
    if (open_group)
        json_end_object(&w);

    /* The explanations in English with decimal GB, whatever the locale
     * and --units: machine-stable (docs/figures.md). */
    json_key(&w, "explain");
    json_begin_object(&w);
    for (size_t i = 0; i < engine_figure_count(); i++) {
        enum engine_key k = engine_figure_at(i);
        struct engine_explanation ex;
        json_key(&w, engine_key_name(k));
        if (!engine_key_applies(sc, k)) {
            json_none(&w);
            continue;
        }
        engine_explain(sc, est, k, &ex);
        json_begin_object(&w);
        json_key(&w, "formula");
        json_text(&w, ex.formula ? ex.formula : "");
        json_key(&w, "values");
        json_text(&w, ex.values);
        json_key(&w, "source");
        json_text(&w, ex.source ? ex.source : "");
        json_end_object(&w);
    }
    json_end_object(&w);

    if (limits)
        plan_limits_json(&w, sc, limits);

    json_key(&w, "warnings");
    json_begin_array(&w);
    for (size_t i = 0; notes && i < notes->n; i++)
        json_text(&w, notes->text[i]);
    for (int b = 0; b < ENGINE_WARNING_COUNT; b++) {
        char text[512];
        if (!(est->warnings & (1u << b)))
            continue;
        /* the JSON in English and decimal marks, as its explanations */
        struct engine_numfmt en;
        engine_numfmt_english(&en);
        en.binary = o->units == UNITS_GIB;
        engine_warning_text(&en, sc, est, (enum engine_warning)(1u << b), text, sizeof(text));
        json_text(&w, text);
    }
    json_end_array(&w);
    json_end_object(&w);
}

/* Under a figure with --explain: its key as a caption cites it
 * ({memory.kv_cache}), then its formula, values and source in the
 * reader's language and units. */
static void plan_explain_lines(FILE *f, const struct options *o, const struct engine_estimate *est,
                               enum engine_key k) {
    struct engine_explanation ex;
    engine_explain_for(plan_numfmt(o), &o->sc, est, k, &ex);
    fprintf(f, "      {%s}\n      = %s\n      = %s\n      [%s]\n", ex.key, ex.formula, ex.values,
            ex.source);
}

/* The text lines of one group of the registry: the figures the report
 * shows (engine_figure_shown), each with its explanation under --explain. */
static void plan_text_section(FILE *f, const struct options *o, const struct engine_estimate *est,
                              enum engine_figure_group group) {
    for (size_t i = 0; i < engine_figure_count(); i++) {
        enum engine_key k = engine_figure_at(i);
        char value[64];
        if (engine_figure(k)->group != group || !engine_figure_shown(&o->sc, est, k))
            continue;
        engine_figure_format(plan_numfmt(o), &o->sc, est, k, value, sizeof(value));
        plan_line(f, engine_figure_label(plan_numfmt(o), k), value, NULL);
        if (o->explain)
            plan_explain_lines(f, o, est, k);
        /* Under the peak convention, the phase that makes the peak. */
        if (k == ENGINE_KEY_MEM_TOTAL && est->peak_phase != ENGINE_PEAK_NONE) {
            /* The phase names, for the catalogue (engine_peak_phase_name's). */
            static const char *const phase[ENGINE_PEAK_PHASE_COUNT] = {
                "", N_("loss forward"), N_("loss backward"), N_("layer backward"),
                N_("optimizer step")};
            plan_line(f, _("peak at"), _(phase[est->peak_phase]), NULL);
        }
    }
}

/* The training budget of the title line (issue 25 item 8): the tokens and
 * the global batch, each with where it comes from: given, or the default
 * and its source (pre-training: Hoffmann et al. 2022's 20 tokens per
 * parameter; fine-tuning, LoRA and QLoRA: a fine-tuning set, engine.h's
 * ENGINE_FINE_TUNE_TOKENS; the batch: the model's published one, or one
 * micro-batch per replica). */
static void plan_header_budget(FILE *f, const struct options *o) {
    const struct engine_scenario *sc = &o->sc;
    double params = sc->model.has_arch ? engine_params_total(&sc->model) : sc->model.params_size;
    if (o->model_file)
        params = o->model_file->params;
    char nt[32], ns[24], nc[24];
    report_count(engine_training_tokens(sc, params), nt, sizeof(nt));
    switch (engine_training_tokens_source(sc)) {
    case ENGINE_TOKENS_CHINCHILLA:
        fprintf(f, _(": %s tokens (20 per parameter, Hoffmann et al. 2022)"), nt);
        break;
    case ENGINE_TOKENS_FINE_TUNE:
        fprintf(f, _(": %s tokens (a fine-tuning set, not a pre-training run)"), nt);
        break;
    case ENGINE_TOKENS_GIVEN:
        fprintf(f, _(": %s tokens (given)"), nt);
        break;
    }
    double seqs = (double)sc->batch * engine_micro_batches(sc) * sc->dp;
    report_int((uint64_t)seqs, ns, sizeof(ns));
    report_int(sc->context, nc, sizeof(nc));
    if (sc->global_batch)
        fprintf(f, _(", global batch %s x %s (--global-batch)"), ns, nc);
    else if (o->recipe_batch_sequences)
        fprintf(f, _(", global batch %s x %s (%s's published)"), ns, nc,
                sc->model.name[0] ? sc->model.name : sc->model.id);
    else
        fprintf(f, _(", global batch %s x %s (micro-batch x micro-batches x DP)"), ns, nc);
}

/* Write the scenario header shared by plan and search (search leaves the
 * layout out: it is what is being searched). */
void plan_write_header(FILE *f, const struct options *o, bool with_layout) {
    const struct engine_scenario *sc = &o->sc;
    char count[32];

    double params =
        sc->model.has_arch ? engine_params_total(&sc->model) : sc->model.params_size;
    if (o->model_file)
        params = o->model_file->params;
    report_count(params, count, sizeof(count));
    char name[96]; /* a bare size in the reader's words ("modelo de 7B parámetros") */
    lesson_model_name(i18n_numfmt(false), &sc->model, name, sizeof(name));
    fprintf(f, _("%s (%s params) | "), name, count);
    /* Full training stores the weights as the recipe says (--format has no
     * effect there); the KV cache is an inference figure. */
    if (o->model_file && sc->mode == ENGINE_MODE_INFER)
        fprintf(f, _("weights as in the file, %s KV cache"), sc->kv_format.name);
    else if (sc->mode == ENGINE_MODE_TRAIN && engine_train_fp8(sc))
        fprintf(f, _("%s (%g B weights), %s GEMMs"), engine_recipe_info(sc->recipe)->id,
                engine_recipe_info(sc->recipe)->weights, sc->weight_format.name);
    else if (sc->mode == ENGINE_MODE_TRAIN)
        fprintf(f, _("%s (%g B weights)"), engine_recipe_info(sc->recipe)->id,
                engine_recipe_info(sc->recipe)->weights);
    else
        fprintf(f, _("%s weights, %s KV cache"), sc->weight_format.name, sc->kv_format.name);
    char ng[24];
    report_int(sc->gpus, ng, sizeof(ng));
    fprintf(f, " | %s x %s", ng, sc->gpu.name);
    if (o->has_system && sc->system_gpus > 0) {
        char ns[24];
        report_int((uint64_t)ceil((double)sc->gpus / sc->system_gpus), ns, sizeof(ns));
        fprintf(f, _(" in %s x %s"), ns, o->system.name);
    }
    fputs(" | ", f);
    if (with_layout && engine_cp(sc) > 1)
        fprintf(f, "TP %u x CP %u x PP %u x DP %u | ", sc->tp, engine_cp(sc), sc->pp, sc->dp);
    else if (with_layout)
        fprintf(f, "TP %u x PP %u x DP %u | ", sc->tp, sc->pp, sc->dp);
    else if (engine_cp(sc) > 1)
        fprintf(f, _("CP %u in every layout | "), engine_cp(sc));
    if (engine_ep(sc) > 1)
        fprintf(f, _("EP %u inside DP | "), engine_ep(sc));
    if (sc->mode == ENGINE_MODE_INFER && sc->serving.runtime != ENGINE_RUNTIME_PLAIN)
        fprintf(f, "%s | ", engine_runtime_name(sc->serving.runtime));
    /* the mode as --mode spells it, in the reader's language */
    static const char *const mode_words[] __attribute__((unused)) = {N_("infer"), N_("train"),
                                                                     N_("lora"), N_("qlora")};
    fprintf(f, "%s", _(engine_mode_name(sc->mode)));
    if (sc->mode != ENGINE_MODE_INFER)
        plan_header_budget(f, o);
    fputc('\n', f);
    char nb[24], nc[24], np[24];
    report_int(sc->batch, nb, sizeof(nb));
    report_int(sc->context, nc, sizeof(nc));
    report_int(sc->prompt ? sc->prompt : sc->context, np, sizeof(np));
    fprintf(f, _("batch %s, context %s tokens"), nb, nc);
    if (sc->mode == ENGINE_MODE_INFER)
        fprintf(f, _(", prompt %s"), np);
    else if (engine_micro_batches(sc) == 1)
        fprintf(f, _(", %s recompute, %s, ZeRO %u, 1 micro-batch"),
                _(engine_recompute_name(sc->recompute)), engine_recipe_info(sc->recipe)->id, sc->zero);
    else
        fprintf(f, _(", %s recompute, %s, ZeRO %u, %u micro-batches"),
                _(engine_recompute_name(sc->recompute)), engine_recipe_info(sc->recipe)->id, sc->zero,
                engine_micro_batches(sc));
    if (sc->mode != ENGINE_MODE_INFER && sc->recompute == ENGINE_RECOMPUTE_FULL &&
        (sc->recompute_method != ENGINE_RECOMPUTE_UNIFORM || sc->recompute_num_layers > 1)) {
        if (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK)
            fprintf(f, _(" (full recompute of %u layers per stage, --recompute-method block)"),
                    sc->recompute_num_layers ? sc->recompute_num_layers : sc->model.layers);
        else
            fprintf(f, _(" (a checkpoint every %u layers, --recompute-method uniform)"),
                    sc->recompute_num_layers);
    }
    /* The training-state accounting and offload, when not the defaults. */
    if (sc->mode != ENGINE_MODE_INFER &&
        (sc->memory_convention != ENGINE_MEMCONV_PAPER || sc->offload != ENGINE_OFFLOAD_NONE))
        fprintf(f, _("; memory as %s counts it, offload %s"),
                engine_memory_convention_name(sc->memory_convention),
                engine_offload_name(sc->offload));
    fputc('\n', f);
    if (o->model_file) {
        char mix[256], size[48];
        const struct catalog_model_file *mf = o->model_file;
        report_bytes(mf->bytes, o->units, size, sizeof(size));
        catalog_model_file_mix(mf, mix, sizeof(mix));
        if (strcmp(mf->format, "gguf") == 0)
            fprintf(f, _("model file %s (GGUF v%u, %s): %s of tensors: %s\n"), mf->path,
                    mf->version, mf->arch, size, mix);
        else {
            char what[160];
            if (mf->shards > 1)
                snprintf(what, sizeof(what), _("safetensors, %u shards, %s"), mf->shards,
                         mf->arch);
            else
                snprintf(what, sizeof(what), _("safetensors, %s"), mf->arch);
            if (mf->quant[0]) {
                size_t n = strlen(what);
                snprintf(what + n, sizeof(what) - n, ", %s", mf->quant);
            }
            fprintf(f, _("model file %s (%s): %s of tensors: %s\n"), mf->path, what, size, mix);
        }
    }
}

/* Write the readable breakdown: verdict, memory, speed, training, warnings. */
void plan_write_text(FILE *f, const struct options *o, const struct engine_estimate *est,
                     const struct plan_limits *limits, const struct cli_notes *notes) {
    char total[48], cap[48], spare[48], pct[48];
    bool any = false;

    const struct engine_numfmt *nf = plan_numfmt(o);
    plan_write_header(f, o, true);
    engine_figure_format(nf, &o->sc, est, ENGINE_KEY_MEM_TOTAL, total, sizeof(total));
    engine_figure_format(nf, &o->sc, est, ENGINE_KEY_CAPACITY, cap, sizeof(cap));
    engine_format(nf, ENGINE_UNIT_BYTES, fabs(est->spare_bytes), spare, sizeof(spare));
    engine_figure_format(nf, &o->sc, est, ENGINE_KEY_MEM_RATIO, pct, sizeof(pct));
    if (est->fits)
        fprintf(f, _("\nFITS: %s of %s per GPU (%s), %s spare\n"), total, cap, pct, spare);
    else
        fprintf(f, _("\nDOES NOT FIT: %s needed per GPU, %s available (%s), %s short\n"), total,
                cap, pct, spare);
    /* The verdict line's figures (fits, the ratio, what is spare). */
    for (size_t i = 0; o->explain && i < engine_figure_count(); i++) {
        enum engine_key k = engine_figure_at(i);
        char value[64];
        if (engine_figure(k)->group != ENGINE_GROUP_VERDICT)
            continue;
        engine_figure_format(nf, &o->sc, est, k, value, sizeof(value));
        plan_line(f, engine_figure_label(nf, k), value, NULL);
        plan_explain_lines(f, o, est, k);
    }

    fputs(_("\nMemory per GPU\n"), f);
    plan_text_section(f, o, est, ENGINE_GROUP_MEMORY);
    fputs(_("\nParameters\n"), f);
    plan_text_section(f, o, est, ENGINE_GROUP_PARAMS);
    fputs(_("\nSpeed ceilings (whole deployment)\n"), f);
    plan_text_section(f, o, est, ENGINE_GROUP_SPEED);
    if (o->sc.mode == ENGINE_MODE_INFER) {
        char who[48];
        engine_runtime_profile_name(&o->sc.serving, who, sizeof who);
        fprintf(f, _("\nServing (%s)\n"), who);
        plan_text_section(f, o, est, ENGINE_GROUP_SERVING);
    }
    if (o->sc.mode != ENGINE_MODE_INFER) {
        fputs(_("\nTraining\n"), f);
        plan_text_section(f, o, est, ENGINE_GROUP_TRAINING);
    }
    if (limits)
        plan_limits_text(f, o, limits);
    for (size_t i = 0; notes && i < notes->n; i++) {
        if (!any)
            fputs(_("\nWarnings\n"), f);
        any = true;
        fprintf(f, "  - %s\n", notes->text[i]);
    }
    for (int b = 0; b < ENGINE_WARNING_COUNT; b++) {
        char text[512];
        if (!(est->warnings & (1u << b)))
            continue;
        if (!any)
            fputs(_("\nWarnings\n"), f);
        any = true;
        report_warning(&o->sc, est, (enum engine_warning)(1u << b), o->units, text, sizeof(text));
        fprintf(f, "  - %s\n", text);
    }
}

/* Print `vramlab plan --help`. */
static void plan_usage(FILE *f) {
    fputs(_("usage: vramlab plan [scenario options] [--json]\n"
            "\n"
            "One scenario's full breakdown: whether it fits, per-GPU memory, speed\n"
            "ceilings, training time and cost, warnings. --json prints one object\n"
            "(keys in vramlab(1)); numbers are in bytes, seconds, FLOP.\n"
            "\n"
            "Scenario options:\n"),
          f);
    options_print_help(f, OPTIONS_HELP_JSON | OPTIONS_HELP_EXPLAIN);
}

/* --gpus N alone took the engine's best layout (tui/options_serving.c):
 * a note says which. */
static void plan_layout_note(struct cli_run *run) {
    static char note[320];
    const struct engine_scenario *sc = &run->o.sc;
    if (!run->o.layout_picked || run->o.scenario_file)
        return;
    snprintf(note, sizeof(note),
             run->o.layout_fits
                 ? _("layout TP %u x PP %u x DP %u: the best of %u GPUs that fits (by %s; "
                     "--tp/--pp/--dp choose another)")
                 : _("layout TP %u x PP %u x DP %u: no layout of %u GPUs fits, this one needs the "
                     "least memory (by %s)"),
             sc->tp, sc->pp, sc->dp, sc->gpus, engine_rank_name(run->o.rank));
    /* The training knobs the pick changed (no option had set them). */
    unsigned k = run->o.knobs_picked;
    char knobs[96] = "";
    size_t n = 0;
    if ((k & ENGINE_KNOB_CP) && n < sizeof(knobs))
        n += (size_t)snprintf(knobs + n, sizeof(knobs) - n, "%sCP %u", n ? ", " : "", sc->cp);
    if ((k & ENGINE_KNOB_ZERO) && n < sizeof(knobs))
        n += (size_t)snprintf(knobs + n, sizeof(knobs) - n, "%sZeRO %u", n ? ", " : "", sc->zero);
    if ((k & ENGINE_KNOB_SEQUENCE_PARALLEL) && n < sizeof(knobs))
        n += (size_t)snprintf(knobs + n, sizeof(knobs) - n, "%s%s", n ? ", " : "",
                              sc->sequence_parallel ? _("sequence parallel")
                                                    : _("no sequence parallelism"));
    if ((k & ENGINE_KNOB_RECOMPUTE) && n < sizeof(knobs))
        snprintf(knobs + n, sizeof(knobs) - n, _("%s%s recompute"), n ? ", " : "",
                 _(engine_recompute_name(sc->recompute)));
    size_t m = strlen(note);
    if (knobs[0] && m < sizeof(note))
        snprintf(note + m, sizeof(note) - m,
                 _("; with %s (--zero, --sequence-parallel, --recompute keep yours)"), knobs);
    if (run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = note;
}

/* Training with neither --global-batch nor --micro-batches: the model's
 * published global batch set the micro-batches; a note says so. */
static void plan_recipe_batch_note(struct cli_run *run) {
    static char note[256];
    const struct engine_scenario *sc = &run->o.sc;
    if (!run->o.recipe_batch_sequences)
        return;
    char nt[24], ns[24];
    report_count(sc->model.global_batch_tokens, nt, sizeof(nt));
    report_int(run->o.recipe_batch_sequences, ns, sizeof(ns));
    snprintf(note, sizeof(note),
             _("batch: %s's published global batch, %s tokens = %s sequences of %u: %u "
               "micro-batches of %u on each of %u replicas (--global-batch or --micro-batches "
               "to choose)"),
             sc->model.name[0] ? sc->model.name : sc->model.id, nt, ns, sc->context,
             sc->micro_batches, sc->batch, sc->dp);
    if (run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = note;
}

/* --max-concurrency: the batch becomes the most sequences of --context
 * tokens that fit; a note says how many. */
static void plan_max_concurrency(struct cli_run *run) {
    static char note[160];
    const struct engine_scenario *sc = &run->o.sc;
    if (!run->o.max_concurrency)
        return;
    uint32_t b = run->o.max_concurrency_batch; /* the options set the batch to it */
    char nb[24], nc[24];
    report_int(b, nb, sizeof(nb));
    report_int(sc->context, nc, sizeof(nc));
    if (b == 0)
        snprintf(note, sizeof(note),
                 _("--max-concurrency: not even one sequence of %s tokens fits"), nc);
    else
        snprintf(note, sizeof(note),
                 _("--max-concurrency: %s sequences of %s tokens at once, the most that fit"), nb,
                 nc);
    if (run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = note;
}

/* `vramlab plan`: parse, estimate, print. */
int cmd_plan(int argc, char **argv) {
    struct cli_run run;
    struct engine_estimate est;
    int rc;

    if (cli_wants_help(argc, argv)) {
        plan_usage(stdout);
        return 0;
    }
    rc = cli_begin(&run, argc, argv);
    if (rc != 0)
        return rc;
    plan_layout_note(&run);
    plan_recipe_batch_note(&run);
    plan_max_concurrency(&run);
    engine_estimate(&run.o.sc, &est);
    if (est.invalid) {
        cli_report_invalid(&run.o.sc, est.invalid);
        cli_end(&run);
        return VRAMLAB_EXIT_USAGE;
    }
    struct plan_limits limits;
    plan_limits_compute(&run.cat, &run.o, &limits);
    if (run.o.json)
        plan_write_json(run.out, &run.o, &est, &limits, &run.notes);
    else
        plan_write_text(run.out, &run.o, &est, &limits, &run.notes);
    return cli_finish(&run);
}
