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
 * fit, fewest GPUs of this kind (searched up to PLAN_MAX_GPUS), and the
 * largest model of the same catalog family that fits this layout. */
#define PLAN_MAX_GPUS 1024
void plan_limits_compute(const struct catalog *cat, const struct engine_scenario *sc,
                         struct plan_limits *l) {
    struct engine_scenario best;

    memset(l, 0, sizeof(*l));
    l->max_batch = engine_max_batch(sc);
    l->max_context = engine_max_context(sc);
    l->min_gpus = engine_min_gpus(sc, PLAN_MAX_GPUS, &best);
    if (l->min_gpus) {
        l->tp = best.tp;
        l->pp = best.pp;
        l->dp = best.dp;
    }
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

/* The limits as the JSON object "limits" (null where nothing fits). */
void plan_limits_json(struct json_writer *w, const struct engine_scenario *sc,
                             const struct plan_limits *l) {
    json_key(w, "limits");
    json_begin_object(w);
    json_key(w, "max_batch");
    l->max_batch ? json_number(w, l->max_batch) : json_null(w);
    json_key(w, "max_context");
    l->max_context ? json_number(w, l->max_context) : json_null(w);
    json_key(w, "min_gpus");
    l->min_gpus ? json_number(w, l->min_gpus) : json_null(w);
    json_key(w, "min_gpus_layout");
    if (l->min_gpus) {
        json_begin_object(w);
        json_key(w, "tp");
        json_number(w, l->tp);
        json_key(w, "pp");
        json_number(w, l->pp);
        json_key(w, "dp");
        json_number(w, l->dp);
        json_end_object(w);
    } else {
        json_null(w);
    }
    json_key(w, "family");
    l->has_family ? json_string(w, sc->model.family) : json_null(w);
    json_key(w, "largest_in_family");
    l->largest ? json_string(w, l->largest->id) : json_null(w);
    json_end_object(w);
}

/* The limits section of the text breakdown. */
void plan_limits_text(FILE *f, const struct options *o, const struct plan_limits *l) {
    char v[64];

    fputs(_("\nLimits on this hardware\n"), f);
    if (l->max_batch)
        report_int(l->max_batch, v, sizeof(v));
    else
        snprintf(v, sizeof(v), "%s", _("none"));
    plan_line(f, _("largest batch that fits"), v, NULL);
    if (l->max_context)
        report_int(l->max_context, v, sizeof(v));
    else
        snprintf(v, sizeof(v), "%s", _("none"));
    plan_line(f, _("longest context that fits"), v, NULL);
    if (l->min_gpus) {
        char note[64];
        report_int(l->min_gpus, v, sizeof(v));
        snprintf(note, sizeof(note), "TP %u x PP %u x DP %u", l->tp, l->pp, l->dp);
        plan_line(f, _("fewest GPUs of this kind"), v, note);
    } else {
        char n[24];
        report_int(PLAN_MAX_GPUS, n, sizeof(n));
        snprintf(v, sizeof(v), _("over %s"), n);
        plan_line(f, _("fewest GPUs of this kind"), v, NULL);
    }
    if (l->has_family)
        plan_line(f, _("largest of its family that fits"), l->largest ? l->largest->id : _("none"),
                  NULL);
    (void)o;
}
