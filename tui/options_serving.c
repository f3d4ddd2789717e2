/*
 * options_serving.c: the serving options (issue 13): the runtime whose
 * accounting the estimate follows, vLLM's and llama.cpp's own settings,
 * concurrency, partial offload and the host RAM behind it. Each value
 * parser names its flag on error; a setting of one runtime given with
 * another is left to options_ignored_notes (a note, not an error).
 *
 * Runtime defaults for what was not given, as each runtime starts:
 *  - vllm (sglang, trtllm alike): the context is max_model_len, which is
 *    the model's maximum (derived from the config) unless --max-model-len
 *    or --context says otherwise;
 *  - llama.cpp: --reserve is --fit's margin, 1 GiB per device;
 *  - ollama: --reserve is its 457 MiB per-GPU minimum; the context its
 *    default by VRAM (docs/context-length.mdx: under 24 GiB 4k, under
 *    48 GiB 32k, else 256k), at most the model's maximum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui/i18n.h"
#include "tui/options_internal.h"

#define GIB 1073741824.0
#define MIB 1048576.0

/* --host-cpu ID: a catalog CPU and its data-sheet memory bandwidth. */
static int opt_host_cpu(const struct catalog *cat, const char *id, struct options *o) {
    const struct catalog_cpu *cpu = cat ? catalog_find_cpu(cat, id) : NULL;
    if (!cpu) {
        /* The catalog's CPUs are few: name them all. */
        fprintf(stderr, _("vramlab: --host-cpu: unknown CPU '%s'; the catalog has:"), id);
        for (size_t i = 0; cat && i < cat->n_cpus; i++)
            fprintf(stderr, "%s %s", i ? "," : "", cat->cpus[i].id);
        fputs(_(" (share/catalog/cpus.yaml)\n"), stderr);
        return -1;
    }
    if (!(cpu->bandwidth_bytes_per_s > 0)) {
        opt_error("--host-cpu: %s has no memory bandwidth in the catalog; give --host-bandwidth",
                  cpu->id);
        return -1;
    }
    o->sc.serving.host_bytes_per_s = cpu->bandwidth_bytes_per_s;
    o->host_cpu = cpu->name[0] ? cpu->name : cpu->id;
    return 0;
}

/* The runtime's settings; each flag checked and named on error. */
static int opt_runtime_values(const struct options_given *s, const struct catalog *cat,
                              struct options *o) {
    struct engine_serving *v = &o->sc.serving;
    int k;

    if (s->set[PARAM_RUNTIME]) {
        const char *val = s->val[PARAM_RUNTIME];
        int rc = engine_runtime_spec_parse(val, &v->runtime, &v->runtime_version);
        if (rc == -2) {
            opt_error("--runtime: no profile for '%s': vllm@0.11 (0.11 to 0.20) and vllm@0.21 "
                      "(0.21 and later; before 0.11 not modelled), sglang@0.5, trtllm@1.0; "
                      "plain, llama.cpp and ollama take no version",
                      val);
            return -1;
        }
        if (rc != 0) {
            opt_expected_of(opt_name(PARAM_RUNTIME),
                            _("plain, vllm[@VERSION], llama.cpp, ollama, sglang[@VERSION] or "
                              "trtllm[@VERSION]"),
                            val);
            return -1;
        }
    }
    /* (The plain fields were read with the workload: opt_read_stored.)
     * SGLang's and TensorRT-LLM's memory fractions take the place of
     * vLLM's: one of the three. */
    if ((s->set[PARAM_GPU_MEMORY_UTILIZATION] + s->set[PARAM_MEM_FRACTION_STATIC] +
         s->set[PARAM_FREE_GPU_MEMORY_FRACTION]) > 1) {
        opt_error("--gpu-memory-utilization, --mem-fraction-static and --free-gpu-memory-fraction "
                  "are the same setting of three runtimes: give the one of --runtime");
        return -1;
    }
    if (s->set[PARAM_CUDA_GRAPH_MEMORY] && !(v->cuda_graph_bytes > 0)) {
        opt_error("--cuda-graph-memory: expected a size above zero, found '%s'",
                  s->val[PARAM_CUDA_GRAPH_MEMORY]);
        return -1;
    }
    if (s->set[PARAM_FLASH_ATTENTION]) {
        if (opt_enum(PARAM_FLASH_ATTENTION, s->val[PARAM_FLASH_ATTENTION], &k) != 0)
            return -1;
        v->flash_attention = k == 0 ? 1 : k == 1 ? 0 : -1; /* on, off, auto */
    }
    if (s->set[PARAM_HOST_BANDWIDTH] && !(v->host_bytes_per_s > 0)) {
        opt_error("--host-bandwidth: expected a rate above zero, found '%s'",
                  s->val[PARAM_HOST_BANDWIDTH]);
        return -1;
    }
    if (s->set[PARAM_HOST_CPU] && !s->set[PARAM_HOST_BANDWIDTH] &&
        opt_host_cpu(cat, s->val[PARAM_HOST_CPU], o) != 0)
        return -1;
    if (s->set[PARAM_RANK]) {
        if (opt_enum(PARAM_RANK, s->val[PARAM_RANK], &k) != 0)
            return -1;
        o->rank = (enum engine_rank)k;
    }
    return 0;
}

/* Partial offload: --gpu-layers and --n-cpu-moe against the model. */
static int opt_offload(const struct options_given *s, struct options *o) {
    struct engine_serving *v = &o->sc.serving;
    const struct engine_model *m = &o->sc.model;
    uint32_t n;

    if (s->set[PARAM_GPU_LAYERS]) {
        if (opt_uint(PARAM_GPU_LAYERS, s->val[PARAM_GPU_LAYERS], &n))
            return -1;
        if (m->layers && n > m->layers) {
            opt_error("--gpu-layers %u exceeds the model's %u layers (llama.cpp's -ngl counts the "
                      "output layer as one more: -ngl %u is --gpu-layers %u)",
                      n, m->layers, m->layers + 1, m->layers);
            return -1;
        }
        if (v->runtime == ENGINE_RUNTIME_VLLM || v->runtime == ENGINE_RUNTIME_SGLANG ||
            v->runtime == ENGINE_RUNTIME_TRTLLM) {
            opt_error("--gpu-layers: %s does not offload layers; use --runtime llama.cpp, ollama "
                      "or plain",
                      engine_runtime_name(v->runtime));
            return -1;
        }
        if (o->sc.pp > 1 && n < o->sc.pp) {
            opt_error("--gpu-layers %u is fewer than the --pp %u GPUs that hold them", n,
                      o->sc.pp);
            return -1;
        }
        v->gpu_layers = (int32_t)n;
        v->gpu_layers_given = true;
    }
    if (s->set[PARAM_N_CPU_MOE]) {
        n = v->cpu_moe_layers;
        if (!m->has_arch || m->experts == 0) {
            opt_error("--n-cpu-moe needs a mixture-of-experts model: %s has no experts",
                      m->name[0] ? m->name : m->id);
            return -1;
        }
        if (n > m->layers) {
            opt_error("--n-cpu-moe %u exceeds the model's %u layers", n, m->layers);
            return -1;
        }
    }
    return 0;
}

/* Concurrency: --concurrency N is the inference batch; --max-concurrency
 * asks for the most that fit (plan sets it once the scenario is built). */
static int opt_concurrency(const struct options_given *s, struct options *o) {
    uint32_t n;
    if (s->set[PARAM_CONCURRENCY]) {
        if (opt_uint(PARAM_CONCURRENCY, s->val[PARAM_CONCURRENCY], &n))
            return -1;
        if (s->set[PARAM_BATCH] && n != o->sc.batch) {
            opt_error("--concurrency %u and --batch %u both set the sequences at once: give one",
                      n, o->sc.batch);
            return -1;
        }
        o->sc.batch = n;
    }
    if (s->set[PARAM_MAX_CONCURRENCY] && (s->set[PARAM_CONCURRENCY] || s->set[PARAM_BATCH])) {
        opt_error("--max-concurrency finds the batch itself: drop --%s",
                  s->set[PARAM_CONCURRENCY] ? "concurrency" : "batch");
        return -1;
    }
    o->max_concurrency = s->set[PARAM_MAX_CONCURRENCY];
    return 0;
}

/* The runtime's defaults for what was not given (see the top). */
static void opt_runtime_defaults(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    struct engine_serving *v = &sc->serving;
    uint32_t max = sc->model.max_context;
    if (sc->mode != ENGINE_MODE_INFER)
        return;
    switch (v->runtime) {
    case ENGINE_RUNTIME_VLLM:
    case ENGINE_RUNTIME_SGLANG:
    case ENGINE_RUNTIME_TRTLLM:
        if (!s->set[PARAM_CONTEXT]) {
            if (v->max_model_len)
                sc->context = v->max_model_len;
            else if (max)
                sc->context = max;
        }
        break;
    case ENGINE_RUNTIME_LLAMACPP:
        if (!s->set[PARAM_RESERVE])
            sc->reserve_bytes = GIB; /* --fit-target 1024 MiB */
        break;
    case ENGINE_RUNTIME_OLLAMA:
        if (!s->set[PARAM_RESERVE])
            sc->reserve_bytes = 457 * MIB;
        if (!s->set[PARAM_CONTEXT]) {
            double vram = sc->gpu.memory_bytes;
            sc->context = vram < 24 * GIB ? 4096 : vram < 48 * GIB ? 32768 : 262144;
            if (max && sc->context > max)
                sc->context = max;
        }
        break;
    default:
        break;
    }
}

/* --gpus N without --tp/--pp/--dp: the engine's one best layout of N GPUs
 * (engine_best_layout_in: fitting first, by --rank; else the valid one
 * needing the least memory per GPU), with the training knobs no option
 * set chosen with it. */
static void opt_pick_layout(const struct options_given *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    struct engine_space space = {o->rank, o->knobs_free};
    struct engine_layout l;
    if (!s->set[PARAM_GPUS] || o->layout_given || sc->gpus <= 1 ||
        !engine_best_layout_in(sc, sc->gpus, &space, &l))
        return;
    struct engine_scenario before = *sc;
    /* A --global-batch was divided by the first guess's DP: the layout
     * divides it again by the picked one (the search kept only the DP
     * degrees that divide it). */
    engine_layout_apply(sc, &l);
    o->knobs_picked = (sc->zero != before.zero ? ENGINE_KNOB_ZERO : 0) |
                      (sc->sequence_parallel != before.sequence_parallel
                           ? ENGINE_KNOB_SEQUENCE_PARALLEL
                           : 0) |
                      (sc->recompute != before.recompute ? ENGINE_KNOB_RECOMPUTE : 0) |
                      (sc->cp != before.cp ? ENGINE_KNOB_CP : 0);
    o->layout_picked = true;
    o->layout_fits = l.reject == ENGINE_REJECT_NONE;
}

/* Runtime, concurrency and offload options (see options_internal.h). */
int opt_serving(const struct options_given *s, const struct catalog *cat, struct options *o) {
    if (opt_runtime_values(s, cat, o) != 0 || opt_offload(s, o) != 0 ||
        opt_concurrency(s, o) != 0)
        return -1;
    o->context_given = s->set[PARAM_CONTEXT];
    o->layout_given = s->set[PARAM_TP] || s->set[PARAM_PP] || s->set[PARAM_DP];
    o->knobs_free = (s->set[PARAM_ZERO] ? 0 : ENGINE_KNOB_ZERO) |
                    (s->set[PARAM_SEQUENCE_PARALLEL] ? 0 : ENGINE_KNOB_SEQUENCE_PARALLEL) |
                    (s->set[PARAM_RECOMPUTE] ? 0 : ENGINE_KNOB_RECOMPUTE) |
                    (s->set[PARAM_CP] ? 0 : ENGINE_KNOB_CP);
    opt_runtime_defaults(s, o);
    opt_pick_layout(s, o);
    /* The prompt is part of the context (prompt + generated tokens). */
    if (o->sc.mode == ENGINE_MODE_INFER && o->sc.prompt > o->sc.context) {
        opt_error("--prompt %u is longer than --context %u: the context holds the prompt and the "
                  "tokens generated after it; raise --context or shorten --prompt",
                  o->sc.prompt, o->sc.context);
        return -1;
    }
    return 0;
}
