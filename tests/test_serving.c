/*
 * test_serving.c: inference as the runtimes run it (issue 13): prefill with
 * its bytes and TP all-reduces, TTFT and TPOT, vLLM's KV blocks and
 * concurrency, llama.cpp's buffers, partial offload, the bare-size shape,
 * the limits that know the model; golden figures from the runtimes' own
 * arithmetic and published logs (sources next to each), and properties.
 */
#include <criterion/criterion.h>
#include <criterion/theories.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/helpers.h"

#define MIB 1048576.0

/* |a - b| <= rel * |b|. */
static bool close_rel(double a, double b, double rel) {
    return fabs(a - b) <= rel * fabs(b);
}

/* Estimate a scenario and require it valid. */
static struct engine_estimate est(const struct engine_scenario *sc) {
    struct engine_estimate e;
    engine_estimate(sc, &e);
    cr_assert_eq(e.invalid, 0, "invalid %#x", e.invalid);
    return e;
}

/* GeForce RTX 5090: 32 GiB GDDR7, 1,792 GB/s (seed 003 FACT; NVIDIA spec). */
static struct engine_gpu rtx5090(void) {
    struct engine_gpu g = {0};
    strcpy(g.id, "rtx-5090");
    strcpy(g.name, "RTX 5090");
    g.memory_bytes = 32 * GIB;
    g.bandwidth_bytes_per_s = 1792e9;
    g.flops[ENGINE_COMPUTE_FP16] = 209.5e12;
    g.gpus_per_node = 1;
    return g;
}

/* Apple M5 Max: up to 128 GB unified, 614 GB/s (seed 003 FACT). */
static struct engine_gpu m5max(void) {
    struct engine_gpu g = {0};
    strcpy(g.id, "m5-max");
    strcpy(g.name, "M5 Max");
    g.memory_bytes = 128 * GIB;
    g.bandwidth_bytes_per_s = 614e9;
    g.flops[ENGINE_COMPUTE_FP16] = 70e12;
    g.gpus_per_node = 1;
    g.unified_memory = true;
    return g;
}

/* ---- prefill ----------------------------------------------------------- */

/* Issue 13: a 1-token prompt of Llama 3.1 8B FP16 on an H100 reads all
 * 16.06 GB of weights: at least 16.06e9 / 3.35e12 = 4.79 ms, not 16 us. */
Test(prefill, one_token_reads_the_weights) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.prompt = 1;
    struct engine_estimate e = est(&sc);
    double floor_s = 8030261248.0 * 2 / 3.35e12;
    cr_assert_geq(e.prefill_seconds, floor_s);
    cr_assert(close_rel(e.prefill_seconds, floor_s, 0.02), "%.6g s", e.prefill_seconds);
    /* 100 tokens: still the bytes (1.63 ms of compute < 4.8 ms). */
    sc.prompt = 100;
    e = est(&sc);
    cr_assert(close_rel(e.prefill_seconds, floor_s, 0.03), "%.6g s", e.prefill_seconds);
    /* 4096 tokens: compute bound, as before. */
    sc.prompt = 4096;
    e = est(&sc);
    cr_assert_gt(e.serving.prefill_compute_s, e.serving.prefill_bytes_s);
    cr_assert(close_rel(e.prefill_seconds, e.serving.prefill_compute_s, 1e-9));
}

/* A prompt's compute: the layers' weights for every token; the head
 * (vocabulary x hidden) only for the last token, whose logits are sampled
 * (vLLM v0.11 gpu_model_runner.py logits_indices = query_start_loc[1:] - 1;
 * llama.cpp llama_batch_get_one: the last token's output only); the input
 * embedding is a lookup, no multiply. Llama 3.1 8B (config.json: 32 layers,
 * hidden 4096, 32 heads and 8 KV heads of 128, FFN 14336, vocabulary
 * 128,256), 4,096 tokens in one step (plain) on an H100's 989 TFLOP/s. */
Test(prefill, head_once_embedding_free) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.prompt = 4096;
    sc.context = 4096;
    struct engine_estimate e = est(&sc);
    double h = 4096, layer = h * h * 2 + h * 1024 * 2 + 3 * h * 14336 + 2 * h;
    double layers = 32 * layer, head = 128256 * h, c = 4096;
    double attn = 32 * 32 * (128.0 + 128.0) * c * c; /* causal: c^2 (d_qk + d_v) per head */
    double want = (2 * layers * c + 2 * head + attn) / 989e12;
    cr_assert(close_rel(e.serving.prefill_compute_s, want, 1e-6), "%.9g s, want %.9g",
              e.serving.prefill_compute_s, want);
    /* counting the embedding and the head for every token would be 14% more */
    double all = (2 * 8030261248.0 * c + attn) / 989e12;
    cr_assert_lt(e.serving.prefill_compute_s, all / 1.13);
}

/* llm-analysis 0.2.2 (cli99), `infer --model_name upstage_Llama-2-70b-instruct-v2
 * --gpu_name h100-sxm-80gb --tp_size 4 --seq_len 4096 --batch_size_per_gpu 1`:
 * prefill_latency_fwd_tp_comm = 0.035791394 s: 80 layers x 2 ring
 * all-reduces of 2 (t-1)/t x 4096 x 8192 x 2 bytes at 450 GB/s one way. Ours
 * adds the 5 us latency of each of the 160 all-reduces (llm-analysis takes
 * max(bandwidth time, 8 us)). */
Test(prefill, tp_allreduce_as_llm_analysis) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.gpus = sc.tp = 4;
    struct engine_estimate e = est(&sc);
    double want = 0.035791394 + 160 * 5e-6;
    cr_assert(close_rel(e.serving.prefill_comm_s, want, 1e-6), "%.9g s, want %.9g",
              e.serving.prefill_comm_s, want);
    /* The prefill is compute plus that communication (one step, p = 1). */
    cr_assert(close_rel(e.prefill_seconds, e.serving.prefill_compute_s + want, 1e-6));
    /* prefill.allreduce_seconds is that TP part (no PP here: all of it);
     * at TP 1 there is none. */
    cr_assert(close_rel(e.serving.prefill_allreduce_s, want, 1e-6));
    sc.gpus = sc.tp = 1;
    sc.gpu.memory_bytes = 400 * GIB;
    e = est(&sc);
    cr_assert_eq(e.serving.prefill_allreduce_s, 0);
}

/* PP hands each step's activations to the next stage: one prompt on p
 * stages takes the steps plus p - 1 of the longest and its hand-off. With
 * one step (plain) the stages cannot overlap: slower than one stage; with
 * vLLM's 8 steps of 1024 they overlap: faster. */
Test(prefill, pipeline_adds_stages_and_hand_offs) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.context = 8192;
    sc.gpu.memory_bytes = 200 * GIB;
    struct engine_estimate one = est(&sc);
    sc.gpus = sc.pp = 2;
    struct engine_estimate two = est(&sc);
    cr_assert_gt(two.prefill_seconds, one.prefill_seconds);
    cr_assert_gt(two.serving.prefill_comm_s, 0);
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.serving.max_num_batched_tokens = 1024;
    struct engine_estimate two_v = est(&sc);
    cr_assert_eq(two_v.serving.prefill_chunks, 8);
    sc.gpus = sc.pp = 1;
    struct engine_estimate one_v = est(&sc);
    cr_assert_lt(two_v.prefill_seconds, one_v.prefill_seconds);
    /* ... but never below half: each stage still computes its layers. */
    cr_assert_gt(two_v.prefill_seconds, one_v.prefill_seconds / 2);
}

/* A prompt longer than the context is refused (issue 13). */
Test(prefill, prompt_longer_than_context_is_invalid) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.context = 4096;
    sc.prompt = 8192;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_PROMPT);
    char buf[256];
    engine_invalid_text(NULL, &sc, ENGINE_INVALID_PROMPT, buf, sizeof buf);
    cr_assert(strstr(buf, "--prompt 8192") && strstr(buf, "--context 4096"), "%s", buf);
    sc.mode = ENGINE_MODE_TRAIN; /* training has no prompt */
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
}

/* TTFT is the prefill alone at batch 1 and grows with the sequences
 * decoding alongside; TPOT is the inverse of the per-sequence rate. */
Test(serving, ttft_and_tpot) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    struct engine_estimate e = est(&sc);
    cr_assert_eq(e.serving.ttft_s, e.prefill_seconds);
    cr_assert(close_rel(e.serving.tpot_s, 1 / e.decode_tokens_per_s_per_sequence, 1e-12));
    double prev_ttft = e.serving.ttft_s, prev_tpot = e.serving.tpot_s;
    for (unsigned b = 2; b <= 64; b *= 2) {
        sc.batch = b;
        e = est(&sc);
        cr_assert_geq(e.serving.ttft_s, prev_ttft, "batch %u", b);
        cr_assert_geq(e.serving.tpot_s, prev_tpot, "batch %u", b);
        prev_ttft = e.serving.ttft_s;
        prev_tpot = e.serving.tpot_s;
    }
}

/* ---- vLLM -------------------------------------------------------------- */

/* vLLM 0.11's start-up arithmetic on Llama 3.1 8B BF16, one H100 (79.18
 * GiB as CUDA reports it, so the `vllm serve` defaults are 8192 tokens
 * and 1024 sequences per step), max_model_len 32768, by hand:
 *  requested = 0.9 x 79.18 GiB = 76,516,989,861.9 B;
 *  weights 2 x 8,030,261,248 + the cos/sin cache 131,072 x 128 x 2 =
 *    16,094,076,928 B;
 *  profile run: forward 8192 x 2 x (2 x 4096 + 3 x 14336) = 838,860,800 B;
 *    sampler 2 x 8192 x 4096 + 4 x 1024 x 4096 + 38 x 1024 x 128,256 =
 *    5,074,583,552 B; peak that + cuBLAS 32 MiB + cuBLASLt 1 MiB =
 *    5,109,186,560 B;
 *  non-torch memory 0.13 GiB = 139,586,437.12 B;
 *  available = 55,174,139,936.8 B (51.38 GiB);
 *  page = 2 x 16 x 8 x 128 x 2 = 65,536 B per layer, x 32 layers = 2 MiB;
 *  blocks = floor(55,174,139,936.8 / 2,097,152) = 26,309; tokens 420,944;
 *  concurrency at 32768 = 26,309 / 2048 = 12.85x. */
Test(vllm, blocks_and_concurrency_by_hand) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.context = 32768;
    struct engine_estimate e = est(&sc);
    cr_assert_eq(engine_vllm_max_num_batched_tokens(&sc), 8192);
    cr_assert_eq(engine_vllm_max_num_seqs(&sc), 1024);
    cr_assert(close_rel(e.memory.weights, 16094076928.0, 1e-12), "%.0f", e.memory.weights);
    cr_assert(close_rel(e.serving.sampler_peak_bytes, 5074583552.0, 1e-12));
    cr_assert(close_rel(e.serving.forward_peak_bytes, 838860800.0, 1e-12));
    cr_assert(close_rel(e.serving.activation_peak_bytes, 5109186560.0, 1e-12), "%.0f",
              e.serving.activation_peak_bytes);
    cr_assert(close_rel(e.serving.non_torch_bytes, 0.13 * GIB, 1e-12));
    cr_assert(close_rel(e.serving.available_kv_bytes, 55174139936.768, 1e-9), "%.0f",
              e.serving.available_kv_bytes);
    cr_assert_eq(e.serving.kv_blocks, 26309);
    cr_assert_eq(e.serving.kv_tokens, 420944);
    cr_assert(close_rel(e.serving.max_concurrency, 26309.0 / 2048, 1e-12));
    cr_assert_eq(e.serving.max_model_len_that_fits, 32768);
    cr_assert_eq(e.serving.runtime_refuses, 0);
    /* The reserve is what the request leaves of the data sheet's 80 GiB. */
    cr_assert(close_rel(e.memory.reserve, 80 * GIB - 0.9 * 79.18 * GIB, 1e-12));
    /* 0.11 captures its CUDA graphs after the KV cache: not counted. */
    cr_assert(isnan(e.serving.cuda_graph_bytes));
}

/* vLLM 0.21 raises the default utilisation to 0.92 and counts its CUDA
 * graphs before the KV cache (PR #38284): with the log's estimate given,
 * available = 0.92 x total - the same weights, peak, non-torch - graphs. */
Test(vllm, release_0_21_counts_cuda_graphs) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.context = 32768;
    struct engine_estimate old = est(&sc);
    sc.serving.runtime_version = 21;
    sc.serving.cuda_graph_bytes = 1.58 * GIB;
    struct engine_estimate e = est(&sc);
    cr_assert(close_rel(e.serving.requested_bytes, 0.92 * 79.18 * GIB, 1e-12));
    double want = old.serving.available_kv_bytes + 0.02 * 79.18 * GIB - 1.58 * GIB;
    cr_assert(close_rel(e.serving.available_kv_bytes, want, 1e-9), "%.0f vs %.0f",
              e.serving.available_kv_bytes, want);
    /* vramlab's own estimate: 0.25 GiB + 15 MiB a graph; 51 piecewise and
     * 51 full graphs at max_num_seqs 1024 (sizes to 512). */
    sc.serving.cuda_graph_bytes = 0;
    e = est(&sc);
    cr_assert(close_rel(e.serving.cuda_graph_bytes, 0.25 * GIB + 102 * 15 * MIB, 1e-12), "%.0f",
              e.serving.cuda_graph_bytes);
    char buf[64];
    engine_runtime_profile_name(&sc.serving, buf, sizeof buf);
    cr_assert_str_eq(buf, "vLLM 0.21");
}

/* NAME@VERSION picks a profile: the rules changed at vLLM 0.11 and 0.21;
 * versions without a profile are refused, not rounded. */
Test(vllm, runtime_versions_parse) {
    enum engine_runtime r;
    uint32_t v;
    cr_assert_eq(engine_runtime_spec_parse("vllm", &r, &v), 0);
    cr_assert_eq(r, ENGINE_RUNTIME_VLLM);
    cr_assert_eq(v, 0);
    cr_assert_eq(engine_runtime_spec_parse("vllm@0.11", &r, &v), 0);
    cr_assert_eq(v, 11);
    cr_assert_eq(engine_runtime_spec_parse("vllm@0.15.1", &r, &v), 0);
    cr_assert_eq(v, 11);
    cr_assert_eq(engine_runtime_spec_parse("vllm@0.21.0", &r, &v), 0);
    cr_assert_eq(v, 21);
    cr_assert_eq(engine_runtime_spec_parse("vllm@1.2", &r, &v), 0);
    cr_assert_eq(v, 21);
    cr_assert_eq(engine_runtime_spec_parse("vllm@0.10.1.1", &r, &v), -2);
    cr_assert_eq(engine_runtime_spec_parse("vllm@x", &r, &v), -2);
    cr_assert_eq(engine_runtime_spec_parse("llama.cpp@1.0", &r, &v), -2);
    cr_assert_eq(engine_runtime_spec_parse("tensorrt-llm@1.0.0", &r, &v), 0);
    cr_assert_eq(r, ENGINE_RUNTIME_TRTLLM);
    cr_assert_eq(engine_runtime_spec_parse("trtllm@0.20", &r, &v), -2);
    cr_assert_eq(engine_runtime_spec_parse("sglang@0.5.4", &r, &v), 0);
    cr_assert_eq(engine_runtime_spec_parse("nope", &r, &v), -1);
    cr_assert_eq(engine_runtime_spec_parse("@0.11", &r, &v), -1);
}

/* SGLang's default mem_fraction_static (server_args.py after PR #10975):
 * an H100 as CUDA reports it, 81,080 MiB: chunked_prefill_size 8192,
 * cuda_graph_max_bs 256 at TP 1: reserved = 512 + 12,288 + 512 + 128 =
 * 13,440 MiB (above the 10 GiB floor), fraction round(67,640 / 81,080,
 * 3) = 0.834; the pool is 0.834 x (79.18 - 0.61 context) GiB - weights. */
Test(sglang, mem_fraction_static_by_hand) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_SGLANG;
    sc.context = 16384;
    double mib = 79.18 * 1024, reserved = 512 + 8192 * 1.5 + 256 * 2 + 1024.0 / 8;
    double frac = round((mib - reserved) / mib * 1000) / 1000;
    cr_assert(close_rel(engine_runtime_memory_fraction(&sc), frac, 1e-12));
    cr_assert(close_rel(frac, 0.834, 1e-12));
    struct engine_estimate e = est(&sc);
    double want = frac * (79.18 - 0.61) * GIB - 8030261248.0 * 2;
    cr_assert(close_rel(e.serving.available_kv_bytes, want, 1e-9), "%.0f vs %.0f",
              e.serving.available_kv_bytes, want);
    /* One token a slot: the pool holds available / (32 x 4,096 B) tokens. */
    cr_assert_eq(e.serving.kv_tokens, floor(want / 131072.0));
    /* TP 4 raises the reserve by 1024 x 4 / 8 MiB and the graph batch to 512. */
    sc.gpus = sc.tp = 4;
    double r4 = 512 + 8192 * 1.5 + 512 * 2 + 1024 * 4 / 8.0;
    cr_assert(close_rel(engine_runtime_memory_fraction(&sc),
                        round((mib - r4) / mib * 1000) / 1000, 1e-12));
}

/* TensorRT-LLM's PyTorch flow (_util.py _cal_max_memory): KV = 0.9 x (total
 * - weights - the profiled forward - what is held outside torch). */
Test(trtllm, free_fraction_of_what_is_left) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_TRTLLM;
    sc.context = 16384;
    struct engine_estimate e = est(&sc);
    double peak = e.serving.forward_peak_bytes + e.serving.cublas_workspace_bytes;
    cr_assert(close_rel(e.serving.forward_peak_bytes, 838860800.0, 1e-12));
    double want = 0.9 * (79.18 * GIB - 8030261248.0 * 2 - peak - 0.61 * GIB);
    cr_assert(close_rel(e.serving.available_kv_bytes, want, 1e-9), "%.0f vs %.0f",
              e.serving.available_kv_bytes, want);
    cr_assert_eq(fmod(e.serving.kv_tokens, 32), 0); /* blocks of 32 tokens */
    cr_assert(isnan(e.serving.sampler_peak_bytes) || e.serving.sampler_peak_bytes == 0);
}

/* Each runtime refuses as it would: vLLM without room for one request of
 * max_model_len names the longest that fits and its own advice; with no
 * room at all, the other message. */
Test(vllm, refusal_is_said_with_the_advice) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.weight_format = th_format("fp8", 8, 0, 0);
    sc.weight_format.compute = ENGINE_COMPUTE_FP8;
    sc.serving.keep_embeddings_16bit = true; /* as RedHatAI's FP8-dynamic checkpoint */
    sc.context = 16000;
    sc.serving.block_size = 128;
    struct engine_estimate e;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.serving.runtime_refuses, 1);
    cr_assert(e.warnings & ENGINE_WARN_RUNTIME_REFUSES);
    char buf[512];
    engine_warning_text(NULL, &sc, &e, ENGINE_WARN_RUNTIME_REFUSES, buf, sizeof buf);
    cr_assert(strstr(buf, "No available memory for the cache blocks"), "%s", buf);
    /* 8B at 131,072 tokens on a 24 GiB GPU: weights fit, one request not. */
    sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.context = 131072;
    sc.gpu.memory_bytes = 24 * GIB;
    sc.gpu.memory_reported_bytes = 0;
    engine_estimate(&sc, &e);
    cr_assert_eq(e.serving.runtime_refuses, 1);
    engine_warning_text(NULL, &sc, &e, ENGINE_WARN_RUNTIME_REFUSES, buf, sizeof buf);
    char longest[32];
    snprintf(longest, sizeof longest, "is %.0f;", e.serving.max_model_len_that_fits);
    cr_assert(strstr(buf, "decreasing `max_model_len`") && strstr(buf, longest), "%s", buf);
    cr_assert_lt(e.serving.max_model_len_that_fits, 131072);
    cr_assert_gt(e.serving.max_model_len_that_fits, 0);
}

/* When one request of max_model_len does not fit, vLLM refuses to start
 * and names the longest that would (estimate_max_model_len): 70B FP16 on
 * two H100 with TP 2 at its full 131,072 tokens. */
Test(vllm, longest_max_model_len_when_one_request_does_not_fit) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.gpus = sc.tp = 2;
    sc.context = 131072;
    struct engine_estimate e = est(&sc);
    double per_req = 131072 / 16;
    cr_assert_lt(e.serving.kv_blocks, per_req);
    cr_assert_eq(e.serving.max_model_len_that_fits, e.serving.kv_blocks * 16);
    cr_assert_not(e.fits);
    cr_assert(e.warnings & ENGINE_WARN_KV_POOL_SHORT);
}

/* Seed 003, scenario 2 ("API concurrente"): the model fits, but more
 * concurrency runs out of KV cache and the time per token gets worse. */
Test(vllm, seed_003_more_concurrency_ooms) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.context = 32768;
    struct engine_estimate e = est(&sc);
    cr_assert(e.fits);
    unsigned most = (unsigned)floor(e.serving.max_concurrency); /* 12 */
    cr_assert_eq(most, 12);
    sc.batch = most;
    struct engine_estimate at = est(&sc);
    cr_assert(at.fits);
    cr_assert_not(at.warnings & ENGINE_WARN_KV_POOL_SHORT);
    sc.batch = most + 1;
    struct engine_estimate over = est(&sc);
    cr_assert_not(over.fits);
    cr_assert(over.warnings & ENGINE_WARN_KV_POOL_SHORT);
    cr_assert_gt(over.serving.tpot_s, e.serving.tpot_s);
    cr_assert_eq(engine_max_batch(&sc), most);
}

/* `vllm serve` defaults by GPU (arg_utils.py): 8192/1024 from 70 GiB, but
 * 2048/256 on the A100 and on smaller GPUs; a given value wins. */
Test(vllm, defaults_follow_the_gpu) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    cr_assert_eq(engine_vllm_max_num_batched_tokens(&sc), 8192);
    strcpy(sc.gpu.id, "a100-80gb");
    strcpy(sc.gpu.name, "A100 SXM4 80GB");
    cr_assert_eq(engine_vllm_max_num_batched_tokens(&sc), 2048);
    cr_assert_eq(engine_vllm_max_num_seqs(&sc), 256);
    sc.gpu = th_rtx3060();
    cr_assert_eq(engine_vllm_max_num_batched_tokens(&sc), 2048);
    sc.serving.max_num_batched_tokens = 512;
    cr_assert_eq(engine_vllm_max_num_batched_tokens(&sc), 512);
    cr_assert_eq(engine_vllm_max_num_seqs(&sc), 256);
    sc.serving.max_num_batched_tokens = 100;
    cr_assert_eq(engine_vllm_max_num_seqs(&sc), 100); /* at most the budget */
}

/* Bad runtime settings are invalid input, never silently clamped. */
Test(vllm, bad_settings_are_invalid) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    struct engine_estimate e;
    sc.serving.gpu_memory_utilization = 1.2;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SERVING);
    sc.serving.gpu_memory_utilization = -0.1;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SERVING);
    sc.serving.gpu_memory_utilization = 0; /* the runtime's default */
    engine_estimate(&sc, &e);
    cr_assert_eq(e.invalid, 0);
    sc.serving.cuda_graph_bytes = -1;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SERVING);
    sc.serving.cuda_graph_bytes = 0;
    sc.serving.request_rate = NAN;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SERVING);
    sc.serving.request_rate = 0;
    sc.serving.gpu_memory_utilization = 0.9;
    sc.serving.block_size = 0;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SERVING);
    sc.serving.block_size = 16;
    sc.serving.gpu_layers = 33;
    sc.serving.gpu_layers_given = true;
    engine_estimate(&sc, &e);
    cr_assert(e.invalid & ENGINE_INVALID_SERVING);
}

/* ---- llama.cpp ----------------------------------------------------------- */

/* A published llama.cpp log (Ollama's runner, llama3.1:8b Q4_0 on a T4,
 * n_ctx 8192, n_ubatch 512, flash_attn 0):
 *   CPU buffer size = 281.81 MiB         (token embedding, Q4_0)
 *   CUDA0 KV buffer size = 1024.00 MiB   (f16)
 *   CUDA0 compute buffer size = 560.00 MiB
 *   CUDA_Host compute buffer size = 24.01 MiB
 * The KV sizes of llama.cpp's other types (ggml type traits): q8_0 34 B and
 * q4_0 18 B per 32 elements: 544.00 and 288.00 MiB. */
Test(llamacpp, published_log_llama31_8b) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    sc.serving.flash_attention = 0;
    sc.weight_format = th_format("q4-0", 4, 32, 16);
    sc.context = 8192;
    struct engine_estimate e = est(&sc);
    cr_assert(close_rel(e.memory.kv_cache / MIB, 1024.00, 1e-12), "%.4f", e.memory.kv_cache / MIB);
    cr_assert(close_rel(e.serving.compute_buffer_bytes / MIB, 560.00, 1e-5), "%.4f",
              e.serving.compute_buffer_bytes / MIB);
    cr_assert(close_rel(e.memory.host / MIB, 281.81 + 24.01, 1e-4), "%.4f", e.memory.host / MIB);
    sc.kv_format = th_format("q8-0", 8, 32, 16);
    e = est(&sc);
    cr_assert(close_rel(e.memory.kv_cache / MIB, 544.00, 1e-12), "%.4f", e.memory.kv_cache / MIB);
    sc.kv_format = th_format("q4-0", 4, 32, 16);
    e = est(&sc);
    cr_assert(close_rel(e.memory.kv_cache / MIB, 288.00, 1e-12), "%.4f", e.memory.kv_cache / MIB);
    /* With flash attention the KQ scores go: the logits (258.5 MiB) lead. */
    sc.serving.flash_attention = 1;
    e = est(&sc);
    cr_assert(close_rel(e.serving.compute_buffer_bytes / MIB, 4.0 * 512 * (4096 + 128256) / MIB,
                        1e-12));
}

/* llama.cpp pads n_ctx to a multiple of 256 (llama-context.cpp): -c 35000
 * allocates 35072 cells. */
Test(llamacpp, context_padded_to_256) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    sc.context = 35000;
    struct engine_estimate e = est(&sc);
    cr_assert_eq(e.serving.context_padded, 35072);
    cr_assert(close_rel(e.memory.kv_cache, 32.0 * 35072 * 2 * 8 * 128 * 2, 1e-12));
    /* --fit keeps 1 GiB free: the reserve, given by the front end. */
}

/* ---- partial offload ---------------------------------------------------- */

/* Decode time per token = GPU bytes / GPU bandwidth + host bytes / host
 * bandwidth (issue 13), checked on 70B Q4 with 40 of 80 layers. */
Test(offload, decode_is_gpu_plus_host_time) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.gpu = rtx5090();
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    sc.serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    sc.serving.gpu_layers = 40;
    sc.serving.gpu_layers_given = true;
    sc.serving.host_bytes_per_s = 100e9;
    struct engine_estimate e = est(&sc);
    cr_assert_eq(e.serving.gpu_layers, 40);
    cr_assert_eq(e.serving.host_layers, 40);
    double step = e.decode_bytes_per_step / 1792e9 + e.serving.decode_host_bytes / 100e9;
    cr_assert(close_rel(e.serving.tpot_s, step, 1e-9), "%.6g vs %.6g", e.serving.tpot_s, step);
    /* Half the layers' weights are read in host RAM: 40 x the layer at 4.5 bits. */
    double layer = 2 * 8192.0 * 8192 + 2 * 8192.0 * 1024 + 3 * 8192.0 * 28672 + 2 * 8192.0;
    cr_assert_geq(e.serving.decode_host_bytes, 40 * layer * 4.5 / 8);
    cr_assert(e.warnings & ENGINE_WARN_OFFLOADED);
    cr_assert_not(e.warnings & ENGINE_WARN_HOST_BW_ASSUMED);
}

/* Seed 003, scenario 1 ("asistente local"): a 70B INT4 (~39.7 GB with its
 * g32 scales) does not fit a 32 GB RTX 5090; llama.cpp's --fit puts what
 * fits on the card and the rest in host RAM, and the token rate then
 * falls to the host's; a 128 GB M5 Max holds it whole and decodes at
 * 614 GB/s over ~40 GB: ~15 tokens/s. */
Test(offload, seed_003_rtx5090_versus_m5max) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    sc.gpu = rtx5090();
    struct engine_estimate plain = est(&sc);
    cr_assert_not(plain.fits);
    sc.serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    struct engine_estimate fit = est(&sc);
    cr_assert(fit.gpu_layers_fitted);
    cr_assert(fit.fits);
    cr_assert_lt(fit.serving.gpu_layers, 80);
    cr_assert_gt(fit.serving.gpu_layers, 40);
    struct engine_scenario fixed = sc;
    fixed.serving.fit = false;
    cr_assert_eq(engine_max_gpu_layers(&fixed), (int32_t)fit.serving.gpu_layers);
    sc.gpu = m5max();
    struct engine_estimate mac = est(&sc);
    cr_assert(mac.fits);
    cr_assert_eq(mac.serving.gpu_layers, 80);
    double bytes = 70553706496.0 * 4.5 / 8; /* ~39.7 GB */
    cr_assert(close_rel(mac.decode_tokens_per_s_per_sequence, 614e9 / bytes, 0.04), "%.4g",
                        mac.decode_tokens_per_s_per_sequence);
    cr_assert_gt(mac.decode_tokens_per_s_per_sequence, fit.decode_tokens_per_s_per_sequence);
}

/* --n-cpu-moe keeps the experts of the first N layers in host RAM. */
Test(offload, cpu_moe_moves_experts_to_host) {
    struct engine_scenario sc = th_scenario(th_mixtral_8x7b());
    sc.serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    sc.serving.fit = false; /* all layers on the GPU whatever fits */
    struct engine_estimate all = est(&sc);
    sc.serving.cpu_moe_layers = 16;
    struct engine_estimate half = est(&sc);
    /* 16 layers x 8 experts x 3 x 4096 x 14336 parameters, 16-bit. */
    double moved = 16 * 8 * 3 * 4096.0 * 14336 * 2;
    cr_assert(close_rel(all.memory.weights - half.memory.weights, moved, 1e-9));
    cr_assert_gt(half.memory.host, moved);
    cr_assert_gt(half.serving.tpot_s, all.serving.tpot_s);
}

/* ---- weights ------------------------------------------------------------- */

/* --keep-embeddings-16bit: Llama 3.1 8B's untied embedding and head
 * (2 x 128256 x 4096 + the final norm) at 16 bits instead of 4.5. */
Test(weights, keep_embeddings_16bit) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.weight_format = th_format("int4-g32", 4, 32, 16);
    struct engine_estimate a = est(&sc);
    sc.serving.keep_embeddings_16bit = true;
    struct engine_estimate b = est(&sc);
    double emb = 2 * 128256.0 * 4096 + 4096;
    cr_assert(close_rel(b.memory.weights - a.memory.weights, emb * (16 - 4.5) / 8, 1e-9));
    cr_assert(close_rel(b.serving.embed_16bit_bytes, emb * (16 - 4.5) / 8, 1e-9));
}

/* K/V projections are replicated when t exceeds the KV heads: 32 heads
 * and 2 KV heads on TP 8, each rank keeps one whole KV head, 2 h d per
 * layer instead of 2 h d x 2/8. */
Test(weights, kv_projections_replicated_past_the_kv_heads) {
    struct engine_model m = th_llama31_8b();
    m.kv_heads = 2;
    struct engine_scenario sc = th_scenario(m);
    sc.gpus = sc.tp = 8;
    struct engine_estimate e = est(&sc);
    double params = engine_params_total(&m);
    double want = params / 8 * 2 + 32 * 2 * 4096.0 * 128 * (1 - 2.0 / 8) * 2;
    cr_assert(close_rel(e.memory.weights, want, 1e-9), "%.6g vs %.6g", e.memory.weights, want);
    cr_assert(e.warnings & ENGINE_WARN_KV_REPLICATED);
    sc.model.kv_heads = 8; /* t divides the KV heads: no replication */
    m.kv_heads = 8;
    e = est(&sc);
    cr_assert(close_rel(e.memory.weights, engine_params_total(&m) / 8 * 2, 1e-9));
}

/* ---- bare sizes ---------------------------------------------------------- */

/* A bare size gets a modern shape: GQA (8 KV heads of 128), gated MLP,
 * a 128K vocabulary; Llama 3.1 405B's own width. */
Test(bare, modern_shape) {
    struct engine_model m;
    engine_model_from_size(&m, 405e9);
    cr_assert_eq(m.hidden, 16384);
    cr_assert_eq(m.layers, 127);
    cr_assert_eq(m.kv_heads, 8);
    cr_assert_eq(m.head_dim, 128);
    cr_assert(m.gated);
    cr_assert_eq(m.vocab, 128256);
    /* Issue 13: 70B at 128K on 8 GPUs was 41.7 GB of KV per GPU; Llama 3.1
     * 70B has 5.37 GB. The derived shape is now within 15% of it. */
    engine_model_from_size(&m, 70e9);
    struct engine_scenario sc = th_scenario(m);
    sc.gpus = sc.tp = 8;
    sc.context = 131072;
    struct engine_estimate e = est(&sc);
    cr_assert(close_rel(e.memory.kv_cache, 5.37e9, 0.15), "%.4g", e.memory.kv_cache);
}

/* No memory or KV figure falls as N grows, on a fine grid (0.2% steps from
 * 100M to 2T): no cliff when the size slider moves. */
Test(bare, monotone_on_a_fine_grid) {
    struct engine_model m;
    double prev_kv = 0, prev_mem = 0, prev_act = 0, prev_inf = 0;
    for (double n = 1e8; n < 2.05e12; n *= 1.002) {
        engine_model_from_size(&m, n);
        struct engine_scenario sc = th_scenario(m);
        sc.gpu.memory_bytes = 1e15;
        struct engine_estimate e = est(&sc);
        cr_assert_geq(e.kv_bytes_per_token, prev_kv, "N %.5g", n);
        cr_assert_geq(e.memory.total, prev_inf, "N %.5g", n);
        prev_kv = e.kv_bytes_per_token;
        prev_inf = e.memory.total;
        sc.mode = ENGINE_MODE_TRAIN;
        e = est(&sc);
        cr_assert_geq(e.memory.total, prev_mem, "N %.5g", n);
        cr_assert_geq(e.memory.activations, prev_act, "N %.5g", n);
        prev_mem = e.memory.total;
        prev_act = e.memory.activations;
    }
}

/* ---- layouts and limits ---------------------------------------------------- */

/* plan --gpus 3 for 70B FP16: the best fitting layout is PP 3 (TP 3 does not
 * divide 64 heads; DP 3 holds all 141 GB on each GPU). */
Test(layout, best_fitting_layout_of_three) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    struct engine_layout l;
    cr_assert(engine_best_layout(&sc, 3, &l));
    cr_assert_eq(l.tp, 1);
    cr_assert_eq(l.pp, 3);
    cr_assert(l.fits);
}

/* search --rank latency puts the fastest sequence first (70B on 8 H100:
 * TP 8), throughput the most tokens in all (TP 2 x DP 4). */
Test(layout, rank_by_latency_or_throughput) {
    struct engine_scenario sc = th_scenario(th_llama31_70b());
    struct engine_layout v[16];
    engine_search_layouts_ranked(&sc, 8, ENGINE_RANK_LATENCY, v, 16);
    cr_assert_eq(v[0].tp, 8);
    for (int i = 1; i < 4 && v[i].fits; i++)
        cr_assert_geq(v[0].per_sequence, v[i].per_sequence);
    engine_search_layouts_ranked(&sc, 8, ENGINE_RANK_THROUGHPUT, v, 16);
    cr_assert_geq(v[0].throughput, v[1].throughput);
    cr_assert(isfinite(v[0].per_sequence));
    engine_search_layouts_ranked(&sc, 8, ENGINE_RANK_MEMORY, v, 16);
    cr_assert_leq(v[0].memory_total, v[1].memory_total);
}

/* The fewest-GPU search skips counts the weights alone rule out, and finds
 * what a scan from 1 finds (405B BF16 on H100). */
Test(limits, min_gpus_with_the_lower_bound) {
    struct engine_scenario sc = th_scenario(th_llama31_405b());
    struct engine_scenario best;
    uint32_t g = engine_min_gpus(&sc, 65536, &best);
    struct engine_layout l;
    uint32_t scan = 0;
    for (uint32_t k = 1; k <= 64 && !scan; k++)
        if (engine_search_layouts(&sc, k, &l, 1) && l.fits && l.reject == ENGINE_REJECT_NONE)
            scan = k;
    cr_assert_eq(g, scan);
    cr_assert_gt(g, 9); /* 812 GB of weights over 80 GiB */
}

/* ---- properties ---------------------------------------------------------- */

TheoryDataPoints(serving_props, more_concurrency_never_less_memory) = {
    DataPoints(int, 0, 1, 2, 3),
    DataPoints(unsigned, 1, 3, 16, 100),
    DataPoints(unsigned, 512, 4096, 32768),
};

/* For every runtime: one more sequence never means less memory, a shorter
 * per-token time or a shorter TTFT. */
Theory((int rt, unsigned b, unsigned ctx), serving_props, more_concurrency_never_less_memory) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = (enum engine_runtime)rt;
    sc.serving.fit = false;
    sc.serving.gpu_layers = 32; /* Ollama would move layers off to fit */
    sc.serving.gpu_layers_given = true;
    sc.gpu.memory_bytes = 1e15;
    sc.context = ctx;
    sc.batch = b;
    struct engine_estimate a = est(&sc);
    sc.batch = b + 1;
    struct engine_estimate c = est(&sc);
    cr_assert_geq(c.memory.total, a.memory.total);
    cr_assert_geq(c.memory.kv_cache, a.memory.kv_cache);
    cr_assert_geq(c.serving.tpot_s, a.serving.tpot_s);
    cr_assert_geq(c.serving.ttft_s, a.serving.ttft_s * (1 - 1e-12));
    sc.batch = b;
    sc.context = ctx * 2;
    struct engine_estimate d = est(&sc);
    cr_assert_geq(d.memory.total, a.memory.total);
    cr_assert_geq(d.prefill_seconds, a.prefill_seconds);
}

TheoryDataPoints(serving_props, more_gpu_layers_never_less_vram) = {
    DataPoints(int, 0, 2, 3),
    DataPoints(int, 0, 1, 2),
};

/* More layers on the GPU never means less VRAM or more host RAM; the
 * decode step never gets slower (GPU bandwidth above the host's). */
Theory((int rt, int mi), serving_props, more_gpu_layers_never_less_vram) {
    struct engine_model m = mi == 0 ? th_llama31_8b() : mi == 1 ? th_mixtral_8x7b()
                                                                : th_llama31_70b();
    struct engine_scenario sc = th_scenario(m);
    sc.serving.runtime = (enum engine_runtime)rt;
    sc.serving.fit = false;
    struct engine_estimate prev = {0};
    for (int32_t n = 0; n <= (int32_t)m.layers; n++) {
        sc.serving.gpu_layers = n;
        sc.serving.gpu_layers_given = true;
        struct engine_estimate e = est(&sc);
        if (n > 0) {
            cr_assert_geq(e.memory.total, prev.memory.total, "%d layers", n);
            cr_assert_leq(e.memory.host, prev.memory.host, "%d layers", n);
            cr_assert_leq(e.serving.tpot_s, prev.serving.tpot_s * (1 + 1e-12), "%d layers", n);
        }
        prev = e;
    }
}

/* Flash attention never makes llama.cpp's compute buffer larger, and the
 * buffer never shrinks with the context. */
Test(serving_props, compute_buffer_monotone) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_LLAMACPP;
    double prev = 0;
    for (unsigned ctx = 256; ctx <= 131072; ctx *= 2) {
        sc.context = ctx;
        sc.serving.flash_attention = 0;
        struct engine_estimate off = est(&sc);
        sc.serving.flash_attention = 1;
        struct engine_estimate on = est(&sc);
        cr_assert_leq(on.serving.compute_buffer_bytes, off.serving.compute_buffer_bytes);
        cr_assert_geq(off.serving.compute_buffer_bytes, prev);
        prev = off.serving.compute_buffer_bytes;
    }
}

/* Every serving key explains itself in every runtime where it applies. */
Test(serving_props, serving_keys_explained) {
    for (int rt = 0; rt < ENGINE_RUNTIME_COUNT; rt++) {
        struct engine_scenario sc = th_scenario(th_llama31_8b());
        sc.serving.runtime = (enum engine_runtime)rt;
        sc.serving.gpu_layers = 20;
        sc.serving.gpu_layers_given = rt != ENGINE_RUNTIME_VLLM;
        struct engine_estimate e = est(&sc);
        for (int k = ENGINE_KEY_MEM_OVERHEAD; k < ENGINE_KEY_COUNT; k++) {
            struct engine_explanation x;
            engine_explain(&sc, &e, (enum engine_key)k, &x);
            cr_assert_gt(strlen(x.values), 0);
            bool applies = engine_key_applies(&sc, (enum engine_key)k);
            cr_assert_eq(applies, !isnan(engine_key_value(&e, (enum engine_key)k)), "%s in %s",
                         x.key, engine_runtime_name((enum engine_runtime)rt));
        }
    }
}

/* ---- llama.cpp's mixed GGUF types (engine/gguf_mix.c) ------------------ */

#define Q4K (144.0 / 256) /* bytes per weight, ggml-common.h block_q4_K */
#define Q5K (176.0 / 256)
#define Q6K (210.0 / 256)
#define Q50 (22.0 / 32)

/* Bytes of a mixed model: its layers, embedding and head. */
static double mix_bytes(const struct engine_model *m) {
    double b = m->file_embed_bytes + m->file_head_bytes;
    for (uint32_t i = 0; i < m->layers; i++)
        b += m->file_layer_bytes[i];
    return b;
}

/* Llama 3.1 8B Q4_K_M by hand from llama-quant.cpp's rules: Q4_K
 * everywhere, but the output Q6_K and attn_v and ffn_down Q6_K in the 16
 * layers use_more_bits(i, 32) picks (0-3, 28-31 and 6, 9, ..., 27); norms
 * F32. */
Test(gguf_mix, llama31_8b_q4_k_m_by_hand) {
    struct engine_model m = th_llama31_8b(), q;
    cr_assert(engine_gguf_mix_model(&m, ENGINE_MIX_Q4_K_M, &q));
    double h = 4096, kv = 1024, f = 14336, V = 128256;
    double rest = (2 * h * h + kv * h + 2 * f * h) * Q4K + 2 * h * 4; /* q o k gate up, norms */
    double vd = kv * h + h * f;                                       /* attn_v + ffn_down */
    double want = 32 * rest + 16 * vd * Q6K + 16 * vd * Q4K + V * h * Q4K + V * h * Q6K + h * 4;
    cr_assert(close_rel(mix_bytes(&q), want, 1e-12), "%.10g vs %.10g", mix_bytes(&q), want);
    cr_assert(close_rel(q.file_layer_bytes[6] - q.file_layer_bytes[5], vd * (Q6K - Q4K), 1e-12));
    cr_assert(close_rel(q.file_layer_bytes[4], q.file_layer_bytes[5], 1e-12));
    /* llama-bench prints the tensors' size of the real file: "| llama 8B
     * Q4_K - Medium |   4.58 GiB |     8.03 B |" (rounded to 0.01 GiB). */
    cr_assert(fabs(want / GIB - 4.58) <= 0.005, "%.10g", want / GIB);
}

/* A tied embedding is the output: Q6_K, and the head holds the norm. */
Test(gguf_mix, tied_embedding_is_the_output) {
    struct engine_model m = th_llama31_8b(), q;
    m.tied = true;
    cr_assert(engine_gguf_mix_model(&m, ENGINE_MIX_Q4_K_M, &q));
    cr_assert(close_rel(q.file_embed_bytes, 128256.0 * 4096 * Q6K, 1e-12));
    cr_assert(close_rel(q.file_head_bytes, 4096 * 4.0, 1e-12));
}

/* A k-quant needs rows of a multiple of 256: an FFN of 1000 keeps its
 * gate and up (rows of h) in Q4_K, its down falls back to Q5_0. */
Test(gguf_mix, short_rows_fall_back) {
    struct engine_model m = th_llama31_8b(), q;
    m.ffn = 1000;
    cr_assert(engine_gguf_mix_model(&m, ENGINE_MIX_Q4_K_S, &q));
    double h = 4096, kv = 1024;
    /* Q4_K_S: attn_v Q5_K in the first 4 layers, ffn_down Q5_K (-> Q5_1)
     * in the first n/8; layer 10 is plain. */
    double want = (2 * h * h + 2 * kv * h + 2 * 1000 * h) * Q4K + h * 1000 * Q50 + 2 * h * 4;
    cr_assert(close_rel(q.file_layer_bytes[10], want, 1e-12), "%.10g", q.file_layer_bytes[10]);
}

/* The 70B rule: 80 layers raise attn_v's Q4_K to Q5_K; a 79-layer model
 * does not (layer 10 is not picked by use_more_bits in either). */
Test(gguf_mix, seventy_b_attn_v) {
    struct engine_model m = th_llama31_70b(), q80, q79;
    cr_assert(engine_gguf_mix_model(&m, ENGINE_MIX_Q4_K_M, &q80));
    m.layers = 79;
    cr_assert(engine_gguf_mix_model(&m, ENGINE_MIX_Q4_K_M, &q79));
    double v = 1024.0 * 8192;
    cr_assert(close_rel(q80.file_layer_bytes[10] - q79.file_layer_bytes[10], v * (Q5K - Q4K),
                        1e-9));
}

TheoryDataPoints(gguf_mix, mixes_grow_in_order) = {DataPoints(int, 0, 1, 2, 3, 4)};

/* Every mix is larger than the one before it, and between its base type's
 * bits and 0.6 bits more (k-quants: Q2_K 2.625 ... Q5_K 5.5). */
Theory((int mi), gguf_mix, mixes_grow_in_order) {
    struct engine_model m = mi == 0   ? th_llama31_8b()
                            : mi == 1 ? th_mixtral_8x7b()
                            : mi == 2 ? th_llama31_70b()
                            : mi == 3 ? th_qwen25_7b()
                                      : th_deepseek_v3();
    static const double base[] = {0, 2.625, 3.4375, 3.4375, 3.4375, 4.5, 4.5, 5.5, 5.5};
    double prev = 0;
    for (int x = ENGINE_MIX_Q2_K; x < ENGINE_MIX_COUNT; x++) {
        struct engine_model q;
        cr_assert(engine_gguf_mix_model(&m, (enum engine_gguf_mix)x, &q));
        double b = mix_bytes(&q), bpw = 8 * b / q.file_params;
        cr_assert_gt(b, prev, "%s", engine_gguf_mix_name((enum engine_gguf_mix)x));
        cr_assert(bpw >= base[x] && bpw <= base[x] + 1.3, "%s %s: %.3g bits",
                  m.id, engine_gguf_mix_name((enum engine_gguf_mix)x), bpw);
        prev = b;
    }
}

/* ---- steady state and batch 1 (issue 25 item 6) ------------------------ */

/* The steady state holds on average P + (O + 1) / 2 tokens a sequence: it
 * fits more sequences than the full-context peak, never more than
 * max_num_seqs; under a request rate below saturation the requests done
 * per second equal the rate (Little's law) and the throughput is lower. */
Test(steady, workload_concurrency_and_little) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    sc.context = 2048 + 128;
    sc.prompt = 128;
    struct engine_estimate sat = est(&sc);
    double avg = 128 + (2048 + 1) / 2.0;
    cr_assert(close_rel(sat.serving.steady_context, avg, 1e-12));
    cr_assert_geq(sat.serving.steady_concurrency, 1);
    cr_assert_leq(sat.serving.steady_concurrency, engine_vllm_max_num_seqs(&sc));
    cr_assert_geq(sat.serving.steady_concurrency, sat.serving.max_concurrency);
    cr_assert(close_rel(sat.serving.steady_request_rate, sat.serving.steady_tokens_per_s / 2048,
                        1e-12));
    double prev_tok = 0;
    for (double r = 0.5; r < sat.serving.steady_request_rate; r *= 2) {
        sc.serving.request_rate = r;
        struct engine_estimate e = est(&sc);
        cr_assert(close_rel(e.serving.steady_request_rate, r, 1e-6), "rate %g: %g", r,
                  e.serving.steady_request_rate);
        cr_assert_lt(e.serving.steady_concurrency, sat.serving.steady_concurrency);
        cr_assert_gt(e.serving.steady_tokens_per_s, prev_tok);
        prev_tok = e.serving.steady_tokens_per_s;
    }
    /* Past saturation the rate changes nothing. */
    sc.serving.request_rate = 1e6;
    struct engine_estimate over = est(&sc);
    cr_assert(close_rel(over.serving.steady_tokens_per_s, sat.serving.steady_tokens_per_s, 1e-12));
}

TheoryDataPoints(steady, longer_prompts_fewer_sequences) = {DataPoints(int, 0, 1, 4, 5)};

/* At a fixed context a longer prompt means more KV a sequence: never more
 * sequences at once (vLLM, SGLang, TRT-LLM, plain). */
Theory((int rt), steady, longer_prompts_fewer_sequences) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.serving.runtime = (enum engine_runtime)rt;
    sc.context = 8192;
    double prev = INFINITY;
    for (unsigned p = 128; p < 8192; p *= 2) {
        sc.prompt = p;
        struct engine_estimate e = est(&sc);
        cr_assert_leq(e.serving.steady_concurrency, prev, "%s prompt %u",
                      engine_runtime_name(sc.serving.runtime), p);
        prev = e.serving.steady_concurrency;
    }
}

/* Batch 1 as run: the bandwidth ceiling's time plus a fixed cost a token,
 * so never faster than the ceiling; llama.cpp samples on the CPU (13.6 ns
 * a vocabulary entry), vLLM on the GPU; the kernels' cost grows with the
 * layers. */
Test(batch1, fixed_cost_below_the_ceiling) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.context = 512;
    sc.prompt = 128;
    for (int rt = 0; rt < ENGINE_RUNTIME_COUNT; rt++) {
        sc.serving.runtime = (enum engine_runtime)rt;
        struct engine_estimate e = est(&sc);
        double ceiling = 1.0 / (1.0 / e.serving.batch1_tokens_per_s - e.serving.token_fixed_s);
        cr_assert_lt(e.serving.batch1_tokens_per_s, ceiling);
        cr_assert_gt(e.serving.token_launch_s, 0);
        bool cpu = rt == ENGINE_RUNTIME_LLAMACPP || rt == ENGINE_RUNTIME_OLLAMA;
        cr_assert(close_rel(e.serving.token_sample_s, cpu ? 128256 * 13.6e-9 : 0, 1e-9) ||
                      (!cpu && e.serving.token_sample_s == 0),
                  "%s", engine_runtime_name(sc.serving.runtime));
    }
    sc.serving.runtime = ENGINE_RUNTIME_VLLM;
    struct engine_estimate a = est(&sc);
    struct engine_scenario s70 = th_scenario(th_llama31_70b());
    s70.serving.runtime = ENGINE_RUNTIME_VLLM;
    s70.context = 512;
    s70.prompt = 128;
    s70.gpu.memory_bytes = 400 * GIB;
    struct engine_estimate b = est(&s70);
    cr_assert_gt(b.serving.token_launch_s, a.serving.token_launch_s);
    /* 17 kernels a layer + 3: 32 layers x 17 + 3 = 547 of 1.724 us. */
    cr_assert(close_rel(a.serving.token_launch_s, 547 * 1.724e-6, 1e-9), "%g",
              a.serving.token_launch_s);
}

/* ---- native context against the extended one (item 8) ---------------- */

/* Llama 3.1: llama3 rope scaling x8 of a native 8192. */
Test(rope, past_the_native_context_is_said) {
    struct engine_scenario sc = th_scenario(th_llama31_8b());
    sc.model.native_context = 8192;
    sc.model.rope_factor = 8;
    strcpy(sc.model.rope_scaling, "llama3");
    sc.context = 8192;
    struct engine_estimate e = est(&sc);
    cr_assert_eq(e.warnings & ENGINE_WARN_CONTEXT_OVER_NATIVE, 0);
    sc.context = 16384;
    e = est(&sc);
    cr_assert(e.warnings & ENGINE_WARN_CONTEXT_OVER_NATIVE);
    char buf[512];
    engine_warning_text(NULL, &sc, &e, ENGINE_WARN_CONTEXT_OVER_NATIVE, buf, sizeof buf);
    /* figures in the reader's marks (English here: no numfmt) */
    cr_assert(strstr(buf, "16,384") && strstr(buf, "8,192") && strstr(buf, "llama3") &&
                  strstr(buf, "131,072"),
              "%s", buf);
    sc.model.native_context = 0; /* no rope scaling: nothing to say */
    e = est(&sc);
    cr_assert_eq(e.warnings & ENGINE_WARN_CONTEXT_OVER_NATIVE, 0);
}
