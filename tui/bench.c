/*
 * bench.c: `vramlab bench --url URL [--concurrency 1,2,4] [--prompt N]
 * [--max-tokens N] [--repetitions N] [--warmup N] [--api completions|chat|
 * ollama] [--server-model NAME] [--timeout S] [scenario options] [--json]`:
 * benchmark a running inference server (llama.cpp's llama-server, vLLM,
 * SGLang, TGI, Ollama) and set each measured figure beside vramlab's
 * prediction for the same model, device and load.
 *
 * Measured (tui/bench_run.c): time to first token, decode tokens/s of one
 * sequence, and the aggregate tokens/s of `concurrency` requests sent at
 * once, for each concurrency of the sweep; each round repeated, after a
 * warm-up round that is not counted; the median with the smallest and the
 * largest beside it (the spread).
 *
 * Predicted (engine_estimate of the scenario the options give, with batch =
 * the concurrency, prompt and context = what the server counted):
 *   decode per sequence = decode.tokens_per_s_per_sequence
 *   time to first token = concurrency x prefill.seconds (the prompts sent
 *                         together share the device: the last first token
 *                         comes after all of them)
 *   aggregate           = concurrency x tokens / (TTFT + (tokens - 1) /
 *                         per sequence), the measured aggregate's definition
 * ratio = measured / predicted, as in `vramlab measure`.
 *
 * The model is --model, --model-file, --params or an architecture when
 * given; else the server's model id matched to the catalogue (the name
 * without its path, .gguf, quantization suffix or Ollama tag), or the file
 * it names when that is a readable model file here. The runtime is the
 * server's (llama.cpp, vLLM, Ollama) unless --runtime says.
 *
 * Errors (exit 4, a device error): a URL nothing answers at, a server that
 * speaks neither API, a server error or an answer cut short; what was
 * measured before is printed, marked partial ("complete": false). A model
 * the catalogue does not know is a usage error (exit 2). SIGINT, SIGTERM
 * and SIGHUP stop the run the same way, with 128 + the signal.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/bench_run.h"
#include "tui/cli.h"
#include "tui/i18n.h"
#include "tui/json.h"
#include "tui/report.h"

#define BENCH_MAX_LEVELS 16
#define BENCH_MAX_REPS   100

/* The command's own options (the rest are scenario options). */
struct bench_opts {
    const char *url;
    unsigned conc[BENCH_MAX_LEVELS];
    unsigned n_conc;
    unsigned max_tokens;
    unsigned reps;
    unsigned warmup;
    int api; /* BENCH_API_COUNT: the server's default */
    const char *server_model;
    double timeout_s;
    bool events; /* --events: JSON lines for the Measure pane */
};

/* A statistic over samples: median, smallest, largest. */
struct bench_stat {
    double median, min, max;
    unsigned n;
};

/* One concurrency of the sweep. */
struct bench_level {
    unsigned concurrency;
    unsigned rounds;   /* complete rounds */
    bool partial;      /* an error stopped a round of this level */
    struct bench_stat ttft, decode, aggregate;
    long prompt_tokens, completion_tokens; /* medians of the server's counts */
    /* predicted */
    double p_ttft, p_decode, p_aggregate;
    bool fits;
};

struct bench_result {
    struct bench_server srv;
    struct bench_level lv[BENCH_MAX_LEVELS];
    unsigned n_lv;
    enum bench_error error;
    char message[512];
    const char *model_source; /* "model-file", "catalog", "options" */
    char model_note[256];
};

static volatile sig_atomic_t bench_signal;

/* Record the signal that stops the run. */
static void bench_on_signal(int sig) {
    bench_signal = sig;
}

/* Usage text. */
static void bench_usage(FILE *f) {
    fputs(_("usage: vramlab bench --url URL [--concurrency 1,2,4] [--prompt N] [--max-tokens N]\n"
            "                     [--repetitions N] [--warmup N] [--api completions|chat|ollama]\n"
            "                     [--server-model NAME] [--timeout S] [scenario options] [--json]\n"
            "Benchmarks a running server that speaks the OpenAI API (/v1/models,\n"
            "/v1/completions, /v1/chat/completions: llama.cpp's llama-server, vLLM, SGLang,\n"
            "TGI) or Ollama's (/api/generate), and prints beside each measured figure\n"
            "vramlab's prediction for the same model, device and load, and the ratio\n"
            "measured / predicted.\n"
            "\n"
            "  --url URL            the server (http://127.0.0.1:8080; .../v1 is the same)\n"
            "  --concurrency LIST   requests sent at once, one round per value (1,2,4)\n"
            "  --prompt N           prompt words, about one token each (128)\n"
            "  --max-tokens N       tokens generated per request (128)\n"
            "  --repetitions N      rounds per concurrency, median and spread (3)\n"
            "  --warmup N           rounds before, not counted (1)\n"
            "  --api NAME           completions, chat or ollama (the server's default)\n"
            "  --server-model NAME  which of the server's models (the first it lists)\n"
            "  --timeout S          one request at most S seconds (300)\n"
            "The prediction's model: --model, --model-file or an architecture, else the\n"
            "server's model matched to the catalogue; its device: --gpu, --device.\n"
            "Measured: time to first token, decode tokens/s per sequence ((tokens - 1) /\n"
            "(last - first token)), aggregate tokens/s (all tokens / the round's time).\n"
            "Exit 4 when the server cannot be reached, is not one, fails or stops mid-run\n"
            "(what was measured is printed, marked partial).\n"),
          f);
}

/* A whole number option in [lo, hi]; 0 or -1 with the error printed. */
static int bench_uint(const char *flag, const char *v, unsigned lo, unsigned hi, unsigned *out) {
    char *end;
    errno = 0;
    unsigned long n = v ? strtoul(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || n < lo || n > hi || v[0] == '-') {
        fprintf(stderr, _("vramlab bench: %s: expected a whole number in %u..%u, found '%s'\n"),
                flag, lo, hi, v ? v : "");
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

/* Take the command's own options out of argv (in place): the rest are the
 * scenario's. Returns 0, 1 for --help, or -1 (error printed). */
static int bench_take_options(int *argc, char **argv, struct bench_opts *b) {
    int n = 1;
    memset(b, 0, sizeof(*b));
    b->conc[0] = 1, b->conc[1] = 2, b->conc[2] = 4, b->n_conc = 3;
    b->max_tokens = 128;
    b->reps = 3;
    b->warmup = 1;
    b->api = BENCH_API_COUNT;
    b->timeout_s = 300;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *v = NULL;
        static const char *const own[] = {"--url", "--concurrency", "--max-tokens",
                                          "--repetitions", "--warmup", "--api",
                                          "--server-model", "--timeout"};
        size_t k, len = 0;
        for (k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
            len = strlen(own[k]);
            if (strncmp(a, own[k], len) == 0 && (a[len] == '\0' || a[len] == '='))
                break;
        }
        if (strcmp(a, "--events") == 0) {
            b->events = true;
            continue;
        }
        if (k == sizeof(own) / sizeof(own[0])) {
            argv[n++] = argv[i];
            continue;
        }
        if (a[len] == '=') {
            v = a + len + 1;
        } else if (i + 1 < *argc) {
            v = argv[++i];
        } else {
            fprintf(stderr, _("vramlab bench: %s needs a value\n"), own[k]);
            return -1;
        }
        switch (k) {
        case 0:
            b->url = v;
            break;
        case 1: {
            char list[256], *save = NULL;
            snprintf(list, sizeof(list), "%s", v);
            b->n_conc = 0;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (b->n_conc == BENCH_MAX_LEVELS) {
                    fprintf(stderr, _("vramlab bench: --concurrency: at most %d values\n"),
                            BENCH_MAX_LEVELS);
                    return -1;
                }
                if (bench_uint("--concurrency", t, 1, BENCH_MAX_CONCURRENCY,
                               &b->conc[b->n_conc++]))
                    return -1;
            }
            if (b->n_conc == 0)
                return bench_uint("--concurrency", "", 1, BENCH_MAX_CONCURRENCY, &b->conc[0]);
            break;
        }
        case 2:
            if (bench_uint("--max-tokens", v, 1, 1u << 20, &b->max_tokens))
                return -1;
            break;
        case 3:
            if (bench_uint("--repetitions", v, 1, BENCH_MAX_REPS, &b->reps))
                return -1;
            break;
        case 4:
            if (bench_uint("--warmup", v, 0, BENCH_MAX_REPS, &b->warmup))
                return -1;
            break;
        case 5:
            b->api = bench_api_parse(v);
            if (b->api < 0) {
                fprintf(stderr,
                        _("vramlab bench: --api: expected completions, chat or ollama, found "
                          "'%s'\n"),
                        v);
                return -1;
            }
            break;
        case 6:
            b->server_model = v;
            break;
        case 7: {
            unsigned t;
            if (bench_uint("--timeout", v, 1, 86400, &t))
                return -1;
            b->timeout_s = t;
            break;
        }
        }
    }
    *argc = n;
    argv[n] = NULL;
    return 0;
}

/* Median, smallest and largest of v[0..n) (v is sorted). */
static int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static struct bench_stat bench_stat_of(double *v, unsigned n) {
    struct bench_stat s = {NAN, NAN, NAN, 0};
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[k++] = v[i];
    if (k == 0)
        return s;
    qsort(v, k, sizeof(*v), bench_cmp);
    s.n = k;
    s.min = v[0];
    s.max = v[k - 1];
    s.median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    return s;
}

static int bench_cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The median of the positive counts in v[0..n), or -1. */
static long bench_median_count(long *v, unsigned n) {
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (v[i] > 0)
            v[k++] = v[i];
    if (k == 0)
        return -1;
    qsort(v, k, sizeof(*v), bench_cmp_long);
    return v[k / 2];
}

/* A terminal progress line on stderr. */
struct bench_progress {
    bool tty;
    unsigned level, n_levels, round, n_rounds, concurrency;
    bool warmup;
    bool events; /* --events: progress as JSON lines on stdout */
};

/* Progress: a bar on a terminal, a JSON line with --events. */
static void bench_progress_draw(void *ud, unsigned done, unsigned total) {
    const struct bench_progress *p = ud;
    char bar[21];
    if (p->events && !p->warmup && total > 0) {
        double f = (p->level + (p->round + (double)done / total) / p->n_rounds) / p->n_levels;
        printf("{\"event\":\"progress\",\"test\":\"runtime\",\"fraction\":%.3f}\n", f);
        fflush(stdout);
        return;
    }
    if (!p->tty)
        return;
    unsigned fill = total ? 20 * done / total : 0;
    for (unsigned i = 0; i < 20; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[20] = '\0';
    fputs("\r\033[K", stderr);
    if (p->warmup)
        fprintf(stderr, _("bench: warm-up [%s] %u/%u"), bar, done, total);
    else
        fprintf(stderr, _("bench: concurrency %u (%u of %u), round %u of %u [%s] %u/%u"),
                p->concurrency, p->level + 1, p->n_levels, p->round + 1, p->n_rounds, bar, done,
                total);
    fflush(stderr);
}

/* Lower-case letters and digits only ("Llama-3.1-8B" -> "llama318b"). */
static void bench_squash(const char *in, char *out, size_t len) {
    size_t k = 0;
    for (; *in && k + 1 < len; in++) {
        char c = *in;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out[k++] = c;
    }
    out[k] = '\0';
}

/* The catalogue model a server's model id names, or NULL: the id without
 * its path, extension, Ollama tag suffix ":latest" or a quantization suffix
 * (Q4_K_M, f16, AWQ, ...), letters and digits compared. */
static const struct engine_model *bench_match_model(const struct catalog *cat, const char *id) {
    char name[BENCH_NAME_MAX], want[BENCH_NAME_MAX], have[BENCH_NAME_MAX];
    const char *slash = strrchr(id, '/');
    snprintf(name, sizeof(name), "%s", slash ? slash + 1 : id);
    char *dot = strstr(name, ".gguf");
    if (dot)
        *dot = '\0';
    char *colon = strchr(name, ':');
    if (colon && strcmp(colon, ":latest") == 0)
        *colon = '\0';
    else if (colon) /* Ollama's llama3.1:8b */
        *colon = '-';
    for (int pass = 0; pass < 4; pass++) {
        bench_squash(name, want, sizeof(want));
        for (size_t i = 0; i < cat->n_models; i++) {
            bench_squash(cat->models[i].id, have, sizeof(have));
            if (want[0] && strcmp(want, have) == 0)
                return &cat->models[i];
            bench_squash(cat->models[i].name, have, sizeof(have));
            if (want[0] && strcmp(want, have) == 0)
                return &cat->models[i];
        }
        /* cut the last '.', '-' or '_' part when it names a quantization
         * (Q4_K_M, f16, bf16, AWQ, GPTQ, int4) or a fine-tune of the same
         * shape (instruct, chat, it) */
        char *cut = NULL;
        for (char *p = name; *p; p++) {
            if (*p != '.' && *p != '-' && *p != '_')
                continue;
            const char *w = p + 1;
            bool quant = ((w[0] == 'q' || w[0] == 'Q' || w[0] == 'f' || w[0] == 'F') &&
                          w[1] >= '0' && w[1] <= '9') ||
                         strncasecmp(w, "bf16", 4) == 0 || strncasecmp(w, "awq", 3) == 0 ||
                         strncasecmp(w, "gptq", 4) == 0 || strncasecmp(w, "int4", 4) == 0 ||
                         strncasecmp(w, "int8", 4) == 0;
            bool tune = strcasecmp(w, "instruct") == 0 || strcasecmp(w, "chat") == 0 ||
                        strcasecmp(w, "it") == 0;
            if (quant || tune) {
                cut = p;
                if (quant)
                    break; /* everything after a quantization goes with it */
            }
        }
        if (!cut)
            break;
        *cut = '\0';
    }
    return NULL;
}

/* The catalogue format a server's model id names by its quantization
 * suffix (Q4_K_M: q4-k-m, else q4-k; Q8_0: q8-0, f16: fp16), or NULL. */
static const struct engine_format *bench_match_format(const struct catalog *cat, const char *id) {
    char want[32], have[32];
    const char *q = NULL;
    for (const char *p = id; *p; p++)
        if ((*p == '.' || *p == '-' || *p == '_') &&
            ((p[1] == 'q' || p[1] == 'Q' || p[1] == 'f' || p[1] == 'F') && p[2] >= '0' &&
             p[2] <= '9'))
            q = p + 1;
    if (!q && (q = strstr(id, "bf16")) == NULL && (q = strstr(id, "BF16")) == NULL)
        return NULL;
    bench_squash(q, want, sizeof(want));
    char *dot = strstr(want, "gguf");
    if (dot)
        *dot = '\0';
    if (strcmp(want, "f16") == 0 || strcmp(want, "f32") == 0) {
        memmove(want + 2, want + 1, strlen(want));
        want[1] = 'p';
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < cat->n_formats; i++) {
            bench_squash(cat->formats[i].id, have, sizeof(have));
            if (strcmp(want, have) == 0)
                return &cat->formats[i];
        }
        /* a K-quant's size letter: Q4_K_M is a Q4_K */
        size_t n = strlen(want);
        if (n < 3 || want[n - 2] != 'k' || strchr("sml", want[n - 1]) == NULL)
            break;
        want[n - 1] = '\0';
    }
    return NULL;
}

/* Whether the command line gives the model (any way the scenario options can). */
static bool bench_model_given(const struct options_given *g) {
    static const enum param_id ids[] = {PARAM_MODEL,  PARAM_MODEL_FILE, PARAM_MODEL_CONFIG,
                                        PARAM_PARAMS, PARAM_LAYERS,     PARAM_SCENARIO};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (g->set[ids[i]])
            return true;
    return false;
}

/* The runtime a server's owned_by names ("llamacpp" -> llama.cpp). */
static const char *bench_runtime_of(const char *owned_by) {
    if (strstr(owned_by, "ollama")) /* before "llama" */
        return "ollama";
    if (strstr(owned_by, "llama"))
        return "llama.cpp";
    if (strstr(owned_by, "vllm"))
        return "vllm";
    return NULL;
}

/* The scenario for the prediction: argv's options, plus the served model
 * and runtime where argv gives none. Returns 0 or an exit code (printed). */
static int bench_scenario(struct cli_run *run, int argc, char **argv, struct bench_result *r) {
    char *args[256];
    int n = 0;
    char modelflag[BENCH_NAME_MAX + 16], runtimeflag[64], formatflag[64];
    if (argc + 4 > (int)(sizeof(args) / sizeof(args[0]))) {
        fprintf(stderr, "%s", _("vramlab bench: too many arguments\n"));
        return VRAMLAB_EXIT_USAGE;
    }
    for (int i = 0; i < argc; i++)
        args[n++] = argv[i];
    r->model_source = "options";
    struct options_given given = run->o.given; /* the command line as cli_begin scanned it */
    if (!bench_model_given(&given)) {
        const struct engine_model *m = bench_match_model(&run->cat, r->srv.model);
        struct stat st;
        if (m) {
            const struct engine_format *fm = bench_match_format(&run->cat, r->srv.model);
            snprintf(modelflag, sizeof(modelflag), "--model=%s", m->id);
            r->model_source = "catalog";
            if (fm && !given.set[PARAM_FORMAT]) {
                snprintf(formatflag, sizeof(formatflag), "--format=%s", fm->id);
                args[n++] = formatflag;
            }
        } else if (r->srv.model[0] == '/' && stat(r->srv.model, &st) == 0) {
            snprintf(modelflag, sizeof(modelflag), "--model-file=%s", r->srv.model);
            r->model_source = "model-file";
        } else {
            r->error = BENCH_ERR_SERVER;
            snprintf(r->message, sizeof(r->message),
                     _("the server's model '%s' is not in the catalogue: give --model ID, "
                       "--model-file FILE (the file it serves) or --params N for the prediction"),
                     r->srv.model);
            fprintf(stderr, "vramlab bench: %s\n", r->message);
            return VRAMLAB_EXIT_USAGE;
        }
        args[n++] = modelflag;
    }
    const char *rt = bench_runtime_of(r->srv.owned_by);
    if (rt && !given.set[PARAM_RUNTIME]) {
        snprintf(runtimeflag, sizeof(runtimeflag), "--runtime=%s", rt);
        args[n++] = runtimeflag;
    }
    args[n] = NULL;
    int rc = options_parse(n, args, &run->cat, &run->o, false);
    if (rc == 0)
        rc = options_apply_scenario_file(&run->o, &run->cat);
    return rc;
}

/* The prediction for one level (see the top of this file). */
static void bench_predict(const struct engine_scenario *base, unsigned prompt_words,
                          unsigned max_tokens, struct bench_level *lv) {
    struct engine_scenario sc = *base;
    struct engine_estimate e;
    double prompt = lv->prompt_tokens > 0 ? (double)lv->prompt_tokens : prompt_words;
    double tokens = lv->completion_tokens > 0 ? (double)lv->completion_tokens : max_tokens;
    sc.batch = lv->concurrency;
    sc.prompt = (uint32_t)prompt;
    sc.context = (uint32_t)(prompt + tokens);
    engine_estimate(&sc, &e);
    lv->fits = e.invalid == 0 && e.fits;
    if (e.invalid) {
        lv->p_ttft = lv->p_decode = lv->p_aggregate = NAN;
        return;
    }
    lv->p_decode = e.decode_tokens_per_s_per_sequence;
    lv->p_ttft = lv->concurrency * e.prefill_seconds;
    lv->p_aggregate = lv->concurrency * tokens / (lv->p_ttft + (tokens - 1) / lv->p_decode);
}

/* Measure every level (the warm-up first). Stops at the first error (in r). */
static void bench_measure(const struct bench_opts *b, const struct bench_load *load,
                          struct bench_result *r) {
    struct bench_round *round = malloc(sizeof(*round));
    struct bench_progress p = {isatty(STDERR_FILENO) && !b->events, 0, b->n_conc, 0, b->reps, 1,
                               true, b->events};
    unsigned seq = 1;
    if (!round) {
        r->error = BENCH_ERR_OTHER;
        snprintf(r->message, sizeof(r->message), "out of memory");
        return;
    }
    for (unsigned w = 0; w < b->warmup && r->error == BENCH_OK; w++) {
        r->error = bench_round_run(&r->srv, load, 1, seq, round, bench_progress_draw, &p,
                                   &bench_signal, r->message, sizeof(r->message));
        seq++;
    }
    p.warmup = false;
    for (unsigned l = 0; l < b->n_conc && r->error == BENCH_OK; l++) {
        struct bench_level *lv = &r->lv[r->n_lv++];
        unsigned c = b->conc[l], n = 0;
        double *ttft = calloc((size_t)c * b->reps, sizeof(double));
        double *dec = calloc((size_t)c * b->reps, sizeof(double));
        long *pt = calloc((size_t)c * b->reps, sizeof(long));
        long *ct = calloc((size_t)c * b->reps, sizeof(long));
        double agg[BENCH_MAX_REPS];
        memset(lv, 0, sizeof(*lv));
        lv->concurrency = c;
        p.level = l;
        p.concurrency = c;
        if (!ttft || !dec || !pt || !ct) {
            r->error = BENCH_ERR_OTHER;
            snprintf(r->message, sizeof(r->message), "out of memory");
        }
        for (unsigned k = 0; k < b->reps && r->error == BENCH_OK; k++) {
            p.round = k;
            r->error = bench_round_run(&r->srv, load, c, seq, round, bench_progress_draw, &p,
                                       &bench_signal, r->message, sizeof(r->message));
            seq += c;
            for (unsigned i = 0; i < round->n; i++) {
                ttft[n] = round->s[i].ttft_s;
                dec[n] = round->s[i].decode_tokens_per_s;
                pt[n] = round->s[i].prompt_tokens;
                ct[n] = round->s[i].completion_tokens;
                n++;
            }
            if (r->error == BENCH_OK)
                agg[lv->rounds++] = round->aggregate_tokens_per_s;
            else
                lv->partial = true;
        }
        if (ttft && dec && pt && ct) {
            lv->ttft = bench_stat_of(ttft, n);
            lv->decode = bench_stat_of(dec, n);
            lv->aggregate = bench_stat_of(agg, lv->rounds);
            lv->prompt_tokens = bench_median_count(pt, n);
            lv->completion_tokens = bench_median_count(ct, n);
        }
        free(ttft);
        free(dec);
        free(pt);
        free(ct);
        if (lv->ttft.n == 0 && lv->rounds == 0 && r->error != BENCH_OK)
            r->n_lv--; /* nothing measured at this level */
    }
    if (p.tty) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    free(round);
}

/* The JSON name of an error kind. */
static const char *bench_error_code(enum bench_error e) {
    static const char *const codes[] = {"ok",         "unreachable", "not-a-server", "server-error",
                                        "cut-short",  "stopped",     "other"};
    return (unsigned)e < sizeof(codes) / sizeof(codes[0]) ? codes[e] : "other";
}

/* One {median, min, max, predicted, ratio} object. */
static void bench_json_stat(struct json_writer *w, const char *key, const struct bench_stat *s,
                            double predicted) {
    json_key(w, key);
    json_begin_object(w);
    json_key(w, "median");
    json_number(w, s->median);
    json_key(w, "min");
    json_number(w, s->min);
    json_key(w, "max");
    json_number(w, s->max);
    json_key(w, "samples");
    json_number(w, s->n);
    json_key(w, "predicted");
    json_number(w, predicted);
    json_key(w, "ratio");
    json_number(w, s->median / predicted);
    json_end_object(w);
}

/* The --json object. */
static void bench_write_json(FILE *f, const struct cli_run *run, const struct bench_opts *b,
                             const struct bench_load *load, const struct bench_result *r) {
    struct json_writer w;
    const struct engine_scenario *sc = &run->o.sc;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "url");
    json_text(&w, r->srv.url);
    json_key(&w, "api");
    json_text(&w, bench_api_name(r->srv.api));
    json_key(&w, "server");
    json_begin_object(&w);
    json_key(&w, "model");
    json_text(&w, r->srv.model);
    json_key(&w, "owned_by");
    json_text(&w, r->srv.owned_by);
    json_end_object(&w);
    json_key(&w, "prediction");
    json_begin_object(&w);
    json_key(&w, "model_id");
    json_text(&w, sc->model.id);
    json_key(&w, "model_name");
    json_text(&w, sc->model.name);
    json_key(&w, "model_from");
    json_text(&w, r->model_source);
    json_key(&w, "weight_format");
    json_text(&w, run->o.model_file ? "file" : sc->weight_format.id);
    json_key(&w, "device_id");
    json_text(&w, sc->gpu.id);
    json_key(&w, "device_name");
    json_text(&w, sc->gpu.name);
    json_key(&w, "runtime");
    json_text(&w, engine_runtime_name(sc->serving.runtime));
    json_end_object(&w);
    json_key(&w, "workload");
    json_begin_object(&w);
    json_key(&w, "prompt_words");
    json_number(&w, load->prompt_words);
    json_key(&w, "max_tokens");
    json_number(&w, load->max_tokens);
    json_key(&w, "repetitions");
    json_number(&w, b->reps);
    json_key(&w, "warmup");
    json_number(&w, b->warmup);
    json_end_object(&w);
    json_key(&w, "results");
    json_begin_array(&w);
    for (unsigned i = 0; i < r->n_lv; i++) {
        const struct bench_level *lv = &r->lv[i];
        json_begin_object(&w);
        json_key(&w, "concurrency");
        json_number(&w, lv->concurrency);
        json_key(&w, "rounds");
        json_number(&w, lv->rounds);
        json_key(&w, "partial");
        json_bool(&w, lv->partial);
        json_key(&w, "prompt_tokens");
        json_number(&w, lv->prompt_tokens > 0 ? (double)lv->prompt_tokens : NAN);
        json_key(&w, "completion_tokens");
        json_number(&w, lv->completion_tokens > 0 ? (double)lv->completion_tokens : NAN);
        json_key(&w, "fits");
        json_bool(&w, lv->fits);
        bench_json_stat(&w, "ttft_s", &lv->ttft, lv->p_ttft);
        bench_json_stat(&w, "decode_tokens_per_s_per_sequence", &lv->decode, lv->p_decode);
        bench_json_stat(&w, "aggregate_tokens_per_s", &lv->aggregate, lv->p_aggregate);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "complete");
    json_bool(&w, r->error == BENCH_OK);
    json_key(&w, "error");
    if (r->error == BENCH_OK) {
        json_none(&w);
    } else {
        json_begin_object(&w);
        json_key(&w, "code");
        json_text(&w, bench_error_code(r->error));
        json_key(&w, "message");
        json_text(&w, r->message);
        json_end_object(&w);
    }
    json_end_object(&w);
    fputc('\n', f);
}

/* --events: one JSON line per concurrency ("result", test "runtime"),
 * then an "error" line when the run stopped early: what the Measure
 * pane's runtime row reads through probe_client. */
static void bench_write_events(FILE *f, const struct cli_run *run, const struct bench_result *r) {
    char num[8][40];
    for (unsigned i = 0; i < r->n_lv; i++) {
        const struct bench_level *lv = &r->lv[i];
        json_format_number(lv->ttft.median, num[0], sizeof(num[0]));
        json_format_number(lv->p_ttft, num[1], sizeof(num[1]));
        json_format_number(lv->decode.median, num[2], sizeof(num[2]));
        json_format_number(lv->p_decode, num[3], sizeof(num[3]));
        json_format_number(lv->aggregate.median, num[4], sizeof(num[4]));
        json_format_number(lv->p_aggregate, num[5], sizeof(num[5]));
        fprintf(f, "{\"event\":\"result\",\"test\":\"runtime\",\"concurrency\":%u,\"server_model\":",
                lv->concurrency);
        json_write_string(f, r->srv.model);
        fputs(",\"model\":", f);
        json_write_string(f, run->o.sc.model.name);
        fputs(",\"device\":", f);
        json_write_string(f, run->o.sc.gpu.name);
        fprintf(f, ",\"runtime\":\"%s\",\"ttft_s\":%s,\"predicted_ttft_s\":%s,"
                   "\"decode_tokens_per_s\":%s,\"predicted_decode_tokens_per_s\":%s,"
                   "\"aggregate_tokens_per_s\":%s,\"predicted_aggregate_tokens_per_s\":%s,"
                   "\"partial\":%s}\n",
                engine_runtime_name(run->o.sc.serving.runtime), num[0], num[1], num[2], num[3],
                num[4], num[5], lv->partial ? "true" : "false");
    }
    if (r->error != BENCH_OK) {
        fprintf(f, "{\"event\":\"error\",\"test\":\"runtime\",\"code\":\"%s\",\"message\":",
                bench_error_code(r->error));
        json_write_string(f, r->message);
        fputs("}\n", f);
    }
}

/* One row of the text table: label, measured median (min-max), predicted,
 * ratio; every number through the one formatter in the reader's marks. */
static void bench_text_row(FILE *f, const char *label, const struct bench_stat *s, double pred,
                           bool seconds) {
    enum engine_unit unit = seconds ? ENGINE_UNIT_SECONDS : ENGINE_UNIT_TOKENS_PER_S;
    char med[48], lo[48], hi[48], p[48], ratio[32], meas[160];
    if (s->n == 0) {
        snprintf(meas, sizeof(meas), "-");
    } else {
        report_value(s->median, unit, UNITS_GB, med, sizeof(med));
        report_value(s->min, unit, UNITS_GB, lo, sizeof(lo));
        report_value(s->max, unit, UNITS_GB, hi, sizeof(hi));
        if (s->n > 1)
            snprintf(meas, sizeof(meas), "%s (%s-%s)", med, lo, hi);
        else
            snprintf(meas, sizeof(meas), "%s", med);
    }
    if (!isfinite(pred)) {
        snprintf(p, sizeof(p), "-");
        snprintf(ratio, sizeof(ratio), "-");
    } else {
        report_value(pred, unit, UNITS_GB, p, sizeof(p));
        if (s->n > 0 && pred > 0)
            report_ratio(s->median / pred, ratio, sizeof(ratio));
        else
            snprintf(ratio, sizeof(ratio), "-");
    }
    fprintf(f, "  %-*s %-*s %-*s %s\n", report_pad(label, 22), label, report_pad(meas, 34), meas,
            report_pad(p, 14), p, ratio);
}

/* The text report. */
static void bench_write_text(FILE *f, const struct cli_run *run, const struct bench_opts *b,
                             const struct bench_load *load, const struct bench_result *r) {
    const struct engine_scenario *sc = &run->o.sc;
    if (r->error != BENCH_OK)
        fprintf(f, _("PARTIAL: %s\n\n"), r->message);
    fprintf(f, _("%s: %s API (%s), serving '%s'\n"), r->srv.url,
            r->srv.api == BENCH_API_OLLAMA ? "Ollama" : "OpenAI", bench_api_name(r->srv.api),
            r->srv.model);
    fprintf(f, _("predicted for %s (%s), %s, on %s, runtime %s\n"), sc->model.name,
            r->model_source,
            run->o.model_file ? _("weights as in the file") : sc->weight_format.name,
            sc->gpu.name, engine_runtime_name(sc->serving.runtime));
    fprintf(f, _("load: prompt %u words, %u tokens generated, %u rounds each after %u warm-up\n"),
            load->prompt_words, load->max_tokens, b->reps, b->warmup);
    for (unsigned i = 0; i < r->n_lv; i++) {
        const struct bench_level *lv = &r->lv[i];
        char head[160];
        snprintf(head, sizeof(head), _("concurrency %u"), lv->concurrency);
        const char *mm = _("measured (min-max)"), *pr = _("predicted");
        fprintf(f, "\n%-*s %-*s %-*s %s\n", report_pad(head, 24), head, report_pad(mm, 34), mm,
                report_pad(pr, 14), pr, _("ratio"));
        bench_text_row(f, _("time to first token"), &lv->ttft, lv->p_ttft, true);
        bench_text_row(f, _("decode per sequence"), &lv->decode, lv->p_decode, false);
        bench_text_row(f, _("aggregate"), &lv->aggregate, lv->p_aggregate, false);
        fprintf(f, _("  (prompt %ld tokens, %ld generated, as the server counts; %u rounds%s)\n"),
                lv->prompt_tokens, lv->completion_tokens, lv->rounds,
                lv->partial ? _(", partial") : "");
        if (!lv->fits)
            fprintf(f, "%s", _("  note: the scenario does not fit the device it was predicted for\n"));
    }
    if (r->error != BENCH_OK)
        fprintf(f, _("\nPARTIAL: stopped by: %s\n"), r->message);
}

/* `vramlab bench`. */
int cmd_bench(int argc, char **argv) {
    struct bench_opts b;
    struct cli_run run;
    struct bench_result *r;
    struct bench_load load;
    char **args;
    int rc, n = argc;

    if (cli_wants_help(argc, argv)) {
        bench_usage(stdout);
        return 0;
    }
    args = calloc((size_t)argc + 1, sizeof(*args));
    r = calloc(1, sizeof(*r));
    if (!args || !r) {
        free(args);
        free(r);
        perror("vramlab bench");
        return 1;
    }
    memcpy(args, argv, (size_t)argc * sizeof(*args));
    if (bench_take_options(&n, args, &b) != 0) {
        free(args);
        free(r);
        return VRAMLAB_EXIT_USAGE;
    }
    if (!b.url)
        b.url = getenv("VRAMLAB_BENCH_URL");
    if (!b.url || !*b.url) {
        fprintf(stderr, "%s",
                _("vramlab bench: --url URL is needed (or VRAMLAB_BENCH_URL); "
                  "see vramlab bench --help\n"));
        free(args);
        free(r);
        return VRAMLAB_EXIT_USAGE;
    }
    /* The scenario options alone first: a typo is reported before any
     * request is sent. */
    rc = cli_begin(&run, n, args);
    if (rc != 0) {
        free(args);
        free(r);
        return rc;
    }
    load.prompt_words = run.o.given.set[PARAM_PROMPT] ? run.o.sc.prompt : 128;
    load.max_tokens = b.max_tokens;
    load.timeout_s = b.timeout_s;
    if (load.prompt_words < 4)
        load.prompt_words = 4;

    if (bench_global_init() != 0) {
        fprintf(stderr, "%s", _("vramlab bench: libcurl could not start\n"));
        cli_end(&run);
        free(args);
        free(r);
        return 1;
    }
    r->error = bench_find_server(&r->srv, b.url, b.server_model, b.api, 10, r->message,
                                 sizeof(r->message));
    if (r->error != BENCH_OK) {
        fprintf(stderr, "vramlab bench: %s\n", r->message);
        if (b.events)
            bench_write_events(stdout, &run, r);
        rc = r->error == BENCH_ERR_SERVER ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_DEVICE;
        goto done;
    }
    rc = bench_scenario(&run, n, args, r);
    if (rc != 0) {
        if (b.events && r->error != BENCH_OK)
            bench_write_events(stdout, &run, r);
        goto done;
    }

    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = bench_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    bench_measure(&b, &load, r);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);

    for (unsigned i = 0; i < r->n_lv; i++)
        bench_predict(&run.o.sc, load.prompt_words, load.max_tokens, &r->lv[i]);
    if (b.events)
        bench_write_events(run.out, &run, r);
    else if (run.o.json)
        bench_write_json(run.out, &run, &b, &load, r);
    else
        bench_write_text(run.out, &run, &b, &load, r);
    rc = cli_finish(&run);
    if (r->error == BENCH_ERR_STOPPED && bench_signal)
        rc = 128 + bench_signal;
    else if (r->error != BENCH_OK)
        rc = VRAMLAB_EXIT_DEVICE;
    if (r->error != BENCH_OK && r->error != BENCH_ERR_STOPPED)
        fprintf(stderr, "vramlab bench: %s\n", r->message);
    bench_global_cleanup();
    free(args);
    free(r);
    return rc;
done:
    bench_global_cleanup();
    cli_end(&run);
    free(args);
    free(r);
    return rc;
}
