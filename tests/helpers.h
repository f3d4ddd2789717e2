/*
 * helpers.h: hand-built catalog entries and scenarios for the engine tests,
 * with their figures and sources, so the engine is tested without YAML.
 */
#ifndef VRAMLAB_TEST_HELPERS_H
#define VRAMLAB_TEST_HELPERS_H

#include "engine/engine.h"

#define GIB 1073741824.0

/* NVIDIA H100 SXM: 80 GiB, 3.35 TB/s, 989 TFLOPS FP16/BF16 dense, NVLink 900 GB/s (seed 000). */
struct engine_gpu th_h100_sxm(void);
/* NVIDIA GeForce RTX 3060: 12 GiB, 360 GB/s (seed 000 sources; NVIDIA spec page). */
struct engine_gpu th_rtx3060(void);
/* A format of `bits` with a `scale_bits` scale per `block` weights. */
struct engine_format th_format(const char *id, double bits, unsigned block, double scale_bits);
/* Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json). */
struct engine_model th_llama31_8b(void);
/* Llama 3.1 70B (meta-llama/Llama-3.1-70B config.json). */
struct engine_model th_llama31_70b(void);
/* Llama 3.1 405B (meta-llama/Llama-3.1-405B config.json). */
struct engine_model th_llama31_405b(void);
/* GPT-3 175B (Brown et al. 2020, Table 2.1), the shape of Korthikanti et al. 2022. */
struct engine_model th_gpt3_175b(void);
/* Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json). */
struct engine_model th_mixtral_8x7b(void);
/* DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json, without the MTP module). */
struct engine_model th_deepseek_v3(void);
/* Pythia-1.4B (EleutherAI/pythia-1.4b config.json, GPT-NeoX). */
struct engine_model th_pythia_1_4b(void);
/* Qwen2.5-7B (Qwen/Qwen2.5-7B config.json, qkv bias). */
struct engine_model th_qwen25_7b(void);
/* Default scenario: model, FP16 weights and KV, one H100 SXM. */
struct engine_scenario th_scenario(struct engine_model m);

#endif
