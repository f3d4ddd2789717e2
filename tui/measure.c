/*
 * measure.c: `vramlab measure [--device cpu|cuda[:N]] [--quick]
 * [--tests LIST] [--json] [--catalog FILE]`: run vramlab-probe and print
 * predicted versus measured (shared spec measure.md).
 *
 * Predicted figures come from the catalog GPU whose normalised name equals
 * the device's (catalog_match_device): bandwidth tests against its data
 * sheet bandwidth, the GEMM sweep against its roofline
 * min(FP16 FLOP/s, bandwidth * FLOP/byte). ratio = measured / predicted.
 * C is the copy result (read + write bytes / s); every bandwidth row also
 * shows its fraction of C, the unit of the goals in measure.md.
 *
 * --json prints one object: "device" {name, backend, memory_bytes,
 * theoretical_bytes_per_s, catalog_id}, "results" [{test, bytes, seconds,
 * bytes_per_s, best_bytes_per_s, flop_per_s, spread, samples, verified, ...}],
 * "error_lab", "skipped", "error", "complete" (these names are a contract).
 * Exit status: 0, 2 usage (our options, or the probe's "usage" error: an
 * unknown --device, --tests or --threads value), 3 catalog, 4 device error
 * (any other error event, a truncated stream, a probe that could not start
 * or died).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/commands.h"
#include "tui/measure_run.h"
#include "tui/probe_client.h"

#define MEASURE_IDLE_TIMEOUT_MS (600 * 1000) /* no line for 10 minutes: give up */

/* Usage text. */
static void measure_usage(FILE *f) {
    fputs("usage: vramlab measure [--device cpu|cuda|cuda:N] [--quick] [--tests LIST]\n"
          "                       [--threads N] [--json] [--catalog FILE]\n"
          "Runs vramlab-probe on this machine and prints predicted versus measured\n"
          "bandwidth and FLOP/s. The probe is found through $VRAMLAB_PROBE, the build\n"
          "tree, or " VRAMLAB_PKGLIBEXECDIR ".\n",
          f);
}

/* Record one event; the command line shows progress on a terminal and
 * names a malformed line on stderr. */
static void measure_take(struct measure_run *m, const struct probe_event *ev, bool json) {
    if (ev->kind == PROBE_EV_PROGRESS && !json && isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r  %-12s %3.0f%%", measure_str_or(probe_json_str(&ev->j, "test"), "?"),
                100.0 * probe_json_num(&ev->j, "fraction", 0));
        fflush(stderr);
    }
    if (ev->kind == PROBE_EV_BAD)
        fprintf(stderr, "vramlab measure: ignoring a malformed probe line: %s\n", ev->error);
    measure_run_take(m, ev);
}

/* Run the probe to the end, collecting its events. Returns the probe's
 * exit status, or -1 when it could not be started. */
static int measure_collect(const char *path, const char *const *args, bool json,
                           struct measure_run *m) {
    struct probe_client pc;
    char err[512];
    if (probe_client_start(&pc, path, args, err, sizeof err) != 0) {
        snprintf(m->error, sizeof m->error, "%s", err);
        return -1;
    }
    struct probe_event *ev = malloc(sizeof *ev);
    if (!ev) {
        probe_client_cancel(&pc, 1000);
        snprintf(m->error, sizeof m->error, "out of memory");
        return -1;
    }
    int idle_ms = 0;
    for (;;) {
        while (probe_client_next(&pc, ev) > 0)
            measure_take(m, ev, json);
        if (pc.eof)
            break;
        struct pollfd p = {probe_client_fd(&pc), POLLIN, 0};
        int k = poll(&p, 1, 1000);
        if (k < 0 && errno != EINTR)
            break;
        if (k == 0) {
            idle_ms += 1000;
            if (idle_ms >= MEASURE_IDLE_TIMEOUT_MS) {
                probe_client_cancel(&pc, 2000);
                m->failed = true;
                snprintf(m->error, sizeof m->error, "the probe printed nothing for %d s",
                         idle_ms / 1000);
                free(ev);
                return -1;
            }
            continue;
        }
        idle_ms = 0;
        probe_client_read(&pc);
    }
    while (probe_client_next(&pc, ev) > 0)
        measure_take(m, ev, json);
    free(ev);
    if (!json && isatty(STDERR_FILENO))
        fputs("\r                          \r", stderr);
    return probe_client_finish(&pc);
}

/* Format a rate with an SI prefix ("4.31 TB/s"). */
static void fmt_rate(double v, const char *unit, char *buf, size_t len) {
    static const char *pre[] = {"", "k", "M", "G", "T", "P"};
    if (!(v > 0) || !isfinite(v)) {
        snprintf(buf, len, "-");
        return;
    }
    int k = 0;
    while (v >= 1000 && k < 5) {
        v /= 1000;
        k++;
    }
    snprintf(buf, len, "%.3g %s%s", v, pre[k], unit);
}

/* Short description of a result's variant ("b=4 g=32 batch=1"). */
static void variant(const struct probe_json *r, char *buf, size_t len) {
    size_t n = 0;
    const char *method = probe_json_str(r, "method");
    double threads = probe_json_num(r, "threads", 0), bits = probe_json_num(r, "bits", 0),
           batch = probe_json_num(r, "batch", 0);
    buf[0] = 0;
    if (method)
        n += (size_t)snprintf(buf + n, len - n, "%s", method);
    if (bits > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " b=%g", bits);
    if (batch > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " x%g", batch);
    if (threads > 0 && n < len)
        snprintf(buf + n, len - n, " %gt", threads);
}

/* The human report. */
static void measure_print_text(const struct measure_run *m, const struct engine_gpu *g) {
    char a[32], b[32], p[32], v[48];
    if (m->have_device) {
        const struct probe_json *d = &m->device;
        fmt_rate(probe_json_num(d, "theoretical_bytes_per_s", NAN), "B/s", a, sizeof a);
        printf("device: %s (%s%s%s), memory %.1f GB, theoretical %s, catalog: %s\n",
               measure_str_or(probe_json_str(d, "name"), "?"), measure_str_or(probe_json_str(d, "backend"), "?"),
               probe_json_str(d, "arch") ? ", " : "", measure_str_or(probe_json_str(d, "arch"), ""),
               probe_json_num(d, "memory_bytes", 0) / 1e9, a, g ? g->id : "no match");
    }
    double c = measure_copy_c(m);
    if (m->n_results) {
        fmt_rate(c, "B/s", a, sizeof a);
        printf("C (measured copy, read + write) = %s\n\n", a);
        printf("%-11s %-22s %12s %12s %7s %4s %12s %6s %6s\n", "test", "variant", "measured",
               "best", "spread", "ok", "predicted", "ratio", "of C");
    }
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        bool is_flop;
        double pred = measure_predicted(g, r, &is_flop);
        double meas = probe_json_num(r, is_flop ? "flop_per_s" : "bytes_per_s", NAN);
        double best = is_flop
                          ? probe_json_num(r, "flop", NAN) / probe_json_num(r, "best_seconds", NAN)
                          : probe_json_num(r, "best_bytes_per_s", NAN);
        fmt_rate(meas, is_flop ? "FLOP/s" : "B/s", a, sizeof a);
        fmt_rate(best, is_flop ? "FLOP/s" : "B/s", b, sizeof b);
        fmt_rate(pred, is_flop ? "FLOP/s" : "B/s", p, sizeof p);
        variant(r, v, sizeof v);
        double spread = probe_json_num(r, "spread", NAN);
        char ratio[16] = "-", ofc[16] = "-";
        if (pred > 0)
            snprintf(ratio, sizeof ratio, "%.2f", meas / pred);
        if (!is_flop && c > 0)
            snprintf(ofc, sizeof ofc, "%.2f", meas / c);
        /* a working set under 4x the device's cache is (partly) a cache figure */
        double cache = m->have_device ? probe_json_num(&m->device, "l2_bytes", 0) : 0;
        bool in_cache = cache > 0 && probe_json_num(r, "bytes", 0) < 4 * cache;
        printf("%-11s %-22s %12s %12s %6.1f%%%s%4s %12s %6s %6s%s\n",
               measure_str_or(probe_json_str(r, "test"), "?"), v, a, b, 100 * spread,
               probe_json_bool(r, "flagged", false) ? "!" : " ",
               probe_json_bool(r, "verified", false) ? "yes" : "NO", p, ratio, ofc,
               in_cache ? "  in cache" : "");
    }
    if (m->n_lab) {
        printf("\nerror lab (relative error ||w - w_hat|| / ||w||, zero codes):\n");
        printf("%-5s %-7s %-9s %10s %7s %8s\n", "bits", "group", "weights", "rel.err", "zeros",
               "max/std");
        for (size_t i = 0; i < m->n_lab; i++) {
            const struct probe_json *r = &m->lab[i];
            const struct probe_json_field *gf = probe_json_get(r, "group");
            char grp[PROBE_CLIENT_STR];
            if (gf && gf->type == PROBE_JSON_NUM)
                snprintf(grp, sizeof grp, "%g", gf->num);
            else
                snprintf(grp, sizeof grp, "%s", gf && gf->type == PROBE_JSON_STR ? gf->str : "?");
            printf("%-5g %-7s %-9s %10.4f %6.1f%% %8.1f\n", probe_json_num(r, "bits", 0), grp,
                   measure_str_or(probe_json_str(r, "weights"), "?"),
                   probe_json_num(r, "relative_error", NAN),
                   100 * probe_json_num(r, "zero_fraction", NAN),
                   probe_json_num(r, "outlier_ratio", NAN));
        }
    }
    for (size_t i = 0; i < m->n_skips; i++)
        printf("skipped %s: %s\n", measure_str_or(probe_json_str(&m->skips[i], "test"), "?"),
               measure_str_or(probe_json_str(&m->skips[i], "reason"), ""));
    if (m->n_results)
        printf("\n'!' marks a spread over 5%%; ratio = measured / catalog prediction;"
               " of C = fraction of the measured copy bandwidth;\nin cache = a working set"
               " under 4x the device's cache (L2 or last level).\n");
}

/* `vramlab measure`. */
int cmd_measure(int argc, char **argv) {
    const char *args[16];
    size_t na = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            measure_usage(stdout);
            return VRAMLAB_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--quick")) {
            args[na++] = "--quick";
        } else if ((!strcmp(a, "--device") || !strcmp(a, "--tests") || !strcmp(a, "--threads")) &&
                   i + 1 < argc) {
            args[na++] = a;
            args[na++] = argv[++i];
        } else if (!strncmp(a, "--device=", 9) || !strncmp(a, "--tests=", 8)) {
            args[na++] = a;
        } else if (!strcmp(a, "--catalog") && i + 1 < argc) {
            i++; /* read by options_load_catalog */
        } else if (!strncmp(a, "--catalog=", 10)) {
            continue;
        } else {
            fprintf(stderr, "vramlab measure: unknown option '%s'\n", a);
            measure_usage(stderr);
            return VRAMLAB_EXIT_USAGE;
        }
        if (na > sizeof args / sizeof args[0] - 3) {
            fprintf(stderr, "vramlab measure: too many options\n");
            return VRAMLAB_EXIT_USAGE;
        }
    }
    args[na] = NULL;

    struct catalog cat;
    int rc = options_load_catalog(argc, argv, &cat);
    if (rc != 0) {
        catalog_free(&cat);
        return rc;
    }
    char path[1024], err[512];
    if (probe_client_find(path, sizeof path, err, sizeof err) != 0) {
        fprintf(stderr, "vramlab measure: %s\n", err);
        catalog_free(&cat);
        return VRAMLAB_EXIT_DEVICE;
    }
    struct measure_run *m = calloc(1, sizeof *m);
    if (!m) {
        catalog_free(&cat);
        return VRAMLAB_EXIT_DEVICE;
    }
    int status = measure_collect(path, args, json, m);
    if (status < 0 && !m->failed) {
        m->failed = true;
        snprintf(m->error_code, sizeof m->error_code, "start");
    } else if (status > 0 && !m->failed) {
        m->failed = true;
        snprintf(m->error, sizeof m->error, "the probe exited with status %d", status);
        snprintf(m->error_code, sizeof m->error_code, "exit");
    }
    const struct engine_gpu *g = measure_match(m, &cat);
    if (json)
        measure_run_json(stdout, m, g);
    else
        measure_print_text(m, g);
    rc = VRAMLAB_EXIT_OK;
    if (m->failed || m->truncated) {
        const char *msg =
            m->error[0] ? m->error : "the probe's output ended in the middle of a line";
        if (m->error_code[0])
            fprintf(stderr, "vramlab measure: %s [%s]\n", msg, m->error_code);
        else
            fprintf(stderr, "vramlab measure: %s\n", msg);
        /* The probe refused its arguments (an unknown --device, --tests or
         * --threads value): a usage error, not a device error. */
        rc = strcmp(m->error_code, "usage") ? VRAMLAB_EXIT_DEVICE : VRAMLAB_EXIT_USAGE;
    }
    measure_run_free(m);
    free(m);
    catalog_free(&cat);
    return rc;
}
