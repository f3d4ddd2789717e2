/*
 * cli_search.c: `vramlab search --gpus N`, every (t,p,d) layout of N GPUs
 * for the scenario, ranked by engine_search_space (fitting first, then by
 * --rank), each rejected one with the reason it fails; in training each
 * with the ZeRO stage, sequence parallelism and recompute the engine chose
 * for it among those no option set.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"
#include "tui/i18n.h"
#include "tui/json.h"
#include "tui/report.h"

/* Print `vramlab search --help`. */
static void search_usage(FILE *f) {
    fputs(_("usage: vramlab search [scenario options] --gpus N [--json]\n"
          "\n"
          "Rank every tensor x pipeline x data parallel layout (t*p*d = N) of N GPUs\n"
          "for the scenario: layouts that fit first, then by --rank: throughput (the\n"
          "default: decode tokens/s in inference, trained tokens/s in training),\n"
          "latency (tokens/s of one sequence; training: the shortest step) or memory\n"
          "(least per GPU). Rejected layouts\n"
          "say why (t does not divide the heads, t exceeds a node, p exceeds\n"
          "the layers, does not fit). --tp, --pp or --dp restrict the search to the\n"
          "layouts with that degree (e.g. --gpus 8 --tp 2: TP 2 with any PP x DP).\n"
          "\n"
          "Scenario options:\n"),
          f);
    options_print_help(f, OPTIONS_HELP_JSON);
}

/* Run the search, growing the array until every candidate is in it. */
static struct engine_layout *search_run(const struct engine_scenario *sc, uint32_t gpus,
                                        const struct engine_space *space, size_t *n_out) {
    size_t cap = 256, n;
    struct engine_layout *v = NULL;

    for (;;) {
        struct engine_layout *nv = realloc(v, cap * sizeof(*v));
        if (!nv) {
            free(v);
            return NULL;
        }
        v = nv;
        n = engine_search_space(sc, gpus, space, v, cap);
        if (n <= cap)
            break;
        cap = n;
    }
    *n_out = n;
    return v;
}

/* The degrees --tp, --pp, --dp restrict the search to (0: any). */
struct search_only {
    uint32_t tp, pp, dp;
    size_t all; /* layouts before the restriction */
};

/* Read which of --tp, --pp, --dp were given (their values are o's). */
static void search_only_read(const struct options *o,
                             struct search_only *only) {
    only->tp = o->given.set[PARAM_TP] ? o->sc.tp : 0;
    only->pp = o->given.set[PARAM_PP] ? o->sc.pp : 0;
    only->dp = o->given.set[PARAM_DP] ? o->sc.dp : 0;
}

/* Keep the layouts that have the given degrees; returns how many. */
static size_t search_only_filter(const struct search_only *only, struct engine_layout *v,
                                 size_t n) {
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        if ((only->tp && v[i].tp != only->tp) || (only->pp && v[i].pp != only->pp) ||
            (only->dp && v[i].dp != only->dp))
            continue;
        v[k++] = v[i];
    }
    return k;
}

/* One restricted degree as JSON: its value, or null when free. */
static void search_only_json(struct json_writer *w, const char *key, uint32_t v) {
    json_key(w, key);
    if (v)
        json_number(w, v);
    else
        json_none(w);
}

/* Write the ranked layouts as JSON. */
static void search_json(FILE *f, const struct options *o, const struct search_only *only,
                        const struct cli_notes *notes, const struct engine_layout *v, size_t n) {
    struct json_writer w;

    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "model");
    json_text(&w, o->sc.model.id);
    json_key(&w, "gpu");
    json_text(&w, o->sc.gpu.id);
    json_key(&w, "mode");
    json_text(&w, engine_mode_name(o->sc.mode));
    json_key(&w, "gpus");
    json_number(&w, o->sc.gpus);
    json_key(&w, "rank");
    json_text(&w, engine_rank_name(o->rank));
    json_key(&w, "runtime");
    json_text(&w, engine_runtime_name(o->sc.serving.runtime));
    json_key(&w, "candidates");
    json_number(&w, (double)n);
    json_key(&w, "all_candidates");
    json_number(&w, (double)only->all);
    json_key(&w, "only");
    json_begin_object(&w);
    search_only_json(&w, "tp", only->tp);
    search_only_json(&w, "pp", only->pp);
    search_only_json(&w, "dp", only->dp);
    json_end_object(&w);
    if (o->sc.mode != ENGINE_MODE_INFER) {
        json_key(&w, "varies");
        json_begin_array(&w);
        if (o->knobs_free & ENGINE_KNOB_ZERO)
            json_text(&w, "zero");
        if (o->knobs_free & ENGINE_KNOB_SEQUENCE_PARALLEL)
            json_text(&w, "sequence_parallel");
        if (o->knobs_free & ENGINE_KNOB_RECOMPUTE)
            json_text(&w, "recompute");
        if (o->knobs_free & ENGINE_KNOB_CP)
            json_text(&w, "cp");
        json_end_array(&w);
    }
    json_key(&w, "warnings");
    json_begin_array(&w);
    for (size_t i = 0; i < notes->n; i++)
        json_text(&w, notes->text[i]);
    json_end_array(&w);
    json_key(&w, "layouts");
    json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        json_begin_object(&w);
        json_key(&w, "rank");
        json_number(&w, (double)(i + 1));
        json_key(&w, "tp");
        json_number(&w, v[i].tp);
        json_key(&w, "pp");
        json_number(&w, v[i].pp);
        json_key(&w, "dp");
        json_number(&w, v[i].dp);
        if (o->sc.mode != ENGINE_MODE_INFER) {
            json_key(&w, "cp");
            json_number(&w, v[i].cp);
            json_key(&w, "zero");
            json_number(&w, v[i].zero);
            json_key(&w, "sequence_parallel");
            json_bool(&w, v[i].sequence_parallel);
            json_key(&w, "recompute");
            json_text(&w, engine_recompute_name(v[i].recompute));
            json_key(&w, "micro_batches");
            json_number(&w, v[i].micro_batches);
        }
        json_key(&w, "fits");
        json_bool(&w, v[i].fits);
        json_key(&w, "rejected");
        if (v[i].reject == ENGINE_REJECT_NONE)
            json_none(&w);
        else
            json_text(&w, engine_reject_text(v[i].reject));
        json_key(&w, "memory_total");
        json_number(&w, v[i].memory_total);
        json_key(&w, "tokens_per_s");
        json_number(&w, v[i].throughput);
        json_key(&w, "tokens_per_s_per_sequence");
        json_number(&w, v[i].per_sequence);
        json_key(&w, "step_seconds");
        json_number(&w, v[i].step_seconds);
        json_key(&w, "bubble_fraction");
        json_number(&w, v[i].bubble_fraction);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
}

/* The count line: "3 layouts of 8 GPUs, 2 fit", singular where one. */
static void search_counts(FILE *f, const struct options *o, const struct search_only *only,
                          size_t n, size_t fitting) {
    char layouts[48], gpus[48], fit[48];

    if (n == 1)
        snprintf(layouts, sizeof(layouts), "%s", _("1 layout"));
    else
        snprintf(layouts, sizeof(layouts), _("%zu layouts"), n);
    if (o->sc.gpus == 1)
        snprintf(gpus, sizeof(gpus), "%s", _("1 GPU"));
    else
        snprintf(gpus, sizeof(gpus), _("%u GPUs"), o->sc.gpus);
    if (fitting == 1)
        snprintf(fit, sizeof(fit), "%s", _("1 fits"));
    else
        snprintf(fit, sizeof(fit), _("%zu fit"), fitting);
    if (o->rank == ENGINE_RANK_LATENCY)
        fprintf(f, _("\n%s of %s, %s (ranked: fitting first, then per-sequence speed)\n"),
                layouts, gpus, fit);
    else if (o->rank == ENGINE_RANK_MEMORY)
        fprintf(f, _("\n%s of %s, %s (ranked: fitting first, then least memory per GPU)\n"),
                layouts, gpus, fit);
    else
        fprintf(f, _("\n%s of %s, %s (ranked: fitting first, then throughput)\n"), layouts,
                gpus, fit);
    if (o->sc.mode != ENGINE_MODE_INFER && o->knobs_free)
        fputs(_("ZeRO, SP and recompute: the best of each layout, and CP a degree of the search, "
                "where no option set them\n"),
              f);
    if (only->tp || only->pp || only->dp) {
        char what[64] = "";
        size_t k = 0;
        if (only->tp)
            k += (size_t)snprintf(what + k, sizeof(what) - k, " TP %u", only->tp);
        if (only->pp && k < sizeof(what))
            k += (size_t)snprintf(what + k, sizeof(what) - k, " PP %u", only->pp);
        if (only->dp && k < sizeof(what))
            snprintf(what + k, sizeof(what) - k, " DP %u", only->dp);
        fprintf(f, _("only layouts with%s (as given), of %zu in all\n"), what, only->all);
    }
    fputc('\n', f);
}

/* Write the ranked layouts as an aligned table. */
static void search_text(FILE *f, const struct options *o, const struct search_only *only,
                        const struct cli_notes *notes, const struct engine_layout *v, size_t n) {
    size_t fitting = 0;

    for (size_t i = 0; i < n; i++)
        fitting += v[i].fits && v[i].reject == ENGINE_REJECT_NONE;
    plan_write_header(f, o, false);
    search_counts(f, o, only, n, fitting);
    bool infer = o->sc.mode == ENGINE_MODE_INFER;
    if (infer)
        fprintf(f, "  %4s %5s %5s %6s %14s %16s %12s  %s\n", _("rank"), "TP", "PP", "DP",
                _("memory/GPU"), _("tokens/s"), _("per seq."), _("verdict"));
    else
        fprintf(f, "  %4s %5s %4s %5s %6s %4s %3s %-9s %14s %16s %12s  %s\n", _("rank"), "TP",
                "CP", "PP", "DP", "ZeRO", "SP", _("recompute"), _("memory/GPU"), _("tokens/s"),
                _("step"), _("verdict"));
    for (size_t i = 0; i < n; i++) {
        char mem[32], toks[48], step[32];
        const char *verdict = v[i].reject == ENGINE_REJECT_NONE
                                  ? (v[i].fits ? _("fits") : _("does not fit"))
                                  : engine_reject_text(v[i].reject);
        if (isfinite(v[i].memory_total) && v[i].memory_total > 0)
            report_bytes(v[i].memory_total, o->units, mem, sizeof(mem));
        else
            snprintf(mem, sizeof(mem), "-");
        if (isfinite(v[i].throughput) && v[i].throughput > 0)
            report_number(v[i].throughput, toks, sizeof(toks));
        else
            snprintf(toks, sizeof(toks), "-");
        if (infer && isfinite(v[i].per_sequence) && v[i].per_sequence > 0)
            report_number(v[i].per_sequence, step, sizeof(step));
        else if (!infer && isfinite(v[i].step_seconds))
            report_seconds(v[i].step_seconds, step, sizeof(step));
        else
            snprintf(step, sizeof(step), "-");
        if (infer)
            fprintf(f, "  %4zu %5u %5u %6u %*s %*s %*s  %s\n", i + 1, v[i].tp, v[i].pp, v[i].dp,
                    report_pad(mem, 14), mem, report_pad(toks, 16), toks, report_pad(step, 12),
                    step, verdict);
        else
            fprintf(f, "  %4zu %5u %4u %5u %6u %4u %3s %-9s %*s %*s %*s  %s\n", i + 1, v[i].tp,
                    v[i].cp, v[i].pp, v[i].dp, v[i].zero, v[i].sequence_parallel ? _("on") : "-",
                    _(engine_recompute_name(v[i].recompute)), report_pad(mem, 14), mem,
                    report_pad(toks, 16), toks, report_pad(step, 12), step, verdict);
    }
    if (notes->n > 0)
        fputs(_("\nWarnings\n"), f);
    for (size_t i = 0; i < notes->n; i++)
        fprintf(f, "  - %s\n", notes->text[i]);
}

/* `vramlab search`: rank the layouts of --gpus N. */
int cmd_search(int argc, char **argv) {
    struct cli_run run;
    struct engine_layout *v;
    struct search_only only;
    size_t n = 0;
    int rc;

    if (cli_wants_help(argc, argv)) {
        search_usage(stdout);
        return 0;
    }
    rc = cli_begin(&run, argc, argv);
    if (rc != 0)
        return rc;
    if (!run.o.given.set[PARAM_GPUS]) {
        fputs(_("vramlab: search needs --gpus N (see vramlab search --help)\n"), stderr);
        cli_end(&run);
        return VRAMLAB_EXIT_USAGE;
    }
    struct engine_space space = {run.o.rank, run.o.knobs_free};
    v = search_run(&run.o.sc, run.o.sc.gpus, &space, &n);
    if (!v) {
        fputs(_("vramlab: out of memory\n"), stderr);
        cli_end(&run);
        return 1;
    }
    search_only_read(&run.o, &only);
    only.all = n;
    n = search_only_filter(&only, v, n);
    if (run.o.json)
        search_json(run.out, &run.o, &only, &run.notes, v, n);
    else
        search_text(run.out, &run.o, &only, &run.notes, v, n);
    free(v);
    return cli_finish(&run);
}
