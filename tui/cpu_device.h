/*
 * cpu_device.h: this machine's CPU as a device for plan, search and the
 * explorer (`--device cpu`, issue 26).
 *
 * Its figures are measured, never looked up: the probe's read bandwidth
 * and FMA peak with all threads, and the weights per second its GEMV of
 * each width dequantizes and dots (gemv-fp16, w8a16, w4a16; w8a8 and w4a8,
 * x in 8 bits as llama.cpp runs it, where the probe has them and the
 * runtime quantizes its activations), at each batch measured. They come
 * from what `vramlab measure --device cpu` (or the Measure pane on the CPU)
 * saved, ${XDG_STATE_HOME:-~/.local/state}/vramlab/measure-cpu.json (the
 * `vramlab measure --json` object), or, when nothing is saved, from a quick
 * run of the probe (at most CPU_DEVICE_QUICK_S seconds, a progress line on
 * a terminal), which is saved in turn. Capacity: the memory available now
 * (/proc/meminfo MemAvailable).
 *
 * The device is an engine_gpu with cpu set and its core rates
 * (engine/core.c turns them into the core-bound decode and the prefill
 * rate); its name says what it is: "CPU: AMD EPYC, 2 cores, avx512".
 */
#ifndef VRAMLAB_TUI_CPU_DEVICE_H
#define VRAMLAB_TUI_CPU_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

#define CPU_DEVICE_QUICK_S 10 /* the quick measurement's limit */
#define CPU_DEVICE_FILE    "measure-cpu.json"
/* The batches llama.cpp's kernels are timed at (ENGINE_CORE_BATCHES of
 * them): a token; two and sixteen sequences at once (a server's slots:
 * a type without a GEMM path, Q4_1, pays each sequence's dot products
 * again, 1.9x at two); its prompt batch, n_ubatch's default 512
 * (common/common.h), the prefill's rate. */
#define CPU_DEVICE_GGML_BATCHES {1, 2, 16, 512}
/* vramlab-ggml keeps to CPU_DEVICE_QUICK_S - 2 s of timing (about 5 s on
 * an idle 2-core machine); this is the limit past which it is stopped (a
 * library that hangs, a machine many times busier) */
#define CPU_DEVICE_GGML_LIMIT_S 40
#define CPU_DEVICE_GGML_BATCHES_TEXT "1,2,16,512"

struct cpu_device {
    char name[96];    /* the CPU's model name */
    char isa[16];     /* the SIMD path the kernels ran ("avx2") */
    unsigned cores;   /* compute units the probe saw */
    unsigned threads; /* threads the rates were measured with */
    double read_bytes_per_s, copy_bytes_per_s, fma_flop_per_s;
    struct engine_core_rates core;
    char when[40];    /* "saved 2026-12-04 22:30" or "measured now" */
    char rates_from[480]; /* where the core rates come from, when not the probe */
};

/* The path of a file of the state directory (CPU_DEVICE_FILE: the saved
 * measurement), the directory made when create. 0 or -1. */
int cpu_device_path(const char *file, char *buf, size_t len, bool create, char *err,
                    size_t errlen);

/* Read a `vramlab measure --json` object of a CPU (or the probe's device
 * and result lines wrapped the same way). a8: prefer the kernels with
 * 8-bit activations (llama.cpp, Ollama). 0, or -1 with err. */
int cpu_device_parse(struct cpu_device *d, const char *text, size_t len, bool a8, char *err,
                     size_t errlen);

/* The saved measurement: 0, 1 when there is none, -1 with err (a bad file). */
int cpu_device_load(struct cpu_device *d, bool a8, char *err, size_t errlen);

/* Save a `vramlab measure --json` object of a CPU (written aside, renamed). */
int cpu_device_save(const char *text, size_t len, char *err, size_t errlen);
/* The same into another file of the state directory. */
int cpu_device_save_as(const char *file, const char *text, size_t len, char *err,
                       size_t errlen);

/* Measure now with the probe (at most CPU_DEVICE_QUICK_S s; a progress
 * line on stderr when it is a terminal), save, fill d. 0 or -1 with err. */
int cpu_device_measure(struct cpu_device *d, bool a8, char *err, size_t errlen);

/* The saved measurement, else one made now: 0 or -1 with err. */
int cpu_device_get(struct cpu_device *d, bool a8, char *err, size_t errlen);

/* The device as the engine sees it: memory available now, read bandwidth,
 * FMA peak in every compute column, the core rates. */
void cpu_device_gpu(const struct cpu_device *d, struct engine_gpu *g);

/* llama.cpp's own kernels as the core rates (issue 26). For a GGUF file
 * served by a runtime built on ggml (llama.cpp, Ollama), the decode and
 * the prefill on a CPU are bound by ggml's dequantize-and-dot kernels,
 * which are not the probe's: on Q4_1 llama.cpp has no repacked or tinyBLAS
 * path and runs 0.3-0.4 of the probe's rate (docs/benchmarks.md). So the
 * rates are ggml's own: vramlab-ggml loads the ggml libraries of a
 * llama.cpp build (VRAMLAB_GGML_DIR, else scripts/llama-server's in the
 * cache, else beside llama-server / llama-cli / llama-bench on PATH, else
 * /usr/local/lib) and times its MUL_MAT over the file's own matrices and
 * their bytes (catalog_gguf_matrix), each type at CPU_DEVICE_GGML_BATCHES,
 * with the probe's threads. Saved in the state
 * directory under a name from the library, the file and the threads; timed
 * again (at most CPU_DEVICE_QUICK_S s, a progress line) when not saved and
 * measure (the explorer, which starts on a GPU, takes only what is saved).
 * Returns 0 with d's core rates replaced, 1 when it does not apply (not a
 * GGUF file; nothing saved and not measure; no ggml found: why says so),
 * -1 with why (d unchanged). */
struct catalog_model_file;
int cpu_device_runtime(struct cpu_device *d, const struct catalog_model_file *mf,
                       const struct engine_model *model, bool measure, char *why,
                       size_t whylen);
/* The ggml build found (see above): 0 with dir, 1 none, -1 VRAMLAB_GGML_DIR
 * has no ggml libraries. */
int cpu_device_ggml_dir(char *dir, size_t len);

/* MemAvailable of /proc/meminfo in bytes (else the physical memory), read
 * at the first call of the run. */
double cpu_device_available_memory(void);

#endif
