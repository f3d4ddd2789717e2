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
 * On a CPU (the probe's backend "cpu") the CPU is compared with itself
 * (measure_run.h): C is its ceiling, "predicted" is the data sheet of the
 * catalog CPU its model name matches (catalog_match_cpu), never a GPU's;
 * a virtual machine or an unknown part says so instead of a ratio. GEMV
 * rows with FLOP are set against the CPU's roofline min(fma-peak, C x
 * FLOP/byte) ("of roof"), the copy against the STREAM-style reference the
 * probe ran beside it. A last block lists, per weight width, the decode
 * kernel this machine runs it with ("on this machine").
 *
 * While the probe runs, a terminal on stderr gets one progress line ("test
 * 3 of 11, fma-peak, 40%, about 12 s left"), cleared at the end; stderr
 * that is not a terminal gets none. SIGINT, SIGTERM and SIGHUP stop the
 * probe (SIGTERM, then SIGKILL if it lingers; reaped) and end the command
 * with the signal's status (128 + N).
 *
 * --json prints one object: "device" {name, backend, memory_bytes,
 * theoretical_bytes_per_s, catalog_id}, "results" [{test, bytes, seconds,
 * bytes_per_s, best_bytes_per_s, flop_per_s, spread, samples, verified, ...}],
 * "error_lab", "skipped", "error", "complete" (these names are a contract);
 * added: device.catalog_cpu_id, results[].fraction_of_reference,
 * roofline_flop_per_s, fraction_of_roofline, and "on_this_machine" (null
 * unless the device is a CPU; docs/tui.md).
 * Exit status: 0, 2 usage (our options, or the probe's "usage" error: an
 * unknown --device, --tests or --threads value), 3 catalog, 4 device error
 * (any other error event, a truncated stream, a probe that could not start
 * or died).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/probe_options.h"
#include "tui/commands.h"
#include "tui/cpu_device.h"
#include "tui/measure_run.h"
#include "tui/probe_client.h"
#include "tui/report.h"

#define MEASURE_IDLE_TIMEOUT_MS (600 * 1000) /* no line for 10 minutes: give up */
#define MEASURE_STOP_GRACE_MS   500          /* SIGTERM to SIGKILL when a signal stops us */

/* The probe's tests in its run order, for --help (kernels/probe_main.c
 * has the authoritative list: an unknown name is its usage error). */
static const struct {
    const char *id, *what;
} measure_tests[] = {
    {"copy", "the bandwidth ceiling C (read + write bytes)"},
    {"read", "stream read with a reduction"},
    {"fma-peak", "the cores' peak FP32 FMA rate, all threads (CPU only)"},
    {"gemv-fp16", "one decode step y = W x, FP16 weights, batch 1..16"},
    {"gemv-bf16", "the same with BF16 weights"},
    {"gemm", "the GEMM sweep, FLOP/s and the roofline (CUDA only)"},
    {"quantize", "group round to nearest, g = 32, FP16 scales"},
    {"dequantize", "codes and scales back to FP16"},
    {"w8a16", "decode GEMV with 8-bit weights, dequantized on the fly"},
    {"w4a16", "decode GEMV with 4-bit weights"},
    {"w8a8", "the w8a16 weights with x in 8 bits, integer dots (CPU runtimes' decode)"},
    {"w4a8", "the w4a16 weights with x in 8 bits (llama.cpp's q4_0 product)"},
    {"error", "the error lab: relative error and zero codes per width"},
    {"allreduce", "the all-reduce, NCCL or MPI (--allreduce; not in --quick)"},
};

/* Usage text. */
static void measure_usage(FILE *f) {
    fputs("usage: vramlab measure [--device cpu|cuda|cuda:N] [--quick] [--tests LIST]\n"
          "Runs vramlab-probe on this machine and prints predicted versus measured\n"
          "bandwidth and FLOP/s. The probe is found through $VRAMLAB_PROBE, the build\n"
          "tree, or " VRAMLAB_PKGLIBEXECDIR ".\n"
          "\n"
          "--tests LIST: a comma-separated list of (in the probe's run order):\n",
          f);
    for (size_t i = 0; i < sizeof measure_tests / sizeof measure_tests[0]; i++)
        fprintf(f, "  %-11s %s\n", measure_tests[i].id, measure_tests[i].what);
    fputs("On a CPU the rates are compared with the CPU's own C and roofline, and with\n"
          "the data sheet of the catalog CPU it names (vramlab(1), docs/catalog.md).\n"
          "\n"
          "--allreduce: NCCL over this machine's GPUs (--device cuda), or with --mpirun\n"
          "one rank per process: --mpirun 'mpirun -n 4 --hostfile H' runs the probe\n"
          "under that launcher (--device cpu: MPI_Allreduce on host buffers). FP32 and\n"
          "BF16 sums, each size's median time, algbw = bytes / t and busbw = algbw x\n"
          "2(n-1)/n as nccl-tests defines them, beside the engine's ring model; the fit\n"
          "t = alpha + bytes / beta calibrates a plan (plan --measured-allreduce FILE\n"
          "with this command's --json).\n"
          "By default 8 B to 1 GiB by 8, each size's timed samples within --budget\n"
          "seconds (default 1: 5 to --iters samples), the sizes above one that\n"
          "outruns it left out (its note says so): about a minute on a 2-core host.\n"
          "--full: 8 B to 1 GiB by 4, --iters samples (default 20) of every size, as\n"
          "before (minutes on a host). --sizes 8,64K,1M or MIN-MAX[x2|x4|x8|x16].\n",
          f);
}

/* The signal that stopped us (SIGINT, SIGTERM, SIGHUP), and the pipe its
 * handler writes to so that poll wakes at once. */
static volatile sig_atomic_t measure_signal;
static int measure_wake[2] = {-1, -1};

/* Record the signal and wake the loop (async-signal-safe). */
static void measure_on_signal(int sig) {
    int saved = errno;
    measure_signal = sig;
    if (measure_wake[1] >= 0)
        (void)!write(measure_wake[1], "", 1);
    errno = saved;
}

/* Catch SIGINT, SIGTERM and SIGHUP, even where they arrived ignored (a
 * background job of a script ignores SIGINT). */
static void measure_catch_signals(void) {
    if (measure_wake[0] < 0 && pipe(measure_wake) == 0) {
        for (int i = 0; i < 2; i++) {
            fcntl(measure_wake[i], F_SETFD, FD_CLOEXEC);
            fcntl(measure_wake[i], F_SETFL, fcntl(measure_wake[i], F_GETFL) | O_NONBLOCK);
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = measure_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* The progress line on a terminal: its width, to clear it. */
struct measure_progress {
    bool on; /* stderr is a terminal */
    int width;
};

/* Clear the progress line (if any). */
static void progress_clear(struct measure_progress *pr) {
    if (pr->on && pr->width > 0) {
        fprintf(stderr, "\r%*s\r", pr->width, "");
        fflush(stderr);
    }
    pr->width = 0;
}

/* Record one event; on a terminal stderr shows the progress line, and a
 * malformed line is named on stderr. */
static void measure_take(struct measure_run *m, const struct probe_event *ev,
                         struct measure_progress *pr) {
    if (ev->kind == PROBE_EV_PROGRESS && pr->on) {
        char line[160];
        int n = measure_progress_text(&ev->j, line, sizeof line);
        fprintf(stderr, "\r  %s%*s", line, pr->width > n + 2 ? pr->width - n - 2 : 0, "");
        fflush(stderr);
        pr->width = n + 2 > pr->width ? n + 2 : pr->width;
    }
    if (ev->kind == PROBE_EV_BAD) {
        progress_clear(pr);
        fprintf(stderr, "vramlab measure: ignoring a malformed probe line: %s\n", ev->error);
    }
    measure_run_take(m, ev);
}

/* Run the probe to the end, collecting its events. Returns the probe's
 * exit status, -1 when it could not be started, or -2 when a signal
 * stopped it (measure_signal says which; the probe is reaped). */
static int measure_collect(const char *path, const char *const *args, bool keep_stderr,
                           struct measure_run *m) {
    struct probe_client pc;
    struct measure_progress pr = {isatty(STDERR_FILENO) != 0, 0};
    char err[512];
    if (probe_client_start_ex(&pc, path, args, keep_stderr, err, sizeof err) != 0) {
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
        if (measure_signal) {
            probe_client_cancel(&pc, MEASURE_STOP_GRACE_MS);
            progress_clear(&pr);
            free(ev);
            return -2;
        }
        while (probe_client_next(&pc, ev) > 0)
            measure_take(m, ev, &pr);
        if (pc.eof)
            break;
        struct pollfd p[2] = {{probe_client_fd(&pc), POLLIN, 0}, {measure_wake[0], POLLIN, 0}};
        int k = poll(p, measure_wake[0] >= 0 ? 2 : 1, 1000);
        if (k < 0 && errno != EINTR)
            break;
        if (k < 0 || measure_signal)
            continue;
        if (k == 0) {
            idle_ms += 1000;
            if (idle_ms >= MEASURE_IDLE_TIMEOUT_MS) {
                probe_client_cancel(&pc, 2000);
                progress_clear(&pr);
                m->failed = true;
                snprintf(m->error, sizeof m->error, "the probe printed nothing for %d s",
                         idle_ms / 1000);
                free(ev);
                return -1;
            }
            continue;
        }
        idle_ms = 0;
        if (p[0].revents)
            probe_client_read(&pc);
    }
    while (probe_client_next(&pc, ev) > 0)
        measure_take(m, ev, &pr);
    free(ev);
    progress_clear(&pr);
    int rc = probe_client_finish(&pc);
    return measure_signal ? -2 : rc;
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

/* Short description of a result's variant ("avx2 b=4 x16 2t"). */
static void variant(const struct probe_json *r, char *buf, size_t len) {
    size_t n = 0;
    const char *method = probe_json_str(r, "method"), *isa = probe_json_str(r, "isa");
    double threads = probe_json_num(r, "threads", 0), bits = probe_json_num(r, "bits", 0),
           batch = probe_json_num(r, "batch", 0);
    buf[0] = 0;
    if (method)
        n += (size_t)snprintf(buf + n, len - n, "%s", method);
    if (isa && (!method || strcmp(isa, method) != 0) && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", isa);
    if (bits > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " b=%g", bits);
    if (batch > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " x%g", batch);
    if (threads > 0 && n < len)
        snprintf(buf + n, len - n, " %gt", threads);
}

/* The batch-1 bytes/s of a test with the most threads, NAN when absent. */
static double result_rate(const struct measure_run *m, const char *test) {
    double v = NAN, threads = -1;
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        const char *t = probe_json_str(r, "test");
        double n = probe_json_num(r, "threads", 0), b = probe_json_num(r, "bytes_per_s", NAN);
        if (t && !strcmp(t, test) && probe_json_num(r, "batch", 1) <= 1 && b > 0 && n > threads) {
            v = b;
            threads = n;
        }
    }
    return v;
}

/* Whether the run measured a test at batch 1 (measure_decode_kernel's have). */
static bool result_has(const char *test, const void *ctx) {
    return result_rate(ctx, test) > 0;
}

/* The device line and what the rates are compared with. */
static void print_device(const struct measure_run *m, const struct engine_gpu *g,
                         const struct catalog_cpu *cpu) {
    const struct probe_json *d = &m->device;
    char a[32];
    bool on_cpu = measure_on_cpu(m);
    int virt = measure_virtual(m);
    enum measure_cpu_kind k = measure_cpu_kind(cpu, virt);
    fmt_rate(probe_json_num(d, "theoretical_bytes_per_s", NAN), "B/s", a, sizeof a);
    printf("device: %s (%s%s%s), memory %.1f GB, theoretical %s, catalog: %s",
           measure_str_or(probe_json_str(d, "name"), "?"), measure_str_or(probe_json_str(d, "backend"), "?"),
           probe_json_str(d, "arch") ? ", " : "", measure_str_or(probe_json_str(d, "arch"), ""),
           probe_json_num(d, "memory_bytes", 0) / 1e9, a,
           on_cpu ? (k == MEASURE_CPU_KNOWN ? cpu->id
                     : k == MEASURE_CPU_VIRTUAL ? cpu->id
                     : k == MEASURE_CPU_UNKNOWN ? "unknown CPU"
                                                : "unknown CPU (virtual machine)")
                  : (g ? g->id : "no match"));
    putchar('\n');
    if (!on_cpu || m->n_results == 0)
        return; /* an all-reduce alone: its own header says the rest */
    const char *isa = probe_json_str(d, "isa"), *avail = probe_json_str(d, "isa_available");
    double threads = probe_json_num(d, "compute_units", 0);
    printf("cpu: %s%s%s%s%s", isa ? "runs " : "", isa ? isa : "",
           avail ? " (available: " : "", avail ? avail : "", avail ? ")" : "");
    if (threads > 0)
        printf("%s%g threads", isa || avail ? ", " : "", threads);
    printf("%s%s\n", isa || avail || threads > 0 ? ", " : "",
           virt == 1 ? "virtual machine" : virt == 0 ? "bare metal" : "virtual machine or not: not said");
    if (probe_json_str(d, "isa_note"))
        printf("cpu: %s\n", probe_json_str(d, "isa_note"));
    if (k == MEASURE_CPU_KNOWN) {
        fmt_rate(cpu->bandwidth_bytes_per_s, "B/s", a, sizeof a);
        char type[16];
        size_t n = 0;
        for (; cpu->memory_type[n] && n + 1 < sizeof type; n++)
            type[n] = (char)toupper((unsigned char)cpu->memory_type[n]);
        type[n] = 0;
        printf("compared with: the %s data sheet, %u x %u-bit %s-%.0f = %s (catalog %s)\n",
               cpu->name, cpu->memory_channels, cpu->channel_bits, type,
               cpu->memory_transfers_per_s / 1e6, a, cpu->id);
    } else {
        printf("compared with: itself, %s%s%s; every rate is a fraction of this CPU's own C\n",
               measure_cpu_phrase(k), k == MEASURE_CPU_VIRTUAL ? " for " : "",
               k == MEASURE_CPU_VIRTUAL ? cpu->name : "");
    }
}

/* The last block on a CPU: per weight width, the kernel that decodes it
 * here, and what calibrating a plan with these figures means. */
static void print_here(const struct measure_run *m, double c) {
    static const struct {
        const char *weights;
        double bits;
        bool bf16;
    } widths[] = {{"fp16", 16, false}, {"bf16", 16, true}, {"8-bit", 8, false}, {"4-bit", 4, false}};
    char a[32];
    bool any = false;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        bool nearest;
        const char *t = measure_decode_kernel(widths[i].bits, widths[i].bf16, result_has, m, &nearest);
        if (!t)
            continue;
        if (!any)
            printf("\non this machine: the decode kernel of each weight width (a decode step's "
                   "tokens/s ceiling\nis this rate over the bytes a token reads; the Measure pane "
                   "does it for the scenario):\n");
        any = true;
        double bw = result_rate(m, t);
        fmt_rate(bw, "B/s", a, sizeof a);
        printf("  %-14s %-10s %12s", widths[i].weights, t, a);
        if (c > 0)
            printf("  %.2f of C", bw / c);
        printf("%s\n", nearest ? "  (the nearest measured)" : "");
    }
    /* the same weights with x in 8 bits: what CPU runtimes run */
    static const struct {
        const char *weights, *test;
    } a8[] = {{"8-bit, x 8-bit", "w8a8"}, {"4-bit, x 8-bit", "w4a8"}};
    for (size_t i = 0; any && i < sizeof a8 / sizeof a8[0]; i++) {
        double bw = result_rate(m, a8[i].test);
        if (!(bw > 0))
            continue;
        fmt_rate(bw, "B/s", a, sizeof a);
        printf("  %-14s %-10s %12s", a8[i].weights, a8[i].test, a);
        if (c > 0)
            printf("  %.2f of C", bw / c);
        printf("  (what CPU runtimes run)\n");
    }
    if (any)
        printf("These are this CPU's figures: `vramlab plan --measured-bw` takes a figure as the\n"
               "scenario's GPU's and cannot tell where it came from (see vramlab(1)).\n");
}

/* A latency for a flag ("0.625us"), one the option parser reads back. */
static void flag_seconds(double s, char *buf, size_t len) {
    if (s >= 1e-3)
        snprintf(buf, len, "%.4gms", s * 1e3);
    else
        snprintf(buf, len, "%.4gus", s * 1e6);
}

/* A bandwidth as a flag's value with 4 significant digits ("1.104GB/s"),
 * so the printed flags calibrate as the --json file does (the display's 3
 * digits would round 1.104 to 1.10, 0.4% off). */
static void flag_bandwidth(double bps, char *buf, size_t len) {
    static const char *unit[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
    unsigned u = 0;
    while (u < 4 && bps >= 1e3) {
        bps /= 1e3;
        u++;
    }
    snprintf(buf, len, "%.4g%s", bps, unit[u]);
}

/* The all-reduce: every size with the engine's ring model beside it, the
 * fits and the flags they calibrate (tui/measure_ar.h). */
static void print_allreduce(const struct measure_run *m) {
    struct engine_scenario sc = m->ar_sc;
    char a[32], b[32], c[32], d[32], e[32], f[32];
    const struct probe_json *r0 = &m->ar[0];
    unsigned ranks = (unsigned)probe_json_num(r0, "ranks", 0),
             hosts = (unsigned)probe_json_num(r0, "hosts", 1);
    const char *tr = measure_str_or(probe_json_str(r0, "transport"), "?");
    bool across = hosts > 1;
    double bw = engine_allreduce_bandwidth(&sc, across);
    if (m->n_results || m->n_lab)
        putchar('\n');
    printf("all-reduce over %u rank%s on %u host%s (%s); every sum checked on every rank\n", ranks,
           ranks == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s", tr);
    report_bandwidth(bw, a, sizeof a);
    report_seconds(sc.allreduce_latency_s, b, sizeof b);
    char how[160];
    if (across)
        snprintf(how, sizeof how, "--inter-node-bw, per GPU across nodes");
    else if (sc.gpu.link_bytes_per_s > 0)
        snprintf(how, sizeof how, "%s's link %s both ways, halved", sc.gpu.id,
                 (report_bandwidth(sc.gpu.link_bytes_per_s, c, sizeof c), c));
    else
        snprintf(how, sizeof how, "no GPU link known: the inter-node figure");
    printf("predicted: the engine's ring model t = 2(n-1)/n x bytes / BW + latency,\n"
           "BW = %s one way (%s), latency %s\n",
           a, how, b);
    printf("\n%-5s %9s %10s %11s %11s %6s %4s %10s %11s %6s\n", "dtype", "bytes", "time", "algbw",
           "busbw", "spread", "ok", "predicted", "pred.busbw", "ratio");
    for (size_t i = 0; i < m->n_ar; i++) {
        const struct probe_json *r = &m->ar[i];
        double bytes = probe_json_num(r, "bytes", NAN), t = probe_json_num(r, "seconds", NAN);
        double pt = measure_ar_predicted_seconds(&sc, bytes, ranks, hosts);
        double pb = measure_ar_predicted_busbw(&sc, bytes, ranks, hosts);
        double busbw = probe_json_num(r, "busbw_bytes_per_s", NAN);
        report_bytes(bytes, UNITS_GIB, a, sizeof a);
        report_seconds(t, b, sizeof b);
        report_bandwidth(probe_json_num(r, "algbw_bytes_per_s", NAN), c, sizeof c);
        report_bandwidth(busbw, d, sizeof d);
        report_seconds(pt, e, sizeof e);
        report_bandwidth(pb, f, sizeof f);
        char ratio[16] = "-";
        if (pb > 0 && busbw > 0)
            snprintf(ratio, sizeof ratio, busbw / pb >= 0.1 ? "%.2f" : "%.2g", busbw / pb);
        const char *te = pt > 0 ? e : "-", *tf = pb > 0 ? f : "-";
        printf("%-5s %*s %*s %*s %*s %5.1f%%%s%4s %*s %*s %6s\n",
               measure_str_or(probe_json_str(r, "dtype"), "?"), report_pad(a, 9), a,
               report_pad(b, 10), b, report_pad(c, 11), c, report_pad(d, 11), d,
               100 * probe_json_num(r, "spread", NAN),
               probe_json_bool(r, "flagged", false) ? "!" : " ",
               probe_json_bool(r, "verified", false) ? "yes" : "NO", report_pad(te, 10), te,
               report_pad(tf, 11), tf, ratio);
    }
    /* each note once (a one-GPU note is on every size; a budget's on the
     * last size of each type) */
    for (size_t i = 0; i < m->n_ar; i++) {
        const char *note = probe_json_str(&m->ar[i], "note");
        bool seen = false;
        for (size_t k = 0; k < i && note && !seen; k++) {
            const char *o = probe_json_str(&m->ar[k], "note");
            seen = o && !strcmp(o, note);
        }
        if (note && *note && !seen)
            printf("note: %s\n", note);
    }
    struct measure_ar_fit fits[8];
    size_t nf = 0;
    for (size_t i = 0; i < m->n_fits && nf < 8; i++)
        if (measure_ar_fit_read(&m->fits[i], &fits[nf]))
            nf++;
    if (nf)
        putchar('\n');
    for (size_t i = 0; i < nf; i++) {
        const struct measure_ar_fit *ft = &fits[i];
        if (!ft->valid) {
            printf("fit %s: no bandwidth (the times did not grow with the size over %u sizes)\n",
                   ft->dtype, ft->points);
            continue;
        }
        report_seconds(ft->alpha_s, a, sizeof a);
        report_bandwidth(ft->beta_bytes_per_s, b, sizeof b);
        report_bandwidth(ft->bus_beta_bytes_per_s, c, sizeof c);
        printf("fit %s: t = %s + bytes / %s (link %s = beta x 2(n-1)/n), residual %.1f%% over %u "
               "sizes\n",
               ft->dtype, a, b, c, 100 * ft->residual, ft->points);
    }
    const struct measure_ar_fit *pick = measure_ar_pick(fits, nf);
    if (pick && pick->valid) {
        double link = pick->bus_beta_bytes_per_s;
        flag_bandwidth(across ? link : 2 * link, a, sizeof a);
        flag_seconds(pick->alpha_s, b, sizeof b);
        printf("calibrate (the %s fit): vramlab plan --%s %s --allreduce-latency %s%s\n"
               "  or save this with --json and give plan --measured-allreduce FILE\n",
               pick->dtype, across ? "inter-node-bw" : "intra-node-bw", a, b,
               across ? "" : "\n  (intra-node figures are both directions: 2 x the link)");
    }
    printf("\nbusbw = algbw x 2(n-1)/n, algbw = bytes / t (nccl-tests); ratio = measured busbw / "
           "predicted;\n'!' marks a spread over 5%%.\n");
}

/* The human report. */
static void measure_print_text(const struct measure_run *m, const struct engine_gpu *g,
                               const struct catalog_cpu *cpu) {
    char a[32], b[32], p[32], v[48];
    bool on_cpu = measure_on_cpu(m);
    const struct catalog_cpu *sheet =
        on_cpu && measure_cpu_kind(cpu, measure_virtual(m)) == MEASURE_CPU_KNOWN ? cpu : NULL;
    double c = measure_copy_c(m), peak = on_cpu ? measure_fma_peak(m) : NAN;
    if (m->have_device)
        print_device(m, g, cpu);
    if (m->n_results) {
        fmt_rate(c, "B/s", a, sizeof a);
        printf("C (measured copy, read + write) = %s\n", a);
        if (peak > 0) {
            fmt_rate(peak, "FLOP/s", a, sizeof a);
            printf("FMA peak (fma-peak, all threads) = %s: the roofline is min(FMA peak, C x "
                   "FLOP/byte)",
                   a);
            if (c > 0)
                printf(", ridge %.3g FLOP/byte", peak / c);
            putchar('\n');
        }
        putchar('\n');
        printf("%-11s %-22s %12s %12s %7s %4s %12s %6s %6s%s\n", "test", "variant", "measured",
               "best", "spread", "ok", "predicted", "ratio", "of C", on_cpu ? " of roof" : "");
    }
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        bool is_flop;
        double pred = on_cpu ? measure_predicted_cpu(sheet, r, &is_flop)
                             : measure_predicted(g, r, &is_flop);
        double meas = probe_json_num(r, is_flop ? "flop_per_s" : "bytes_per_s", NAN);
        double best = is_flop
                          ? probe_json_num(r, "flop", NAN) / probe_json_num(r, "best_seconds", NAN)
                          : probe_json_num(r, "best_bytes_per_s", NAN);
        fmt_rate(meas, is_flop ? "FLOP/s" : "B/s", a, sizeof a);
        fmt_rate(best, is_flop ? "FLOP/s" : "B/s", b, sizeof b);
        fmt_rate(pred, is_flop ? "FLOP/s" : "B/s", p, sizeof p);
        variant(r, v, sizeof v);
        double spread = probe_json_num(r, "spread", NAN);
        char ratio[16] = "-", ofc[16] = "-", roof[16] = "";
        if (pred > 0)
            snprintf(ratio, sizeof ratio, "%.2f", meas / pred);
        if (!is_flop && c > 0)
            snprintf(ofc, sizeof ofc, "%.2f", meas / c);
        if (on_cpu) {
            double flop = probe_json_num(r, "flop", NAN), bytes = probe_json_num(r, "bytes", NAN);
            double fps = probe_json_num(r, "flop_per_s", NAN);
            /* batch > 1: where a CPU turns compute bound (batch 1 is its
             * fraction of C again) */
            double rf = !is_flop && flop > 0 && bytes > 0 && probe_json_num(r, "batch", 0) > 1
                            ? measure_roofline(peak, c, flop / bytes)
                            : NAN;
            if (rf > 0 && fps > 0)
                snprintf(roof, sizeof roof, " %7.2f", fps / rf);
            else
                snprintf(roof, sizeof roof, " %7s", "-");
        }
        /* a working set under 4x the device's cache is (partly) a cache figure */
        double cache = m->have_device ? probe_json_num(&m->device, "l2_bytes", 0) : 0;
        double ws = probe_json_num(r, "bytes", 0);
        bool in_cache = cache > 0 && ws > 0 && ws < 4 * cache;
        printf("%-11s %-22s %12s %12s %6.1f%%%s%4s %12s %6s %6s%s%s\n",
               measure_str_or(probe_json_str(r, "test"), "?"), v, a, b, 100 * spread,
               probe_json_bool(r, "flagged", false) ? "!" : " ",
               probe_json_bool(r, "verified", false) ? "yes" : "NO", p, ratio, ofc, roof,
               in_cache ? "  in cache" : "");
    }
    /* the copy against the STREAM-style loop the probe ran beside it */
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        const char *t = probe_json_str(r, "test");
        double ref = probe_json_num(r, "reference_bytes_per_s", NAN);
        if (t && !strcmp(t, "copy") && ref > 0) {
            fmt_rate(probe_json_num(r, "bytes_per_s", NAN), "B/s", a, sizeof a);
            fmt_rate(ref, "B/s", b, sizeof b);
            double n = probe_json_num(r, "threads", 0);
            printf("copy with %g thread%s / a STREAM-style copy in the same run: %s / %s = "
                   "%.2f\n",
                   n, n == 1 ? "" : "s", a, b, probe_json_num(r, "bytes_per_s", NAN) / ref);
        }
    }
    for (size_t i = 0; i < m->n_results; i++) {
        const char *note = probe_json_str(&m->results[i], "note");
        if (note && *note) {
            variant(&m->results[i], v, sizeof v);
            printf("note, %s %s: %s\n", measure_str_or(probe_json_str(&m->results[i], "test"), "?"),
                   v, note);
        }
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
    if (on_cpu && m->n_results)
        print_here(m, c);
    if (m->n_ar)
        print_allreduce(m);
    if (m->n_results) {
        printf("\n'!' marks a spread over 5%%; ratio = measured / %s;"
               " of C = fraction of the measured copy bandwidth;\nin cache = a working set"
               " under 4x the device's cache (L2 or last level)",
               on_cpu ? "the catalog CPU's data sheet\n(none for a virtual machine or an unknown "
                        "CPU)"
                      : "catalog prediction");
        printf(on_cpu ? ";\nof roof = FLOP/s over this CPU's roofline min(FMA peak, C x "
                        "FLOP/byte), at batch > 1.\n"
                      : ".\n");
        if (on_cpu && (result_has("w8a8", m) || result_has("w4a8", m)))
            printf("w8a8, w4a8: the w8a16, w4a16 weights with x quantized to 8 bits per block of "
                   "32 and\ninteger dot products (what llama.cpp and the other CPU runtimes run); "
                   "w8a16, w4a16\nkeep x in 16 bits.\n");
    }
}

/* The executable a launcher's name means: itself with a '/', else the
 * first in $PATH. 0, or -1 when there is none. */
static int measure_find_exe(const char *name, char *out, size_t len) {
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (snprintf(out, len, "%s/%s", *d ? d : ".", name) < (int)len && access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* Whether a --tests list names at least one test and no empty one. */
static bool tests_list_ok(const char *list) {
    if (!*list || *list == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
        return false;
    return true;
}

/* `vramlab measure`. */
/* A complete run on the CPU: saved for --device cpu (tui/cpu_device.c). */
static void measure_save_cpu(const struct measure_run *m, const struct engine_gpu *g,
                             const struct catalog_cpu *cpu) {
    const char *backend = m->have_device ? probe_json_str(&m->device, "backend") : NULL;
    char *buf = NULL, err[300];
    size_t len = 0;
    if (!backend || strcmp(backend, "cpu") != 0 || m->n_results == 0)
        return;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    measure_run_json(f, m, g, cpu);
    if (fclose(f) == 0 && cpu_device_save(buf, len, err, sizeof err) != 0)
        fprintf(stderr, "vramlab measure: not saved for --device cpu: %s\n", err);
    free(buf);
}

/* What `vramlab measure` takes: the probe's options (passed on to it),
 * then its own. */
enum { MEASURE_OPT_JSON = PROBE_OPT_BUILD_INFO, MEASURE_OPT_MPIRUN, MEASURE_OPT_CATALOG,
       MEASURE_OPT_COUNT };

/* The arguments as the scanner visits them. */
struct measure_args {
    const struct argv_option *rows;
    const char *args[32]; /* the probe's */
    size_t na;
    const char *mpirun, *catalog;
    bool json, allreduce, help, bad_tests, too_many;
    const char *tests;
};

/* One argument (kernels/argv.h's visit). */
static int measure_visit(void *ctx, int i, const char *v) {
    struct measure_args *a = ctx;
    if (a->na + 3 > sizeof a->args / sizeof a->args[0]) {
        a->too_many = true;
        return 1;
    }
    switch (i) {
    case PROBE_OPT_HELP:
        a->help = true;
        return 1;
    case MEASURE_OPT_JSON:
        a->json = true;
        return 0;
    case MEASURE_OPT_MPIRUN:
        a->mpirun = v;
        return 0;
    case MEASURE_OPT_CATALOG:
        a->catalog = v;
        return 0;
    case PROBE_OPT_ALLREDUCE:
        if (!a->allreduce)
            a->args[a->na++] = "--allreduce";
        a->allreduce = true;
        return 0;
    case PROBE_OPT_QUICK:
        a->args[a->na++] = "--quick";
        return 0;
    case PROBE_OPT_FULL:
        a->args[a->na++] = "--full";
        return 0;
    case PROBE_OPT_TESTS:
        if (!tests_list_ok(v)) {
            a->tests = v;
            a->bad_tests = true;
            return 1;
        }
        __attribute__((fallthrough)); /* passed on with its value */
    default: {
        /* "--name" then its value, for the probe */
        static char names[PROBE_OPT_COUNT][24];
        snprintf(names[i], sizeof names[i], "--%s", a->rows[i].name);
        a->args[a->na++] = names[i];
        a->args[a->na++] = v;
        return 0;
    }
    }
}

/* `vramlab measure`. */
int cmd_measure(int argc, char **argv) {
    static const enum param_id json_catalog[] = {PARAM_JSON, PARAM_CATALOG};
    struct argv_option rows[MEASURE_OPT_COUNT], own[2];
    struct argv_spec spec = {rows, MEASURE_OPT_COUNT, false, false, options_tr};
    struct measure_args ma = {.rows = rows};
    char uerr[512];

    memcpy(rows, probe_options, sizeof(rows[0]) * PROBE_OPT_BUILD_INFO);
    options_argv_rows(json_catalog, 2, own);
    rows[MEASURE_OPT_JSON] = own[0];
    rows[MEASURE_OPT_MPIRUN] = (struct argv_option){"mpirun", ARGV_REQUIRED, "CMD"};
    rows[MEASURE_OPT_CATALOG] = own[1];
    int scan = argv_scan(&spec, argc, argv, measure_visit, &ma, uerr, sizeof uerr);
    if (ma.help) {
        measure_usage(stdout);
        return VRAMLAB_EXIT_OK;
    }
    if (ma.bad_tests) {
        argv_error_value(&spec, uerr, sizeof uerr, "tests",
                         "a comma-separated list of tests (see --help)", ma.tests);
        scan = -1;
    } else if (ma.too_many) {
        snprintf(uerr, sizeof uerr, "too many options");
        scan = -1;
    }
    if (scan != 0) {
        fprintf(stderr, "vramlab: %s\n", uerr);
        return VRAMLAB_EXIT_USAGE;
    }
    const char **args = ma.args, *mpirun = ma.mpirun;
    size_t na = ma.na;
    bool json = ma.json, allreduce = ma.allreduce;
    args[na] = NULL;
    if (mpirun && !allreduce) {
        /* under a launcher the probe runs only the all-reduce */
        if (na + 2 > sizeof ma.args / sizeof ma.args[0]) {
            fprintf(stderr, "vramlab measure: too many options\n");
            return VRAMLAB_EXIT_USAGE;
        }
        args[na++] = "--allreduce";
        args[na] = NULL;
    }

    struct catalog cat;
    int rc = options_load_catalog(ma.catalog, &cat);
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
    /* --mpirun CMD: the launcher, its words, then the probe and its options */
    char words[1024], launcher[1024];
    const char *full[64];
    const char *run_path = path;
    const char *const *run_args = args;
    if (mpirun) {
        size_t nw = 0;
        snprintf(words, sizeof words, "%s", mpirun);
        for (char *save = NULL, *t = strtok_r(words, " \t", &save); t && nw < 24;
             t = strtok_r(NULL, " \t", &save))
            full[nw++] = t;
        if (nw == 0 || measure_find_exe(full[0], launcher, sizeof launcher) != 0) {
            fprintf(stderr, "vramlab measure: --mpirun: %s%s%s\n",
                    nw ? "cannot find the launcher '" : "expected a launcher like 'mpirun -n 4'",
                    nw ? full[0] : "", nw ? "' (not in $PATH)" : "");
            free(m);
            catalog_free(&cat);
            return VRAMLAB_EXIT_USAGE;
        }
        size_t k = 0;
        for (size_t w = 1; w < nw; w++)
            full[k++] = full[w];
        full[k++] = path;
        for (size_t w = 0; args[w] && k + 1 < sizeof full / sizeof full[0]; w++)
            full[k++] = args[w];
        full[k] = NULL;
        run_path = launcher;
        run_args = full;
    }
    measure_catch_signals();
    int status = measure_collect(run_path, run_args, mpirun != NULL, m);
    if (status == -2 || measure_signal) {
        /* stopped by a signal: the probe is gone; die of the same signal
         * (the shell sees 128 + N), or return 128 + N */
        int sig = measure_signal;
        fprintf(stderr, "vramlab measure: stopped by %s; the probe was stopped too\n",
                sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
        measure_run_free(m);
        free(m);
        catalog_free(&cat);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        return 128 + sig;
    }
    if (status == -1 && !m->failed) {
        m->failed = true;
        snprintf(m->error_code, sizeof m->error_code, "start");
    } else if (status > 0 && !m->failed) {
        m->failed = true;
        snprintf(m->error, sizeof m->error, "the probe exited with status %d", status);
        snprintf(m->error_code, sizeof m->error_code, "exit");
    }
    const struct engine_gpu *g = measure_match(m, &cat);
    const struct catalog_cpu *cpu = measure_match_cpu(m, &cat);
    /* the ring model beside the all-reduce: the matched GPU's links, else
     * the explorer's default GPU's */
    measure_run_ar_scenario(g ? g : catalog_find_gpu(&cat, "h100-sxm"), &m->ar_sc);
    m->have_ar_sc = true;
    if (json)
        measure_run_json(stdout, m, g, cpu);
    else
        measure_print_text(m, g, cpu);
    if (!allreduce && !m->failed && !m->truncated)
        measure_save_cpu(m, g, cpu);
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
