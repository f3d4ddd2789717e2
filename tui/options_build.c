/*
 * options_build.c: the second pass of option parsing. From the last value of
 * each option (struct options_given, filled by tui/options.c) it builds the
 * scenario in a fixed order: model, overrides, formats, GPU, layout,
 * workload. Every value parser names its flag on error. Defaults are those
 * documented at the top of tui/options.c and in the man page.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <sys/stat.h>

#include "tui/cpu_device.h"
#include "tui/i18n.h"
#include "tui/measure_ar.h"
#include "tui/options_internal.h"

/* A rate that must be above zero (a calibration or a link): zero would
 * silently mean "the data sheet" or "no link". */
static int opt_above_zero(const struct options_given *s, enum param_id id, double v) {
    if (!s->set[id] || v > 0)
        return 0;
    opt_error("--%s: expected a rate above zero, found '%s'", opt_name(id), s->val[id]);
    return -1;
}

/* Print an unknown-id error for a catalog kind with the ids closest to
 * `near` (the id as given, or its normalised form). */
static void opt_unknown_id(const struct catalog *cat, enum catalog_kind kind, const char *flag,
                           const char *id, const char *near) {
    static const char *const what[] = {N_("GPU"), N_("model"), N_("format")};
    const char *close[4];
    size_t n = catalog_suggest(cat, kind, near, close, 4);

    fprintf(stderr, _("vramlab: --%s: unknown %s '%s'"), flag, _(what[kind]), id);
    if (n > 0) {
        fputs(_("; closest:"), stderr);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%s %s", i ? "," : "", close[i]);
    }
    fprintf(stderr, _(" (see 'vramlab catalog %s')\n"),
            kind == CATALOG_GPU     ? "gpus"
            : kind == CATALOG_MODEL ? "models"
                                    : "formats");
}

/* ---- second pass: build the scenario ------------------------------------- */

/* Whether any custom-architecture flag was given. */
static bool opt_any_arch(const struct options_given *s) {
    for (int i = PARAM_LAYERS; i <= PARAM_SHARED_EXPERTS; i++) {
        if (s->set[i])
            return true;
    }
    return false;
}

/* Apply the architecture flags to m (a catalog model or a blank one). */
static int opt_apply_arch(const struct options_given *s, struct engine_model *m) {
    int k;

    for (int i = PARAM_LAYERS; i <= PARAM_SHARED_EXPERTS; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        uint32_t v;
        if (!s->set[i])
            continue;
        if (p->type == PARAM_T_INT) {
            if (opt_uint(p->id, s->val[i], &v) != 0)
                return -1;
            *(uint32_t *)(void *)((char *)m + p->offset - offsetof(struct engine_scenario, model)) =
                v;
        } else if (p->id == PARAM_BIAS && !*s->val[i]) {
            m->bias = ENGINE_BIAS_ALL; /* --bias alone */
        } else {
            if (opt_enum(p->id, s->val[i], &k) != 0)
                return -1;
            if (p->id == PARAM_TIED)
                m->tied = k == 0;
            else if (p->id == PARAM_GATED)
                m->gated = k == 0;
            else if (p->id == PARAM_BIAS)
                m->bias = (enum engine_bias)k;
            else
                m->norm = (enum engine_norm)k;
        }
    }
    /* A changed head count changes the default head size. */
    if ((s->set[PARAM_HIDDEN] || s->set[PARAM_HEADS]) && !s->set[PARAM_HEAD_DIM] && m->heads > 0) {
        if (m->hidden % m->heads != 0) {
            opt_error("--heads %u does not divide --hidden %u: give --head-dim", m->heads,
                      m->hidden);
            return -1;
        }
        m->head_dim = m->hidden / m->heads;
    }
    if (s->set[PARAM_HEADS] && !s->set[PARAM_KV_HEADS] && m->kv_heads > m->heads)
        m->kv_heads = m->heads;
    /* Experts per token of a dense model would be silently ignored. */
    if (m->experts == 0 && (s->set[PARAM_ACTIVE_EXPERTS] || s->set[PARAM_SHARED_EXPERTS])) {
        opt_error("--%s needs a mixture of experts: the model has none (give --experts N)",
                  s->set[PARAM_ACTIVE_EXPERTS] ? "active-experts" : "shared-experts");
        return -1;
    }
    if (m->experts > 0 && m->active_experts == 0)
        m->active_experts = m->experts < 2 ? m->experts : 2;
    if (m->experts > 0 && m->active_experts > m->experts) {
        opt_error("--active-experts %u exceeds --experts %u", m->active_experts, m->experts);
        return -1;
    }
    if (m->heads > 0 && m->kv_heads > 0 && m->heads % m->kv_heads != 0) {
        opt_error("--kv-heads %u does not divide --heads %u", m->kv_heads, m->heads);
        return -1;
    }
    m->params_published = 0; /* the shape changed: the count is ours now */
    return 0;
}

/* A custom model from the architecture flags alone. */
static int opt_custom_model(const struct options_given *s, struct engine_model *m) {
    static const enum param_id required[] = {PARAM_LAYERS, PARAM_HIDDEN, PARAM_HEADS, PARAM_VOCAB};

    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (!s->set[required[i]]) {
            opt_error("a custom model needs --layers, --hidden, --heads and --vocab "
                      "(missing --%s), or --model ID / --params N",
                      opt_name(required[i]));
            return -1;
        }
    }
    memset(m, 0, sizeof(*m));
    m->has_arch = true;
    m->norm = ENGINE_NORM_RMS;
    m->bias = ENGINE_BIAS_NONE;
    if (opt_apply_arch(s, m) != 0)
        return -1;
    if (!s->set[PARAM_KV_HEADS])
        m->kv_heads = m->heads;
    if (!s->set[PARAM_HEAD_DIM])
        m->head_dim = m->hidden / m->heads;
    if (!s->set[PARAM_FFN])
        m->ffn = 4 * m->hidden;
    m->max_context = 0;
    snprintf(m->id, sizeof(m->id), "custom");
    snprintf(m->name, sizeof(m->name), "custom %uL h%u", m->layers, m->hidden);
    snprintf(m->family, sizeof(m->family), "custom");
    m->source = "command-line architecture";
    return 0;
}

/* A config.json path: a directory stands for DIR/config.json. */
void options_config_path(const char *arg, char *buf, size_t len) {
    struct stat st;

    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(buf, len, "%s/config.json", arg);
    else
        snprintf(buf, len, "%s", arg);
}

/* Remember the file a model came from, absolute (see commands.h). */
static void opt_model_path(const char *given, struct options *o) {
    char real[PATH_MAX];
    snprintf(o->model_path, sizeof(o->model_path), "%s", realpath(given, real) ? real : given);
}

/* The fewest parameters a bare size may have: below a million there is no
 * language model worth planning (the smallest published ones, such as
 * TinyStories-1M, have about a million), and "--params 7" is 7B with the
 * unit forgotten (issue 27 item 6). */
#define OPT_PARAMS_MIN 1e6

/* Refuse an implausibly small --params, asking what was meant: a bare
 * number (7) is surely a size in billions; one with a unit (500K) is
 * simply too small. Returns 0 or -1 having said why. */
static int opt_params_plausible(const char *raw, double n) {
    if (n >= OPT_PARAMS_MIN)
        return 0;
    if (strspn(raw, "0123456789.") == strlen(raw))
        opt_error("--params: %s parameters is surely not meant; did you mean %sB (%s billion)? "
                  "a size takes a unit: 7B, 125M (1M at least)",
                  raw, raw, raw);
    else
        opt_error("--params: %s is below 1M parameters, smaller than any language model; give "
                  "1M at least",
                  raw);
    return -1;
}

/* Choose the model: --model-config, --model, --params, an architecture, or
 * the default; then apply single-field overrides. Returns 0, 2 or 3. */
int opt_model(const struct options_given *s, const struct catalog *cat, struct options *o) {
    struct engine_model *m = &o->sc.model;
    int sources = s->set[PARAM_MODEL] + s->set[PARAM_PARAMS] + s->set[PARAM_MODEL_CONFIG] +
                  s->set[PARAM_MODEL_FILE];

    if (sources > 1) {
        opt_error("--model, --params, --model-config and --model-file are exclusive: give one");
        return VRAMLAB_EXIT_USAGE;
    }
    if (s->set[PARAM_MODEL_FILE]) {
        /* One file per process: the summary outlives the options. */
        static struct catalog_model_file mf;
        char err[1536];
        if (catalog_model_file_load(s->val[PARAM_MODEL_FILE], m, &mf, err, sizeof err) != 0) {
            fprintf(stderr, "vramlab: --model-file %s\n", err);
            return VRAMLAB_EXIT_CATALOG;
        }
        o->model_file = &mf;
        o->model_custom = true;
        opt_model_path(s->val[PARAM_MODEL_FILE], o);
        return 0;
    }
    if (s->set[PARAM_MODEL_CONFIG]) {
        struct catalog_diag d = {0};
        char path[4096];
        options_config_path(s->val[PARAM_MODEL_CONFIG], path, sizeof(path));
        if (catalog_import_hf_config(path, m, &d) != 0) {
            fprintf(stderr, "%s", d.text ? d.text : _("vramlab: cannot read --model-config\n"));
            if (d.text && d.len > 0 && d.text[d.len - 1] != '\n')
                fputc('\n', stderr);
            catalog_diag_free(&d);
            return VRAMLAB_EXIT_CATALOG;
        }
        if (d.text) /* what was assumed (no model_type) */
            fputs(d.text, stderr);
        catalog_diag_free(&d);
        o->model_custom = true;
        opt_model_path(s->val[PARAM_MODEL_CONFIG], o);
    } else if (s->set[PARAM_PARAMS]) {
        double n;
        if (opt_number(PARAM_PARAMS, s->val[PARAM_PARAMS], &n) != 0)
            return VRAMLAB_EXIT_USAGE;
        if (!(n > 0)) {
            opt_error("--params: expected a positive size like 70B, found '%s'",
                      s->val[PARAM_PARAMS]);
            return VRAMLAB_EXIT_USAGE;
        }
        if (opt_params_plausible(s->val[PARAM_PARAMS], n) != 0)
            return VRAMLAB_EXIT_USAGE;
        engine_model_from_size(m, n);
        snprintf(m->id, sizeof(m->id), "params-%s", s->val[PARAM_PARAMS]);
        snprintf(m->name, sizeof(m->name), "%s-parameter model", s->val[PARAM_PARAMS]);
        m->source = "bare size (--params): shape derived";
        o->model_custom = true;
        /* --kv-heads, --head-dim, ... override the derived shape; the
         * count stays the size given. */
        if (opt_any_arch(s)) {
            if (s->set[PARAM_EXPERTS] || s->set[PARAM_ACTIVE_EXPERTS] || s->set[PARAM_SHARED_EXPERTS]) {
                opt_error("--params gives a bare dense size; experts need an architecture "
                          "(--layers, --hidden, --heads, --vocab with --experts)");
                return VRAMLAB_EXIT_USAGE;
            }
            if (opt_apply_arch(s, m) != 0)
                return VRAMLAB_EXIT_USAGE;
            m->has_arch = false;
            m->params_size = n;
        }
        return 0;
    } else if (!s->set[PARAM_MODEL] && opt_any_arch(s)) {
        o->model_custom = true;
        return opt_custom_model(s, m) == 0 ? 0 : VRAMLAB_EXIT_USAGE;
    } else {
        const char *id = s->set[PARAM_MODEL] ? s->val[PARAM_MODEL] : "llama-3.1-8b";
        const struct engine_model *cm = catalog_find_model(cat, id);
        char norm[sizeof(m->id)];
        if (!cm) {
            /* A Hugging Face name (meta-llama/Llama-3.1-8B): the part after
             * the organisation, lower-cased, is tried as a catalog id. */
            options_model_id_of(id, norm, sizeof(norm));
            cm = catalog_find_model(cat, norm);
            if (cm)
                fprintf(stderr, _("vramlab: --model: taking '%s' as the catalog's %s\n"), id,
                        cm->id);
        }
        if (!cm) {
            opt_unknown_id(cat, CATALOG_MODEL, "model", id, norm[0] ? norm : id);
            return s->set[PARAM_MODEL] ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_CATALOG;
        }
        *m = *cm;
    }
    if (opt_any_arch(s)) {
        if (opt_apply_arch(s, m) != 0)
            return VRAMLAB_EXIT_USAGE;
        o->model_custom = true;
        size_t n = strlen(m->name);
        if (n + 11 < sizeof(m->name))
            memcpy(m->name + n, " (modified)", 12);
    }
    return 0;
}

/* Look up a format by id, with suggestions on failure; a KV-cache-only
 * format is refused for the weights (--format), naming its weights twin. */
int opt_format(const struct catalog *cat, const char *flag, const char *id, bool given,
                      struct engine_format *out) {
    const struct engine_format *f = catalog_find_format(cat, id);

    if (!f) {
        opt_unknown_id(cat, CATALOG_FORMAT, flag, id, id);
        return given ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_CATALOG;
    }
    if (!strcmp(flag, "format") && catalog_format_kv_only(f)) {
        const struct engine_format *w = catalog_format_for_weights(cat, f);
        if (w)
            opt_error("--format: %s (%s) is a format for the KV cache (--kv-format); for the "
                      "weights use %s (%s)",
                      f->id, f->name, w->id, w->name);
        else
            opt_error("--format: %s (%s) is a format for the KV cache (--kv-format), not for "
                      "the weights (see 'vramlab catalog formats')",
                      f->id, f->name);
        return VRAMLAB_EXIT_USAGE;
    }
    *out = *f;
    return 0;
}

/* Refuse a figure below a sane minimum (a unit forgotten: "--gpu-memory
 * 80" is 80 bytes), suggesting the value with the usual unit. */
static int opt_at_least(const char *flag, const char *raw, double v, double min,
                        const char *what, const char *unit) {
    if (v >= min)
        return 0;
    if (v <= 0) /* no unit makes 0 (or less) a size (issue 27 item 6) */
        opt_error("--%s: expected a figure above zero (at least %s), found '%s'", flag, what, raw);
    else
        opt_error("--%s: %s is below %s, surely not meant; did you mean %s%s?", flag, raw, what,
                  raw, unit);
    return -1;
}

/* The unit a bare bandwidth most likely meant: 3.35 is TB/s, 900 GB/s. */
static const char *opt_bw_unit(double v) {
    return v < 100 ? "TB/s" : "GB/s";
}

/* Parse --gpu-memory, --gpu-bandwidth, --gpu-flops that were given, each
 * with its sane minimum (1 MiB, 1 MB/s, 1 GFLOP/s). */
static int opt_gpu_values(const struct options_given *s, double *mem, double *bw, double *fl) {
    const char *v;

    v = s->val[PARAM_GPU_MEMORY];
    if (s->set[PARAM_GPU_MEMORY] && (opt_number(PARAM_GPU_MEMORY, v, mem) ||
                                   opt_at_least("gpu-memory", v, *mem, 1048576.0, "1 MiB", "GiB")))
        return -1;
    v = s->val[PARAM_GPU_BANDWIDTH];
    if (s->set[PARAM_GPU_BANDWIDTH] &&
        (opt_number(PARAM_GPU_BANDWIDTH, v, bw) ||
         opt_at_least("gpu-bandwidth", v, *bw, 1e6, "1 MB/s", opt_bw_unit(*bw))))
        return -1;
    v = s->val[PARAM_GPU_FLOPS];
    if (s->set[PARAM_GPU_FLOPS] && (opt_number(PARAM_GPU_FLOPS, v, fl) ||
                                  opt_at_least("gpu-flops", v, *fl, 1e9, "1 GFLOP/s", "T")))
        return -1;
    return 0;
}

/* --system ID: the catalog system into o (its GPU, NVLink domain, links
 * and power; each of --gpus-per-node, --intra-node-bw and --inter-node-bw
 * given too wins over the system's). --gpu with it must be the system's. */
static int opt_system(const struct options_given *s, const struct catalog *cat, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    const struct catalog_system *y;

    o->has_system = false;
    sc->system_id[0] = '\0';
    sc->system_gpus = 0;
    sc->system_power_w = 0;
    if (!s->set[PARAM_SYSTEM])
        return 0;
    y = catalog_find_system(cat, s->val[PARAM_SYSTEM]);
    if (!y) {
        char list[400] = "";
        size_t used = 0;
        for (size_t i = 0; i < cat->n_systems && used < sizeof(list); i++) {
            int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
                             cat->systems[i].id);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        opt_error("--system: unknown system '%s' (the catalog has: %s)", s->val[PARAM_SYSTEM],
                  cat->n_systems ? list : "none");
        return VRAMLAB_EXIT_USAGE;
    }
    if (s->set[PARAM_GPU] && !catalog_find_gpu(cat, s->val[PARAM_GPU])) {
        opt_unknown_id(cat, CATALOG_GPU, "gpu", s->val[PARAM_GPU], s->val[PARAM_GPU]);
        return VRAMLAB_EXIT_USAGE;
    }
    if (s->set[PARAM_GPU] && catalog_find_gpu(cat, s->val[PARAM_GPU]) != catalog_find_gpu(cat, y->gpu)) {
        opt_error("--system %s comes with --gpu %s, not '%s' (leave --gpu out, or override "
                  "single fields with --gpu-memory, --gpu-bandwidth, --gpu-flops)",
                  y->id, y->gpu, s->val[PARAM_GPU]);
        return VRAMLAB_EXIT_USAGE;
    }
    o->has_system = true;
    o->system = *y;
    snprintf(sc->system_id, sizeof(sc->system_id), "%s", y->id);
    sc->system_gpus = y->gpus;
    sc->system_power_w = y->power_w;
    return 0;
}

/* --device cpu: this machine's CPU with its measured rates (saved by
 * vramlab measure --device cpu, else measured now); one device, so no
 * --gpu, --system or --gpus with it. The kernels with 8-bit activations
 * stand for the runtimes that run them (llama.cpp, Ollama; also the
 * default, as the runtime a CPU is served with). */
static int opt_device(const struct options_given *s, struct options *o) {
    struct cpu_device d;
    char err[512];
    const char *v = s->val[PARAM_DEVICE];
    if (strcmp(v, "cpu") != 0) {
        opt_error("--device: expected cpu (a GPU is --gpu ID), found '%s'", v);
        return VRAMLAB_EXIT_USAGE;
    }
    static const enum param_id other[] = {PARAM_GPU, PARAM_SYSTEM, PARAM_GPU_MEMORY,
                                          PARAM_GPU_BANDWIDTH, PARAM_GPU_FLOPS};
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        if (s->set[other[i]]) {
            opt_error("--device cpu and --%s: one device (the CPU's figures are measured)",
                      param_info(other[i])->name);
            return VRAMLAB_EXIT_USAGE;
        }
    static const enum param_id layout[] = {PARAM_GPUS, PARAM_TP, PARAM_PP, PARAM_DP, PARAM_CP};
    for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++)
        if (s->set[layout[i]] && strcmp(s->val[layout[i]], "1") != 0) {
            opt_error("--device cpu is one device: --%s %s does not apply",
                      param_info(layout[i])->name, s->val[layout[i]]);
            return VRAMLAB_EXIT_USAGE;
        }
    /* the runtimes that run 8-bit activations on a CPU (llama.cpp, Ollama) */
    const char *rt = s->set[PARAM_RUNTIME] ? s->val[PARAM_RUNTIME] : "llama.cpp";
    bool a8 = strncmp(rt, "vllm", 4) != 0 && strcmp(rt, "plain") != 0 &&
              strncmp(rt, "sglang", 6) != 0 && strncmp(rt, "trtllm", 6) != 0;
    if (cpu_device_get(&d, a8, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: --device cpu: %s\n", err);
        return VRAMLAB_EXIT_DEVICE;
    }
    /* a GGUF file under llama.cpp or Ollama: ggml's own kernels time it */
    if (a8 && o->model_file &&
        cpu_device_runtime(&d, o->model_file, &o->sc.model, true, err, sizeof(err)) != 0 && err[0])
        fprintf(stderr, _("vramlab: --device cpu: the probe's kernels stand for llama.cpp's: %s\n"),
                err);
    cpu_device_gpu(&d, &o->sc.gpu);
    return 0;
}

/* Choose the GPU (catalog or custom) and apply --gpu-* overrides. The
 * values are checked first, so a bad unit is reported before a missing
 * companion flag. */
int opt_gpu(const struct options_given *s, const struct catalog *cat, struct options *o) {
    struct engine_gpu *g = &o->sc.gpu;
    bool custom = s->set[PARAM_GPU_MEMORY] || s->set[PARAM_GPU_BANDWIDTH] || s->set[PARAM_GPU_FLOPS];
    double mem = 0, bw = 0, fl = 0;

    if (opt_gpu_values(s, &mem, &bw, &fl) != 0)
        return VRAMLAB_EXIT_USAGE;
    if (s->set[PARAM_DEVICE]) /* this machine's CPU (issue 26) */
        return opt_device(s, o);
    int rc = opt_system(s, cat, o);
    if (rc != 0)
        return rc;
    if (o->has_system) {
        const struct engine_gpu *cg = catalog_find_gpu(cat, o->system.gpu);
        if (!cg) {
            opt_error("--system %s: its GPU '%s' is not in the catalog", o->system.id,
                      o->system.gpu);
            return VRAMLAB_EXIT_CATALOG;
        }
        *g = *cg;
    } else if (!s->set[PARAM_GPU] && custom) {
        if (!s->set[PARAM_GPU_MEMORY] || !s->set[PARAM_GPU_BANDWIDTH] || !s->set[PARAM_GPU_FLOPS]) {
            opt_error("a custom GPU needs --gpu-memory, --gpu-bandwidth and --gpu-flops "
                      "(or --gpu ID to override single fields)");
            return VRAMLAB_EXIT_USAGE;
        }
        memset(g, 0, sizeof(*g));
        snprintf(g->id, sizeof(g->id), "custom");
        snprintf(g->name, sizeof(g->name), "custom GPU");
        g->source = "command line";
        g->gpus_per_node = 1;
    } else {
        const char *id = s->set[PARAM_GPU] ? s->val[PARAM_GPU] : "h100-sxm";
        const struct engine_gpu *cg = catalog_find_gpu(cat, id);
        if (!cg) {
            opt_unknown_id(cat, CATALOG_GPU, "gpu", id, id);
            return s->set[PARAM_GPU] ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_CATALOG;
        }
        *g = *cg;
    }
    if (s->set[PARAM_GPU_MEMORY])
        g->memory_bytes = mem;
    if (s->set[PARAM_GPU_BANDWIDTH])
        g->bandwidth_bytes_per_s = bw;
    if (s->set[PARAM_GPU_FLOPS]) {
        /* The 16-bit figure, and the column the weight format computes in. */
        g->flops[ENGINE_COMPUTE_FP16] = fl;
        g->flops[ENGINE_COMPUTE_BF16] = fl;
        g->flops[o->sc.weight_format.compute] = fl;
    }
    if (custom)
        o->gpu_custom = true;
    return 0;
}

/* Largest t dividing gpus, at most per_node, dividing heads (when known). */
static uint32_t opt_default_tp(uint32_t gpus, uint32_t per_node, uint32_t heads) {
    for (uint32_t t = gpus < per_node ? gpus : per_node; t > 1; t--) {
        if (gpus % t == 0 && (heads == 0 || heads % t == 0))
            return t;
    }
    return 1;
}

/* Work out G, t, p, d from what was given; check the combination. */
int opt_layout(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    uint32_t g = 1, t = 1, p = 1, d = 1, cp = 1;
    uint32_t per_node = sc->gpus_per_node ? sc->gpus_per_node : sc->gpu.gpus_per_node;

    if (per_node == 0)
        per_node = 1;
    if (s->set[PARAM_GPUS] && opt_uint(PARAM_GPUS, s->val[PARAM_GPUS], &g))
        return -1;
    /* Context parallelism multiplies the layout: G = t x cp x p x d; the
     * rest of the layout is worked out on G / cp. */
    if (s->set[PARAM_CP] && opt_uint(PARAM_CP, s->val[PARAM_CP], &cp))
        return -1;
    if (cp > 1 && sc->mode == ENGINE_MODE_INFER) {
        opt_error("--cp %u applies to training (--mode train, lora, qlora): it splits each "
                  "training sequence over GPUs",
                  cp);
        return -1;
    }
    if (cp > 1 && s->set[PARAM_GPUS] && g % cp != 0) {
        opt_error("--gpus %u is not a multiple of --cp %u", g, cp);
        return -1;
    }
    if (cp > 1 && s->set[PARAM_GPUS])
        g /= cp;
    if (s->set[PARAM_TP] && opt_uint(PARAM_TP, s->val[PARAM_TP], &t))
        return -1;
    if (s->set[PARAM_PP] && opt_uint(PARAM_PP, s->val[PARAM_PP], &p))
        return -1;
    if (s->set[PARAM_DP] && opt_uint(PARAM_DP, s->val[PARAM_DP], &d))
        return -1;

    if (!s->set[PARAM_GPUS] && o->has_system && !s->set[PARAM_TP] && !s->set[PARAM_PP] &&
        !s->set[PARAM_DP]) {
        /* --system alone: one whole system, tensor-parallel inside a node. */
        g = o->system.gpus;
        t = opt_default_tp(g, per_node, sc->model.heads);
        d = g / t;
    } else if (!s->set[PARAM_GPUS]) {
        g = t * p * d;
    } else if (!s->set[PARAM_TP] && !s->set[PARAM_PP] && !s->set[PARAM_DP]) {
        t = opt_default_tp(g, per_node, sc->model.heads);
        d = g / t;
    } else if (!s->set[PARAM_DP]) {
        if (g % (t * p) != 0) {
            opt_error("--gpus %u is not a multiple of --tp %u x --pp %u", g, t, p);
            return -1;
        }
        d = g / (t * p);
    } else if (!s->set[PARAM_TP] && g % (p * d) == 0) {
        t = g / (p * d);
    } else if (!s->set[PARAM_PP] && g % (t * d) == 0) {
        p = g / (t * d);
    }
    if ((uint64_t)t * p * d != g) {
        opt_error("--tp %u x --pp %u x --dp %u = %llu, but --gpus is %u", t, p, d,
                  (unsigned long long)t * p * d, g);
        return -1;
    }
    if ((uint64_t)g * cp > (1u << 24)) {
        opt_error("--cp %u x %u GPUs exceeds %u GPUs", cp, g, 1u << 24);
        return -1;
    }
    g *= cp;
    if (sc->model.heads > 0 && sc->model.heads % t != 0) {
        opt_error("--tp %u does not divide the model's %u attention heads", t, sc->model.heads);
        return -1;
    }
    /* Uneven stages are allowed (the most loaded one is reported), as
     * Llama 3.1 405B's 126 layers on 16 stages; more stages than layers not. */
    if (sc->model.layers > 0 && p > sc->model.layers) {
        opt_error("--pp %u exceeds the model's %u layers", p, sc->model.layers);
        return -1;
    }
    sc->gpus = g;
    sc->tp = t;
    sc->pp = p;
    sc->dp = d;
    sc->cp = cp;
    return 0;
}

/* --global-batch: sequences, or tokens with "-tokens" (16M-tokens; k =
 * 1024, M = 1024k as for --context), which the context must divide. */
static int opt_global_batch(const char *v, uint32_t context, uint32_t *out) {
    const char *suffix = strstr(v, "-tokens");
    if (!suffix) {
        if (opt_uint(PARAM_GLOBAL_BATCH, v, out))
            return -1;
        return 0;
    }
    if (suffix[7] != '\0' || suffix == v) {
        opt_error("--global-batch: expected sequences (2048) or tokens (16M-tokens), found '%s'",
                  v);
        return -1;
    }
    char num[40];
    size_t n = (size_t)(suffix - v);
    if (n >= sizeof(num)) {
        opt_error("--global-batch: '%s' is too long", v);
        return -1;
    }
    memcpy(num, v, n);
    num[n] = '\0';
    uint32_t tokens;
    if (opt_token_count("global-batch", num, &tokens))
        return -1;
    if (tokens % context) {
        opt_error("--global-batch %s = %u tokens is not a whole number of sequences of --context "
                  "%u (%u x %u = %u)",
                  v, tokens, context, tokens / context, context, tokens / context * context);
        return -1;
    }
    *out = tokens / context;
    return 0;
}

/* A positive number (a count with the usual suffixes: 1000, 2.5k). */
static int opt_positive(const char *flag, const char *v, double *out) {
    if (opt_unit(flag, v, catalog_parse_count, out))
        return -1;
    if (!(*out > 0)) {
        opt_error("--%s: expected a positive number, found '%s'", flag, v);
        return -1;
    }
    return 0;
}

/* Seed 002's method: --throughput (tokens/s of the deployment, or "/gpu"
 * per GPU), the training set as --dataset NxT or --dataset-tokens N, and
 * --epochs over it; the run's tokens are the set's times the epochs. */
static int opt_dataset(const struct options_given *s, struct engine_scenario *sc) {
    if (s->set[PARAM_THROUGHPUT]) {
        char num[48];
        const char *v = s->val[PARAM_THROUGHPUT];
        const char *per = strstr(v, "/gpu");
        size_t n = per ? (size_t)(per - v) : strlen(v);
        if ((per && per[4] != '\0') || n == 0 || n >= sizeof(num)) {
            opt_error("--throughput: expected tokens/s like 1000 or 1000/gpu, found '%s'", v);
            return -1;
        }
        memcpy(num, v, n);
        num[n] = '\0';
        double t;
        if (opt_positive("throughput", num, &t))
            return -1;
        sc->throughput_tokens_per_s = per ? t * sc->gpus : t;
        if (s->set[PARAM_MFU]) {
            opt_error("--throughput and --mfu both set the training speed: give one");
            return -1;
        }
    }
    double set_tokens = 0;
    if (s->set[PARAM_DATASET] && s->set[PARAM_DATASET_TOKENS]) {
        opt_error("--dataset and --dataset-tokens both give the training set: give one");
        return -1;
    }
    if (s->set[PARAM_DATASET]) {
        const char *v = s->val[PARAM_DATASET];
        const char *x = strpbrk(v, "xX");
        char a[48];
        size_t n = x ? (size_t)(x - v) : 0;
        double ex, tok;
        if (!x || n == 0 || n >= sizeof(a)) {
            opt_error("--dataset: expected examples x tokens each, like 10000x512, found '%s'", v);
            return -1;
        }
        memcpy(a, v, n);
        a[n] = '\0';
        if (opt_positive("dataset", a, &ex) || opt_positive("dataset", x + 1, &tok))
            return -1;
        set_tokens = ex * tok;
    }
    if (s->set[PARAM_DATASET_TOKENS] &&
        opt_positive("dataset-tokens", s->val[PARAM_DATASET_TOKENS], &set_tokens))
        return -1;
    double epochs = 1;
    if (s->set[PARAM_EPOCHS]) {
        if (opt_positive("epochs", s->val[PARAM_EPOCHS], &epochs))
            return -1;
        if (!(set_tokens > 0)) {
            opt_error("--epochs counts passes over --dataset or --dataset-tokens: give one");
            return -1;
        }
    }
    if (set_tokens > 0) {
        if (s->set[PARAM_TOKENS]) {
            opt_error("--tokens and --%s both give the training tokens: give one",
                      s->set[PARAM_DATASET] ? "dataset" : "dataset-tokens");
            return -1;
        }
        sc->training_tokens = set_tokens * epochs;
        sc->training_tokens_given = true;
    }
    return 0;
}

/* Training batches the way Megatron and DeepSpeed say them: --global-batch
 * (sequences per step over all replicas), --micro-batch-size (sequences per
 * micro-batch; --batch means the same in training), and the micro-batches
 * (gradient accumulation) = global / (micro x dp), checked to divide. */
static int opt_batches(const struct options_given *s, struct engine_scenario *sc) {
    bool train = sc->mode != ENGINE_MODE_INFER;
    if ((s->set[PARAM_GLOBAL_BATCH] || s->set[PARAM_MICRO_BATCH_SIZE]) && !train) {
        opt_error("--%s applies to training (--mode train, lora, qlora); in inference --batch is "
                  "the sequences at once",
                  s->set[PARAM_GLOBAL_BATCH] ? "global-batch" : "micro-batch-size");
        return -1;
    }
    if (s->set[PARAM_MICRO_BATCH_SIZE]) {
        uint32_t mbs;
        if (opt_uint(PARAM_MICRO_BATCH_SIZE, s->val[PARAM_MICRO_BATCH_SIZE], &mbs))
            return -1;
        if (s->set[PARAM_BATCH] && mbs != sc->batch) {
            opt_error("--batch %u and --micro-batch-size %u: in training both are the sequences "
                      "of one micro-batch; give one",
                      sc->batch, mbs);
            return -1;
        }
        sc->batch = mbs;
    }
    if (!s->set[PARAM_GLOBAL_BATCH])
        return 0;
    uint32_t g;
    if (opt_global_batch(s->val[PARAM_GLOBAL_BATCH], sc->context, &g))
        return -1;
    uint64_t per = (uint64_t)sc->batch * sc->dp;
    if (g % per) {
        opt_error("--global-batch %u sequences is not a multiple of --micro-batch-size %u x --dp %u "
                  "= %llu: the micro-batches per replica (gradient accumulation) would be %.4g",
                  g, sc->batch, sc->dp, (unsigned long long)per, (double)g / (double)per);
        return -1;
    }
    if (s->set[PARAM_MICRO_BATCHES] && (uint64_t)sc->micro_batches * per != g) {
        opt_error("--global-batch %u = --micro-batch-size %u x --micro-batches m x --dp %u needs "
                  "m = %llu, but --micro-batches is %u; give one of the two",
                  g, sc->batch, sc->dp, (unsigned long long)(g / per), sc->micro_batches);
        return -1;
    }
    sc->global_batch = g;
    sc->micro_batches = (uint32_t)(g / per);
    return 0;
}

/* Training batch defaults from the model's published recipe (see
 * options_internal.h): its global batch in tokens over the context, in
 * micro-batches of --batch sequences on each of the dp replicas (at least
 * one). */
void opt_train_batch_defaults(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    double tokens = sc->model.global_batch_tokens;
    o->recipe_batch_sequences = 0;
    if (sc->mode != ENGINE_MODE_TRAIN || s->set[PARAM_GLOBAL_BATCH] ||
        s->set[PARAM_MICRO_BATCHES] || !(tokens > 0) || sc->context == 0 || sc->batch == 0 ||
        sc->dp == 0)
        return;
    double seqs = fmax(1, round(tokens / sc->context));
    double m = fmax(1, round(seqs / ((double)sc->batch * sc->dp)));
    if (m > (double)(1u << 24))
        m = (double)(1u << 24);
    sc->micro_batches = (uint32_t)m;
    o->recipe_batch_sequences = (uint32_t)seqs;
}

/* Expert parallelism (--ep, Megatron-LM's --expert-model-parallel-size):
 * MoE training only, EP inside DP as Megatron-LM lays it out, so ep
 * divides the experts of each layer and the data-parallel degree. Where
 * --gpus alone leaves the layout to the search, the search keeps only the
 * d that ep divides. */
static int opt_expert_parallel(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    if (!s->set[PARAM_EP])
        return 0;
    if (sc->ep == 1)
        return 0;
    if (sc->mode == ENGINE_MODE_INFER) {
        opt_error("--ep %u applies to training (--mode train, lora, qlora): it splits the experts "
                  "of a mixture-of-experts model over the data-parallel GPUs",
                  sc->ep);
        return -1;
    }
    if (!sc->model.has_arch || sc->model.experts == 0) {
        opt_error("--ep %u needs a mixture-of-experts model: %s has no routed experts", sc->ep,
                  sc->model.id[0] ? sc->model.id : sc->model.name);
        return -1;
    }
    if (sc->model.experts % sc->ep) {
        opt_error("--ep %u does not divide the %u experts of each MoE layer of %s", sc->ep,
                  sc->model.experts, sc->model.id);
        return -1;
    }
    bool layout = s->set[PARAM_TP] || s->set[PARAM_PP] || s->set[PARAM_DP] || !s->set[PARAM_GPUS];
    if (layout && sc->dp % sc->ep) {
        opt_error("--ep %u does not divide --dp %u: expert parallelism runs inside data "
                  "parallelism (Megatron-LM), each expert's d / ep replicas sharing its states",
                  sc->ep, sc->dp);
        return -1;
    }
    return 0;
}

/* Full recompute's method and layers (Megatron-LM's --recompute-method
 * and --recompute-num-layers, which apply with full granularity). */
static int opt_recompute_layers(const struct options_given *s, struct engine_scenario *sc) {
    bool method = s->set[PARAM_RECOMPUTE_METHOD], layers = s->set[PARAM_RECOMPUTE_NUM_LAYERS];
    if (!method && !layers)
        return 0;
    if (sc->mode == ENGINE_MODE_INFER || sc->recompute != ENGINE_RECOMPUTE_FULL) {
        opt_error("--%s applies to full recompute in training (--recompute full; now %s)",
                  layers ? "recompute-num-layers" : "recompute-method",
                  sc->mode == ENGINE_MODE_INFER ? "inference" : engine_recompute_name(sc->recompute));
        return -1;
    }
    if (layers && sc->model.layers > 0 && sc->recompute_num_layers > sc->model.layers) {
        opt_error("--recompute-num-layers %u exceeds the model's %u layers",
                  sc->recompute_num_layers, sc->model.layers);
        return -1;
    }
    return 0;
}

static int opt_zero_offload(const struct options_given *s, struct options *o);

/* --recompute-modules (Megatron-LM's, selective recompute only),
 * --moe-imbalance (MoE training, at least 1), --fine-tune (full training);
 * the values themselves were read with the others (opt_read_stored) but
 * the modules' list. */
static int opt_train_extras(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    if (s->set[PARAM_RECOMPUTE_MODULES]) {
        const char *bad = NULL;
        if (engine_recompute_modules_parse(s->val[PARAM_RECOMPUTE_MODULES], &sc->recompute_modules,
                                           &bad)) {
            char what[160] = "a comma-separated list of";
            for (unsigned i = 0; i < ENGINE_RECOMPUTE_MODULE_COUNT; i++)
                snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s %s", i ? "," : "",
                         engine_recompute_module_name(i));
            opt_expected_of("recompute-modules", what, s->val[PARAM_RECOMPUTE_MODULES]);
            return -1;
        }
        if (s->set[PARAM_RECOMPUTE] && sc->recompute != ENGINE_RECOMPUTE_SELECTIVE) {
            opt_error("--recompute-modules applies to selective recompute (Megatron-LM "
                      "--recompute-granularity selective), not --recompute %s",
                      engine_recompute_name(sc->recompute));
            return -1;
        }
        sc->recompute = ENGINE_RECOMPUTE_SELECTIVE;
    }
    if (s->set[PARAM_FINE_TUNE] && sc->mode != ENGINE_MODE_TRAIN) {
        opt_error("--fine-tune applies to --mode train (full fine-tuning); LoRA and QLoRA "
                  "fine-tune already");
        return -1;
    }
    return 0;
}

/* Workload, training and communication options. */
int opt_workload(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;

    /* Every plain field given, by its row's type and range; then what
     * depends on others. */
    if (opt_read_stored(s, sc) != 0 || opt_zero_offload(s, o) != 0 || opt_batches(s, sc) != 0)
        return -1;
    /* Each virtual stage holds at least one layer (Narayanan et al. 2021:
     * v model chunks per GPU): more than the layers of a stage cannot be. */
    if (s->set[PARAM_INTERLEAVE] && sc->model.layers > 0) {
        uint32_t per_stage = (sc->model.layers + sc->pp - 1) / sc->pp;
        if (sc->interleave > per_stage) {
            opt_error("--interleave %u exceeds the %u layers per pipeline stage (%u layers on "
                      "--pp %u): each virtual stage holds at least one layer",
                      sc->interleave, per_stage, sc->model.layers, sc->pp);
            return -1;
        }
    }
    /* LoRA and QLoRA fine-tune with gradient checkpointing unless told
     * otherwise (the QLoRA paper, Dettmers et al. 2023, and the PEFT/TRL
     * recipes): full recompute by default. */
    if (!s->set[PARAM_RECOMPUTE] &&
        (sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA))
        sc->recompute = ENGINE_RECOMPUTE_FULL;
    if (opt_train_extras(s, o) != 0)
        return -1;
    if (opt_recompute_layers(s, sc) != 0 || opt_expert_parallel(s, o) != 0)
        return -1;
    /* --mfu is end to end; "predict" (a scenario file's way to say it is
     * not given) leaves 0: vramlab predicts it. */
    if (s->set[PARAM_MFU] && strcmp(s->val[PARAM_MFU], "predict") != 0 &&
        opt_number(PARAM_MFU, s->val[PARAM_MFU], &sc->mfu))
        return -1;
    if (s->set[PARAM_MFU] && strcmp(s->val[PARAM_MFU], "predict") == 0)
        sc->mfu = 0;
    sc->flops_efficiency_given = sc->flops_efficiency_given || s->set[PARAM_FLOPS_EFFICIENCY];
    if (s->set[PARAM_TOKENS] && opt_number(PARAM_TOKENS, s->val[PARAM_TOKENS], &sc->training_tokens))
        return -1;
    /* Given, 0 means no tokens (not the default of 20 per parameter). */
    sc->training_tokens_given = s->set[PARAM_TOKENS];
    if (opt_dataset(s, sc) != 0)
        return -1;
    if (o->has_system && !s->set[PARAM_INTRA_BW])
        sc->intra_node_bytes_per_s = o->system.link_bytes_per_s;
    if (o->has_system && !s->set[PARAM_INTER_BW] && o->system.network_bytes_per_s > 0)
        sc->inter_node_bytes_per_s = o->system.network_bytes_per_s;
    /* A measured all-reduce (vramlab measure --allreduce --json, or the
     * probe's lines): its fit sets the link bandwidth of the hosts it ran
     * on (intra-node on one host, inter-node across hosts) and the
     * latency (tui/measure_ar.h); with the same flag given too, which
     * would win is not obvious: refused. */
    if (s->set[PARAM_MEASURED_ALLREDUCE]) {
        struct measure_ar_fit f;
        char err[400];
        if (measure_ar_load(s->val[PARAM_MEASURED_ALLREDUCE], &f, err, sizeof(err)) != 0) {
            opt_error("--measured-allreduce: %s", err);
            return -1;
        }
        enum param_id bw = f.hosts > 1 ? PARAM_INTER_BW : PARAM_INTRA_BW;
        if (s->set[bw] || s->set[PARAM_ALLREDUCE_LATENCY]) {
            opt_error("--measured-allreduce sets --%s and --allreduce-latency from its fit (%u "
                      "ranks on %u host(s)): give either the file or those flags",
                      opt_name(bw), f.ranks, f.hosts);
            return -1;
        }
        measure_ar_calibrate(sc, &f);
    }
    sc->price_given = s->set[PARAM_PRICE];
    /* Calibration (vramlab measure, or the explorer's Measure pane): a rate
     * of zero would silently mean "the data sheet", so it is refused. */
    if (s->set[PARAM_MEASURED_BW] &&
        (opt_above_zero(s, PARAM_MEASURED_BW, sc->measured_bytes_per_s) ||
         opt_at_least("measured-bw", s->val[PARAM_MEASURED_BW], sc->measured_bytes_per_s, 1e6,
                      "1 MB/s", opt_bw_unit(sc->measured_bytes_per_s))))
        return -1;
    if (s->set[PARAM_MEASURED_FLOPS] &&
        (opt_above_zero(s, PARAM_MEASURED_FLOPS, sc->measured_flop_per_s) ||
         opt_at_least("measured-flops", s->val[PARAM_MEASURED_FLOPS], sc->measured_flop_per_s, 1e9,
                      "1 GFLOP/s", "T")))
        return -1;
    return 0;
}


/* The training-state accounting and offload: --memory-convention,
 * --offload, --host-link-bw; the combinations the engine refuses are
 * named here with their flags (engine/zero.c). */
static int opt_zero_offload(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    if (opt_above_zero(s, PARAM_HOST_LINK_BW, sc->host_link_bytes_per_s) != 0)
        return -1;
    if (sc->offload == ENGINE_OFFLOAD_NONE)
        return 0;
    if (sc->mode != ENGINE_MODE_TRAIN) {
        opt_error("--offload %s needs --mode train: ZeRO-Offload moves full training's "
                    "optimizer states",
                  engine_offload_name(sc->offload));
        return -1;
    }
    if (sc->memory_convention == ENGINE_MEMCONV_MEGATRON) {
        opt_error("--offload %s is DeepSpeed's ZeRO-Offload: use --memory-convention paper or "
                    "deepspeed with it, not megatron",
                  engine_offload_name(sc->offload));
        return -1;
    }
    if (sc->zero == 0 || (sc->offload == ENGINE_OFFLOAD_NVME && sc->zero < 3)) {
        opt_error("--offload %s needs --zero %s (found --zero %u): %s",
                  engine_offload_name(sc->offload),
                  sc->offload == ENGINE_OFFLOAD_NVME ? "3" : "1, 2 or 3", sc->zero,
                  sc->offload == ENGINE_OFFLOAD_NVME
                      ? _("ZeRO-Infinity offloads the parameters, which only ZeRO-3 partitions")
                      : _("ZeRO-Offload partitions the offloaded states over --dp"));
        return -1;
    }
    return 0;
}
