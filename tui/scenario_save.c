/*
 * scenario_save.c: writing scenario files (see scenario_file.h).
 *
 * Each quantity is written in the most readable unit that parses back to
 * exactly the same double with the same parser the loader uses ("80 GiB",
 * "3.35 TB/s", "5 us"), falling back to a plain number, so a save/load
 * round trip is exact; numbers are printed with LC_NUMERIC "C". The write
 * is atomic: mkstemp in the target directory, write, fsync, then rename
 * (overwrite) or link (no clobber: refused atomically when the name
 * exists), and the directory is synced. Also here: the state file's path
 * (XDG base directories) and copying a loaded scenario into a session.
 */
#include "tui/scenario_file.h"

#include "tui/i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Write the architecture keys of a model. */
static void sf_write_arch(FILE *f, const struct engine_model *m) {
    static const char *const bias[] = {"none", "qkv", "all"};

    fprintf(f, "layers: %u\nhidden: %u\nheads: %u\nkv-heads: %u\nhead-dim: %u\nffn: %u\n",
            m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim, m->ffn);
    fprintf(f, "vocab: %u\ntied: %s\ngated: %s\nbias: %s\nnorm: %s\npos-embeddings: %u\n", m->vocab,
            m->tied ? "true" : "false", m->gated ? "true" : "false",
            bias[m->bias <= ENGINE_BIAS_ALL ? m->bias : 0],
            m->norm == ENGINE_NORM_LAYER ? "layer" : "rms", m->pos_embeddings);
    fprintf(f, "experts: %u\n", m->experts);
    if (m->experts > 0)
        fprintf(f, "active-experts: %u\nshared-experts: %u\n", m->active_experts,
                m->shared_experts);
}

/* Write the model keys: an id, a bare size, or an architecture. */
static void sf_write_model(FILE *f, const struct options *o, const struct catalog *cat) {
    const struct engine_model *m = &o->sc.model;
    const struct engine_model *cm = cat ? catalog_find_model(cat, m->id) : NULL;
    char buf[64];

    if (!o->model_custom && cm) {
        fprintf(f, "model: %s\n", cm->id);
        return;
    }
    if (!m->has_arch && m->params_size > 0) {
        /* options_parse names the model after the text given ("params-70B"):
         * write that text back when it still means this size. */
        double given;
        char e[160];
        if (!strncmp(m->id, "params-", 7) &&
            strspn(m->id + 7, "0123456789.eE+KMBT") == strlen(m->id + 7) &&
            catalog_parse_count(m->id + 7, &given, e, sizeof(e)) == 0 && given == m->params_size)
            snprintf(buf, sizeof(buf), "%s", m->id + 7);
        else
            sf_quantity(buf, sizeof(buf), m->params_size, sf_count_units, 5, catalog_parse_count);
        fprintf(f, "params: %s\n", buf);
        return;
    }
    if (cm) {
        /* A catalog model with single fields overridden. */
        fprintf(f, "model: %s\n", cm->id);
    } else {
        char lost[128];
        sf_lost_features(m, lost, sizeof(lost));
        if (lost[0])
            fprintf(f, "# note: %s of %s not kept (no scenario option)\n", lost, m->name);
    }
    sf_write_arch(f, m);
}

/* Write the GPU keys: an id with overridden figures, or a custom GPU. */
static void sf_write_gpu(FILE *f, const struct options *o, const struct catalog *cat) {
    const struct engine_gpu *g = &o->sc.gpu;
    const struct engine_gpu *cg = cat ? catalog_find_gpu(cat, g->id) : NULL;
    double flops = g->flops[ENGINE_COMPUTE_FP16];
    char buf[64];

    if (flops <= 0)
        flops = g->flops[ENGINE_COMPUTE_BF16];
    if (flops <= 0)
        flops = g->flops[o->sc.weight_format.compute];
    if (o->sc.system_gpus > 0 && o->sc.system_id[0])
        fprintf(f, "system: %s\n", o->sc.system_id);
    if (cg)
        fprintf(f, "gpu: %s\n", cg->id);
    if (!o->gpu_custom && cg)
        return;
    if (!cg || g->memory_bytes != cg->memory_bytes) {
        sf_quantity(buf, sizeof(buf), g->memory_bytes, sf_bytes_units, 8, catalog_parse_bytes);
        fprintf(f, "gpu-memory: %s\n", buf);
    }
    if (!cg || g->bandwidth_bytes_per_s != cg->bandwidth_bytes_per_s) {
        sf_quantity(buf, sizeof(buf), g->bandwidth_bytes_per_s, sf_bandwidth_units, 5,
                    catalog_parse_bandwidth);
        fprintf(f, "gpu-bandwidth: %s\n", buf);
    }
    if (!cg || flops != cg->flops[ENGINE_COMPUTE_FP16]) {
        sf_quantity(buf, sizeof(buf), flops, sf_flops_units, 3, catalog_parse_flops);
        fprintf(f, "gpu-flops: %s\n", buf);
    }
}

/* The serving settings (issue 13), where they differ from the defaults:
 * files of plain scenarios stay as they were. */
static void sf_write_serving(FILE *f, const struct engine_scenario *sc) {
    const struct engine_serving *v = &sc->serving;
    char buf[64];
    if (v->runtime != ENGINE_RUNTIME_PLAIN && v->runtime_version)
        fprintf(f, "runtime: %s@%u.%u\n", engine_runtime_name(v->runtime),
                v->runtime_version / 100, v->runtime_version % 100);
    else if (v->runtime != ENGINE_RUNTIME_PLAIN)
        fprintf(f, "runtime: %s\n", engine_runtime_name(v->runtime));
    if (v->gpu_memory_utilization > 0) { /* 0: the runtime's default */
        sf_number(buf, sizeof(buf), v->gpu_memory_utilization);
        fprintf(f, "%s: %s\n",
                v->runtime == ENGINE_RUNTIME_SGLANG   ? "mem-fraction-static"
                : v->runtime == ENGINE_RUNTIME_TRTLLM ? "free-gpu-memory-fraction"
                                                      : "gpu-memory-utilization",
                buf);
    }
    if (v->cuda_graph_bytes > 0) {
        sf_number(buf, sizeof(buf), v->cuda_graph_bytes);
        fprintf(f, "cuda-graph-memory: %s\n", buf);
    }
    if (v->request_rate > 0) {
        sf_number(buf, sizeof(buf), v->request_rate);
        fprintf(f, "request-rate: %s\n", buf);
    }
    if (v->block_size != 16)
        fprintf(f, "block-size: %u\n", v->block_size);
    if (v->max_num_batched_tokens)
        fprintf(f, "max-num-batched-tokens: %u\n", v->max_num_batched_tokens);
    if (v->max_num_seqs)
        fprintf(f, "max-num-seqs: %u\n", v->max_num_seqs);
    if (v->max_model_len)
        fprintf(f, "max-model-len: %u\n", v->max_model_len);
    if (v->ubatch)
        fprintf(f, "ubatch: %u\n", v->ubatch);
    if (v->flash_attention >= 0)
        fprintf(f, "flash-attention: %s\n", v->flash_attention ? "on" : "off");
    if (!v->fit)
        fputs("fit: off\n", f);
    if (v->gpu_layers_given)
        fprintf(f, "gpu-layers: %d\n", v->gpu_layers);
    if (v->cpu_moe_layers)
        fprintf(f, "n-cpu-moe: %u\n", v->cpu_moe_layers);
    if (v->host_bytes_per_s > 0) {
        sf_quantity(buf, sizeof(buf), v->host_bytes_per_s, sf_bandwidth_units, 5,
                    catalog_parse_bandwidth);
        fprintf(f, "host-bandwidth: %s%s\n", buf, v->host_measured ? "    # measured" : "");
    }
    if (v->keep_embeddings_16bit)
        fputs("keep-embeddings-16bit: true\n", f);
}

/* The training-state accounting and offload keys, when not the defaults
 * (an offload needs full training and ZeRO, so it is saved only there). */
static void sf_write_zero_offload(FILE *f, const struct engine_scenario *sc) {
    char buf[64];
    if (sc->memory_convention != ENGINE_MEMCONV_PAPER)
        fprintf(f, "memory-convention: %s\n", engine_memory_convention_name(sc->memory_convention));
    if (sc->offload != ENGINE_OFFLOAD_NONE)
        fprintf(f, "offload: %s\n", engine_offload_name(sc->offload));
    if (sc->host_link_bytes_per_s > 0 && sc->offload != ENGINE_OFFLOAD_NONE) {
        sf_quantity(buf, sizeof(buf), sc->host_link_bytes_per_s, sf_bandwidth_units, 5,
                    catalog_parse_bandwidth);
        fprintf(f, "host-link-bw: %s\n", buf);
    }
}

/* Write the layout and workload keys, every one, defaults included. */
static void sf_write_workload(FILE *f, const struct options *o) {
    const struct engine_scenario *sc = &o->sc;
    char buf[64];

    fprintf(f, "gpus: %u\ntp: %u\npp: %u\ndp: %u\n", sc->gpus, sc->tp, sc->pp, sc->dp);
    if (sc->gpus_per_node)
        fprintf(f, "gpus-per-node: %u\n", sc->gpus_per_node);
    fprintf(f, "zero: %u\nmode: %s\nbatch: %u\ncontext: %u\nprompt: %u\n", sc->zero,
            engine_mode_name(sc->mode), sc->batch, sc->context, sc->prompt);
    /* A global batch derives the micro-batches (global / (batch x dp)). */
    if (sc->global_batch)
        fprintf(f, "global-batch: %u\n# micro-batches: %u, global / (batch x dp)\n",
                sc->global_batch, sc->micro_batches);
    else
        fprintf(f, "micro-batches: %u\n", sc->micro_batches);
    fprintf(f, "interleave: %u\nsequence-parallel: %s\n", sc->interleave,
            sc->sequence_parallel ? "true" : "false");
    if (engine_ep(sc) > 1)
        fprintf(f, "ep: %u\n", engine_ep(sc));
    /* Recompute only when chosen: otherwise it follows the mode. */
    if (o->recompute_given)
        fprintf(f, "recompute: %s\n", engine_recompute_name(sc->recompute));
    if (sc->recompute == ENGINE_RECOMPUTE_FULL && sc->mode != ENGINE_MODE_INFER &&
        (sc->recompute_method != ENGINE_RECOMPUTE_UNIFORM || sc->recompute_num_layers)) {
        fprintf(f, "recompute-method: %s\n", engine_recompute_method_name(sc->recompute_method));
        if (sc->recompute_num_layers)
            fprintf(f, "recompute-num-layers: %u\n", sc->recompute_num_layers);
    }
    else
        fprintf(f, "# recompute: %s, the mode's (selective; full for LoRA and QLoRA)\n",
                engine_recompute_name(sc->recompute));
    fprintf(f, "optimizer: %s\nlora-rank: %u\n", engine_recipe_info(sc->recipe)->id,
            sc->lora_rank);
    sf_write_zero_offload(f, sc);
    /* MFU only when given (end to end); else vramlab predicts it. */
    if (sc->mfu > 0) {
        sf_number(buf, sizeof(buf), sc->mfu);
        fprintf(f, "mfu: %s\n", buf);
    } else {
        fputs("# mfu: predicted from the kernel efficiency, bubble and communication; give one "
              "(end to end) to override\n",
              f);
    }
    if (sc->flops_model != ENGINE_FLOPS_6N_ATTENTION)
        fprintf(f, "flops-model: %s\n", engine_flops_model_name(sc->flops_model));
    /* Tokens and price only when the user gave them: given, 0 means none
     * (no tokens; one's own GPUs, no cost), not the default. */
    if (sc->training_tokens_given || sc->training_tokens > 0) {
        sf_quantity(buf, sizeof(buf), sc->training_tokens, sf_count_units, 5, catalog_parse_count);
        fprintf(f, "tokens: %s\n", buf);
    } else {
        fputs("# tokens: 20 per parameter (training), 100M (LoRA); give a count to override\n", f);
    }
    if (sc->throughput_tokens_per_s > 0) {
        sf_number(buf, sizeof(buf), sc->throughput_tokens_per_s);
        fprintf(f, "throughput: %s\n", buf);
    }
    if (sc->price_given || sc->price_per_hour > 0) {
        sf_number(buf, sizeof(buf), sc->price_per_hour);
        fprintf(f, "price: %s%s\n", buf, sc->price_per_hour == 0 ? "    # 0: own GPUs, no cost" : "");
    } else {
        fputs("# price: the GPU's own on-demand price; give one to override (0: no cost)\n", f);
    }
    sf_quantity(buf, sizeof(buf), sc->reserve_bytes, sf_bytes_units, 8, catalog_parse_bytes);
    fprintf(f, "reserve: %s\n", buf);
    sf_quantity(buf, sizeof(buf), sc->intra_node_bytes_per_s, sf_bandwidth_units, 5,
                catalog_parse_bandwidth);
    fprintf(f, "intra-node-bw: %s%s\n", buf,
            sc->intra_node_bytes_per_s == 0 ? "    # 0: the GPU's link" : "");
    sf_quantity(buf, sizeof(buf), sc->inter_node_bytes_per_s, sf_bandwidth_units, 5,
                catalog_parse_bandwidth);
    fprintf(f, "inter-node-bw: %s\n", buf);
    sf_quantity(buf, sizeof(buf), sc->allreduce_latency_s, sf_seconds_units, 4,
                catalog_parse_seconds);
    fprintf(f, "allreduce-latency: %s\n", buf);
    sf_number(buf, sizeof(buf), sc->bw_efficiency);
    fprintf(f, "bw-efficiency: %s\n", buf);
    if (sc->flops_efficiency_given || sc->flops_efficiency != 1) {
        sf_number(buf, sizeof(buf), sc->flops_efficiency);
        fprintf(f, "flops-efficiency: %s\n", buf);
    } else {
        fputs("# flops-efficiency: 1 (inference ceilings), 0.57 for training kernels; give one to "
              "override\n",
              f);
    }
    sf_write_serving(f, sc);
}

/* Write o as scenario YAML (see header). */
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
    sf_write_model(f, o, cat);
    fprintf(f, "format: %s\nkv-format: %s\n", o->sc.weight_format.id, o->sc.kv_format.id);
    sf_write_gpu(f, o, cat);
    sf_write_workload(f, o);
    fprintf(f, "units: %s\n", o->units == UNITS_GIB ? "gib" : "gb");
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

/* ---- saving atomically --------------------------------------------------------- */

/* Write all of buf to fd; 0 or -1 with errno. */
static int sf_write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* fsync the directory holding path, so the rename itself is durable. */
static void sf_sync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY);

    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Save o to path atomically (see header). */
int scenario_file_save(const char *path, const struct options *o, const struct catalog *cat,
                       bool overwrite, char *err, size_t errlen) {
    const char *slash = strrchr(path, '/');
    char dir[4096], tmp[4096 + 64];
    struct stat st;
    char *text;
    int fd, e, rc = SCENARIO_FILE_ERROR;
    mode_t mode = 0644;

    if (err && errlen)
        err[0] = '\0';
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    if (!*path || (slash && !slash[1])) {
        sv_append(err, errlen, "%s: cannot save: not a file name\n", path);
        return rc;
    }
    if (stat(path, &st) == 0) {
        if (!overwrite) {
            sv_append(err, errlen, "%s: exists; not overwritten\n", path);
            return SCENARIO_FILE_EXISTS;
        }
        if (S_ISDIR(st.st_mode)) {
            sv_append(err, errlen, "%s: cannot save: %s\n", path, strerror(EISDIR));
            return rc;
        }
        mode = st.st_mode & 0777; /* keep the old file's permissions */
    }
    text = scenario_file_format(o, cat,
                                "vramlab scenario: vramlab --scenario FILE, or o in the "
                                "explorer");
    if (!text) {
        sv_append(err, errlen, "%s: cannot save: %s\n", path, strerror(ENOMEM));
        return rc;
    }
    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, slash ? slash + 1 : path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        e = errno;
        sv_append(err, errlen, "%s: cannot save: %s\n", path, strerror(e));
        free(text);
        return rc;
    }
    if (fchmod(fd, mode) != 0 || sf_write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0) {
        e = errno;
        close(fd);
        goto fail;
    }
    if (close(fd) != 0) {
        e = errno;
        goto fail;
    }
    if (overwrite) {
        if (rename(tmp, path) != 0) {
            e = errno;
            goto fail;
        }
    } else if (link(tmp, path) == 0) {
        unlink(tmp);
    } else if (errno == EEXIST) {
        unlink(tmp);
        free(text);
        sv_append(err, errlen, "%s: exists; not overwritten\n", path);
        return SCENARIO_FILE_EXISTS;
    } else if (access(path, F_OK) == 0) {
        /* No hard links here (some file systems): check, then rename. */
        unlink(tmp);
        free(text);
        sv_append(err, errlen, "%s: exists; not overwritten\n", path);
        return SCENARIO_FILE_EXISTS;
    } else if (rename(tmp, path) != 0) {
        e = errno;
        goto fail;
    }
    sf_sync_dir(dir);
    free(text);
    return SCENARIO_FILE_OK;
fail:
    unlink(tmp);
    free(text);
    sv_append(err, errlen, "%s: cannot save: %s\n", path, strerror(e));
    return rc;
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
}

/* Apply --scenario FILE on top of the command line's options. */
int options_apply_scenario_file(struct options *o, int argc, char **argv,
                                const struct catalog *cat) {
    char err[SCENARIO_FILE_ERR_MAX];
    struct options loaded;
    enum units units = o->units;
    bool units_given = false;

    if (!o->scenario_file)
        return 0;
    if (options_has_scenario_flags(argc, argv)) {
        fprintf(stderr, _("vramlab: --scenario FILE holds the whole scenario; drop the other "
                          "scenario options or edit the file\n"));
        return VRAMLAB_EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--units", 7))
            units_given = true;
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

/* mkdir -p of the directory path (mode 0700 for the parts it makes). */
static int sf_mkdirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* The last-scenario file (see header). */
int scenario_file_state_path(char *buf, size_t len, bool create_dir, char *err, size_t errlen) {
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char dir[4096];
    int n;

    if (err && errlen)
        err[0] = '\0';
    /* The XDG spec: a relative XDG_STATE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/') {
        n = snprintf(dir, sizeof(dir), "%s/vramlab", xdg);
    } else {
        if (!home || home[0] != '/') {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home || home[0] != '/') {
            sv_append(err, errlen, "no state directory: set XDG_STATE_HOME or HOME\n");
            return -1;
        }
        n = snprintf(dir, sizeof(dir), "%s/.local/state/vramlab", home);
    }
    if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n + sizeof("/last.yaml") > len) {
        sv_append(err, errlen, "state directory path too long\n");
        return -1;
    }
    if (create_dir && sf_mkdirs(dir) != 0) {
        sv_append(err, errlen, "%s: cannot create: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(buf, len, "%s/last.yaml", dir);
    return 0;
}
