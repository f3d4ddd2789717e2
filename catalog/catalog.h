/*
 * catalog.h: GPUs, models, formats and seed evidence, loaded from YAML.
 *
 * The default catalog (the .yaml files of share/catalog) is compiled into the binary;
 * user files (each .yaml in $XDG_CONFIG_HOME/vramlab, --catalog FILE) add entries
 * or override them by id. Files are never written. Errors name
 * file:line:col, the key, what was expected and what was found, and quote
 * the line; a bad file is skipped and the rest still loads.
 *
 * CPUs (cpus:, share/catalog/cpus.yaml) are a table of their own: the
 * memory system of a part, so that a measurement on the CPU backend can be
 * set against the part's data-sheet bandwidth
 * (channels x channel width / 8 x transfers/s). They are never a
 * scenario's device; `vramlab measure` and the Measure pane match the
 * probe's CPU name to them (catalog_match_cpu).
 *
 * The schema is documented in docs/catalog.md.
 */
#ifndef VRAMLAB_CATALOG_H
#define VRAMLAB_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

/* Seed evidence: the measured Pythia-1.4B loss per bits (seed 000). */
#define CATALOG_EVIDENCE_MAX_POINTS 12
struct catalog_evidence {
    char id[ENGINE_ID_MAX];
    char title[128];
    const char *source;
    size_t n_points;
    /* bits == 16 is the FP16 baseline. */
    double bits[CATALOG_EVIDENCE_MAX_POINTS];
    double loss_per_group[CATALOG_EVIDENCE_MAX_POINTS];
    double loss_per_matrix[CATALOG_EVIDENCE_MAX_POINTS];
    unsigned group; /* group size of the per-group column (32) */
};

/* A name a driver reports for a catalog GPU ("NVIDIA H100 80GB HBM3"), or
 * (in cpu_names) the model name a CPU reports ("AMD EPYC 9654 96-Core
 * Processor"); gpu_id is then the CPU's id. */
struct catalog_device_name {
    char gpu_id[ENGINE_ID_MAX];
    const char *name; /* owned by the catalog's strings */
};

/* A CPU: cores and memory system (cpus:). */
struct catalog_cpu {
    char id[ENGINE_ID_MAX]; /* first, as in every entry */
    char name[ENGINE_NAME_MAX];
    char vendor[24];
    uint32_t cores, threads;
    char memory_type[16];          /* ddr4 ddr5 lpddr4x lpddr5 lpddr5x */
    double memory_transfers_per_s; /* 4.8e9 for DDR5-4800 */
    uint32_t memory_channels;
    uint32_t channel_bits;         /* bits per channel; 64 unless said */
    double fp32_flop_per_s;        /* peak FP32 FLOP/s where a source gives it; 0 = unknown */
    double bandwidth_bytes_per_s;  /* the data sheet's: catalog_memory_bandwidth() */
    const char *source;
};

/* A system (systems:): a server or a rack of one catalog GPU, what
 * `--system ID` sets: the GPU, the GPUs of one NVLink domain (a node to the
 * engine), the per-GPU links inside and out, and the system's power. */
struct catalog_system {
    char id[ENGINE_ID_MAX]; /* first, as in every entry */
    char name[ENGINE_NAME_MAX];
    char gpu[ENGINE_ID_MAX];     /* a gpus: id */
    uint32_t gpus;               /* GPUs in one system */
    uint32_t nvlink_domain;      /* GPUs that share one NVLink domain; gpus unless said */
    double link_bytes_per_s;     /* per GPU inside the domain (NVLink), one direction */
    double network_bytes_per_s;  /* per GPU to other systems (its NIC); 0 = unknown */
    double power_w;              /* the system's maximum power (not a measured draw) */
    const char *source;
};

struct catalog {
    struct engine_gpu *gpus;
    size_t n_gpus;
    struct engine_model *models;
    size_t n_models;
    struct engine_format *formats;
    size_t n_formats;
    struct catalog_evidence *evidence;
    size_t n_evidence;
    /* Owned strings (sources), freed by catalog_free. */
    char **strings;
    size_t n_strings, cap_strings;
    size_t cap_gpus, cap_models, cap_formats, cap_evidence;
    /* Driver names of GPUs (device_names:), matched by catalog_match_device. */
    struct catalog_device_name *device_names;
    size_t n_device_names, cap_device_names;
    /* CPUs and the model names they report, matched by catalog_match_cpu. */
    struct catalog_cpu *cpus;
    size_t n_cpus, cap_cpus;
    struct catalog_device_name *cpu_names;
    size_t n_cpu_names, cap_cpu_names;
    /* Servers and racks (systems:), by id. */
    struct catalog_system *systems;
    size_t n_systems, cap_systems;
};

/* Collected diagnostics of a load: one message per line, in order. */
struct catalog_diag {
    char *text; /* NUL-terminated, lines separated by '\n'; NULL when empty */
    size_t len, cap;
    unsigned errors;
};

/* An empty catalog. */
void catalog_init(struct catalog *c);
void catalog_free(struct catalog *c);
void catalog_diag_free(struct catalog_diag *d);

/* Load the embedded default catalog into c (adding to what is there).
 * Returns 0, or -1 with messages in d (a build defect: tests catch it). */
int catalog_load_default(struct catalog *c, struct catalog_diag *d);

/* Load one YAML file; on error nothing of that file is added, messages go to
 * d, and -1 is returned. Entries with an existing id replace it. */
int catalog_load_file(struct catalog *c, const char *path, struct catalog_diag *d);

/* Load YAML text already in memory; name is used in messages. */
int catalog_load_buffer(struct catalog *c, const char *name, const char *text, size_t len,
                        struct catalog_diag *d);

/* Largest catalog or config.json file read (1 MiB). */
#define CATALOG_MAX_FILE_BYTES (1u << 20)

/* Whether path names a regular file of at most max bytes (0: any size),
 * by stat only (nothing is opened, so a FIFO cannot block); else false and
 * why it is not, for messages: "a FIFO (named pipe), not a regular file",
 * "a character device, not a regular file", "a directory, ...", the size,
 * or strerror. */
bool catalog_file_check(const char *path, size_t max, char *why, size_t whylen);
/* Read a regular file of at most max bytes into a new NUL-terminated buffer
 * the caller frees (its length in *len); NULL and the reason in why. It is
 * checked (catalog_file_check) before it is opened, and opened with
 * O_NONBLOCK: a FIFO or a device given as a file never blocks. */
char *catalog_read_regular(const char *path, size_t max, size_t *len, char *why, size_t whylen);
/* What a file is, from its first n bytes b and its size, for a reader's
 * message when the file is not what it reads: "a GGUF file (llama.cpp's
 * format)", "an empty file", "text", "JSON text", "a ZIP archive (...)",
 * ... (English, marked for translation: show it through gettext); NULL
 * when it looks like a safetensors file (its reader's message stands).
 * catalog_sniff_file reads the first bytes of a regular file (NULL for
 * anything else or when it cannot be read). */
const char *catalog_sniff(const unsigned char *b, size_t n, uint64_t size);
const char *catalog_sniff_file(const char *path);
/* Open a regular file for reading as catalog_read_regular does (checked by
 * stat first, opened with O_NONBLOCK, checked again with fstat); its size in
 * *size. Returns the descriptor, or -1 with "PATH: why" in err. */
int catalog_open_regular(const char *path, uint64_t *size, char *err, size_t errlen);

/* Untrusted text from a model file, a config or a catalog made safe to
 * print (catalog/text.c): control characters (C0, DEL, C1) and invalid
 * UTF-8 become '?', in place; returns the new length. */
size_t catalog_text_clean(char *s, size_t n);
void catalog_text_clean_str(char *s);

/* Most entries of one kind (gpus, models, ...) in one catalog file. */
#define CATALOG_MAX_ENTRIES 1000
/* Deepest nesting of lists and mappings read from a YAML or JSON file (a
 * catalog entry is 3 deep, a config.json 5). */
#define CATALOG_MAX_DEPTH 32
/* Check that YAML (or JSON) text nests lists and mappings at most max deep,
 * in time linear in the text; 0, or -1 with the 1-based line and column of
 * the first opening too deep. A syntax error returns 0 (the loader reports
 * it). */
int catalog_yaml_depth(const char *text, size_t len, unsigned max, size_t *line, size_t *col);

/* Load every *.yaml in $XDG_CONFIG_HOME/vramlab (or ~/.config/vramlab),
 * in name order; bad files are reported and skipped. Returns the number of
 * files that failed. */
int catalog_load_user(struct catalog *c, struct catalog_diag *d);

/* Exact lookups by id, normalised (case, '-', '_', ' ', '.' ignored); never
 * a substring ("h100" does not find "h100-sxm"). The pointers (and the ids
 * catalog_suggest returns) stay valid until the catalog is loaded into again
 * or freed. */
const struct engine_gpu *catalog_find_gpu(const struct catalog *c, const char *id);
/* Append a GPU: the explorer adds this machine's measured
 * CPU (tui/cpu_device.c). 0, or -1 out of memory. */
int catalog_add_gpu(struct catalog *c, const struct engine_gpu *g);
const struct engine_model *catalog_find_model(const struct catalog *c, const char *id);
const struct engine_format *catalog_find_format(const struct catalog *c, const char *id);
const struct catalog_evidence *catalog_find_evidence(const struct catalog *c, const char *id);
const struct catalog_cpu *catalog_find_cpu(const struct catalog *c, const char *id);
const struct catalog_system *catalog_find_system(const struct catalog *c, const char *id);

/* Whether a format is for the KV cache only: its name says so ("INT4 (KV
 * cache, g32)"). Such a format is refused for the weights. */
bool catalog_format_kv_only(const struct engine_format *f);
/* The weight format stored like a KV-only one (same kind, bits, block and
 * scale bits), or NULL: int4-g32 for int4. */
const struct engine_format *catalog_format_for_weights(const struct catalog *c,
                                                       const struct engine_format *kv);

/* "Did you mean": write up to n closest ids (edit distance on the
 * normalised ids) of the given kind into out; returns how many. */
enum catalog_kind { CATALOG_GPU = 0, CATALOG_MODEL, CATALOG_FORMAT };
size_t catalog_suggest(const struct catalog *c, enum catalog_kind kind, const char *id,
                       const char **out, size_t n);

/* Normalise an id or a device name for comparison into buf. */
void catalog_normalise(const char *in, char *buf, size_t len);

/* Find the catalog GPU whose normalised name or id equals a device name
 * reported by a driver ("NVIDIA H100 80GB HBM3"); NULL when none. */
const struct engine_gpu *catalog_match_device(const struct catalog *c, const char *device_name);

/* Find the catalog CPU whose normalised model name (device_names:), name
 * or id equals the name a CPU reports (/proc/cpuinfo "model name"); exact,
 * never a prefix: a VM's bare "AMD EPYC" matches nothing. NULL when none. */
const struct catalog_cpu *catalog_match_cpu(const struct catalog *c, const char *model_name);

/* The data-sheet bandwidth of a memory system in bytes/s: channels x
 * channel_bits / 8 x transfers/s (12 x 64 / 8 x 4.8e9 = 460.8e9 for an
 * EPYC 9654 with DDR5-4800). 0 when any factor is 0. */
double catalog_memory_bandwidth(uint32_t channels, uint32_t channel_bits,
                                double transfers_per_s);

/* ---- strict unit parsing (shared by the loader and the CLI) ------------ */

/* Each returns 0 and the value in base units, or -1 with a message in err
 * ("expected a size like '80 GiB', found '80 GX'"). */
int catalog_parse_bytes(const char *s, double *out, char *err, size_t errlen);      /* 80 GiB, 141 GB */
int catalog_parse_bandwidth(const char *s, double *out, char *err, size_t errlen);  /* 3.35 TB/s */
int catalog_parse_flops(const char *s, double *out, char *err, size_t errlen);      /* 989 TFLOPS, 989T */
int catalog_parse_price(const char *s, double *out, char *err, size_t errlen);      /* $2.49/h */
int catalog_parse_count(const char *s, double *out, char *err, size_t errlen);      /* 70B, 405e9, 15.6T */
int catalog_parse_power(const char *s, double *out, char *err, size_t errlen);      /* 700 W */
int catalog_parse_seconds(const char *s, double *out, char *err, size_t errlen);    /* 5us, 2 ms, 0.1 s */
int catalog_parse_number(const char *s, double *out, char *err, size_t errlen);     /* 4.5, 3.4e38 */
int catalog_parse_transfers(const char *s, double *out, char *err, size_t errlen);  /* 4800 MT/s */

/* The device names of a catalog GPU: fills up to n, returns how many exist. */
size_t catalog_device_names(const struct catalog *c, const char *gpu_id, const char **out,
                            size_t n);

/* ---- Hugging Face config.json import ------------------------------------ */

/* Read a config.json (libyaml reads JSON) into a model with its exact shape.
 * Returns 0, or -1 with file:line:col messages in d. */
int catalog_import_hf_config(const char *path, struct engine_model *m, struct catalog_diag *d);
/* The same from text in memory; name is used in messages. */
int catalog_import_hf_buffer(const char *name, const char *text, size_t len,
                             struct engine_model *m, struct catalog_diag *d);
/* Print a ready models.yaml entry for m (with the computed count) to buf,
 * indented to sit under "models:"; returns its length, or -1 when buf is
 * too small. */
int catalog_format_model_yaml(const struct engine_model *m, char *buf, size_t len);

#endif
