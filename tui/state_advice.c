/*
 * state_advice.c: the explorer's choices made for the user and its advice.
 *
 * When the GPU count changes, the layout becomes the engine's one best
 * layout of that count (engine_best_layout_in: fitting first, then by
 * --rank); TP, PP and DP stay editable afterwards. The verdict line says
 * whether the scenario fits and, when it does not, what to try: the cheap
 * training knobs, a standard narrower format (one the GPU computes
 * natively, such as FP8 on a GPU with FP8 FLOP/s, then INT4 g32), a better
 * layout of the same GPUs, or the fewest GPUs above those on screen
 * (engine_fewest_gpus), both over the whole layout space with the training
 * knobs free, naming the knobs that change. Those two searches run on the
 * advice worker, a thread of its own, while the screen stays live (a
 * spinner in the verdict until the answer arrives); the engine is pure and
 * re-entrant, and the worker keeps its own search cache. Without the
 * worker (tests, benchmarks) they run at once. QLoRA switches the weight
 * format to NF4 and back. The format pickers list what applies to each.
 */
#include "config.h"

#include "tui/state.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

/* GPUs per node of the scenario (the engine's rule). */
uint32_t tui_gpus_per_node(const struct engine_scenario *sc) {
    if (sc->gpus_per_node)
        return sc->gpus_per_node;
    return sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1;
}

/* Set the GPU count and take the best layout for it (the explorer's knobs
 * stay as the user set them); false when no layout of that count is valid
 * (the scenario is left as it was). */
bool tui_state_set_gpus(struct tui_state *st, uint32_t gpus) {
    struct engine_scenario *sc = &st->opt.sc;
    struct engine_space space = {st->opt.rank, 0};
    struct engine_layout l;
    if (!engine_best_layout_in(sc, gpus, &space, &l))
        return false;
    engine_layout_apply(sc, &l);
    return true;
}

/* Whether a catalog format is listed for the KV cache only: a KV-only
 * format (catalog_format_kv_only, refused for weights everywhere), or an
 * alias kept for --kv-format (the fp8 alias of fp8-e4m3, which the weights
 * picker lists under its own id). */
static bool format_kv_only(const struct engine_format *f) {
    const char *src = f->source ? f->source : "";
    return catalog_format_kv_only(f) || strstr(src, "as used for the KV cache") != NULL;
}

/* Whether a format can hold the KV cache: plain floats (16-bit, FP8), INT8
 * and the KV entries; not the weight-only block formats (GGUF, NF4...). */
bool tui_format_for_kv(const struct engine_format *f) {
    if (format_kv_only(f))
        return true;
    if (f->kind == ENGINE_FMT_FLOAT)
        return f->bits >= 8 && f->bits <= 16;
    return strcmp(f->id, "int8") == 0;
}

/* Whether a format can hold the weights (every entry but the KV-only). */
bool tui_format_for_weights(const struct engine_format *f) {
    return !format_kv_only(f);
}

/* Catalog index of a format id, or -1. */
static int format_index(const struct catalog *c, const char *id) {
    for (size_t i = 0; c && i < c->n_formats; i++)
        if (strcmp(c->formats[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* Change the mode: entering QLoRA switches the weights to NF4 (the base it
 * quantizes), leaving it restores the format it replaced; recompute
 * follows the mode (full for LoRA and QLoRA, selective otherwise) unless
 * the user set it. */
void tui_state_set_mode(struct tui_state *st, enum engine_mode mode) {
    struct engine_scenario *sc = &st->opt.sc;
    enum engine_mode old = sc->mode;
    sc->mode = mode;
    if (old == mode)
        return;
    /* One rule whatever the path (--mode, t, the picker, a lesson): the
     * mode's recompute unless the user chose one (options_build.c). */
    if (!st->opt.recompute_given)
        sc->recompute = mode == ENGINE_MODE_LORA || mode == ENGINE_MODE_QLORA
                            ? ENGINE_RECOMPUTE_FULL
                            : ENGINE_RECOMPUTE_SELECTIVE;
    if (mode == ENGINE_MODE_QLORA) {
        int i = format_index(st->cat, "nf4");
        if (i < 0 || strcmp(sc->weight_format.id, "nf4") == 0)
            return;
        st->qlora_saved_format = sc->weight_format;
        st->qlora_saved_index = st->wfmt_index;
        st->qlora_switched = true;
        sc->weight_format = st->cat->formats[i];
        st->wfmt_index = i;
        snprintf(st->message, sizeof(st->message), _("QLoRA: base weights in %s"),
                 sc->weight_format.name);
    } else if (old == ENGINE_MODE_QLORA && st->qlora_switched) {
        st->qlora_switched = false;
        if (strcmp(sc->weight_format.id, "nf4") != 0)
            return; /* the user chose another format since */
        sc->weight_format = st->qlora_saved_format;
        st->wfmt_index = st->qlora_saved_index;
    }
}

/* Why the weight format cannot change in full training. */
void tui_state_recipe_note(struct tui_state *st) {
    snprintf(st->message, sizeof(st->message),
             _("full training keeps the weights as the %s recipe says (Layout: recipe)"),
             engine_recipe_info(st->opt.sc.recipe)->id);
}

/* Short name of a format for the verdict ("INT4 g32"). */
static const char *format_short(const struct engine_format *f) {
    return f->name[0] ? f->name : f->id;
}

/* Whether the scenario with format f fits. */
static bool fits_with(const struct engine_scenario *sc, const struct engine_format *f) {
    struct engine_scenario trial = *sc;
    struct engine_estimate e;
    trial.weight_format = *f;
    engine_estimate(&trial, &e);
    return e.invalid == 0 && e.fits;
}

/* A standard narrower format that fits: the widest the GPU computes
 * natively (FP8, INT8 or FP4 with FLOP/s on this GPU; FP8 before INT8),
 * then INT4 g32. NULL when none. */
static const struct engine_format *advise_format(const struct tui_state *st) {
    const struct engine_scenario *sc = &st->opt.sc;
    const struct engine_format *best = NULL;
    double cur = engine_format_bits(&sc->weight_format), best_bits = 0;
    if (!st->cat)
        return NULL;
    for (size_t i = 0; i < st->cat->n_formats; i++) {
        const struct engine_format *f = &st->cat->formats[i];
        double b = engine_format_bits(f);
        bool native = f->compute == ENGINE_COMPUTE_FP8 || f->compute == ENGINE_COMPUTE_INT8 ||
                      f->compute == ENGINE_COMPUTE_FP4;
        if (!native || !(sc->gpu.flops[f->compute] > 0) || !tui_format_for_weights(f) ||
            !(b < cur))
            continue;
        /* Wider wins (less lost); within half a bit FP8 beats INT8. */
        bool fp8 = f->compute == ENGINE_COMPUTE_FP8;
        bool better = !best || b > best_bits + 0.5 ||
                      (b > best_bits - 0.5 && fp8 && best->compute != ENGINE_COMPUTE_FP8);
        if (better && fits_with(sc, f)) {
            best = f;
            best_bits = b;
        }
    }
    if (best)
        return best;
    int i = format_index(st->cat, "int4-g32");
    if (i >= 0 && engine_format_bits(&st->cat->formats[i]) < cur &&
        fits_with(sc, &st->cat->formats[i]))
        return &st->cat->formats[i];
    return NULL;
}

/* ---- the layout and GPU-count advice -------------------------------------- */

/* What the advice search found for a scenario that does not fit. */
struct advice_answer {
    enum { ADVICE_NONE, ADVICE_LAYOUT, ADVICE_GPUS } kind;
    struct engine_layout layout;
};

/* The most GPUs the advice searches (the GPU count field's end). */
#define ADVICE_MAX_GPUS 65536u

/* A better layout of the same GPUs, else the fewest GPUs above them, over
 * the whole layout space with the training knobs free; false when
 * cancel() stopped it. */
static bool advice_search(const struct engine_scenario *sc, struct engine_search_cache *cache,
                          bool (*cancel)(void *), void *arg, struct advice_answer *a) {
    struct engine_space space = {ENGINE_RANK_THROUGHPUT, ENGINE_KNOBS_TRAINING};
    struct engine_fewest_query q = {.space = space,
                                    .above = sc->gpus,
                                    .max_gpus = ADVICE_MAX_GPUS,
                                    .cancel = cancel,
                                    .cancel_arg = arg};
    struct engine_fewest f;
    a->kind = ADVICE_NONE;
    if (engine_best_layout_in(sc, sc->gpus, &space, &a->layout) && a->layout.fits &&
        a->layout.reject == ENGINE_REJECT_NONE) {
        a->kind = ADVICE_LAYOUT;
        return true;
    }
    if (sc->gpus >= ADVICE_MAX_GPUS)
        return true;
    engine_fewest_gpus(sc, &q, cache, &f);
    if (f.status == ENGINE_FEWEST_CANCELLED)
        return false;
    if (f.status == ENGINE_FEWEST_FOUND) {
        a->kind = ADVICE_GPUS;
        a->layout = f.layout;
    }
    return true;
}

/* The training knobs a layout changes from the scenario's, ", CP=2,
 * ZeRO-3, SP, full recompute" (empty in inference or when none changes). */
static void advice_knobs(const struct engine_scenario *sc, const struct engine_layout *l,
                         char *buf, size_t len) {
    size_t n = 0;
    buf[0] = '\0';
    if (sc->mode == ENGINE_MODE_INFER)
        return;
    if (l->cp != engine_cp(sc) && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", CP=%u"), l->cp);
    if (l->zero != sc->zero && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", ZeRO-%u"), l->zero);
    if (l->sequence_parallel && !sc->sequence_parallel && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s", _(", SP"));
    if (l->recompute != sc->recompute && n < len)
        snprintf(buf + n, len - n, _(", %s recompute"), _(engine_recompute_name(l->recompute)));
}

/* Write the answer after pre ("try ", " or "): "layout TP=8 PP=2 DP=4,
 * ZeRO-1" or "88 GPUs (TP=8 PP=11, SP, full recompute)"; nothing when
 * none. */
static void advice_text(const struct engine_scenario *sc, const struct advice_answer *a,
                        const char *pre, char *buf, size_t len) {
    const struct engine_layout *l = &a->layout;
    char knobs[80], n[24];
    buf[0] = '\0';
    if (a->kind == ADVICE_NONE)
        return;
    advice_knobs(sc, l, knobs, sizeof(knobs));
    if (a->kind == ADVICE_LAYOUT) {
        snprintf(buf, len, _("%slayout TP=%u PP=%u DP=%u%s"), pre, l->tp, l->pp, l->dp, knobs);
        return;
    }
    report_int(l->tp * l->pp * l->dp, n, sizeof(n));
    if (l->pp > 1)
        snprintf(buf, len, _("%s%s GPUs (TP=%u PP=%u%s)"), pre, n, l->tp, l->pp, knobs);
    else if (l->tp > 1)
        snprintf(buf, len, _("%s%s GPUs (TP=%u%s)"), pre, n, l->tp, knobs);
    else if (knobs[0])
        snprintf(buf, len, _("%s%s GPUs (%s)"), pre, n, knobs + 2);
    else
        snprintf(buf, len, _("%s%s GPUs"), pre, n);
}

/* ---- the advice worker ----------------------------------------------------- */

/* One thread for the session: the newest request wins; an older search
 * still running is cancelled (engine_fewest_gpus asks job_cancelled). */
struct advice_job {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool quit, has_request;
    unsigned long next_id, done_id;
    atomic_ulong newest; /* the request the worker should be on (0: quit) */
    struct engine_scenario request;
    struct advice_answer answer;
    struct engine_scenario working;   /* the request being searched */
    struct engine_search_cache cache; /* the worker's alone */
};

static struct advice_job *advice_job; /* the session's worker, or NULL */

/* The worker's cancel test: a newer request came, or quit. */
struct job_run {
    struct advice_job *j;
    unsigned long id;
};
static bool job_cancelled(void *arg) {
    const struct job_run *r = arg;
    return atomic_load(&r->j->newest) != r->id;
}

/* The worker: wait for a request, search, keep the answer. */
static void *advice_worker(void *arg) {
    struct advice_job *j = arg;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->quit && !j->has_request)
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->quit)
            break;
        struct job_run r = {j, j->next_id};
        j->working = j->request;
        j->has_request = false;
        pthread_mutex_unlock(&j->mu);
        struct advice_answer a;
        bool done = advice_search(&j->working, &j->cache, job_cancelled, &r, &a);
        pthread_mutex_lock(&j->mu);
        if (done) {
            j->answer = a;
            j->done_id = r.id;
        }
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

/* Start the advice worker (see state.h). */
int tui_state_advice_start(void) {
    struct advice_job *j;
    sigset_t all, old;
    if (advice_job)
        return 0;
    j = calloc(1, sizeof(*j));
    if (!j)
        return -1;
    atomic_init(&j->newest, 0);
    if (pthread_mutex_init(&j->mu, NULL) != 0) {
        free(j);
        return -1;
    }
    if (pthread_cond_init(&j->cv, NULL) != 0) {
        pthread_mutex_destroy(&j->mu);
        free(j);
        return -1;
    }
    /* Signals stay with the input thread (its handlers restore the
     * terminal and stop the loop): the worker blocks them all. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&j->thread, NULL, advice_worker, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&j->cv);
        pthread_mutex_destroy(&j->mu);
        free(j);
        return -1;
    }
    advice_job = j;
    return 0;
}

/* Stop the advice worker: cancel its search, wait for it. */
void tui_state_advice_stop(void) {
    struct advice_job *j = advice_job;
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->quit = true;
    atomic_store(&j->newest, 0);
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->thread, NULL);
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    free(j);
    advice_job = NULL;
}

/* Hand the worker a scenario; returns the request's id. */
static unsigned long advice_submit(const struct engine_scenario *sc) {
    struct advice_job *j = advice_job;
    pthread_mutex_lock(&j->mu);
    j->request = *sc;
    j->has_request = true;
    unsigned long id = ++j->next_id;
    atomic_store(&j->newest, id);
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return id;
}

/* The verdict with the searched advice: its head, then what the search
 * found (or, while it runs, a spinner); a head that only announced advice
 * (": ") loses that when there is none. */
static void advice_compose(struct tui_state *st, const char *found) {
    struct tui_advice *v = &st->advice;
    static const char spin[] = "|/-\\";
    char tail[TUI_VERDICT_MAX];
    size_t n = sizeof(st->verdict), h = strlen(v->head);
    if (v->pending)
        snprintf(tail, sizeof(tail), "%s%s %c", v->pre[0] == ' ' ? _("; ") : "",
                 _("searching layouts"), spin[v->spin % 4]);
    else
        snprintf(tail, sizeof(tail), "%s", found ? found : "");
    if (!tail[0] && h >= 2 && !strcmp(v->head + h - 2, ": "))
        h -= 2;
    if (h > n - 1)
        h = n - 1;
    size_t t = strlen(tail);
    if (t > n - 1 - h)
        t = n - 1 - h;
    memcpy(st->verdict, v->head, h);
    memcpy(st->verdict + h, tail, t);
    st->verdict[h + t] = '\0';
}

/* An answer arrived, or the spinner's next frame (see state.h). */
unsigned tui_state_advice_poll(struct tui_state *st) {
    struct tui_advice *v = &st->advice;
    struct advice_job *j = advice_job;
    struct advice_answer a;
    bool ready = false;
    if (!v->pending || !j)
        return 0;
    pthread_mutex_lock(&j->mu);
    if (j->done_id == v->request) {
        a = j->answer;
        ready = true;
    }
    pthread_mutex_unlock(&j->mu);
    if (!ready) {
        v->spin++;
        advice_compose(st, NULL);
        return TUI_DIRTY_REPAINT;
    }
    char text[TUI_VERDICT_MAX];
    v->pending = false;
    advice_text(&st->opt.sc, &a, v->pre, text, sizeof(text));
    advice_compose(st, text);
    return TUI_DIRTY_REPAINT;
}

/* Whether an answer is awaited. */
bool tui_state_advice_pending(const struct tui_state *st) {
    return st->advice.pending;
}

/* Advice for a scenario that does not fit: a training knob, or a
 * narrower format, into buf; pre says what the searched advice (a better
 * layout or more GPUs) starts with. */
static void verdict_advice(struct tui_state *st, char *buf, size_t len, const char **pre) {
    const struct engine_scenario *sc = &st->opt.sc;
    struct engine_scenario trial;
    struct engine_estimate e;
    size_t used = 0;

    buf[0] = '\0';
    if (sc->mode != ENGINE_MODE_INFER) {
        trial = *sc;
        for (uint32_t z = sc->zero + 1; z <= 3 && sc->dp > 1 && !used; z++) {
            trial.zero = z;
            engine_estimate(&trial, &e);
            if (e.invalid == 0 && e.fits)
                used += (size_t)snprintf(buf, len, _("try ZeRO-%u"), z);
        }
        trial = *sc;
        trial.recompute = ENGINE_RECOMPUTE_FULL;
        if (!used && sc->recompute != ENGINE_RECOMPUTE_FULL) {
            engine_estimate(&trial, &e);
            if (e.invalid == 0 && e.fits)
                used += (size_t)snprintf(buf, len, "%s", _("try full recompute"));
        }
    }
    /* Full training uses the recipe's bytes, not the weight format. */
    const struct engine_format *f =
        used || sc->mode == ENGINE_MODE_TRAIN ? NULL : advise_format(st);
    if (f)
        used += (size_t)snprintf(buf, len, _("try %s"), format_short(f));
    *pre = used ? _(" or ") : _("try ");
}

/* One line saying whether and how the scenario fits. */
void tui_state_verdict(struct tui_state *st) {
    const struct engine_estimate *e = &st->est;
    const struct engine_scenario *sc = &st->opt.sc;
    struct tui_advice *v = &st->advice;
    char a[32], advice[112];
    const char *pre;

    v->pending = false;
    if (e->invalid) {
        for (unsigned bit = 1; bit; bit <<= 1) {
            if (e->invalid & bit) {
                char why[120];
                engine_invalid_text(i18n_numfmt(st->opt.units == UNITS_GIB), sc, bit, why, sizeof(why));
                snprintf(st->verdict, sizeof(st->verdict), _("invalid: %s"), why);
                return;
            }
        }
    }
    if (e->fits) {
        char n[24];
        report_bytes(e->spare_bytes, st->opt.units, a, sizeof(a));
        report_int(e->gpus, n, sizeof(n));
        snprintf(st->verdict, sizeof(st->verdict), _("fits on %s x %s with %s spare"), n,
                 sc->gpu.name[0] ? sc->gpu.name : sc->gpu.id, a);
        return;
    }
    verdict_advice(st, advice, sizeof(advice), &pre);
    report_bytes(-e->spare_bytes, st->opt.units, a, sizeof(a));
    char ratio[24];
    report_ratio(e->memory_ratio, ratio, sizeof(ratio)); /* plan's "1.02x" */
    /* The head: the shortfall, ": ", the knob or format advice; the
     * searched advice follows it. */
    snprintf(v->head, sizeof(v->head), _("needs %s the memory (%s short)%s%s"), ratio, a, ": ",
             advice);
    snprintf(v->pre, sizeof(v->pre), "%s", pre);
    if (advice_job) {
        v->request = advice_submit(sc);
        v->pending = true;
        v->spin = 0;
        advice_compose(st, NULL);
        return;
    }
    struct advice_answer ans;
    char text[TUI_VERDICT_MAX];
    advice_search(sc, &v->cache, NULL, NULL, &ans);
    advice_text(sc, &ans, pre, text, sizeof(text));
    advice_compose(st, text);
}
