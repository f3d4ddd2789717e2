/*
 * cli_search.c: `vramlab search --gpus N`, every (t,p,d) layout of N GPUs
 * for the scenario, ranked by engine_search_layouts (fitting first, then by
 * throughput), each rejected one with the reason it fails.
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
          "for the scenario: layouts that fit first, then by throughput (decode\n"
          "tokens/s in inference, trained tokens/s in training). Rejected layouts\n"
          "say why (t does not divide the heads, t exceeds a node, p exceeds\n"
          "the layers, does not fit). Do not give --tp, --pp or --dp.\n"
          "\n"
          "Scenario options:\n"),
          f);
    options_print_help(f);
    fputs(_("  --json                     print one JSON object\n"), f);
}

/* Run the search, growing the array until every candidate is in it. */
static struct engine_layout *search_run(const struct engine_scenario *sc, uint32_t gpus,
                                        size_t *n_out) {
    size_t cap = 256, n;
    struct engine_layout *v = NULL;

    for (;;) {
        struct engine_layout *nv = realloc(v, cap * sizeof(*v));
        if (!nv) {
            free(v);
            return NULL;
        }
        v = nv;
        n = engine_search_layouts(sc, gpus, v, cap);
        if (n <= cap)
            break;
        cap = n;
    }
    *n_out = n;
    return v;
}

/* Write the ranked layouts as JSON. */
static void search_json(FILE *f, const struct options *o, const struct engine_layout *v, size_t n) {
    struct json_writer w;

    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "model");
    json_string(&w, o->sc.model.id);
    json_key(&w, "gpu");
    json_string(&w, o->sc.gpu.id);
    json_key(&w, "mode");
    json_string(&w, engine_mode_name(o->sc.mode));
    json_key(&w, "gpus");
    json_number(&w, o->sc.gpus);
    json_key(&w, "candidates");
    json_number(&w, (double)n);
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
        json_key(&w, "fits");
        json_bool(&w, v[i].fits);
        json_key(&w, "rejected");
        if (v[i].reject == ENGINE_REJECT_NONE)
            json_null(&w);
        else
            json_string(&w, engine_reject_text(v[i].reject));
        json_key(&w, "memory_total");
        json_number(&w, v[i].memory_total);
        json_key(&w, "tokens_per_s");
        json_number(&w, v[i].throughput);
        json_key(&w, "step_seconds");
        json_number(&w, v[i].step_seconds);
        json_key(&w, "bubble_fraction");
        json_number(&w, v[i].bubble_fraction);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
}

/* Write the ranked layouts as an aligned table. */
static void search_text(FILE *f, const struct options *o, const struct engine_layout *v, size_t n) {
    size_t fitting = 0;

    for (size_t i = 0; i < n; i++)
        fitting += v[i].fits && v[i].reject == ENGINE_REJECT_NONE;
    plan_write_header(f, o, false);
    fprintf(f, _("\n%zu layouts of %u GPUs, %zu fit (ranked: fitting first, then throughput)\n\n"), n,
            o->sc.gpus, fitting);
    fprintf(f, "  %4s %5s %5s %6s %14s %16s %12s  %s\n", _("rank"), "TP", "PP", "DP", _("memory/GPU"),
            _("tokens/s"), _("step"), _("verdict"));
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
        if (isfinite(v[i].step_seconds))
            report_seconds(v[i].step_seconds, step, sizeof(step));
        else
            snprintf(step, sizeof(step), "-");
        fprintf(f, "  %4zu %5u %5u %6u %14s %16s %12s  %s\n", i + 1, v[i].tp, v[i].pp, v[i].dp, mem,
                toks, step, verdict);
    }
}

/* Whether --gpus was given explicitly. */
static bool search_has_gpus(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--gpus") || !strncmp(argv[i], "--gpus=", 7))
            return true;
    }
    return false;
}

/* `vramlab search`: rank the layouts of --gpus N. */
int cmd_search(int argc, char **argv) {
    struct cli_run run;
    struct engine_layout *v;
    size_t n = 0;
    int rc;

    if (cli_wants_help(argc, argv)) {
        search_usage(stdout);
        return 0;
    }
    if (!search_has_gpus(argc, argv)) {
        fputs(_("vramlab: search needs --gpus N (see vramlab search --help)\n"), stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    rc = cli_begin(&run, argc, argv);
    if (rc != 0)
        return rc;
    v = search_run(&run.o.sc, run.o.sc.gpus, &n);
    if (!v) {
        fputs(_("vramlab: out of memory\n"), stderr);
        cli_end(&run);
        return 1;
    }
    if (run.o.json)
        search_json(run.out, &run.o, v, n);
    else
        search_text(run.out, &run.o, v, n);
    free(v);
    return cli_finish(&run);
}
