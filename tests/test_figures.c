/*
 * test_figures.c: the figure registry (engine/figures.c) walked row by row
 * over a set of scenarios that covers every mode, runtime, offload and
 * option a figure depends on:
 *  - every figure has a path, label, formula, unit and source, its path
 *    parses back to it, and it has one place in the output order;
 *  - every figure applies to at least one scenario and the text report
 *    lists it in at least one (a figure no scenario shows is a defect);
 *  - it applies exactly where its value is a number, and then explains
 *    itself with values (no "n/a", no leftover '%'), in English and
 *    through a translate function and Spanish marks;
 *  - every source cites a paper (section, table, appendix or equation), a
 *    data sheet or specification, a runtime's source file with its
 *    version, or the course text, and never a file of vramlab's (issue 27
 *    item 8);
 *  - captions render {path} from the registry.
 * The CLI side (JSON, text report, --explain, Spanish in GiB) is
 * tests/test_cli_figures.sh.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/figures.h"
#include "tests/helpers.h"

#define N_SCENARIOS 18

/* The scenarios: each figure applies and is shown in at least one. */
static void scenarios(struct engine_scenario *s) {
    struct engine_scenario base = th_scenario(th_llama31_8b());
    for (int i = 0; i < N_SCENARIOS; i++)
        s[i] = base;
    /* 0: inference, plain runtime (the default). */
    /* 1: vLLM, 70B on two GPUs. */
    s[1] = th_scenario(th_llama31_70b());
    s[1].gpus = s[1].tp = 2;
    s[1].serving.runtime = ENGINE_RUNTIME_VLLM;
    /* 2: llama.cpp with half the layers in host RAM (partial offload). */
    s[2] = th_scenario(th_llama31_70b());
    s[2].weight_format = th_format("int4-g32", 4, 32, 16);
    s[2].serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    s[2].serving.gpu_layers = 40;
    s[2].serving.gpu_layers_given = true;
    /* 3: Ollama. */
    s[3].serving.runtime = ENGINE_RUNTIME_OLLAMA;
    /* 4: full training, ZeRO-3 as DeepSpeed counts it, the optimizer in host RAM. */
    s[4].mode = ENGINE_MODE_TRAIN;
    s[4].gpus = s[4].dp = 8;
    s[4].zero = 3;
    s[4].memory_convention = ENGINE_MEMCONV_DEEPSPEED;
    s[4].offload = ENGINE_OFFLOAD_CPU;
    /* 5: ZeRO-Infinity: the states on NVMe. */
    s[5] = s[4];
    s[5].offload = ENGINE_OFFLOAD_NVME;
    /* 6: LoRA. */
    s[6].mode = ENGINE_MODE_LORA;
    s[6].lora_rank = 16;
    /* 7: MoE training with expert parallelism. */
    s[7] = th_scenario(th_mixtral_8x7b());
    s[7].mode = ENGINE_MODE_TRAIN;
    s[7].gpus = s[7].dp = 8;
    s[7].ep = 8;
    s[7].zero = 1;
    /* 8: pipeline training with a system (its power). */
    s[8] = th_scenario(th_llama31_70b());
    s[8].mode = ENGINE_MODE_TRAIN;
    s[8].gpus = 16;
    s[8].tp = 8;
    s[8].pp = 2;
    s[8].micro_batches = 8;
    s[8].sequence_parallel = true;
    s[8].system_gpus = 8;
    s[8].system_power_w = 10200;
    snprintf(s[8].system_id, sizeof s[8].system_id, "dgx-h100");
    s[8].gpu.spot_price_per_hour = 2.4;
    /* 9: inference with a system. */
    s[9].system_gpus = 8;
    s[9].system_power_w = 10200;
    snprintf(s[9].system_id, sizeof s[9].system_id, "dgx-h100");
    /* 10: MoE inference (active parameters below the total). */
    s[10] = th_scenario(th_mixtral_8x7b());
    s[10].gpus = s[10].tp = 2;
    /* 11: a bare size, in training with a given MFU. */
    engine_model_from_size(&s[11].model, 7e9);
    s[11].mode = ENGINE_MODE_TRAIN;
    s[11].mfu = 0.4;
    /* 12: FP8 training under FSDP as torchtitan runs it, its peak, with
     * context parallelism. */
    s[12].mode = ENGINE_MODE_TRAIN;
    s[12].gpus = 8;
    s[12].dp = 4;
    s[12].cp = 2;
    s[12].zero = 3;
    s[12].memory_convention = ENGINE_MEMCONV_PEAK;
    s[12].weight_format = th_format("fp8", 8, 0, 0);
    s[12].weight_format.compute = ENGINE_COMPUTE_FP8;
    /* 13: context parallelism over a slow network: the ring shows. */
    s[13].mode = ENGINE_MODE_TRAIN;
    s[13].gpus = s[13].cp = 2;
    s[13].gpus_per_node = 1;
    s[13].inter_node_bytes_per_s = 1e9;
    /* 14: vLLM 0.21 (CUDA graphs before the KV cache), a workload with
     * output tokens (the steady state), TP 2 (the prefill's all-reduces). */
    s[14] = s[1];
    s[14].serving.runtime_version = 21;
    s[14].prompt = 1024;
    /* 15, 16: SGLang and TensorRT-LLM. */
    s[15].serving.runtime = ENGINE_RUNTIME_SGLANG;
    s[16].serving.runtime = ENGINE_RUNTIME_TRTLLM;
    /* 17: a CPU as the device (--device cpu) with its cores' measured
     * rates, under llama.cpp: the core-bound ceiling. */
    s[17].serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    s[17].weight_format = th_format("int4-g32", 4, 32, 16);
    s[17].gpu.cpu = true;
    s[17].gpu.memory_bytes = 64e9;
    s[17].gpu.bandwidth_bytes_per_s = 30e9;
    for (int c = 0; c < ENGINE_COMPUTE_COUNT; c++)
        s[17].gpu.flops[c] = 150e9;
    s[17].gpu.core.threads = 8;
    s[17].gpu.core.batch[ENGINE_WIDTH_4][0] = 1;
    s[17].gpu.core.weights_per_s[ENGINE_WIDTH_4][0] = 20e9;
    snprintf(s[17].gpu.core.kernel[ENGINE_WIDTH_4], sizeof s[17].gpu.core.kernel[0], "w4a16");
}

/* A Spanish-like reader: its own marks, every text through a function
 * that counts the calls (the formula, source, label and each template go
 * through it). */
static int translated;
static const char *count_tr(const char *s) {
    translated++;
    return s;
}

/* Each row complete, its path parsing back, one place in the order. */
Test(figures, every_row_complete_and_ordered) {
    int seen[ENGINE_KEY_COUNT] = {0};
    cr_assert_eq(engine_figure_count(), ENGINE_KEY_COUNT);
    for (size_t i = 0; i < engine_figure_count(); i++) {
        enum engine_key k = engine_figure_at(i);
        cr_assert_lt((unsigned)k, ENGINE_KEY_COUNT);
        seen[k]++;
        const struct engine_figure *f = engine_figure(k);
        cr_assert(f && f->path && f->label && f->formula && f->source, "row %d", k);
        cr_expect_gt(strlen(f->label), 1, "%s", f->path);
        cr_expect_gt(strlen(f->formula), 5, "%s", f->path);
        cr_expect_lt((unsigned)f->unit, ENGINE_UNIT_KIND_COUNT, "%s", f->path);
        cr_expect_lt((unsigned)f->group, ENGINE_GROUP_COUNT, "%s", f->path);
        enum engine_key back;
        cr_assert_eq(engine_key_parse(f->path, &back), 0, "%s", f->path);
        cr_expect_eq(back, k, "%s", f->path);
        cr_expect_str_eq(engine_key_name(k), f->path);
    }
    for (int k = 0; k < ENGINE_KEY_COUNT; k++)
        cr_expect_eq(seen[k], 1, "%s has %d places in the order", engine_key_name(k), seen[k]);
    cr_expect_null(engine_figure(ENGINE_KEY_COUNT));
    enum engine_key none;
    cr_expect_neq(engine_key_parse("memory.nope", &none), 0);
}

/* Applies exactly where the value is a number; explained there, in both
 * readers' conventions; every figure applies to and is shown in at least
 * one scenario. */
Test(figures, each_applies_and_shows_somewhere) {
    struct engine_scenario s[N_SCENARIOS];
    int applies[ENGINE_KEY_COUNT] = {0}, shown[ENGINE_KEY_COUNT] = {0};
    struct engine_numfmt es = {true, ",", ".", "\xc2\xa0", count_tr};
    scenarios(s);
    for (int i = 0; i < N_SCENARIOS; i++) {
        struct engine_estimate e;
        engine_estimate(&s[i], &e);
        cr_assert_eq(e.invalid, 0, "scenario %d is invalid (0x%x)", i, e.invalid);
        for (int k = 0; k < ENGINE_KEY_COUNT; k++) {
            const struct engine_figure *f = engine_figure((enum engine_key)k);
            double v = engine_figure_value(&s[i], &e, (enum engine_key)k);
            bool a = engine_key_applies(&s[i], (enum engine_key)k);
            cr_expect_eq(a, !isnan(v), "%s in scenario %d: applies %d, value %g", f->path, i, a,
                         v);
            if (!a)
                continue;
            applies[k]++;
            bool on_text = engine_figure_shown(&s[i], &e, (enum engine_key)k) ||
                           f->group == ENGINE_GROUP_VERDICT;
            if (f->same_as != ENGINE_KEY_COUNT)
                on_text = engine_figure_shown(&s[i], &e, f->same_as);
            shown[k] += on_text;
            struct engine_explanation en, sp;
            engine_explain(&s[i], &e, (enum engine_key)k, &en);
            translated = 0;
            engine_explain_for(&es, &s[i], &e, (enum engine_key)k, &sp);
            cr_expect_geq(translated, 3, "%s: label, formula and source translated", f->path);
            cr_expect_gt(strlen(en.values), 3, "%s in scenario %d", f->path, i);
            cr_expect_str_eq(en.key, f->path);
            const char *texts[] = {en.values, sp.values};
            for (int t = 0; t < 2; t++) {
                /* not-a-number prints "n/a" through the formatter */
                cr_expect_null(strstr(texts[t], "n/a"), "%s: '%s'", f->path, texts[t]);
                /* A '%' left in a values text is a template's leftover
                 * unless it ends a percentage ("20.5%"). */
                for (const char *p = strchr(texts[t], '%'); p; p = strchr(p + 1, '%'))
                    cr_expect(p > texts[t] && p[-1] >= '0' && p[-1] <= '9', "%s: '%s'",
                              f->path, texts[t]);
            }
            /* The reader's marks: GiB, not GB, and no '.' decimal mark
             * before a unit in Spanish. */
            if (f->unit == ENGINE_UNIT_BYTES)
                cr_expect_null(strstr(sp.values, "\xc2\xa0GB"), "%s: '%s'", f->path, sp.values);
        }
    }
    for (int k = 0; k < ENGINE_KEY_COUNT; k++) {
        cr_expect_gt(applies[k], 0, "%s applies to no scenario", engine_key_name(k));
        cr_expect_gt(shown[k], 0, "%s is shown in no scenario", engine_key_name(k));
    }
}

/* Whether text names one of vramlab's own files or repository paths. */
static const char *internal_name(const char *s) {
    static const char *const names[] = {
        "engine.md", "product.md", "one-source.md", "architecture.md", "training.md",
        "lessons.md", "benchmarks.md", "docs/", "engine/", "tui/",
        "catalog/", "share/", "kernels/", "explain.c", "figures.c", "vramlab default",
        "see memory", "seeds/", "seed 00",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(s, names[i]))
            return names[i];
    return NULL;
}

/* Whether a source says where in the work it cites: a section, table,
 * appendix or equation of a paper, a data sheet or specification, a
 * runtime's version, or the course text's section. */
static bool cites_a_place(const char *s) {
    static const char *const marks[] = {
        "\xc2\xa7", "Table ", "appendix ", "eq. ", "data sheet", "Specification", "vLLM 0.",
        "v0.", "Core 0.", "December 2025 source", "course text, lesson seed-", "model card", "price list",
        "documentation",
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strstr(s, marks[i]))
            return true;
    return false;
}

/* Issue 27 item 8: every source cites what a reader can look up, never a
 * file of vramlab's. */
Test(figures, sources_cite_papers_sheets_runtimes_or_the_course) {
    for (int k = 0; k < ENGINE_KEY_COUNT; k++) {
        const char *src = engine_figure((enum engine_key)k)->source;
        const char *bad = internal_name(src);
        cr_expect_null(bad, "%s cites '%s': %s", engine_key_name(k), bad, src);
        cr_expect(cites_a_place(src), "%s cites no section, table, sheet or version: %s",
                  engine_key_name(k), src);
        /* a paper is named with its year */
        if (strstr(src, "et al."))
            cr_expect(strstr(src, "et al. 19") || strstr(src, "et al. 20"), "%s: %s",
                      engine_key_name(k), src);
    }
    /* the check can fail */
    cr_expect_not_null(internal_name("engine.md Speed ceilings"));
    cr_expect_not(cites_a_place("vramlab's own rule"));
}

/* Captions cite figures by key: {memory.kv_cache} in the reader's units
 * and marks, an unknown key left as written and counted, "{{" a brace. */
Test(figures, captions_render_from_the_registry) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    struct engine_numfmt es = {true, ",", ".", "\xc2\xa0", NULL}, en;
    engine_numfmt_english(&en);
    char out[256], kv[32];
    const char *bad = NULL;
    engine_format(&es, ENGINE_UNIT_BYTES, e.memory.kv_cache, kv, sizeof kv);
    cr_assert_eq(engine_figures_render(&es, &sc, &e, "KV {memory.kv_cache}, {{x}", out, sizeof out,
                                       &bad),
                 0);
    char want[128];
    snprintf(want, sizeof want, "KV %s, {x}", kv);
    cr_expect_str_eq(out, want);
    cr_expect(strstr(out, "GiB"), "%s", out);
    /* 70.6B parameters; 4,096 tokens of context at 0.32 MiB... */
    engine_figures_render(&en, &sc, &e, "{params.total} params, {fits}", out, sizeof out, NULL);
    cr_expect_str_eq(out, "70.6B params, yes");
    cr_expect_eq(engine_figures_render(&en, &sc, &e, "a {memory.nope} b {training.days}", out,
                                       sizeof out, &bad),
                 1);
    cr_expect_str_eq(bad, "{memory.nope} b {training.days}");
    /* training.days does not apply in inference: "n/a" */
    cr_expect_str_eq(out, "a {memory.nope} b n/a");
    /* truncation keeps the text terminated */
    char small[8];
    engine_figures_render(&en, &sc, &e, "{memory.kv_cache} and more", small, sizeof small, NULL);
    cr_expect_lt(strlen(small), sizeof small);
}
