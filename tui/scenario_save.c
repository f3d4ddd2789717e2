/*
 * scenario_save.c: writing scenario files (see scenario_file.h).
 *
 * Each quantity is written in the most readable unit that parses back to
 * exactly the same double with the same parser the loader uses ("80 GiB",
 * "3.35 TB/s", "5 us"), falling back to a plain number, so a save/load
 * round trip is exact; numbers are printed with LC_NUMERIC "C". The file
 * is written by save_file() (tui/save_file.h: a temporary file, fsync,
 * rename over a regular file only, links followed, FIFOs and devices
 * refused, no clobber without overwrite). Also here: the state file's path
 * (XDG base directories) and copying a loaded scenario into a session.
 */
#include "tui/scenario_file.h"

#include "engine/param_table.h"
#include "tui/i18n.h"
#include "tui/save_file.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append formatted text to err (truncating, always NUL-terminated). */
static void sv_append(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append formatted text to err (truncating, always NUL-terminated). */
static void sv_append(char *err, size_t errlen, const char *fmt, ...) {
    size_t used;
    va_list ap;

    if (!err || errlen == 0)
        return;
    used = strnlen(err, errlen);
    if (used >= errlen - 1)
        return;
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - used, _(fmt), ap);
    va_end(ap);
}

/* ---- writing ------------------------------------------------------------------- */

/* A unit a quantity may be written in: its suffix and its factor. */
struct sf_unit {
    const char *suffix;
    double scale;
};

static const struct sf_unit sf_bytes_units[] = {
    {" TiB", 1099511627776.0},
    {" GiB", 1073741824.0},
    {" MiB", 1048576.0},
    {" TB", 1e12},
    {" GB", 1e9},
    {" MB", 1e6},
    {" KB", 1e3},
    {" B", 1},
};
static const struct sf_unit sf_bandwidth_units[] = {
    {" TB/s", 1e12}, {" GB/s", 1e9}, {" MB/s", 1e6}, {" KB/s", 1e3}, {" B/s", 1},
};
static const struct sf_unit sf_flops_units[] = {
    {" TFLOPS", 1e12},
    {" GFLOPS", 1e9},
    {" FLOPS", 1},
};
static const struct sf_unit sf_seconds_units[] = {
    {" s", 1},
    {" ms", 1e-3},
    {" us", 1e-6},
    {" ns", 1e-9},
};
static const struct sf_unit sf_count_units[] = {
    {"T", 1e12}, {"B", 1e9}, {"M", 1e6}, {"K", 1e3}, {"", 1},
};

typedef int (*sf_parser)(const char *, double *, char *, size_t);

/* Write v into buf in the first unit (and fewest digits) that parse reads
 * back as exactly v; short forms first, then any precision; plain last. */
static void sf_quantity(char *buf, size_t len, double v, const struct sf_unit *units, size_t n,
                        sf_parser parse) {
    char e[160];
    double back;

    if (v == 0) {
        snprintf(buf, len, "0");
        if (parse(buf, &back, e, sizeof(e)) == 0 && back == 0)
            return;
    }
    for (int pass = 0; pass < 2; pass++) {
        int max_prec = pass == 0 ? 4 : 17;
        for (size_t i = 0; i < n; i++) {
            double m = v / units[i].scale;
            if (v != 0 && m < 1 && i + 1 < n)
                continue;
            for (int prec = 1; prec <= max_prec; prec++) {
                snprintf(buf, len, "%.*g%s", prec, m, units[i].suffix);
                if (strchr(buf, 'e'))
                    continue; /* units take plain decimals only */
                if (parse(buf, &back, e, sizeof(e)) == 0 && back == v)
                    return;
            }
        }
    }
    snprintf(buf, len, "%.17g", v);
}

/* Shortest decimal that strtod reads back as v. */
static void sf_number(char *buf, size_t len, double v) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Append ", what" (or "what" first) to a list in buf; file text, so never
 * translated (unlike sv_append's messages). */
static void sf_list_add(char *buf, size_t len, const char *what) {
    size_t used = strnlen(buf, len);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what);
}

/* Features of a custom model that no scenario option carries. */
static void sf_lost_features(const struct engine_model *m, char *buf, size_t len) {
    buf[0] = '\0';
    if (m->kv_lora_rank || m->q_lora_rank)
        sf_list_add(buf, len, "latent attention");
    if (m->sliding_window)
        sf_list_add(buf, len, "sliding window");
    if (m->qk_norm || (m->norms_per_layer && m->norms_per_layer != 2))
        sf_list_add(buf, len, "extra norms");
    if ((m->moe_ffn && m->moe_ffn != m->ffn) || m->dense_layers)
        sf_list_add(buf, len, "expert sizes");
}

/* A value of a plain row as the command line writes it, into buf: by the
 * row's type (numbers in the most readable unit that reads back exactly). */
static void sf_value(const struct param_info *p, double v, char *buf, size_t len) {
    const struct sf_unit *units = NULL;
    size_t n = 0;
    sf_parser parse = NULL;

    switch (p->type) {
    case PARAM_T_FLAG:
        snprintf(buf, len, "%s", v != 0 ? "true" : "false");
        return;
    case PARAM_T_SWITCH:
        snprintf(buf, len, "%s", param_value_name(p, v != 0 ? 0 : 1));
        return;
    case PARAM_T_ENUM: {
        const char *name = param_value_name(p, (unsigned)v);
        snprintf(buf, len, "%s", name ? name : "?");
        return;
    }
    case PARAM_T_INT:
    case PARAM_T_TOKENS:
        snprintf(buf, len, "%.0f", v);
        return;
    case PARAM_T_BYTES:
        units = sf_bytes_units, n = 8, parse = catalog_parse_bytes;
        break;
    case PARAM_T_BANDWIDTH:
        units = sf_bandwidth_units, n = 5, parse = catalog_parse_bandwidth;
        break;
    case PARAM_T_FLOPS:
        units = sf_flops_units, n = 3, parse = catalog_parse_flops;
        break;
    case PARAM_T_SECONDS:
        units = sf_seconds_units, n = 4, parse = catalog_parse_seconds;
        break;
    case PARAM_T_AMOUNT:
        units = sf_count_units, n = 5, parse = catalog_parse_count;
        break;
    default: /* RATIO, PRICE: a plain decimal */
        sf_number(buf, len, v);
        return;
    }
    sf_quantity(buf, len, v, units, n, parse);
}

/* What a scenario file says of a model (see sf_model_kind). */
enum sf_model {
    SF_MODEL_CATALOG,  /* model: ID */
    SF_MODEL_MODIFIED, /* model: ID and the architecture */
    SF_MODEL_SIZE,     /* params: N */
    SF_MODEL_ARCH,     /* the architecture alone */
    SF_MODEL_FILE,     /* model-file: PATH, the architecture as its fallback */
    SF_MODEL_CONFIG,   /* model-config: PATH, likewise */
};

/* How the model of o is written. */
static enum sf_model sf_model_kind(const struct options *o, const struct catalog *cat) {
    const struct engine_model *m = &o->sc.model;
    const struct engine_model *cm = cat ? catalog_find_model(cat, m->id) : NULL;
    if (o->model_path[0])
        return o->model_file ? SF_MODEL_FILE : SF_MODEL_CONFIG;
    if (!o->model_custom && cm)
        return SF_MODEL_CATALOG;
    if (!m->has_arch && m->params_size > 0)
        return SF_MODEL_SIZE;
    return cm ? SF_MODEL_MODIFIED : SF_MODEL_ARCH;
}

/* The bare size as text: the text given ("params-70B") when it still
 * means this size, else the shortest that reads back. */
static void sf_size(const struct engine_model *m, char *buf, size_t len) {
    double given;
    char e[160];
    if (!strncmp(m->id, "params-", 7) &&
        strspn(m->id + 7, "0123456789.eE+KMBT") == strlen(m->id + 7) &&
        catalog_parse_count(m->id + 7, &given, e, sizeof(e)) == 0 && given == m->params_size)
        snprintf(buf, len, "%s", m->id + 7);
    else
        sf_quantity(buf, len, m->params_size, sf_count_units, 5, catalog_parse_count);
}

/* The 16-bit FLOP/s of the GPU (the figure --gpu-flops sets). */
static double sf_gpu_flops(const struct options *o) {
    const struct engine_gpu *g = &o->sc.gpu;
    double flops = g->flops[ENGINE_COMPUTE_FP16];
    if (flops <= 0)
        flops = g->flops[ENGINE_COMPUTE_BF16];
    if (flops <= 0)
        flops = g->flops[o->sc.weight_format.compute];
    return flops;
}

/* Write one row of the parameter table, or a comment, or nothing; the
 * rows whose writing depends on others are decided here, the rest is
 * written by its type from the scenario's field. */
static void sf_write_row(FILE *f, const struct param_info *p, const struct options *o,
                         const struct catalog *cat, enum sf_model mk) {
    const struct engine_scenario *sc = &o->sc;
    const struct engine_model *m = &sc->model;
    const struct engine_gpu *g = &sc->gpu;
    const struct engine_gpu *cg = cat ? catalog_find_gpu(cat, g->id) : NULL;
    bool train = sc->mode != ENGINE_MODE_INFER;
    char buf[128];
    double v = 0;

    if (!param_in_file(p) || (p->flags & PARAM_F_ALIAS))
        return;
    switch (p->id) {
    case PARAM_MODEL:
        if (mk == SF_MODEL_CATALOG || mk == SF_MODEL_MODIFIED)
            fprintf(f, "model: %s\n", m->id);
        return;
    case PARAM_PARAMS:
        if (mk == SF_MODEL_SIZE) {
            sf_size(m, buf, sizeof(buf));
            fprintf(f, "params: %s\n", buf);
        }
        return;
    case PARAM_MODEL_FILE:
    case PARAM_MODEL_CONFIG:
        if ((mk == SF_MODEL_FILE) == (p->id == PARAM_MODEL_FILE) &&
            (mk == SF_MODEL_FILE || mk == SF_MODEL_CONFIG))
            fprintf(f, "%s: %s\n# the architecture below is used when the file is gone\n",
                    p->name, o->model_path);
        return;
    case PARAM_FORMAT:
        fprintf(f, "format: %s\n", sc->weight_format.id);
        return;
    case PARAM_KV_FORMAT:
        fprintf(f, "kv-format: %s\n", sc->kv_format.id);
        return;
    case PARAM_GPU:
        if (cg && !g->cpu)
            fprintf(f, "gpu: %s\n", cg->id);
        return;
    case PARAM_DEVICE: /* this machine's CPU: measured again (or read) when loaded */
        if (g->cpu)
            fprintf(f, "device: cpu\n");
        return;
    case PARAM_SYSTEM:
        if (sc->system_gpus > 0 && sc->system_id[0])
            fprintf(f, "system: %s\n", sc->system_id);
        return;
    case PARAM_MICRO_BATCHES:
        /* A global batch derives the micro-batches (global / (batch x dp)). */
        if (sc->global_batch)
            fprintf(f, "# micro-batches: %u, global / (batch x dp)\n", sc->micro_batches);
        else
            fprintf(f, "micro-batches: %u\n", sc->micro_batches);
        return;
    case PARAM_GLOBAL_BATCH:
        if (sc->global_batch)
            fprintf(f, "global-batch: %u\n", sc->global_batch);
        return;
    case PARAM_RECOMPUTE:
        /* Only when chosen: otherwise it follows the mode. */
        if (o->recompute_given)
            fprintf(f, "recompute: %s\n", engine_recompute_name(sc->recompute));
        else
            fprintf(f, "# recompute: %s, the mode's (selective; full for LoRA and QLoRA)\n",
                    engine_recompute_name(sc->recompute));
        return;
    case PARAM_RECOMPUTE_METHOD:
    case PARAM_RECOMPUTE_NUM_LAYERS:
        /* Full recompute's method and layers, in training only. */
        if (sc->recompute != ENGINE_RECOMPUTE_FULL || !train ||
            (sc->recompute_method == ENGINE_RECOMPUTE_UNIFORM && !sc->recompute_num_layers))
            return;
        break;
    case PARAM_EP:
        if (engine_ep(sc) <= 1)
            return;
        break;
    case PARAM_RECOMPUTE_MODULES:
        /* Megatron-LM's module names, when chosen, in training */
        if (sc->recompute_modules && train) {
            fputs("recompute-modules: ", f);
            for (unsigned i = 0, n = 0; i < ENGINE_RECOMPUTE_MODULE_COUNT; i++)
                if (sc->recompute_modules & (1u << i))
                    fprintf(f, "%s%s", n++ ? "," : "", engine_recompute_module_name(i));
            fputc('\n', f);
        }
        return;
    case PARAM_MFU:
        /* Only when given (end to end); else vramlab predicts it. */
        if (!(sc->mfu > 0)) {
            fputs("# mfu: predicted from the kernel efficiency, bubble and communication; give "
                  "one (end to end) to override\n",
                  f);
            return;
        }
        break;
    case PARAM_TOKENS:
        /* Given, 0 means no tokens, not the default. */
        if (sc->training_tokens_given || sc->training_tokens > 0) {
            sf_value(p, sc->training_tokens, buf, sizeof(buf));
            fprintf(f, "tokens: %s\n", buf);
        } else {
            fputs("# tokens: 20 per parameter (training), 100M (LoRA); give a count to "
                  "override\n",
                  f);
        }
        return;
    case PARAM_THROUGHPUT:
        if (sc->throughput_tokens_per_s > 0) {
            sf_number(buf, sizeof(buf), sc->throughput_tokens_per_s);
            fprintf(f, "throughput: %s\n", buf);
        }
        return;
    case PARAM_UNITS:
        fprintf(f, "units: %s\n", param_value_name(p, o->units == UNITS_GIB));
        return;
    case PARAM_PRICE:
        /* Given, 0 is one's own GPUs (no cost), not the catalog's price. */
        if (!sc->price_given && !(sc->price_per_hour > 0)) {
            fputs("# price: the GPU's own on-demand price; give one to override (0: no cost)\n",
                  f);
            return;
        }
        sf_number(buf, sizeof(buf), sc->price_per_hour);
        fprintf(f, "price: %s%s\n", buf, sc->price_per_hour == 0 ? "    # 0: own GPUs, no cost" : "");
        return;
    case PARAM_INTRA_BW:
        sf_value(p, sc->intra_node_bytes_per_s, buf, sizeof(buf));
        fprintf(f, "intra-node-bw: %s%s\n", buf,
                sc->intra_node_bytes_per_s == 0 ? "    # 0: the GPU's link" : "");
        return;
    case PARAM_FLOPS_EFFICIENCY:
        if (!sc->flops_efficiency_given && sc->flops_efficiency == 1) {
            fputs("# flops-efficiency: 1 (inference ceilings), 0.57 for training kernels; give "
                  "one to override\n",
                  f);
            return;
        }
        break;
    case PARAM_HOST_LINK_BW:
        /* An offload needs full training and ZeRO: saved only with one. */
        if (sc->offload == ENGINE_OFFLOAD_NONE)
            return;
        break;
    case PARAM_RUNTIME:
        /* NAME, or NAME@VERSION when a profile was chosen (vllm@0.21) */
        fprintf(f, "runtime: %s", engine_runtime_name(sc->serving.runtime));
        if (sc->serving.runtime_version)
            fprintf(f, "@%u.%u", sc->serving.runtime_version / 100,
                    sc->serving.runtime_version % 100);
        fputc('\n', f);
        return;
    case PARAM_GPU_MEMORY_UTILIZATION:
    case PARAM_MEM_FRACTION_STATIC:
    case PARAM_FREE_GPU_MEMORY_FRACTION:
        /* One field, under the key of the scenario's runtime (0: its default). */
        if (p->id != (sc->serving.runtime == ENGINE_RUNTIME_SGLANG   ? PARAM_MEM_FRACTION_STATIC
                      : sc->serving.runtime == ENGINE_RUNTIME_TRTLLM ? PARAM_FREE_GPU_MEMORY_FRACTION
                                                                      : PARAM_GPU_MEMORY_UTILIZATION))
            return;
        break;
    case PARAM_FLASH_ATTENTION:
        fprintf(f, "flash-attention: %s\n", param_value_name(p, sc->serving.flash_attention > 0    ? 0
                                                                : sc->serving.flash_attention == 0 ? 1
                                                                                                   : 2));
        return;
    case PARAM_GPU_LAYERS:
        if (sc->serving.gpu_layers_given)
            fprintf(f, "gpu-layers: %d\n", sc->serving.gpu_layers);
        return;
    case PARAM_HOST_BANDWIDTH:
        if (sc->serving.host_bytes_per_s > 0) {
            sf_value(p, sc->serving.host_bytes_per_s, buf, sizeof(buf));
            fprintf(f, "host-bandwidth: %s%s\n", buf,
                    sc->serving.host_measured ? "    # measured" : "");
        }
        return;
    case PARAM_MEASURED_BW:
    case PARAM_MEASURED_FLOPS:
        if (param_get(sc, p->id, &v) && v > 0) {
            sf_value(p, v, buf, sizeof(buf));
            fprintf(f, "%s: %s    # measured on this machine\n", p->name, buf);
        }
        return;
    case PARAM_GPU_FLOPS:
        v = sf_gpu_flops(o);
        if (o->gpu_custom && (!cg || v != cg->flops[ENGINE_COMPUTE_FP16])) {
            sf_value(p, v, buf, sizeof(buf));
            fprintf(f, "gpu-flops: %s\n", buf);
        }
        return;
    default:
        break;
    }
    /* The architecture: of a model that is no plain catalog entry; the
     * experts' counts of a mixture of experts only. */
    if ((p->flags & PARAM_F_ARCH) &&
        (mk == SF_MODEL_CATALOG || mk == SF_MODEL_SIZE ||
         ((p->id == PARAM_ACTIVE_EXPERTS || p->id == PARAM_SHARED_EXPERTS) && m->experts == 0)))
        return;
    /* A custom GPU's figures: those that differ from the catalog GPU's. */
    if ((p->flags & PARAM_F_CUSTOM_GPU) &&
        (!o->gpu_custom || (cg && param_get(sc, p->id, &v) &&
                            v == (p->id == PARAM_GPU_MEMORY ? cg->memory_bytes
                                                             : cg->bandwidth_bytes_per_s))))
        return;
    if (!param_get(sc, p->id, &v))
        return;
    /* 0 in a field without a default is "not given": the derived value. */
    if (v == 0 && !p->def && p->type != PARAM_T_FLAG && p->type != PARAM_T_SWITCH &&
        p->type != PARAM_T_ENUM)
        return;
    if (p->id == PARAM_LAYERS && (mk == SF_MODEL_ARCH || mk == SF_MODEL_FILE || mk == SF_MODEL_CONFIG)) {
        char lost[128];
        sf_lost_features(m, lost, sizeof(lost));
        if (lost[0])
            fprintf(f, "# note: %s of %s not kept (no scenario option)\n", lost, m->name);
    }
    sf_value(p, v, buf, sizeof(buf));
    fprintf(f, "%s: %s\n", p->name, buf);
}

/* Write o as scenario YAML (see header): every row of the parameter
 * table, in its order. */
char *scenario_file_format(const struct options *o, const struct catalog *cat, const char *header) {
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    locale_t base = duplocale(LC_GLOBAL_LOCALE);
    locale_t c_num = base ? newlocale(LC_NUMERIC_MASK, "C", base) : (locale_t)0;
    locale_t old = (locale_t)0;

    if (!c_num && base)
        freelocale(base);
    f = open_memstream(&text, &len);
    if (!f)
        goto out;
    /* Decimal points, whatever the user's locale. */
    if (c_num)
        old = uselocale(c_num);
    if (header)
        fprintf(f, "# %s\n", header);
    enum sf_model mk = sf_model_kind(o, cat);
    for (int i = 0; i < PARAM_COUNT; i++)
        sf_write_row(f, param_info((enum param_id)i), o, cat, mk);
    if (c_num)
        uselocale(old);
    if (fclose(f) != 0) {
        free(text);
        text = NULL;
    }
out:
    if (c_num)
        freelocale(c_num);
    return text;
}

/* ---- saving ------------------------------------------------------------------ */

/* Save o to path (see header; the writing itself is save_file's). */
int scenario_file_save(const char *path, const struct options *o, const struct catalog *cat,
                       bool overwrite, char *err, size_t errlen) {
    char *text;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    text = scenario_file_format(o, cat,
                                "vramlab scenario: vramlab --scenario FILE, or o in the "
                                "explorer");
    if (!text) {
        sv_append(err, errlen, "%s: cannot save: %s\n", path, strerror(ENOMEM));
        return SCENARIO_FILE_ERROR;
    }
    rc = save_file(path, text, strlen(text), overwrite, 0666, err, errlen);
    free(text);
    return rc == SAVE_FILE_OK       ? SCENARIO_FILE_OK
           : rc == SAVE_FILE_EXISTS ? SCENARIO_FILE_EXISTS
                                    : SCENARIO_FILE_ERROR;
}

/* Copy a loaded scenario into the session's options (see header). */
void scenario_file_apply(struct options *session, const struct options *loaded) {
    session->sc = loaded->sc;
    session->units = loaded->units;
    session->model_custom = loaded->model_custom;
    session->gpu_custom = loaded->gpu_custom;
    session->has_system = loaded->has_system;
    session->system = loaded->system;
    session->recompute_given = loaded->recompute_given;
    session->knobs_free = loaded->knobs_free;
    session->model_file = loaded->model_file;
    memcpy(session->model_path, loaded->model_path, sizeof(session->model_path));
    memcpy(session->note, loaded->note, sizeof(session->note));
}

/* Apply --scenario FILE on top of the command line's options. */
int options_apply_scenario_file(struct options *o, const struct catalog *cat) {
    char err[SCENARIO_FILE_ERR_MAX];
    struct options loaded;
    enum units units = o->units;
    bool units_given = o->given.set[PARAM_UNITS];

    if (!o->scenario_file)
        return 0;
    if (options_has_scenario_flags(o)) {
        fprintf(stderr, _("vramlab: --scenario FILE holds the whole scenario; drop the other "
                          "scenario options or edit the file\n"));
        return VRAMLAB_EXIT_USAGE;
    }
    if (scenario_file_load(o->scenario_file, cat, &loaded, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: %s", err);
        if (err[0] && err[strlen(err) - 1] != '\n')
            fputc('\n', stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    scenario_file_apply(o, &loaded);
    if (units_given)
        o->units = units;
    return 0;
}

/* ---- the state file -------------------------------------------------------------- */

/* The last-scenario file (see header). */
int scenario_file_state_path(char *buf, size_t len, bool create_dir, char *err, size_t errlen) {
    char dir[4096];

    if (save_file_state_dir(NULL, create_dir, dir, sizeof(dir), err, errlen) != 0)
        return -1;
    if (strlen(dir) + sizeof("/last.yaml") > len) {
        sv_append(err, errlen, "state directory path too long\n");
        return -1;
    }
    snprintf(buf, len, "%s/last.yaml", dir);
    return 0;
}
