/*
 * test_options.c: the scenario option parser (tui/options.c), in process:
 * defaults, GNU forms, layout solving, custom models and GPUs, and errors.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "kernels/argv.h"
#include "tui/commands.h"

static struct catalog cat;

/* Load the embedded catalog once per test. */
static void setup(void) {
    struct catalog_diag d = {0};
    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
}

/* Free the catalog. */
static void teardown(void) {
    catalog_free(&cat);
}

TestSuite(options, .init = setup, .fini = teardown);

/* Parse a NULL-terminated argument list (argv[0] = "plan"). */
static int parse(struct options *o, const char *first, ...) {
    char *argv[64];
    int argc = 0;
    va_list ap;
    const char *a = first;

    argv[argc++] = (char *)"plan";
    va_start(ap, first);
    while (a && argc < 63) {
        argv[argc++] = (char *)a;
        a = va_arg(ap, const char *);
    }
    va_end(ap);
    argv[argc] = NULL;
    return options_parse(argc, argv, &cat, o, false);
}

Test(options, defaults_are_documented) {
    struct options o;
    cr_assert_eq(parse(&o, NULL), 0);
    cr_expect_str_eq(o.sc.model.id, "llama-3.1-8b");
    cr_expect_str_eq(o.sc.weight_format.id, "fp16");
    cr_expect_str_eq(o.sc.kv_format.id, "fp16");
    cr_expect_str_eq(o.sc.gpu.id, "h100-sxm");
    cr_expect_eq(o.sc.gpus, 1);
    cr_expect_eq(o.sc.tp * o.sc.pp * o.sc.dp, 1);
    cr_expect_eq(o.units, UNITS_GB);
    cr_expect_not(o.json);
}

Test(options, equals_and_space_forms_agree) {
    struct options a, b;
    cr_assert_eq(parse(&a, "--gpus", "4", "--format", "int8", NULL), 0);
    cr_assert_eq(parse(&b, "--gpus=4", "--format=int8", NULL), 0);
    cr_expect_eq(a.sc.gpus, b.sc.gpus);
    cr_expect_eq(a.sc.tp, b.sc.tp);
    cr_expect_str_eq(a.sc.weight_format.id, b.sc.weight_format.id);
}

/* --gpus alone takes the engine's best layout of N GPUs (issue 13), as the
 * explorer and search do: Llama 3.1 8B FP16 fits one H100, so DP 64 gives
 * the most tokens/s; for 70B FP16 on 12 GPUs the options take exactly the
 * layout engine_best_layout ranks first, and it fits. */
Test(options, gpus_alone_takes_the_best_layout) {
    struct options o;
    cr_assert_eq(parse(&o, "--gpus", "64", NULL), 0);
    cr_expect_eq(o.sc.tp, 1);
    cr_expect_eq(o.sc.pp, 1);
    cr_expect_eq(o.sc.dp, 64);
    cr_expect(o.layout_picked);
    struct engine_layout l;
    cr_assert_eq(parse(&o, "--model", "llama-3.1-70b", "--gpus", "12", NULL), 0);
    cr_assert(engine_best_layout(&o.sc, 12, &l));
    cr_expect_eq(o.sc.tp, l.tp);
    cr_expect_eq(o.sc.pp, l.pp);
    cr_expect_eq(o.sc.dp, l.dp);
    cr_expect(l.fits);
    cr_assert_eq(parse(&o, "--gpus", "8", "--tp", "2", NULL), 0);
    cr_expect_not(o.layout_picked, "a degree given: no pick");
}

Test(options, missing_degree_is_solved) {
    struct options o;
    cr_assert_eq(parse(&o, "--gpus", "32", "--tp", "4", "--pp", "2", NULL), 0);
    cr_expect_eq(o.sc.dp, 4);
    cr_assert_eq(parse(&o, "--gpus", "32", "--pp", "2", "--dp", "2", NULL), 0);
    cr_expect_eq(o.sc.tp, 8);
}

Test(options, impossible_layouts_are_usage_errors) {
    struct options o;
    cr_expect_eq(parse(&o, "--gpus", "8", "--tp", "2", "--pp", "2", "--dp", "1", NULL), 2);
    cr_expect_eq(parse(&o, "--tp", "3", NULL), 2); /* 32 heads */
    cr_expect_eq(parse(&o, "--gpus", "6", "--tp", "4", NULL), 2);
}

Test(options, unknown_ids_and_flags_are_usage_errors) {
    struct options o;
    cr_expect_eq(parse(&o, "--model", "no-such-model", NULL), 2);
    cr_expect_eq(parse(&o, "--gpu", "h100", NULL), 2);
    cr_expect_eq(parse(&o, "--modle", "x", NULL), 2);
    cr_expect_eq(parse(&o, "--gpus", NULL), 2);
    cr_expect_eq(parse(&o, "--json=1", NULL), 2);
}

Test(options, units_use_the_strict_parsers) {
    struct options o;
    cr_assert_eq(parse(&o, "--reserve", "512MiB", "--tokens", "15.6T", "--mode", "train", "--mfu",
                       "38%", NULL),
                 0);
    cr_expect_eq(o.sc.reserve_bytes, 512.0 * 1024 * 1024);
    cr_expect_float_eq(o.sc.training_tokens, 15.6e12, 1e3);
    cr_expect_float_eq(o.sc.mfu, 0.38, 1e-12);
    cr_expect_str_eq(o.sc.weight_format.id, "bf16");
}

Test(options, custom_architecture_is_a_plain_transformer) {
    struct options o;
    cr_assert_eq(
        parse(&o, "--layers", "24", "--hidden", "2048", "--heads", "16", "--vocab", "50304", NULL),
        0);
    cr_expect(o.model_custom);
    cr_expect(o.sc.model.has_arch);
    cr_expect_eq(o.sc.model.ffn, 8192);
    cr_expect_eq(o.sc.model.kv_heads, 16);
    cr_expect_eq(o.sc.model.head_dim, 128);
    cr_expect_not(o.sc.model.gated);
    cr_expect_not(o.sc.model.tied);
    cr_expect_eq(o.sc.model.bias, ENGINE_BIAS_NONE);
}

Test(options, pythia_count_is_exact) {
    struct options o;
    cr_assert_eq(parse(&o, "--layers", "24", "--hidden", "2048", "--heads", "16", "--vocab",
                       "50304", "--bias", "--norm", "layer", NULL),
                 0);
    cr_expect_eq(engine_params_total(&o.sc.model), 1414647808.0);
}

Test(options, overrides_apply_in_any_order) {
    struct options o;
    cr_assert_eq(parse(&o, "--kv-heads", "32", "--model", "llama-3.1-8b", NULL), 0);
    cr_expect_eq(o.sc.model.kv_heads, 32);
    cr_expect_eq(o.sc.model.layers, 32);
    cr_expect(o.model_custom);
}

Test(options, custom_gpu_needs_three_figures) {
    struct options o;
    cr_expect_eq(parse(&o, "--gpu-memory", "24GiB", NULL), 2);
    cr_assert_eq(
        parse(&o, "--gpu-memory", "24GiB", "--gpu-bandwidth", "1TB/s", "--gpu-flops", "165T", NULL),
        0);
    cr_expect(o.gpu_custom);
    cr_expect_eq(o.sc.gpu.memory_bytes, 24.0 * 1024 * 1024 * 1024);
    cr_expect_eq(o.sc.gpu.bandwidth_bytes_per_s, 1e12);
    cr_expect_eq(o.sc.gpu.flops[ENGINE_COMPUTE_FP16], 165e12);
}

Test(options, closest_names_rank_by_distance) {
    static const char *const names[] = {"plan", "search", "measure", "catalog"};
    const char *out[3];
    size_t n = argv_closest("plna", names, 4, out, 3);
    cr_assert_geq(n, 1);
    cr_expect_str_eq(out[0], "plan");
    n = argv_closest("zzzzzzzz", names, 4, out, 3);
    cr_expect_eq(n, 0);
}

/* Token counts take k = 1024 and M = 1024k, as model cards mean them. */
Test(options, token_suffixes_are_binary) {
    struct options o;
    cr_assert_eq(parse(&o, "--context", "128K", "--prompt", "8k", NULL), 0);
    cr_expect_eq(o.sc.context, 131072);
    cr_expect_eq(o.sc.prompt, 8192);
    cr_assert_eq(parse(&o, "--context=1M", NULL), 0);
    cr_expect_eq(o.sc.context, 1048576);
    cr_expect_eq(parse(&o, "--context", "1e4", NULL), VRAMLAB_EXIT_USAGE);
    cr_expect_eq(parse(&o, "--context", "0.3k", NULL), VRAMLAB_EXIT_USAGE);
    cr_expect_eq(parse(&o, "--context", "2048k", NULL), 0);
    cr_expect_eq(parse(&o, "--context", "2048M", NULL), VRAMLAB_EXIT_USAGE); /* over 2^30 */
}

/* LoRA and QLoRA default to full recompute; training to selective. */
Test(options, lora_defaults_to_full_recompute) {
    struct options o;
    cr_assert_eq(parse(&o, "--mode", "qlora", NULL), 0);
    cr_expect_eq(o.sc.recompute, ENGINE_RECOMPUTE_FULL);
    cr_assert_eq(parse(&o, "--mode", "lora", NULL), 0);
    cr_expect_eq(o.sc.recompute, ENGINE_RECOMPUTE_FULL);
    cr_assert_eq(parse(&o, "--mode", "lora", "--recompute", "none", NULL), 0);
    cr_expect_eq(o.sc.recompute, ENGINE_RECOMPUTE_NONE);
    cr_assert_eq(parse(&o, "--mode", "train", NULL), 0);
    cr_expect_eq(o.sc.recompute, ENGINE_RECOMPUTE_SELECTIVE);
}

/* A Hugging Face name finds the catalog id of its name part. */
Test(options, hugging_face_names_find_their_id) {
    struct options o;
    cr_assert_eq(parse(&o, "--model", "meta-llama/Llama-3.1-70B", NULL), 0);
    cr_expect_str_eq(o.sc.model.id, "llama-3.1-70b");
    cr_expect_eq(parse(&o, "--model", "meta-llama/Llama-3.1-70B-Instruct", NULL),
                 VRAMLAB_EXIT_USAGE);
}
