/*
 * quantize.c: `vramlab quantize FILE.safetensors [--bits 2..8]
 * [--group N|matrix] [--json] [--device cpu]`: quantize every 2-D F32, F16
 * or BF16 tensor of a safetensors file with the group rule of the shared
 * spec engine.md (symmetric RTN, FP16 scale per group along the last
 * dimension; seed 000) and report what it costs and saves.
 *
 * Per tensor and overall: relative error ||w - w_hat|| / ||w||, fraction of
 * zero codes, outlier ratio max|w| / std(w), bytes before (the stored
 * tensor) and after (packed codes + FP16 scales). The file is mapped, and
 * tensors are streamed a block of rows at a time, so memory stays small
 * whatever the file size. The CPU twin does the work (kern_quant.c): CUDA
 * lives only in vramlab-probe, so `--device cuda` falls back to it with a
 * note. `--json` prints one object: "tensors" [{name, dtype, shape, bits,
 * group, relative_error, zero_fraction, outlier_ratio, bytes_before,
 * bytes_after}], "skipped", "overall" (a contract).
 * Exit status (vramlab(1)): 0; 2 usage, and a file that cannot be read or
 * is not a valid safetensors file (bad input, like a bad value); 1 out of
 * memory or a failed write.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_quant.h"
#include "catalog/safetensors.h"
#include "tui/commands.h"
#include "tui/i18n.h"
#include "tui/json.h"

#define QUANT_CHUNK_ELEMENTS (1u << 20) /* floats widened at a time */

/* Usage text. */
static void quantize_usage(FILE *f) {
    fputs("usage: vramlab quantize FILE.safetensors [--bits 2..8] [--group N|matrix]\n"
          "                        [--json] [--device cpu]\n"
          "Quantizes every 2-D F32/F16/BF16 tensor (symmetric round to nearest, one FP16\n"
          "scale per group of N along the last dimension, default 4 bits, groups of 32)\n"
          "and prints relative error, zero fraction, outlier ratio and sizes.\n",
          f);
}

/* Result for one tensor. */
struct qtensor {
    const struct kern_st_tensor *t;
    struct kern_qstats st;
    double bytes_before, bytes_after;
    const char *skip; /* reason when not quantized */
    bool invalid;     /* skipped for its values (not finite, scale overflow) */
    char why[160];    /* the reason of an invalid tensor */
};

/* Shape as "[4096, 11008]". */
static void shape_text(const struct kern_st_tensor *t, char *buf, size_t len) {
    size_t n = (size_t)snprintf(buf, len, "[");
    for (unsigned i = 0; i < t->ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%llu", i ? ", " : "",
                              (unsigned long long)t->shape[i]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
}

/* Check a 2-D tensor's values before quantizing it: every weight finite,
 * and every group's FP16 scale max|w| / qmax finite (FP16 stops at 65504:
 * weights of 1e6 at 4 bits give a scale of 142857, which overflows). A
 * tensor that fails is named and excluded, never averaged in as "-nan" or
 * as an error of 0. Returns 0 (q->why set when invalid), -1 on a read
 * error. */
static int check_tensor(struct qtensor *q, unsigned bits, size_t group, float *buf) {
    const struct kern_st_tensor *t = q->t;
    size_t rows = (size_t)t->shape[0], cols = (size_t)t->shape[1];
    uint64_t nan = 0, inf = 0, first = 0, over = 0;
    float worst = 0, amax_all = 0;
    for (size_t r = 0; r < rows; r++) {
        if (kern_st_read_f32(t, (uint64_t)r * cols, cols, buf) != 0)
            return -1;
        for (size_t c0 = 0; c0 < cols; c0 += group ? group : cols) {
            size_t c1 = group && c0 + group < cols ? c0 + group : cols;
            float amax = 0;
            for (size_t c = c0; c < c1; c++) {
                float v = buf[c];
                if (!isfinite(v)) {
                    if (nan + inf == 0)
                        first = (uint64_t)r * cols + c;
                    isnan(v) ? nan++ : inf++;
                    continue;
                }
                amax = fabsf(v) > amax ? fabsf(v) : amax;
            }
            if (group) {
                uint16_t s = kern_quant_scale(amax, bits);
                if ((s & 0x7c00u) == 0x7c00u) {
                    over++;
                    worst = amax > worst ? amax : worst;
                }
            }
            amax_all = amax > amax_all ? amax : amax_all;
        }
    }
    if (!group && (kern_quant_scale(amax_all, bits) & 0x7c00u) == 0x7c00u) {
        over = 1;
        worst = amax_all;
    }
    if (nan + inf > 0) {
        snprintf(q->why, sizeof q->why,
                 "not finite: %llu NaN and %llu infinite weights, the first at [%llu, %llu]",
                 (unsigned long long)nan, (unsigned long long)inf,
                 (unsigned long long)(first / cols), (unsigned long long)(first % cols));
    } else if (over > 0) {
        snprintf(q->why, sizeof q->why,
                 "scale overflows FP16: max|w| %.4g / %d > 65504 in %llu group%s", (double)worst,
                 kern_qmax(bits), (unsigned long long)over, over == 1 ? "" : "s");
    } else {
        return 0;
    }
    q->invalid = true;
    q->skip = q->why;
    return 0;
}

/* Quantize one 2-D tensor block by block; -1 on a read error. */
static int quantize_tensor(struct qtensor *q, unsigned bits, size_t group, float *buf,
                           uint8_t *codes, uint16_t *scales) {
    const struct kern_st_tensor *t = q->t;
    size_t rows = (size_t)t->shape[0], cols = (size_t)t->shape[1];
    size_t block = QUANT_CHUNK_ELEMENTS / cols;
    block = block ? block : 1;
    if (group == KERN_GROUP_MATRIX) {
        /* first pass: the matrix scale from the largest magnitude */
        float amax = 0;
        for (size_t r = 0; r < rows; r++) {
            if (kern_st_read_f32(t, (uint64_t)r * cols, cols, buf) != 0)
                return -1;
            for (size_t c = 0; c < cols; c++)
                amax = fabsf(buf[c]) > amax ? fabsf(buf[c]) : amax;
        }
        scales[0] = kern_quant_scale(amax, bits);
    }
    for (size_t r = 0; r < rows; r += block) {
        size_t nr = rows - r < block ? rows - r : block;
        if (kern_st_read_f32(t, (uint64_t)r * cols, nr * cols, buf) != 0)
            return -1;
        /* rows of this block start at 0 in the local buffers */
        kern_quantize_rows_f32(buf, cols, 0, nr, bits, group, codes, scales, &q->st);
    }
    q->bytes_before = (double)(t->end - t->begin);
    q->bytes_after = (double)kern_quant_code_bytes(rows * cols, bits) +
                     2.0 * (double)kern_quant_scale_count(rows, cols, group);
    return 0;
}

/* Print the text report. */
static void print_text(const char *file, const struct qtensor *q, size_t n, unsigned bits,
                       size_t group, const struct kern_qstats *all, double before, double after) {
    char grp[24], shape[64];
    if (group)
        snprintf(grp, sizeof grp, "%zu", group);
    else
        snprintf(grp, sizeof grp, "matrix");
    printf("%s: %zu tensor%s, %u bits, group %s\n", file, n, n == 1 ? "" : "s", bits, grp);
    printf("%-44s %-5s %-16s %9s %7s %8s %10s %10s\n", "tensor", "dtype", "shape", "rel.err",
           "zeros", "max/std", "before", "after");
    for (size_t i = 0; i < n; i++) {
        shape_text(q[i].t, shape, sizeof shape);
        if (q[i].skip) {
            printf("%-44.44s %-5s %-16s   skipped: %s\n", q[i].t->name,
                   kern_st_dtype_name(q[i].t->dtype), shape, q[i].skip);
            continue;
        }
        printf("%-44.44s %-5s %-16s %9.4f %6.1f%% %8.1f %9.3fM %9.3fM\n", q[i].t->name,
               kern_st_dtype_name(q[i].t->dtype), shape, kern_qstats_rel_error(&q[i].st),
               100 * kern_qstats_zero_fraction(&q[i].st), kern_qstats_outlier_ratio(&q[i].st),
               q[i].bytes_before / 1e6, q[i].bytes_after / 1e6);
    }
    if (!(after > 0)) {
        printf("no 2-D tensors quantized (F32, F16 or BF16 matrices of finite weights)\n");
        return;
    }
    printf("%-44s %-5s %-16s %9.4f %6.1f%% %8.1f %9.3fM %9.3fM", "overall", "", "",
           kern_qstats_rel_error(all), 100 * kern_qstats_zero_fraction(all),
           kern_qstats_outlier_ratio(all), before / 1e6, after / 1e6);
    printf("  (%.2fx smaller)\n", before / after);
}

/* Write the statistics members shared by tensors and overall. */
static void json_stats(struct json_writer *w, const struct kern_qstats *st, double before,
                       double after) {
    json_key(w, "relative_error");
    json_number(w, kern_qstats_rel_error(st));
    json_key(w, "zero_fraction");
    json_number(w, kern_qstats_zero_fraction(st));
    json_key(w, "outlier_ratio");
    json_number(w, kern_qstats_outlier_ratio(st));
    json_key(w, "bytes_before");
    json_number(w, before);
    json_key(w, "bytes_after");
    json_number(w, after);
}

/* Write the group member: a number, or "matrix". */
static void json_group(struct json_writer *w, size_t group) {
    json_key(w, "group");
    if (group)
        json_number(w, (double)group);
    else
        json_text(w, "matrix");
}

/* Print the --json report. */
static void print_json(const char *file, const struct qtensor *q, size_t n, unsigned bits,
                       size_t group, const struct kern_qstats *all, double before, double after) {
    struct json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "file");
    json_text(&w, file);
    json_key(&w, "bits");
    json_number(&w, bits);
    json_group(&w, group);
    for (int pass = 0; pass < 2; pass++) {
        json_key(&w, pass ? "skipped" : "tensors");
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
            if (!q[i].skip != !pass)
                continue;
            const struct kern_st_tensor *t = q[i].t;
            json_begin_object(&w);
            json_key(&w, "name");
            json_text(&w, t->name);
            json_key(&w, "dtype");
            json_text(&w, kern_st_dtype_name(t->dtype));
            json_key(&w, "shape");
            json_begin_array(&w);
            for (unsigned d = 0; d < t->ndim; d++)
                json_number(&w, (double)t->shape[d]);
            json_end_array(&w);
            if (pass) {
                json_key(&w, "reason");
                json_text(&w, q[i].skip);
            } else {
                json_key(&w, "bits");
                json_number(&w, bits);
                json_group(&w, group);
                json_stats(&w, &q[i].st, q[i].bytes_before, q[i].bytes_after);
            }
            json_end_object(&w);
        }
        json_end_array(&w);
    }
    json_key(&w, "overall");
    json_begin_object(&w);
    size_t nq = 0;
    for (size_t i = 0; i < n; i++)
        nq += !q[i].skip;
    json_key(&w, "tensors");
    json_number(&w, (double)nq);
    json_key(&w, "bits");
    json_number(&w, bits);
    json_group(&w, group);
    json_stats(&w, all, before, after);
    json_end_object(&w);
    json_end_object(&w);
    fputc('\n', stdout);
}

/* quantize's own options (the one scanner, kernels/argv.h). */
enum { QOPT_HELP = 0, QOPT_JSON, QOPT_BITS, QOPT_GROUP, QOPT_DEVICE, QOPT_COUNT };
static const struct argv_option quantize_options[QOPT_COUNT] = {
    [QOPT_HELP] = {"help", ARGV_NONE, NULL},       [QOPT_JSON] = {"json", ARGV_NONE, NULL},
    [QOPT_BITS] = {"bits", ARGV_REQUIRED, "2..8"}, [QOPT_GROUP] = {"group", ARGV_REQUIRED, "N|matrix"},
    [QOPT_DEVICE] = {"device", ARGV_REQUIRED, "cpu"},
};
static const struct argv_spec quantize_spec = {quantize_options, QOPT_COUNT, true, false,
                                               options_tr};

/* What the command line asked for. */
struct quantize_args {
    const char *file;
    unsigned bits;
    size_t group;
    bool json, help, cuda;
    const char *group_text; /* checked once the bits are known */
    char msg[256];          /* a visit's error */
};

/* A second file, or a bad value: -1 with the one wording in err. */
static int quantize_visit(void *ctx, int i, const char *v) {
    struct quantize_args *a = ctx;
    switch (i) {
    case ARGV_POSITIONAL:
        if (a->file) {
            snprintf(a->msg, sizeof a->msg, "quantize: one file at a time ('%s' and '%s')",
                     a->file, v);
            return 2;
        }
        a->file = v;
        return 0;
    case QOPT_HELP:
        a->help = true;
        return 1;
    case QOPT_JSON:
        a->json = true;
        return 0;
    case QOPT_BITS: {
        char *end;
        long b = strtol(v, &end, 10);
        if (!*v || *end || b < KERN_QBITS_MIN || b > KERN_QBITS_MAX) {
            argv_error_value(&quantize_spec, a->msg, sizeof a->msg, "bits",
                             "a whole number from 2 to 8", v);
            return 2;
        }
        a->bits = (unsigned)b;
        return 0;
    }
    case QOPT_GROUP:
        a->group_text = v;
        return 0;
    default:
        if (!strcmp(v, "cpu"))
            return 0;
        if (strncmp(v, "cuda", 4) != 0) {
            argv_error_value(&quantize_spec, a->msg, sizeof a->msg, "device", "cpu or cuda", v);
            return 2;
        }
        a->cuda = true;
        return 0;
    }
}

/* `vramlab quantize`. */
int cmd_quantize(int argc, char **argv) {
    const char *file = NULL;
    unsigned bits = 4;
    size_t group = KERN_GROUP_DEFAULT;
    bool json = false;
    char err[512];
    struct quantize_args qa = {.bits = 4, .group = KERN_GROUP_DEFAULT};
    int scan = argv_scan(&quantize_spec, argc, argv, quantize_visit, &qa, err, sizeof err);
    if (qa.help) {
        quantize_usage(stdout);
        return VRAMLAB_EXIT_OK;
    }
    if (scan == 0 && qa.group_text && strcmp(qa.group_text, "matrix") != 0) {
        char *end;
        long g = strtol(qa.group_text, &end, 10);
        if (!*qa.group_text || *end || g <= 0 ||
            kern_quant_validate(qa.bits, (size_t)g, err, sizeof err)) {
            argv_error_value(&quantize_spec, qa.msg, sizeof qa.msg, "group",
                             "a power of two from 8 to 256 or 'matrix'", qa.group_text);
            scan = 2;
        }
        qa.group = (size_t)g;
    } else if (scan == 0 && qa.group_text) {
        qa.group = KERN_GROUP_MATRIX;
    }
    if (scan != 0) {
        fprintf(stderr, "vramlab: %s\n", qa.msg[0] ? qa.msg : err);
        return VRAMLAB_EXIT_USAGE;
    }
    if (qa.cuda)
        fprintf(stderr, "vramlab quantize: CUDA runs only inside vramlab-probe; "
                        "quantizing on the CPU (the kernels' bit-exact twin)\n");
    file = qa.file;
    bits = qa.bits;
    group = qa.group;
    json = qa.json;
    if (!file) {
        quantize_usage(stderr);
        return VRAMLAB_EXIT_USAGE;
    }

    /* A FIFO or a device would block or never end: refused before it is
     * opened (the safetensors reader maps regular files only). */
    char why[160];
    if (!catalog_file_check(file, 0, why, sizeof why)) {
        fprintf(stderr, "vramlab quantize: %s: cannot read: %s\n", file, why);
        return VRAMLAB_EXIT_USAGE;
    }
    struct kern_st_file f;
    if (kern_st_open(file, &f, err, sizeof err) != 0) {
        /* Not safetensors at all: say what it is (issue 27 item 6). */
        const char *kind = catalog_sniff_file(file);
        if (kind)
            fprintf(stderr, _("vramlab quantize: %s: not a safetensors file: it is %s\n"), file,
                    _(kind));
        else
            fprintf(stderr, "vramlab quantize: %s\n", err);
        if (kind && !strncmp(kind, "a GGUF", 6))
            fputs(_("  (quantize measures a safetensors file's F32/F16/BF16 tensors; "
                    "vramlab plan --model-file reads a GGUF file's header)\n"),
                  stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    struct qtensor *q = calloc(f.n ? f.n : 1, sizeof *q);
    float *buf = malloc(QUANT_CHUNK_ELEMENTS * sizeof *buf);
    uint8_t *codes = malloc(kern_quant_code_bytes(QUANT_CHUNK_ELEMENTS, 8) + 8);
    uint16_t *scales = malloc((QUANT_CHUNK_ELEMENTS / 8 + 1) * sizeof *scales);
    int rc = 0;
    if (!q || !buf || !codes || !scales) {
        fprintf(stderr, "vramlab quantize: out of memory\n");
        rc = 1;
        goto out;
    }
    struct kern_qstats all = {0};
    double before = 0, after = 0;
    size_t n_invalid = 0, n_done = 0;
    for (size_t i = 0; i < f.n; i++) {
        const struct kern_st_tensor *t = &f.tensors[i];
        q[i].t = t;
        if (t->ndim != 2)
            q[i].skip = "not 2-D";
        else if (t->dtype != KERN_ST_F32 && t->dtype != KERN_ST_F16 && t->dtype != KERN_ST_BF16)
            q[i].skip = "dtype is not F32, F16 or BF16";
        else if (t->elements == 0)
            q[i].skip = "empty";
        else if (t->shape[1] > QUANT_CHUNK_ELEMENTS)
            q[i].skip = "rows longer than 2^20 elements";
        if (q[i].skip)
            continue;
        if (check_tensor(&q[i], bits, group, buf) != 0) {
            fprintf(stderr, "vramlab quantize: %s: tensor '%s': cannot read its data\n", file,
                    t->name);
            rc = VRAMLAB_EXIT_USAGE;
            goto out;
        }
        if (q[i].invalid) {
            fprintf(stderr,
                    "vramlab quantize: warning: %s: tensor '%s': %s; excluded from the "
                    "totals\n",
                    file, t->name, q[i].why);
            n_invalid++;
            continue;
        }
        if (quantize_tensor(&q[i], bits, group, buf, codes, scales) != 0) {
            fprintf(stderr, "vramlab quantize: %s: tensor '%s': cannot read its data\n", file,
                    t->name);
            rc = VRAMLAB_EXIT_USAGE;
            goto out;
        }
        kern_qstats_merge(&all, &q[i].st);
        before += q[i].bytes_before;
        after += q[i].bytes_after;
        n_done++;
    }
    if (json)
        print_json(file, q, f.n, bits, group, &all, before, after);
    else
        print_text(file, q, f.n, bits, group, &all, before, after);
    /* Nothing valid left to quantize: bad input, like an unreadable file. */
    if (n_invalid > 0 && n_done == 0) {
        fprintf(stderr,
                "vramlab quantize: %s: no valid tensor left (%zu excluded for their values)\n",
                file, n_invalid);
        rc = VRAMLAB_EXIT_USAGE;
    }
out:
    free(q);
    free(buf);
    free(codes);
    free(scales);
    kern_st_close(&f);
    return rc;
}
