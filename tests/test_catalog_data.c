/*
 * test_catalog_data.c: the default catalog (the YAML files of share/catalog, embedded
 * at build time) checked against the figures it claims to hold.
 *
 * - Every model's parameter count from its shape (engine_params_total) is
 *   within 0.5% of its published total (engine.md "Parameters"); Llama-3.1-8B
 *   is exact: 8,030,261,248 (the safetensors total on its model page).
 * - The seeds' GPU figures come out exactly in base units: H100 SXM 80 GiB,
 *   3.35 TB/s, 989 TFLOPS FP16/BF16 dense, NVLink 900 GB/s (seed 000);
 *   RTX 3060 12 GiB, 360 GB/s (seed 000); RTX 5090 32 GiB, 1,792 GB/s, 575 W,
 *   TPU7x 192 GiB, 7,380 GB/s, 2,307 TFLOPS BF16, M5 Max 128 GiB unified,
 *   614 GB/s (seed 003).
 * - Format bits with scales: INT4 g32 4.5 (seed 000), Q8_0 8.5, Q6_K 6.5625,
 *   MXFP4 4.25, NF4 with double quant ~4.127 (engine.md "Weights").
 * - Every entry names a source; the Pythia-1.4B evidence is the seed's table.
 *
 * "Exact" here means within 1e-12 relative: the loader multiplies decimal
 * numbers by unit factors in double, which may differ in the last bit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "catalog/catalog.h"
#include "engine/engine.h"

#define GIB 1073741824.0
#define EXACT 1e-12

static struct catalog cat;

/* Load the embedded catalog once per test; a failure prints the loader's messages. */
static void load(void) {
    struct catalog_diag d = {0};
    catalog_init(&cat);
    int rc = catalog_load_default(&cat, &d);
    cr_assert_eq(rc, 0, "the embedded catalog does not load:\n%s", d.text ? d.text : "");
    cr_assert_eq(d.errors, 0, "the embedded catalog has errors:\n%s", d.text ? d.text : "");
    catalog_diag_free(&d);
}

static void unload(void) {
    catalog_free(&cat);
}

/* Relative closeness: |a - b| <= rel * |b|. */
static bool close_rel(double a, double b, double rel) {
    return fabs(a - b) <= rel * fabs(b);
}

static const struct engine_gpu *gpu(const char *id) {
    const struct engine_gpu *g = catalog_find_gpu(&cat, id);
    cr_assert_not_null(g, "GPU %s is not in the catalog", id);
    return g;
}

static const struct engine_model *model(const char *id) {
    const struct engine_model *m = catalog_find_model(&cat, id);
    cr_assert_not_null(m, "model %s is not in the catalog", id);
    return m;
}

static const struct engine_format *format(const char *id) {
    const struct engine_format *f = catalog_find_format(&cat, id);
    cr_assert_not_null(f, "format %s is not in the catalog", id);
    return f;
}

TestSuite(catalog_data, .init = load, .fini = unload);

/* product.md: the explorer ships at least 40 GPUs and 40 models. */
Test(catalog_data, has_forty_gpus_and_forty_models) {
    cr_expect_geq(cat.n_gpus, 40, "%zu GPUs", cat.n_gpus);
    cr_expect_geq(cat.n_models, 40, "%zu models", cat.n_models);
    cr_expect_geq(cat.n_formats, 19, "%zu formats", cat.n_formats);
    cr_expect_geq(cat.n_evidence, 1, "%zu evidence tables", cat.n_evidence);
}

/* engine.md: the count from the shape matches the published total within 0.5%
 * for every catalog model; every failure names the model and both numbers. */
Test(catalog_data, every_model_count_within_half_a_percent) {
    size_t bad = 0;
    for (size_t i = 0; i < cat.n_models; i++) {
        const struct engine_model *m = &cat.models[i];
        cr_expect(m->has_arch, "%s: no architecture", m->id);
        cr_expect_gt(m->params_published, 0, "%s: no published count", m->id);
        double n = engine_params_total(m);
        double rel = (n - m->params_published) / m->params_published;
        if (fabs(rel) > 0.005) {
            bad++;
            cr_expect(false, "%s: engine %.0f vs published %.0f (%+.3f%%)", m->id, n,
                      m->params_published, 100 * rel);
        }
    }
    cr_expect_eq(bad, 0, "%zu models outside 0.5%%", bad);
}

/* Llama 3.1 8B: 8,030,261,248 exactly (meta-llama/Llama-3.1-8B safetensors total). */
Test(catalog_data, llama_3_1_8b_exact) {
    const struct engine_model *m = model("llama-3.1-8b");
    cr_assert_eq(engine_params_total(m), 8030261248.0, "%.0f", engine_params_total(m));
    cr_assert_eq(m->params_published, 8030261248.0, "%.0f", m->params_published);
}

/* Mixture of experts and MLA: total decides memory, active decides speed.
 * Mixtral 8x7B 46.7B total, ~12.9B active (Jiang et al., 2024: "13B");
 * DeepSeek-V3 671B total, 37B active (DeepSeek-V3 report). */
Test(catalog_data, moe_active_counts) {
    const struct engine_model *mx = model("mixtral-8x7b");
    cr_expect(close_rel(engine_params_active(mx), 12.9e9, 0.01), "Mixtral active %.4g",
              engine_params_active(mx));
    const struct engine_model *ds = model("deepseek-v3");
    cr_expect(close_rel(engine_params_total(ds), 671e9, 0.005), "DeepSeek-V3 total %.4g",
              engine_params_total(ds));
    cr_expect(close_rel(engine_params_active(ds), 37e9, 0.02), "DeepSeek-V3 active %.4g",
              engine_params_active(ds));
    cr_expect_eq(ds->kv_lora_rank, 512);
    cr_expect_eq(ds->dense_layers, 3);
}

/* Seed 000: H100 SXM, 80 GB (= 80 GiB), 3 350 GB/s, 989 TFLOPS FP16 without
 * sparsity (the sheet's 1 979 is "with sparsity"), NVLink 900 GB/s; 700 W. */
Test(catalog_data, h100_sxm_seed_figures) {
    const struct engine_gpu *g = gpu("h100-sxm");
    cr_expect(close_rel(g->memory_bytes, 80 * GIB, EXACT), "memory %.17g", g->memory_bytes);
    cr_expect(close_rel(g->bandwidth_bytes_per_s, 3.35e12, EXACT), "bw %.17g",
              g->bandwidth_bytes_per_s);
    cr_expect(close_rel(g->flops[ENGINE_COMPUTE_FP16], 989e12, EXACT), "fp16 %.17g",
              g->flops[ENGINE_COMPUTE_FP16]);
    cr_expect(close_rel(g->flops[ENGINE_COMPUTE_BF16], 989e12, EXACT), "bf16 %.17g",
              g->flops[ENGINE_COMPUTE_BF16]);
    cr_expect(close_rel(g->link_bytes_per_s, 900e9, EXACT), "link %.17g", g->link_bytes_per_s);
    cr_expect(close_rel(g->tdp_w, 700, EXACT), "tdp %.17g", g->tdp_w);
    cr_expect_eq(g->gpus_per_node, 8);
    /* Ridge point of seed 000: 989e12 / 3.35e12 ~ 295 FLOP per byte. */
    cr_expect(close_rel(g->flops[ENGINE_COMPUTE_FP16] / g->bandwidth_bytes_per_s, 295.2, 0.001));
}

/* Seed 000 (measured on this card): RTX 3060, 12 GB GDDR6, 192-bit, 360 GB/s. */
Test(catalog_data, rtx_3060_seed_figures) {
    const struct engine_gpu *g = gpu("rtx-3060");
    cr_expect(close_rel(g->memory_bytes, 12 * GIB, EXACT), "memory %.17g", g->memory_bytes);
    cr_expect(close_rel(g->bandwidth_bytes_per_s, 360e9, EXACT), "bw %.17g",
              g->bandwidth_bytes_per_s);
}

/* Seed 003: RTX 5090, 32 GB GDDR7, 1,792 GB/s, 575 W TGP. */
Test(catalog_data, rtx_5090_seed_figures) {
    const struct engine_gpu *g = gpu("rtx-5090");
    cr_expect(close_rel(g->memory_bytes, 32 * GIB, EXACT), "memory %.17g", g->memory_bytes);
    cr_expect(close_rel(g->bandwidth_bytes_per_s, 1792e9, EXACT), "bw %.17g",
              g->bandwidth_bytes_per_s);
    cr_expect(close_rel(g->tdp_w, 575, EXACT), "tdp %.17g", g->tdp_w);
}

/* Seed 003: TPU7x, 192 GiB HBM, 7,380 GB/s, 2,307 TFLOPS BF16, 4,614 TFLOPS FP8. */
Test(catalog_data, tpu7x_seed_figures) {
    const struct engine_gpu *g = gpu("tpu7x");
    cr_expect(close_rel(g->memory_bytes, 192 * GIB, EXACT), "memory %.17g", g->memory_bytes);
    cr_expect(close_rel(g->bandwidth_bytes_per_s, 7380e9, EXACT), "bw %.17g",
              g->bandwidth_bytes_per_s);
    cr_expect(close_rel(g->flops[ENGINE_COMPUTE_BF16], 2307e12, EXACT), "bf16 %.17g",
              g->flops[ENGINE_COMPUTE_BF16]);
    cr_expect(close_rel(g->flops[ENGINE_COMPUTE_FP8], 4614e12, EXACT), "fp8 %.17g",
              g->flops[ENGINE_COMPUTE_FP8]);
    cr_expect_str_eq(g->vendor, "google");
}

/* Seed 003: M5 Max, up to 128 GB unified memory, 614 GB/s. */
Test(catalog_data, m5_max_seed_figures) {
    const struct engine_gpu *g = gpu("m5-max");
    cr_expect(close_rel(g->memory_bytes, 128 * GIB, EXACT), "memory %.17g", g->memory_bytes);
    cr_expect(close_rel(g->bandwidth_bytes_per_s, 614e9, EXACT), "bw %.17g",
              g->bandwidth_bytes_per_s);
    cr_expect(g->unified_memory, "M5 Max memory is unified");
    cr_expect_str_eq(g->vendor, "apple");
}

/* Data sheets: no sparsity figures. An FP8 rate below the 16-bit rate, or
 * well above twice it, would betray a halving done wrong (2.05: the L40S
 * sheet's own dense figures are 362 and 733, 2.02x). */
Test(catalog_data, dense_rates_are_consistent) {
    for (size_t i = 0; i < cat.n_gpus; i++) {
        const struct engine_gpu *g = &cat.gpus[i];
        double h = g->flops[ENGINE_COMPUTE_FP16] > 0 ? g->flops[ENGINE_COMPUTE_FP16]
                                                     : g->flops[ENGINE_COMPUTE_BF16];
        double f8 = g->flops[ENGINE_COMPUTE_FP8];
        cr_expect_gt(h, 0, "%s: no 16-bit rate", g->id);
        cr_expect_gt(g->memory_bytes, 0, "%s: no memory", g->id);
        cr_expect_gt(g->bandwidth_bytes_per_s, 0, "%s: no bandwidth", g->id);
        if (f8 > 0)
            cr_expect(f8 >= h * 0.999 && f8 <= 2.05 * h, "%s: fp8 %.4g vs 16-bit %.4g", g->id,
                      f8, h);
        if (g->flops[ENGINE_COMPUTE_FP32] > 0)
            cr_expect_leq(g->flops[ENGINE_COMPUTE_FP32], h * 1.001, "%s: fp32 above 16-bit",
                          g->id);
    }
}

/* Effective bits with scales (engine.md "Weights"; seed 000; ggml type traits;
 * QLoRA §3; OCP MX v1.0). */
Test(catalog_data, format_effective_bits) {
    static const struct {
        const char *id;
        double bits, tol;
    } want[] = {
        {"fp32", 32, 1e-15},   {"fp16", 16, 1e-15},    {"bf16", 16, 1e-15},
        {"fp8-e4m3", 8, 1e-15}, {"fp8-e5m2", 8, 1e-15}, {"int4-g32", 4.5, 1e-15},
        {"int4-g128", 4.125, 1e-15}, {"int3-g32", 3.5, 1e-15}, {"int2-g32", 2.5, 1e-15},
        {"q8_0", 8.5, 1e-15},  {"q6_k", 6.5625, 1e-15}, {"q5_k", 5.5, 1e-15},
        {"q4_k", 4.5, 1e-15},  {"q4_0", 4.5, 1e-15},    {"nf4", 4.5, 1e-15},
        {"nf4-dq", 4.127, 1e-3}, {"mxfp4", 4.25, 1e-15}, {"nvfp4", 4.5, 1e-15},
        {"int8", 8.0, 1e-3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double b = engine_format_bits(format(want[i].id));
        cr_expect(close_rel(b, want[i].bits, want[i].tol), "%s: %.6f bits, want %.6f",
                  want[i].id, b, want[i].bits);
    }
}

/* The KV formats --kv-format accepts, and the IEEE-like fields of seed 000's table. */
Test(catalog_data, kv_formats_and_ieee_fields) {
    const char *kv[] = {"fp16", "bf16", "fp8", "int8", "int4"};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        format(kv[i]);
    const struct engine_format *f16 = format("fp16");
    cr_expect_eq(f16->exponent_bits, 5);
    cr_expect_eq(f16->mantissa_bits, 10);
    cr_expect(close_rel(f16->max_value, 65504, EXACT));
    const struct engine_format *b16 = format("bf16");
    cr_expect_eq(b16->exponent_bits, 8);
    cr_expect_eq(b16->mantissa_bits, 7);
    cr_expect(close_rel(format("fp8-e4m3")->max_value, 448, EXACT));
    cr_expect(close_rel(format("fp8-e5m2")->max_value, 57344, EXACT));
    cr_expect(close_rel(format("fp32")->decimal_digits, 7.2, EXACT));
    cr_expect_eq(format("fp8-e4m3")->compute, ENGINE_COMPUTE_FP8);
    cr_expect_eq(format("int8")->compute, ENGINE_COMPUTE_INT8);
    cr_expect_eq(format("int4-g32")->compute, ENGINE_COMPUTE_FP16);
    cr_expect_eq(format("mxfp4")->compute, ENGINE_COMPUTE_FP4);
}

/* Seed 000: Pythia-1.4B loss per bits, one FP16 scale per group of 32 or per matrix. */
Test(catalog_data, pythia_evidence_is_the_seed_table) {
    const struct catalog_evidence *e = catalog_find_evidence(&cat, "pythia-1.4b-loss");
    cr_assert_not_null(e);
    static const double bits[] = {16, 8, 6, 5, 4, 3, 2};
    static const double group[] = {2.5805, 2.5806, 2.5858, 2.5975, 2.6565, 3.1589, 11.045};
    static const double matrix[] = {2.5805, 2.6002, 3.2172, 5.3017, 10.692, 10.445, 21.347};
    cr_assert_eq(e->n_points, 7);
    cr_expect_eq(e->group, 32);
    for (size_t i = 0; i < 7; i++) {
        cr_expect_eq(e->bits[i], bits[i]);
        cr_expect(close_rel(e->loss_per_group[i], group[i], EXACT), "group %zu", i);
        cr_expect(close_rel(e->loss_per_matrix[i], matrix[i], EXACT), "matrix %zu", i);
    }
}

/* product.md: a source for every figure. */
Test(catalog_data, every_entry_has_a_source) {
    for (size_t i = 0; i < cat.n_gpus; i++)
        cr_expect(cat.gpus[i].source && *cat.gpus[i].source, "GPU %s", cat.gpus[i].id);
    for (size_t i = 0; i < cat.n_models; i++)
        cr_expect(cat.models[i].source && *cat.models[i].source, "model %s", cat.models[i].id);
    for (size_t i = 0; i < cat.n_formats; i++)
        cr_expect(cat.formats[i].source && *cat.formats[i].source, "format %s",
                  cat.formats[i].id);
    for (size_t i = 0; i < cat.n_evidence; i++)
        cr_expect(cat.evidence[i].source && *cat.evidence[i].source, "evidence %s",
                  cat.evidence[i].id);
}

/* Driver names find their catalog GPU (nvidia-smi / cudaGetDeviceProperties). */
Test(catalog_data, device_names_match) {
    static const struct {
        const char *device, *id;
    } want[] = {
        {"NVIDIA H100 80GB HBM3", "h100-sxm"}, {"NVIDIA H200", "h200"},
        {"NVIDIA GeForce RTX 3060", "rtx-3060"}, {"NVIDIA A100-SXM4-80GB", "a100-80gb"},
        {"NVIDIA GeForce RTX 4090", "rtx-4090"}, {"Tesla T4", "t4"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct engine_gpu *g = catalog_match_device(&cat, want[i].device);
        cr_expect_not_null(g, "%s matches nothing", want[i].device);
        if (g)
            cr_expect_str_eq(g->id, want[i].id, "%s", want[i].device);
    }
}

/* A workstation of 2-4 GeForce/RTX cards is one node: TP across them is a
 * node-local layout (gpus_per_node 4), over PCIe x16 (64 GB/s both ways,
 * 128 on PCIe 5.0; the 4060 Ti is x8) or the NVLink bridge of the RTX 3090
 * and RTX A6000 (112.5 GB/s both ways). */
Test(catalog_data, workstation_cards_are_one_node) {
    static const struct {
        const char *id;
        double link;
    } want[] = {
        {"rtx-3060", 64e9},  {"rtx-3070", 64e9},          {"rtx-3080", 64e9},
        {"rtx-3090", 112.5e9}, {"rtx-4060-ti-16gb", 32e9}, {"rtx-4070", 64e9},
        {"rtx-4080", 64e9},  {"rtx-4090", 64e9},          {"rtx-5080", 128e9},
        {"rtx-5090", 128e9}, {"rtx-a6000", 112.5e9},      {"rtx-6000-ada", 64e9},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct engine_gpu *g = gpu(want[i].id);
        cr_expect_eq(g->gpus_per_node, 4, "%s gpus_per_node %u", want[i].id, g->gpus_per_node);
        cr_expect(close_rel(g->link_bytes_per_s, want[i].link, EXACT), "%s link %.17g",
                  want[i].id, g->link_bytes_per_s);
    }
    cr_expect_eq(gpu("l40s")->gpus_per_node, 8);
    cr_expect_eq(gpu("rtx-pro-6000")->gpus_per_node, 8);
}

/* Published pre-training global batches (issue 12): Llama 3 405B 16M tokens
 * (Llama 3 paper §3.4.1: 2,048 sequences of 8,192), GPT-3 175B 3.2M (Brown
 * et al. 2020 table 2.1: 1,536 x 2,048), Pythia 2M (1,024 x 2,048). */
Test(catalog_data, published_global_batches) {
    cr_expect_eq(model("llama-3.1-405b")->global_batch_tokens, 2048.0 * 8192);
    cr_expect_eq(model("gpt-3-175b")->global_batch_tokens, 1536.0 * 2048);
    cr_expect_eq(model("pythia-1.4b")->global_batch_tokens, 1024.0 * 2048);
    cr_expect_eq(model("llama-3.1-8b")->global_batch_tokens, 0, "not published: none");
}

/* Seed 003: DGX GB300 (NVL72) is 72 Blackwell Ultra GPUs in one NVLink
 * domain, 130 TB/s of NVLink, up to 576 TB/s of HBM, a rack of up to 142 kW;
 * DGX H100 is 8 H100 SXM at 900 GB/s NVLink, ~10.2 kW max (its data sheet). */
Test(catalog_data, systems_seed_figures) {
    const struct catalog_system *y = catalog_find_system(&cat, "gb300-nvl72");
    cr_assert_not_null(y);
    cr_expect_eq(y->gpus, 72);
    cr_expect_eq(y->nvlink_domain, 72);
    cr_expect(close_rel(y->gpus * y->link_bytes_per_s, 130e12, 0.005), "NVLink %.4g",
              y->gpus * y->link_bytes_per_s);
    cr_expect(close_rel(y->gpus * gpu(y->gpu)->bandwidth_bytes_per_s, 576e12, EXACT), "HBM %.4g",
              y->gpus * gpu(y->gpu)->bandwidth_bytes_per_s);
    cr_expect(close_rel(y->power_w, 142e3, EXACT), "power %.17g", y->power_w);
    y = catalog_find_system(&cat, "dgx-h100");
    cr_assert_not_null(y);
    cr_expect_eq(y->gpus, 8);
    cr_expect_str_eq(y->gpu, "h100-sxm");
    cr_expect(close_rel(y->link_bytes_per_s, 900e9, EXACT));
    cr_expect(close_rel(y->power_w, 10.2e3, EXACT));
}

/* Every system names a catalog GPU, links as fast as that GPU's own
 * (the GPU entries and the systems write NVLink the same way), a source,
 * and at least its GPUs' board power (a system feeds CPUs and NICs too). */
Test(catalog_data, every_system_is_consistent) {
    cr_expect_geq(cat.n_systems, 4, "%zu systems", cat.n_systems);
    for (size_t i = 0; i < cat.n_systems; i++) {
        const struct catalog_system *y = &cat.systems[i];
        const struct engine_gpu *g = gpu(y->gpu);
        cr_expect(close_rel(y->link_bytes_per_s, g->link_bytes_per_s, EXACT), "%s: link %.4g vs %.4g",
                  y->id, y->link_bytes_per_s, g->link_bytes_per_s);
        cr_expect_gt(y->power_w, y->gpus * g->tdp_w, "%s: %.4g W for %u x %.4g W", y->id,
                     y->power_w, y->gpus, g->tdp_w);
        cr_expect(y->gpus % y->nvlink_domain == 0 || y->nvlink_domain % y->gpus == 0, "%s", y->id);
        cr_expect(y->source && strlen(y->source) > 20, "%s: no source", y->id);
    }
}
