/*
 * test_scenario_file.c: scenario files (tui/scenario_file.c): saving then
 * loading gives back every field of the scenario, saves are atomic and never
 * clobber without leave, and broken files get exact file:line:col messages.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/scenario_file.h"

#define FIXTURES TOP_SRCDIR "/tests/fixtures/scenarios/"

static struct catalog cat;
static char dir[256];

/* Load the embedded catalog and make a scratch directory. */
static void setup(void) {
    struct catalog_diag d = {0};

    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
    snprintf(dir, sizeof(dir), "/tmp/vramlab-test-sf-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

/* Remove the scratch directory and its files; free the catalog. */
static void teardown(void) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    catalog_free(&cat);
}

TestSuite(scenario_file, .init = setup, .fini = teardown);

/* Parse a NULL-terminated list of arguments into o; asserts success. */
static void parse_args(struct options *o, const char *const *args) {
    char *argv[80];
    int argc = 0;

    argv[argc++] = (char *)"vramlab";
    for (size_t i = 0; args[i] && argc < 79; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    cr_assert_eq(options_parse(argc, argv, &cat, o, false), 0, "options_parse failed");
}

/* Read a whole small file into buf; returns its length or -1. */
static long slurp(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return -1;
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return (long)n;
}

/* Write text to path (plain, non-atomic: the tests' own fixtures). */
static void spit(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* How many entries the scratch directory holds. */
static int dir_entries(void) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Compare two doubles exactly (NaN equal to NaN). */
#define EQ_D(a, b, what)                                                                           \
    cr_expect((a) == (b) || (isnan(a) && isnan(b)), "%s: %.17g != %.17g", what, (double)(a),       \
              (double)(b))
#define EQ_U(a, b, what)                                                                           \
    cr_expect_eq((a), (b), "%s: %lld != %lld", what, (long long)(a), (long long)(b))
#define EQ_S(a, b, what) cr_expect_str_eq((a), (b), "%s: '%s' != '%s'", what, (a), (b))

/* Every field of a model. */
static void expect_same_model(const struct engine_model *a, const struct engine_model *b) {
    EQ_S(a->id, b->id, "model.id");
    EQ_S(a->name, b->name, "model.name");
    EQ_S(a->family, b->family, "model.family");
    EQ_S(a->source ? a->source : "", b->source ? b->source : "", "model.source");
    EQ_D(a->params_published, b->params_published, "params_published");
    EQ_D(a->params_size, b->params_size, "params_size");
    EQ_U(a->has_arch, b->has_arch, "has_arch");
    EQ_U(a->derived, b->derived, "derived");
    EQ_U(a->layers, b->layers, "layers");
    EQ_U(a->hidden, b->hidden, "hidden");
    EQ_U(a->heads, b->heads, "heads");
    EQ_U(a->kv_heads, b->kv_heads, "kv_heads");
    EQ_U(a->head_dim, b->head_dim, "head_dim");
    EQ_U(a->ffn, b->ffn, "ffn");
    EQ_U(a->vocab, b->vocab, "vocab");
    EQ_U(a->tied, b->tied, "tied");
    EQ_U(a->gated, b->gated, "gated");
    EQ_U(a->bias, b->bias, "bias");
    EQ_U(a->norm, b->norm, "norm");
    EQ_U(a->norms_per_layer, b->norms_per_layer, "norms_per_layer");
    EQ_U(a->qk_norm, b->qk_norm, "qk_norm");
    EQ_U(a->pos_embeddings, b->pos_embeddings, "pos_embeddings");
    EQ_U(a->max_context, b->max_context, "max_context");
    EQ_U(a->sliding_window, b->sliding_window, "sliding_window");
    EQ_U(a->sliding_layers, b->sliding_layers, "sliding_layers");
    EQ_U(a->experts, b->experts, "experts");
    EQ_U(a->active_experts, b->active_experts, "active_experts");
    EQ_U(a->shared_experts, b->shared_experts, "shared_experts");
    EQ_U(a->moe_ffn, b->moe_ffn, "moe_ffn");
    EQ_U(a->dense_layers, b->dense_layers, "dense_layers");
    EQ_U(a->q_lora_rank, b->q_lora_rank, "q_lora_rank");
    EQ_U(a->kv_lora_rank, b->kv_lora_rank, "kv_lora_rank");
    EQ_U(a->rope_dim, b->rope_dim, "rope_dim");
    EQ_U(a->nope_dim, b->nope_dim, "nope_dim");
    EQ_U(a->v_head_dim, b->v_head_dim, "v_head_dim");
}

/* Every field of a number format. */
static void expect_same_format(const struct engine_format *a, const struct engine_format *b) {
    EQ_S(a->id, b->id, "format.id");
    EQ_S(a->name, b->name, "format.name");
    EQ_U(a->kind, b->kind, "format.kind");
    EQ_D(a->bits, b->bits, "format.bits");
    EQ_U(a->block, b->block, "format.block");
    EQ_D(a->scale_bits, b->scale_bits, "format.scale_bits");
    EQ_D(a->zero_bits, b->zero_bits, "format.zero_bits");
    EQ_U(a->super_block, b->super_block, "format.super_block");
    EQ_D(a->super_scale_bits, b->super_scale_bits, "format.super_scale_bits");
    EQ_U(a->compute, b->compute, "format.compute");
    EQ_U(a->sign_bits, b->sign_bits, "format.sign_bits");
    EQ_U(a->exponent_bits, b->exponent_bits, "format.exponent_bits");
    EQ_U(a->mantissa_bits, b->mantissa_bits, "format.mantissa_bits");
    EQ_D(a->decimal_digits, b->decimal_digits, "format.decimal_digits");
    EQ_D(a->max_value, b->max_value, "format.max_value");
}

/* Every field of a GPU. */
static void expect_same_gpu(const struct engine_gpu *a, const struct engine_gpu *b) {
    EQ_S(a->id, b->id, "gpu.id");
    EQ_S(a->name, b->name, "gpu.name");
    EQ_S(a->vendor, b->vendor, "gpu.vendor");
    EQ_S(a->interconnect, b->interconnect, "gpu.interconnect");
    EQ_S(a->source ? a->source : "", b->source ? b->source : "", "gpu.source");
    EQ_D(a->memory_bytes, b->memory_bytes, "gpu.memory_bytes");
    EQ_D(a->bandwidth_bytes_per_s, b->bandwidth_bytes_per_s, "gpu.bandwidth");
    for (int i = 0; i < ENGINE_COMPUTE_COUNT; i++)
        EQ_D(a->flops[i], b->flops[i], engine_compute_name((enum engine_compute)i));
    EQ_D(a->link_bytes_per_s, b->link_bytes_per_s, "gpu.link");
    EQ_U(a->gpus_per_node, b->gpus_per_node, "gpu.gpus_per_node");
    EQ_D(a->tdp_w, b->tdp_w, "gpu.tdp_w");
    EQ_D(a->price_per_hour, b->price_per_hour, "gpu.price");
    EQ_D(a->spot_price_per_hour, b->spot_price_per_hour, "gpu.spot");
    EQ_S(a->price_date, b->price_date, "gpu.price_date");
    EQ_U(a->unified_memory, b->unified_memory, "gpu.unified_memory");
}

/* Every field of the scenario and of the options around it. */
static void expect_same_options(const struct options *a, const struct options *b) {
    const struct engine_scenario *x = &a->sc, *y = &b->sc;

    expect_same_model(&x->model, &y->model);
    expect_same_format(&x->weight_format, &y->weight_format);
    expect_same_format(&x->kv_format, &y->kv_format);
    expect_same_gpu(&x->gpu, &y->gpu);
    EQ_U(x->gpus, y->gpus, "gpus");
    EQ_U(x->gpus_per_node, y->gpus_per_node, "gpus_per_node");
    EQ_D(x->intra_node_bytes_per_s, y->intra_node_bytes_per_s, "intra_node");
    EQ_D(x->inter_node_bytes_per_s, y->inter_node_bytes_per_s, "inter_node");
    EQ_D(x->allreduce_latency_s, y->allreduce_latency_s, "allreduce_latency");
    EQ_U(x->tp, y->tp, "tp");
    EQ_U(x->pp, y->pp, "pp");
    EQ_U(x->dp, y->dp, "dp");
    EQ_U(x->zero, y->zero, "zero");
    EQ_U(x->memory_convention, y->memory_convention, "memory_convention");
    EQ_U(x->offload, y->offload, "offload");
    EQ_D(x->host_link_bytes_per_s, y->host_link_bytes_per_s, "host_link_bw");
    EQ_U(x->micro_batches, y->micro_batches, "micro_batches");
    EQ_U(x->interleave, y->interleave, "interleave");
    EQ_U(x->ep, y->ep, "ep");
    EQ_U(x->recompute_method, y->recompute_method, "recompute_method");
    EQ_U(x->recompute_num_layers, y->recompute_num_layers, "recompute_num_layers");
    EQ_U(x->sequence_parallel, y->sequence_parallel, "sequence_parallel");
    EQ_U(x->mode, y->mode, "mode");
    EQ_U(x->batch, y->batch, "batch");
    EQ_U(x->context, y->context, "context");
    EQ_U(x->prompt, y->prompt, "prompt");
    EQ_U(x->recompute, y->recompute, "recompute");
    EQ_U(x->recipe, y->recipe, "recipe");
    EQ_U(x->lora_rank, y->lora_rank, "lora_rank");
    EQ_U(x->serving.runtime, y->serving.runtime, "runtime");
    EQ_U(x->serving.runtime_version, y->serving.runtime_version, "runtime_version");
    EQ_D(x->serving.cuda_graph_bytes, y->serving.cuda_graph_bytes, "cuda_graph_bytes");
    EQ_D(x->serving.request_rate, y->serving.request_rate, "request_rate");
    EQ_D(x->serving.gpu_memory_utilization, y->serving.gpu_memory_utilization, "utilization");
    EQ_U(x->serving.block_size, y->serving.block_size, "block_size");
    EQ_U(x->serving.max_num_batched_tokens, y->serving.max_num_batched_tokens, "batched");
    EQ_U(x->serving.max_num_seqs, y->serving.max_num_seqs, "max_num_seqs");
    EQ_U(x->serving.max_model_len, y->serving.max_model_len, "max_model_len");
    EQ_U(x->serving.ubatch, y->serving.ubatch, "ubatch");
    EQ_U(x->serving.flash_attention, y->serving.flash_attention, "flash_attention");
    EQ_U(x->serving.fit, y->serving.fit, "fit");
    EQ_U(x->serving.gpu_layers, y->serving.gpu_layers, "gpu_layers");
    EQ_U(x->serving.cpu_moe_layers, y->serving.cpu_moe_layers, "cpu_moe_layers");
    EQ_D(x->serving.host_bytes_per_s, y->serving.host_bytes_per_s, "host_bw");
    EQ_U(x->serving.keep_embeddings_16bit, y->serving.keep_embeddings_16bit, "keep16");
    EQ_D(x->mfu, y->mfu, "mfu");
    EQ_U(x->flops_model, y->flops_model, "flops_model");
    EQ_U(x->global_batch, y->global_batch, "global_batch");
    EQ_D(x->throughput_tokens_per_s, y->throughput_tokens_per_s, "throughput");
    EQ_U(x->flops_efficiency_given, y->flops_efficiency_given, "flops_efficiency_given");
    EQ_D(x->training_tokens, y->training_tokens, "training_tokens");
    EQ_D(x->price_per_hour, y->price_per_hour, "price_per_hour");
    EQ_U(x->price_given, y->price_given, "price_given");
    EQ_U(x->training_tokens_given, y->training_tokens_given, "training_tokens_given");
    EQ_D(x->reserve_bytes, y->reserve_bytes, "reserve_bytes");
    EQ_D(x->bw_efficiency, y->bw_efficiency, "bw_efficiency");
    EQ_D(x->flops_efficiency, y->flops_efficiency, "flops_efficiency");
    EQ_D(x->measured_bytes_per_s, y->measured_bytes_per_s, "measured_bytes_per_s");
    EQ_D(x->measured_flop_per_s, y->measured_flop_per_s, "measured_flop_per_s");
    EQ_U(a->units, b->units, "units");
    EQ_U(a->model_custom, b->model_custom, "model_custom");
    EQ_U(a->gpu_custom, b->gpu_custom, "gpu_custom");
    EQ_U(a->recompute_given, b->recompute_given, "recompute_given");
    EQ_U(a->has_system, b->has_system, "has_system");
    cr_expect_str_eq(x->system_id, y->system_id, "system_id");
    EQ_U(x->system_gpus, y->system_gpus, "system_gpus");
    EQ_D(x->system_power_w, y->system_power_w, "system_power_w");
}

/* Save the scenario of args, load it back, and compare every field. */
static void round_trip(const char *name, const char *const *args) {
    struct options before, after;
    char path[512], err[SCENARIO_FILE_ERR_MAX];

    parse_args(&before, args);
    snprintf(path, sizeof(path), "%s/%s.yaml", dir, name);
    cr_assert_eq(scenario_file_save(path, &before, &cat, false, err, sizeof(err)), 0, "%s", err);
    memset(&after, 0xa5, sizeof(after));
    cr_assert_eq(scenario_file_load(path, &cat, &after, err, sizeof(err)), 0, "%s", err);
    expect_same_options(&before, &after);
}

/* A catalog model with every workload and communication field set. */
static const char *const args_catalog[] = {
    "--model",
    "llama-3.1-70b",
    "--format",
    "int4-g32",
    "--kv-format",
    "fp8",
    "--gpu",
    "h100-sxm",
    "--gpus",
    "16",
    "--tp",
    "4",
    "--pp",
    "2",
    "--dp",
    "2",
    "--gpus-per-node",
    "4",
    "--zero",
    "1",
    "--mode",
    "train",
    "--batch",
    "3",
    "--context",
    "8192",
    "--prompt",
    "100",
    "--micro-batches",
    "8",
    "--interleave",
    "2",
    "--sequence-parallel",
    "--recompute",
    "full",
    "--optimizer",
    "adam-8bit",
    "--lora-rank",
    "32",
    "--mfu",
    "0.37",
    "--tokens",
    "15.6T",
    "--price",
    "2.49",
    "--reserve",
    "512MiB",
    "--intra-node-bw",
    "600GB/s",
    "--inter-node-bw",
    "25GB/s",
    "--allreduce-latency",
    "7us",
    "--bw-efficiency",
    "0.9",
    "--flops-efficiency",
    "83%",
    "--units",
    "gib",
    NULL,
};

/* A custom architecture on a custom GPU. */
static const char *const args_custom[] = {
    "--layers",   "40",
    "--hidden",   "5120",
    "--heads",    "40",
    "--kv-heads", "8",
    "--head-dim", "128",
    "--ffn",      "13824",
    "--vocab",    "32000",
    "--tied",     "--gated=yes",
    "--bias=qkv", "--norm",
    "layer",      "--pos-embeddings",
    "2048",       "--experts",
    "8",          "--active-experts",
    "2",          "--shared-experts",
    "1",          "--gpu-memory",
    "48GiB",      "--gpu-bandwidth",
    "960GB/s",    "--gpu-flops",
    "181.05T",    "--mode",
    "qlora",      "--batch",
    "2",          "--context",
    "3000",       "--price",
    "$1.10/h",    "--reserve",
    "0",          "--mfu",
    "33.3%",      NULL,
};

/* Issue 12's training keys: a global batch (the micro-batches derived),
 * the 6n FLOPs model, a known throughput. */
static const char *const args_training[] = {
    "--model", "llama-3.1-8b", "--mode", "train", "--gpus", "8", "--dp", "8",
    "--global-batch", "64", "--micro-batch-size", "2", "--flops-model", "6n",
    "--throughput", "12000", "--dataset", "1000x512", "--epochs", "2", NULL,
};

Test(scenario_file, round_trip_training_batches_and_throughput) {
    round_trip("training", args_training);
}

/* Issue 12's ZeRO keys: DeepSpeed's accounting, ZeRO-Infinity, a host link. */
static const char *const args_zero_offload[] = {
    "--model", "llama-3.1-8b", "--mode", "train", "--gpus", "8", "--dp", "8", "--zero", "3",
    "--memory-convention", "deepspeed", "--offload", "nvme", "--host-link-bw", "32GB/s", NULL,
};

Test(scenario_file, round_trip_zero_offload) {
    round_trip("zero_offload", args_zero_offload);
}

/* --system: the system's id, GPUs and power come back; its links and
 * NVLink domain were saved as the scenario's own fields. */
static const char *const args_system[] = {
    "--system", "gb300-nvl72", "--model", "llama-3.1-405b", "--mode", "train",
    "--gpus", "144", "--tp", "16", "--pp", "9", NULL,
};

Test(scenario_file, round_trip_system) {
    round_trip("system", args_system);
}

/* Issue 12's expert parallelism and full recompute by block. */
static const char *const args_moe[] = {
    "--model", "mixtral-8x7b", "--mode", "train", "--gpus", "8", "--dp", "8", "--ep", "8",
    "--recompute", "full", "--recompute-method", "block", "--recompute-num-layers", "4",
    "--optimizer", "adafactor", NULL,
};

Test(scenario_file, round_trip_expert_parallel_and_recompute_layers) {
    round_trip("moe", args_moe);
}

Test(scenario_file, round_trip_catalog_model_every_field) {
    round_trip("catalog", args_catalog);
}

/* Serving settings survive a save (issue 13): vLLM's and llama.cpp's. */
Test(scenario_file, round_trip_serving) {
    static const char *const vllm[] = {"--runtime", "vllm", "--gpu-memory-utilization", "0.85",
                                       "--block-size", "32", "--max-num-batched-tokens", "4096",
                                       "--max-num-seqs", "64", "--max-model-len", "32k",
                                       "--context", "16k", NULL};
    static const char *const llama[] = {"--runtime", "llama.cpp", "--model", "mixtral-8x7b",
                                        "--format", "q4-k", "--ubatch", "256",
                                        "--flash-attention", "off", "--fit=off",
                                        "--gpu-layers", "20", "--n-cpu-moe", "4",
                                        "--host-bandwidth", "120GB/s", "--keep-embeddings-16bit",
                                        NULL};
    round_trip("vllm", vllm);
    round_trip("llamacpp", llama);
}

/* A runtime's release and its own memory fraction survive a save (issue
 * 25): the fraction is written under the key of the scenario's runtime,
 * which is also the only one read back without a note. */
Test(scenario_file, round_trip_runtime_profiles_and_fractions) {
    static const char *const vllm21[] = {"--runtime", "vllm@0.21", "--cuda-graph-memory",
                                         "1.5GiB", "--request-rate", "2.5", NULL};
    static const char *const sglang[] = {"--runtime", "sglang", "--mem-fraction-static", "0.8",
                                         NULL};
    static const char *const trtllm[] = {"--runtime", "trtllm@1.0",
                                         "--free-gpu-memory-fraction", "0.85", NULL};
    char path[512], text[4096];
    round_trip("vllm21", vllm21);
    round_trip("sglang", sglang);
    round_trip("trtllm", trtllm);
    snprintf(path, sizeof(path), "%s/vllm21.yaml", dir);
    cr_assert_gt(slurp(path, text, sizeof(text)), 0);
    cr_expect_not_null(strstr(text, "\nruntime: vllm@0.21\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\ncuda-graph-memory: 1.5 GiB\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nrequest-rate: 2.5\n"), "%s", text);
    cr_expect_null(strstr(text, "gpu-memory-utilization"), "%s", text);
    snprintf(path, sizeof(path), "%s/sglang.yaml", dir);
    cr_assert_gt(slurp(path, text, sizeof(text)), 0);
    cr_expect_not_null(strstr(text, "\nmem-fraction-static: 0.8\n"), "%s", text);
    cr_expect_null(strstr(text, "gpu-memory-utilization"), "%s", text);
    snprintf(path, sizeof(path), "%s/trtllm.yaml", dir);
    cr_assert_gt(slurp(path, text, sizeof(text)), 0);
    cr_expect_not_null(strstr(text, "\nruntime: trtllm@1.0\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nfree-gpu-memory-fraction: 0.85\n"), "%s", text);
}

Test(scenario_file, round_trip_custom_architecture_and_gpu) {
    round_trip("custom", args_custom);
}

Test(scenario_file, round_trip_bare_size_modified_model_and_overridden_gpu) {
    static const char *const bare[] = {"--params", "70B", "--format", "fp32", NULL};
    static const char *const odd[] = {"--params", "7.3e9", "--tokens", "1234567", NULL};
    static const char *const modified[] = {
        "--model", "llama-3.1-8b", "--layers",     "40",     "--kv-heads", "4",
        "--gpu",   "a100-80gb",    "--gpu-memory", "100GiB", NULL,
    };
    static const char *const defaults[] = {NULL};
    /* Given, 0 is no tokens and one's own GPUs (no cost), not the default. */
    static const char *const zeros[] = {"--mode", "train", "--tokens", "0", "--price", "0", NULL};

    round_trip("zeros", zeros);
    round_trip("bare", bare);
    round_trip("odd", odd);
    round_trip("modified", modified);
    round_trip("defaults", defaults);
}

Test(scenario_file, saved_file_names_ids_and_every_workload_field) {
    struct options o;
    char *text;

    parse_args(&o, (const char *const[]){"--model", "llama-3.1-70b", "--format", "int4-g32",
                                         "--gpus", "2", "--tp", "2", NULL});
    text = scenario_file_format(&o, &cat, NULL);
    cr_assert_not_null(text);
    cr_expect_not_null(strstr(text, "model: llama-3.1-70b\n"), "%s", text);
    cr_expect_null(strstr(text, "layers:"), "catalog models are saved by id:\n%s", text);
    cr_expect_not_null(strstr(text, "gpu: h100-sxm\n"), "%s", text);
    cr_expect_null(strstr(text, "gpu-memory:"), "%s", text);
    cr_expect_not_null(strstr(text, "tp: 2\npp: 1\ndp: 1\n"), "%s", text);
    cr_expect_not_null(strstr(text, "reserve: 1 GB\n"), "%s", text);
    cr_expect_not_null(strstr(text, "inter-node-bw: 50 GB/s\n"), "%s", text);
    cr_expect_not_null(strstr(text, "allreduce-latency: 5 us\n"), "%s", text);
    /* MFU not given: predicted, saved as a comment so it stays predicted. */
    cr_expect_not_null(strstr(text, "# mfu: predicted"), "%s", text);
    cr_expect_null(strstr(text, "\nmfu:"), "%s", text);
    cr_expect_not_null(strstr(text, "batch: 1\ncontext: 4096\n"), "%s", text);
    free(text);
}

Test(scenario_file, never_overwrites_without_the_flag) {
    struct options a, b, back;
    char path[512], err[SCENARIO_FILE_ERR_MAX], before[4096], now[4096];

    parse_args(&a, (const char *const[]){"--model", "llama-3.1-8b", NULL});
    parse_args(&b, (const char *const[]){"--model", "llama-3.1-70b", "--gpus", "2", NULL});
    snprintf(path, sizeof(path), "%s/s.yaml", dir);
    cr_assert_eq(scenario_file_save(path, &a, &cat, false, err, sizeof(err)), SCENARIO_FILE_OK);
    cr_assert_gt(slurp(path, before, sizeof(before)), 0);

    cr_assert_eq(scenario_file_save(path, &b, &cat, false, err, sizeof(err)), SCENARIO_FILE_EXISTS);
    cr_assert_gt(slurp(path, now, sizeof(now)), 0);
    cr_expect_str_eq(now, before, "the file changed without overwrite");
    cr_expect_eq(dir_entries(), 1, "a temporary file was left behind");

    cr_assert_eq(scenario_file_save(path, &b, &cat, true, err, sizeof(err)), SCENARIO_FILE_OK, "%s",
                 err);
    cr_assert_eq(scenario_file_load(path, &cat, &back, err, sizeof(err)), 0, "%s", err);
    cr_expect_str_eq(back.sc.model.id, "llama-3.1-70b");
    cr_expect_eq(dir_entries(), 1);
}

Test(scenario_file, exists_message_names_the_file) {
    struct options o;
    char path[512], err[SCENARIO_FILE_ERR_MAX], want[600];

    parse_args(&o, (const char *const[]){NULL});
    snprintf(path, sizeof(path), "%s/x.yaml", dir);
    spit(path, "model: llama-3.1-8b\n");
    cr_assert_eq(scenario_file_save(path, &o, &cat, false, err, sizeof(err)), SCENARIO_FILE_EXISTS);
    snprintf(want, sizeof(want), "%s: exists; not overwritten\n", path);
    cr_expect_str_eq(err, want);
}

/* Saving over a FIFO (issue 27 item 3): refused, named, the FIFO still a
 * FIFO, with and without overwrite; nothing blocks (no reader is there). */
Test(scenario_file, a_fifo_is_refused_and_left_a_fifo) {
    struct options o;
    char path[512], err[SCENARIO_FILE_ERR_MAX];
    struct stat st;

    parse_args(&o, (const char *const[]){NULL});
    snprintf(path, sizeof(path), "%s/pipe.yaml", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    for (int overwrite = 0; overwrite < 2; overwrite++) {
        err[0] = '\0';
        cr_expect_eq(scenario_file_save(path, &o, &cat, overwrite, err, sizeof(err)),
                     SCENARIO_FILE_ERROR);
        cr_expect_not_null(strstr(err, "FIFO"), "%s", err);
        cr_expect_not_null(strstr(err, "not a regular file"), "%s", err);
        cr_assert_eq(lstat(path, &st), 0);
        cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
        cr_expect_eq(dir_entries(), 1, "a temporary file was left behind");
    }
}

/* A symbolic link: its target is written, the link stays a link; without
 * overwrite it is "exists" like its target. */
Test(scenario_file, a_symlink_is_followed_and_kept) {
    struct options a, b, back;
    char path[512], target[512], err[SCENARIO_FILE_ERR_MAX], to[512];
    struct stat st;
    ssize_t n;

    parse_args(&a, (const char *const[]){"--model", "llama-3.1-8b", NULL});
    parse_args(&b, (const char *const[]){"--model", "llama-3.1-70b", "--gpus", "2", NULL});
    snprintf(target, sizeof(target), "%s/real.yaml", dir);
    snprintf(path, sizeof(path), "%s/link.yaml", dir);
    cr_assert_eq(scenario_file_save(target, &a, &cat, false, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(chmod(target, 0640), 0);
    cr_assert_eq(symlink("real.yaml", path), 0); /* relative, as ln -s makes them */

    cr_expect_eq(scenario_file_save(path, &b, &cat, false, err, sizeof(err)),
                 SCENARIO_FILE_EXISTS);
    cr_assert_eq(scenario_file_save(path, &b, &cat, true, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced by a file");
    n = readlink(path, to, sizeof(to) - 1);
    cr_assert_gt(n, 0);
    to[n] = '\0';
    cr_expect_str_eq(to, "real.yaml");
    cr_assert_eq(scenario_file_load(target, &cat, &back, err, sizeof(err)), 0, "%s", err);
    cr_expect_str_eq(back.sc.model.id, "llama-3.1-70b", "the link's target was not written");
    cr_assert_eq(stat(target, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0640, "the target's permissions changed");
    cr_expect_eq(dir_entries(), 2, "a temporary file was left behind");
}

/* A link to a FIFO, a dangling link, a directory, a device: each refused,
 * named, and left as it was. */
Test(scenario_file, links_to_nothing_directories_and_devices_are_refused) {
    struct options o;
    char path[512], fifo[512], sub[512], err[SCENARIO_FILE_ERR_MAX];
    struct stat st;

    parse_args(&o, (const char *const[]){NULL});
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(path, sizeof(path), "%s/to-fifo.yaml", dir);
    cr_assert_eq(symlink(fifo, path), 0);
    cr_expect_eq(scenario_file_save(path, &o, &cat, true, err, sizeof(err)), SCENARIO_FILE_ERROR);
    cr_expect_not_null(strstr(err, "links to"), "%s", err);
    cr_expect_not_null(strstr(err, "FIFO"), "%s", err);
    cr_expect(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    cr_expect(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));

    snprintf(path, sizeof(path), "%s/dangling.yaml", dir);
    cr_assert_eq(symlink("nowhere/at-all.yaml", path), 0);
    cr_expect_eq(scenario_file_save(path, &o, &cat, true, err, sizeof(err)), SCENARIO_FILE_ERROR);
    cr_expect_not_null(strstr(err, "nowhere/at-all.yaml, which does not exist"), "%s", err);
    cr_expect(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));

    snprintf(sub, sizeof(sub), "%s/sub", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    cr_expect_eq(scenario_file_save(sub, &o, &cat, true, err, sizeof(err)), SCENARIO_FILE_ERROR);
    cr_expect_not_null(strstr(err, "a directory, not a regular file"), "%s", err);
    cr_expect(lstat(sub, &st) == 0 && S_ISDIR(st.st_mode));
    rmdir(sub);

    cr_expect_eq(scenario_file_save("/dev/null", &o, &cat, true, err, sizeof(err)),
                 SCENARIO_FILE_ERROR);
    cr_expect_not_null(strstr(err, "/dev/null: cannot save: it is a character device"), "%s", err);
    cr_expect(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    cr_expect_eq(dir_entries(), 3, "a temporary file was left behind");
}

/* HOME naming nothing (service accounts, containers) or unset: no state,
 * one message, nothing created; XDG_STATE_HOME is still made as asked. */
Test(scenario_file, no_home_means_no_state_and_nothing_made) {
    char path[512], home[512], err[256];
    struct stat st;

    unsetenv("XDG_STATE_HOME");
    snprintf(home, sizeof(home), "%s/nonexistent", dir);
    setenv("HOME", home, 1);
    cr_expect_eq(scenario_file_state_path(path, sizeof(path), true, err, sizeof(err)), -1);
    cr_expect_not_null(strstr(err, "is not a directory"), "%s", err);
    cr_expect_not_null(strstr(err, "(HOME)"), "%s", err);
    cr_expect_neq(lstat(home, &st), 0, "the missing home was created");
    unsetenv("HOME");
    cr_expect_eq(scenario_file_state_path(path, sizeof(path), true, err, sizeof(err)), -1);
    cr_expect_not_null(strstr(err, "HOME is not set"), "%s", err);
    cr_expect_eq(dir_entries(), 0);
}

/* A failing write (here the file size limit, as a full disk would) mid-save. */
Test(scenario_file, failed_write_leaves_the_old_file_intact) {
    struct options old, fresh;
    struct rlimit lim, saved;
    char path[512], err[SCENARIO_FILE_ERR_MAX], before[4096], now[4096];
    int rc;

    parse_args(&old, (const char *const[]){"--model", "llama-3.1-8b", NULL});
    parse_args(&fresh, (const char *const[]){"--model", "llama-3.1-405b", "--gpus", "16", NULL});
    snprintf(path, sizeof(path), "%s/last.yaml", dir);
    cr_assert_eq(scenario_file_save(path, &old, &cat, false, err, sizeof(err)), 0, "%s", err);
    cr_assert_gt(slurp(path, before, sizeof(before)), 200);

    /* Writes past 100 bytes now fail with EFBIG instead of killing us. */
    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
    lim = saved;
    lim.rlim_cur = 100;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    rc = scenario_file_save(path, &fresh, &cat, true, err, sizeof(err));
    setrlimit(RLIMIT_FSIZE, &saved);

    cr_expect_eq(rc, SCENARIO_FILE_ERROR);
    cr_expect_not_null(strstr(err, ": cannot save: "), "%s", err);
    cr_assert_gt(slurp(path, now, sizeof(now)), 0);
    cr_expect_str_eq(now, before, "the old file was damaged");
    cr_expect_eq(dir_entries(), 1, "the temporary file was not removed");
}

/* A crash between write and rename leaves a stray temporary file. */
Test(scenario_file, stray_temp_file_from_a_crash_is_harmless) {
    struct options old, back;
    char path[512], stray[512], err[SCENARIO_FILE_ERR_MAX], text[4096];
    long n;

    parse_args(&old, (const char *const[]){"--model", "llama-3.1-70b", "--gpus", "2", NULL});
    snprintf(path, sizeof(path), "%s/last.yaml", dir);
    snprintf(stray, sizeof(stray), "%s/.last.yaml.Xy12Zq", dir);
    cr_assert_eq(scenario_file_save(path, &old, &cat, false, err, sizeof(err)), 0, "%s", err);
    /* The crashed save: half of a file, never renamed. */
    n = slurp(path, text, sizeof(text));
    text[n / 2] = '\0';
    spit(stray, text);

    cr_assert_eq(scenario_file_load(path, &cat, &back, err, sizeof(err)), 0, "%s", err);
    cr_expect_str_eq(back.sc.model.id, "llama-3.1-70b");
    cr_expect_eq(back.sc.gpus, 2);
    cr_assert_eq(scenario_file_save(path, &old, &cat, true, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(access(stray, F_OK), 0, "someone else's temporary file was removed");
    cr_expect_eq(dir_entries(), 2);
}

/* The half-written file itself (a writer that is not atomic) is refused clearly. */
Test(scenario_file, truncated_file_is_a_clear_error_and_leaves_options_alone) {
    struct options o, keep;
    char err[SCENARIO_FILE_ERR_MAX];
    const char *text = "model: llama-3.1-70b\nformat: int4-g\n";

    parse_args(&o, (const char *const[]){"--model", "llama-3.1-8b", NULL});
    keep = o;
    cr_assert_eq(
        scenario_file_load_buffer("half.yaml", text, strlen(text), &cat, &o, err, sizeof(err)),
        SCENARIO_FILE_ERROR);
    cr_expect_eq(strncmp(err, "half.yaml:2:9: format: unknown format 'int4-g'", 46), 0, "%s", err);
    cr_expect_eq(memcmp(&o, &keep, sizeof(o)), 0, "options changed by a failed load");
}

Test(scenario_file, apply_keeps_the_session_fields) {
    struct options session, loaded;

    parse_args(&session, (const char *const[]){"--theme", "high-contrast", "--no-color", "--ascii",
                                               "--model", "llama-3.1-8b", NULL});
    parse_args(&loaded,
               (const char *const[]){"--params", "70B", "--units", "gib", "--gpus", "4", NULL});
    scenario_file_apply(&session, &loaded);
    cr_expect_str_eq(session.theme, "high-contrast");
    cr_expect(session.no_color);
    cr_expect(session.ascii);
    cr_expect(session.model_custom);
    cr_expect_eq(session.units, UNITS_GIB);
    cr_expect_eq(session.sc.gpus, 4);
    cr_expect_eq(session.sc.model.params_size, 70e9);
}

Test(scenario_file, missing_file_is_reported_as_missing) {
    struct options o;
    char path[512], err[SCENARIO_FILE_ERR_MAX];

    snprintf(path, sizeof(path), "%s/none.yaml", dir);
    cr_expect_eq(scenario_file_load(path, &cat, &o, err, sizeof(err)), SCENARIO_FILE_MISSING);
    cr_expect_not_null(strstr(err, "cannot read: No such file"), "%s", err);
}

/* Load a fixture and compare the whole message (path prefix added here). */
static void expect_fixture_error(const char *name, const char *want) {
    struct options o;
    char path[512], err[SCENARIO_FILE_ERR_MAX], full[2048];

    snprintf(path, sizeof(path), FIXTURES "%s", name);
    cr_assert_eq(scenario_file_load(path, &cat, &o, err, sizeof(err)), SCENARIO_FILE_ERROR,
                 "%s loaded", name);
    snprintf(full, sizeof(full), "%s%s", path, want);
    cr_expect_str_eq(err, full);
}

Test(scenario_file, broken_files_have_exact_messages) {
    expect_fixture_error("unknown_key.yaml", ":2:1: modle: unknown key 'modle'; did you mean "
                                             "mode, model?\n"
                                             "    modle: llama-3.1-8b\n"
                                             "    ^\n");
    expect_fixture_error("bad_count.yaml", ":3:7: gpus: expected a whole number from 1 to "
                                           "16777216, found 'two'\n"
                                           "    gpus: two\n"
                                           "          ^\n");
    expect_fixture_error("bad_layout.yaml", ":4:5: tp: tp 3 does not divide the model's 64 "
                                            "attention heads\n"
                                            "    tp: 3\n"
                                            "        ^\n");
    expect_fixture_error("not_a_mapping.yaml",
                         ":1:1: expected a mapping of scenario options (model: ..., gpu: ...), "
                         "found a sequence\n"
                         "    - model: llama-3.1-8b\n"
                         "    ^\n");
    expect_fixture_error("duplicate.yaml", ":3:1: batch: duplicate key (first at line 2)\n"
                                           "    batch: 16\n"
                                           "    ^\n");
    expect_fixture_error("nested.yaml", ":2:6: gpu: expected one value (as on the command "
                                        "line), found a mapping\n"
                                        "    gpu: {id: h100-sxm}\n"
                                        "         ^\n");
    expect_fixture_error("front_end.yaml", ":2:1: theme: not a scenario field (a command-line "
                                           "option of the session)\n"
                                           "    theme: dark\n"
                                           "    ^\n");
    expect_fixture_error("empty_value.yaml", ":1:7: model: expected a value, found nothing\n"
                                             "    model:\n"
                                             "          ^\n");
    expect_fixture_error("bad_flag.yaml", ":2:20: sequence-parallel: expected true or false, "
                                          "found 'maybe'\n"
                                          "    sequence-parallel: maybe\n"
                                          "                       ^\n");
    expect_fixture_error("syntax.yaml", ":3:1: YAML syntax: could not find expected ':' "
                                        "while scanning a simple key (from line 2)\n"
                                        "    batch: 2\n"
                                        "    ^\n");
    expect_fixture_error("empty.yaml", ":1:1: expected a mapping of scenario options "
                                       "(model: ..., gpu: ...), found nothing\n");
}

/* options_parse reports on stderr; a curses screen must never see that. */
Test(scenario_file, errors_never_reach_stderr) {
    struct options o;
    char err[SCENARIO_FILE_ERR_MAX];

    cr_redirect_stderr();
    cr_assert_eq(scenario_file_load(FIXTURES "bad_layout.yaml", &cat, &o, err, sizeof(err)),
                 SCENARIO_FILE_ERROR);
    cr_assert_eq(scenario_file_load(FIXTURES "unknown_key.yaml", &cat, &o, err, sizeof(err)),
                 SCENARIO_FILE_ERROR);
    fprintf(stderr, "still here");
    fflush(stderr);
    cr_assert_stderr_eq_str("still here");
}

Test(scenario_file, good_fixture_loads) {
    struct options o;
    char err[SCENARIO_FILE_ERR_MAX];

    cr_assert_eq(scenario_file_load(FIXTURES "good.yaml", &cat, &o, err, sizeof(err)), 0, "%s",
                 err);
    cr_expect_str_eq(o.sc.model.id, "llama-3.1-70b");
    cr_expect_str_eq(o.sc.weight_format.id, "int4-g32");
    cr_expect_eq(o.sc.gpus, 2);
    cr_expect_eq(o.sc.tp, 2);
    cr_expect_eq(o.sc.batch, 8);
    cr_expect_eq(o.sc.context, 8192);
    cr_expect(o.sc.sequence_parallel);
    cr_expect_eq(o.sc.gpu.memory_bytes, 96.0 * (1u << 30));
    cr_expect(o.gpu_custom);
}

Test(scenario_file, state_path_follows_xdg_and_creates_the_directory) {
    char path[512], want[512], err[256], state[300];
    struct stat st;

    snprintf(state, sizeof(state), "%s/state", dir);
    setenv("XDG_STATE_HOME", state, 1);
    cr_assert_eq(scenario_file_state_path(path, sizeof(path), true, err, sizeof(err)), 0, "%s",
                 err);
    snprintf(want, sizeof(want), "%s/vramlab/last.yaml", state);
    cr_expect_str_eq(path, want);
    snprintf(want, sizeof(want), "%s/vramlab", state);
    cr_assert_eq(stat(want, &st), 0);
    cr_expect(S_ISDIR(st.st_mode));
    rmdir(want);
    rmdir(state);

    /* A relative XDG_STATE_HOME is invalid (XDG spec): HOME is used. */
    setenv("XDG_STATE_HOME", "relative/state", 1);
    setenv("HOME", dir, 1);
    cr_assert_eq(scenario_file_state_path(path, sizeof(path), false, err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "%s/.local/state/vramlab/last.yaml", dir);
    cr_expect_str_eq(path, want);
    unsetenv("XDG_STATE_HOME");
    cr_assert_eq(scenario_file_state_path(path, sizeof(path), false, err, sizeof(err)), 0);
    cr_expect_str_eq(path, want);
}

/* A decimal comma locale must not change what is written or read. */
Test(scenario_file, numbers_ignore_the_locale) {
    static const char *const names[] = {"es_ES.UTF-8", "es_ES.utf8", "de_DE.UTF-8", "fr_FR.UTF-8"};
    struct options o, back;
    char *text, err[SCENARIO_FILE_ERR_MAX];
    bool comma = false;

    parse_args(&o, (const char *const[]){"--mfu", "0.37", "--bw-efficiency", "0.9", NULL});
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !comma; i++)
        comma = setlocale(LC_ALL, names[i]) != NULL;
    if (!comma)
        cr_skip_test("no decimal-comma locale installed");
    text = scenario_file_format(&o, &cat, NULL);
    cr_assert_not_null(text);
    cr_expect_not_null(strstr(text, "mfu: 0.37\n"), "%s", text);
    cr_assert_eq(
        scenario_file_load_buffer("l.yaml", text, strlen(text), &cat, &back, err, sizeof(err)), 0,
        "%s", err);
    cr_expect_eq(back.sc.mfu, 0.37);
    free(text);
    setlocale(LC_ALL, "C");
}
