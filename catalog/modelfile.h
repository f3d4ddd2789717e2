/*
 * modelfile.h: a model from a model file's header (`--model-file`).
 *
 * A GGUF file gives the architecture from its metadata (llama.cpp's keys:
 * `<arch>.block_count`, `.embedding_length`, `.feed_forward_length`,
 * `.attention.head_count`, `.attention.head_count_kv`, `.attention.key_length`
 * / `.value_length`, `.context_length`, `.attention.sliding_window`,
 * `.expert_count`, `.attention.kv_lora_rank`, ...) and the exact bytes of
 * every tensor; the model gets those bytes per layer, embedding and head
 * (struct engine_model's file_* fields) and the summary below keeps the
 * type mix for the text, the JSON and the panes.
 *
 * A safetensors file, a sharded set (model.safetensors.index.json) or a
 * Hugging Face folder is read by catalog/hfmodel.c: the architecture from
 * the folder's config.json, the bytes from every shard's header.
 */
#ifndef VRAMLAB_MODELFILE_H
#define VRAMLAB_MODELFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define CATALOG_MF_TYPES_MAX 48
#define CATALOG_MF_MATS_MAX  64

/* A weight matrix a token multiplies, as the file stores it: its tensor
 * type (the GGUF number), rows (outputs) and columns (the dot's length),
 * and how many of it a token multiplies (its layers; a routed expert
 * tensor counts the experts a token uses). The embedding is a lookup and
 * is not one, unless it is the tied head. In the file's order (a layer
 * after another); the same shape and type once with its count. */
struct catalog_mf_matrix {
    uint32_t type;
    uint64_t rows, cols, count;
};

/* One tensor type of a file: how many tensors, elements and bytes. */
struct catalog_mf_type {
    char name[16]; /* as ggml prints it: "Q4_K", "F32"; safetensors: the
                    * dtype ("BF16"), or the quantized format with its
                    * scales and zeros ("GPTQ_INT4_G128", "MXFP4") */
    uint64_t tensors;
    double params, bytes;
};

struct catalog_model_file {
    char path[1024];
    const char *format; /* "gguf", "safetensors" */
    char arch[48];      /* general.architecture; config.json's model_type */
    uint32_t version;   /* GGUF's; 0 for safetensors */
    uint32_t shards;    /* files read: 1, or a sharded set's count */
    char quant[64];     /* safetensors: "gptq 4-bit, group 128"; "" when none */
    uint64_t tensors;
    double params, bytes; /* sums over every tensor */
    double file_size;
    struct catalog_mf_type types[CATALOG_MF_TYPES_MAX]; /* most bytes first */
    size_t n_types;
    struct catalog_mf_matrix mats[CATALOG_MF_MATS_MAX]; /* GGUF only; see above */
    size_t n_mats;
    bool mats_complete; /* every multiplied matrix found a place in mats */
};

/* Read a model file's header into a model with its exact shape and bytes:
 * a GGUF file, a safetensors file, a model.safetensors.index.json, or a
 * directory (config.json with its safetensors, or one GGUF file).
 * Returns 0, or -1 with "path: byte N: what" in err (a bad file, exit 3). */
int catalog_model_file_load(const char *path, struct engine_model *m,
                            struct catalog_model_file *mf, char *err, size_t errlen);

/* The same from a GGUF image in memory (tests, the fuzz target). */
int catalog_model_file_buffer(const char *name, const uint8_t *buf, size_t len,
                              struct engine_model *m, struct catalog_model_file *mf, char *err,
                              size_t errlen);

/* Whether a GGUF tensor is one of those matrices (the rule of mats): its
 * experts (1 for a 2-D tensor), how many of them a token uses, and
 * whether it is the output head. */
struct gguf_tensor;
bool catalog_gguf_matrix(const struct gguf_tensor *t, bool tied, uint32_t active_experts,
                         uint64_t *experts, uint64_t *used, bool *head);

/* "Q4_K 68%, Q6_K 27%, F32 1%; 4.85 bits per weight" (shares of the bytes;
 * types under 0.5% are summed as "other"). Returns buf. */
const char *catalog_model_file_mix(const struct catalog_model_file *mf, char *buf, size_t len);

#endif
