/*
 * hfmodel.h: a model from Hugging Face files (`--model-file` on a
 * safetensors file, a model.safetensors.index.json, or a folder).
 *
 * The architecture comes from the folder's config.json (catalog/hf.c, the
 * same importer as --model-config); the bytes from every shard's
 * safetensors header (catalog/safetensors.c, pread of the header only).
 * Quantized exports carry their scales as tensors: GPTQ and AWQ
 * (`qweight` int32 words of 32/bits weights, `scales`, `qzeros`, `g_idx`;
 * bits and group size from config.json's quantization_config, or
 * quantize_config.json / quant_config.json), compressed-tensors
 * (`weight_packed`, `weight_scale`, `weight_zero_point`, `weight_shape`;
 * config_groups' num_bits), FP8 with `weight_scale` / `weight_scale_inv`,
 * and MXFP4 (`_blocks`, `_scales`). A scale or zero tensor counts no
 * parameters and its bytes go to the type of the weight it belongs to.
 */
#ifndef VRAMLAB_HFMODEL_H
#define VRAMLAB_HFMODEL_H

#include <stddef.h>

#include "catalog/modelfile.h"
#include "engine/engine.h"

/* Read a Hugging Face model at path (a directory, a .safetensors file, a
 * config.json or an index .json). Returns 0 with the model and its
 * summary; 1 when path is a directory holding one GGUF file and no
 * safetensors (its path in gguf, for the caller to read); -1 with "path:
 * what" (or "path: byte N: what") in err. */
int catalog_hf_model_load(const char *path, struct engine_model *m, struct catalog_model_file *mf,
                          char *gguf, size_t gguflen, char *err, size_t errlen);

/* The quantization a config.json (or quantize_config.json) declares. */
struct catalog_hf_quant {
    char method[32]; /* "gptq", "awq", "compressed-tensors", "fp8", "mxfp4"; "" none */
    char format[48]; /* compressed-tensors' format ("pack-quantized") */
    char type[16];   /* compressed-tensors' weights type: "int", "float" */
    unsigned bits;   /* 0: not given */
    long group;      /* group size; -1 per channel; 0 not given */
};

/* Read quantization_config from a config.json text (or the whole object
 * of a quantize_config.json when top is false); name in messages. Returns
 * 0 (q->method "" when the config has none), or -1 with "name: byte N:
 * what". */
int catalog_hf_quant_parse(const char *name, const char *text, size_t len, int top,
                           struct catalog_hf_quant *q, char *err, size_t errlen);

#endif
