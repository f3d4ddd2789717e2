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
 * The report, the progress line and the messages are in the reader's
 * language (gettext) with every figure through the one formatter
 * (tui/report.h: the locale's marks, a no-break space before a unit) and
 * the tables padded by display cells; the calibrate flags it prints to
 * paste back (C locale, '.'), the test ids, ISA names, the probe's own
 * notes and --json stay as plan and scripts read them.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/probe_options.h"
#include "tui/commands.h"
#include "tui/cpu_device.h"
#include "tui/i18n.h"
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
    {"copy", N_("the bandwidth ceiling C (read + write bytes)")},
    {"read", N_("stream read with a reduction")},
    {"fma-peak", N_("the cores' peak FP32 FMA rate, all threads (CPU only)")},
    {"gemv-fp16", N_("one decode step y = W x, FP16 weights, batch 1..16")},
    {"gemv-bf16", N_("the same with BF16 weights")},
    {"gemm", N_("the GEMM sweep, FLOP/s and the roofline (CUDA only)")},
    {"quantize", N_("group round to nearest, g = 32, FP16 scales")},
    {"dequantize", N_("codes and scales back to FP16")},
    {"w8a16", N_("decode GEMV with 8-bit weights, dequantized on the fly")},
    {"w4a16", N_("decode GEMV with 4-bit weights")},
    {"w8a8", N_("the w8a16 weights with x in 8 bits, integer dots (CPU runtimes' decode)")},
    {"w4a8", N_("the w4a16 weights with x in 8 bits (llama.cpp's q4_0 product)")},
    {"error", N_("the error lab: relative error and zero codes per width")},
    {"allreduce", N_("the all-reduce, NCCL or MPI (--allreduce; not in --quick)")},
};

/* Usage text. */
static void measure_usage(FILE *f) {
    fprintf(f,
            _("usage: vramlab measure [--device cpu|cuda|cuda:N] [--quick] [--tests LIST]\n"
              "Runs vramlab-probe on this machine and prints predicted versus measured\n"
              "bandwidth and FLOP/s. The probe is found through $VRAMLAB_PROBE, the build\n"
              "tree, or %s.\n"
              "\n"
              "--tests LIST: a comma-separated list of (in the probe's run order):\n"),
            VRAMLAB_PKGLIBEXECDIR);
    for (size_t i = 0; i < sizeof measure_tests / sizeof measure_tests[0]; i++)
        fprintf(f, "  %-11s %s\n", measure_tests[i].id, _(measure_tests[i].what));
    fputs(_("On a CPU the rates are compared with the CPU's own C and roofline, and with\n"
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
            "before (minutes on a host). --sizes 8,64K,1M or MIN-MAX[x2|x4|x8|x16].\n"),
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

/* An error of ours: English in m->error (the --json "message", a
 * contract), and its text in the reader's language for stderr while
 * m->error still holds the English (a probe's error event replaces it). */
static char measure_err_en[sizeof ((struct measure_run *)0)->error];
static char measure_err_tr[sizeof ((struct measure_run *)0)->error];

/* Set m->error from a msgid and its arguments, in English and translated. */
__attribute__((format(printf, 2, 3))) static void measure_fail(struct measure_run *m,
                                                                const char *msgid, ...) {
    va_list ap, aq;
    va_start(ap, msgid);
    va_copy(aq, ap);
    vsnprintf(m->error, sizeof m->error, msgid, ap);
    vsnprintf(measure_err_tr, sizeof measure_err_tr, _(msgid), aq);
    va_end(aq);
    va_end(ap);
    snprintf(measure_err_en, sizeof measure_err_en, "%s", m->error);
}

/* m->error as the reader reads it: translated when it is one of ours. */
static const char *measure_error_text(const struct measure_run *m) {
    if (!m->error[0])
        return _("the probe's output ended in the middle of a line");
    return measure_err_tr[0] && !strcmp(m->error, measure_err_en) ? measure_err_tr : m->error;
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
        measure_progress_text(&ev->j, line, sizeof line);
        int n = i18n_width(line); /* cells: a translation's accents take more bytes */
        fprintf(stderr, "\r  %s%*s", line, pr->width > n + 2 ? pr->width - n - 2 : 0, "");
        fflush(stderr);
        pr->width = n + 2 > pr->width ? n + 2 : pr->width;
    }
    if (ev->kind == PROBE_EV_BAD) {
        progress_clear(pr);
        fprintf(stderr, _("vramlab measure: ignoring a malformed probe line: %s\n"), ev->error);
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
        measure_fail(m, N_("out of memory"));
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
                measure_fail(m, N_("the probe printed nothing for %d s"), idle_ms / 1000);
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

/* A measured rate through the one formatter with the reader's conventions
 * ("4.31 TB/s", "180 GFLOP/s"; "4,31 TB/s" in es_ES); "-" when there is
 * none. */
static void fmt_rate(double v, bool flop, char *buf, size_t len) {
    if (!(v > 0) || !isfinite(v))
        snprintf(buf, len, "-");
    else if (flop)
        report_flops(v, buf, len);
    else
        report_bandwidth(v, buf, len);
}

/* A fraction of C or a ratio with `decimals` decimals (significant figures
 * when negative) in the reader's marks ("0.62", "0,62"); "-" when it is not
 * a number. */
static void fmt_fixed(double v, int decimals, char *buf, size_t len) {
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        engine_format_fixed(i18n_numfmt(false), v, decimals, buf, len);
}

/* A count of threads, ranks or hosts: "1 thread" or "2 threads" (one and
 * many take the same forms in English and Spanish). */
static void fmt_many(double n, const char *one, const char *many, char *buf, size_t len) {
    char num[24];
    if (n == 1) {
        snprintf(buf, len, "%s", one);
        return;
    }
    report_int(n, num, sizeof num);
    snprintf(buf, len, many, num);
}

/* A column of the report's tables: its header (a msgid), its width in
 * display cells (widened to the translated header's) and its side. */
struct mcol {
    const char *head;
    int w;
    bool left;
};

/* Widen the columns to their translated headers. */
static void mcol_fit(struct mcol *c, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int hw = i18n_width(_(c[i].head));
        if (hw > c[i].w)
            c[i].w = hw;
    }
}

/* One cell: s padded to the column's display cells (a translation's
 * accents and a figure's no-break space take more bytes than cells). */
static void mcell(const struct mcol *c, const char *s) {
    printf(c->left ? "%-*s" : "%*s", report_pad(s, c->w), s);
}

/* One row of a table: its n cells a space apart; before column flag_at
 * (-1: none) the spread's flag ('!' or ' ') stands for the space. */
static void mrow(const struct mcol *c, int n, const char *const *cells, int flag_at, char flag) {
    for (int k = 0; k < n; k++) {
        if (k)
            putchar(k == flag_at ? flag : ' ');
        mcell(&c[k], cells[k]);
    }
}

/* A table's header line: the translated headers. */
static void mhead(const struct mcol *c, int n) {
    const char *h[16];
    n = n < 16 ? n : 16;
    for (int k = 0; k < n; k++)
        h[k] = _(c[k].head);
    mrow(c, n, h, -1, ' ');
    putchar('\n');
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
    char a[32], mem[32], how[96], line[320];
    bool on_cpu = measure_on_cpu(m);
    int virt = measure_virtual(m);
    enum measure_cpu_kind k = measure_cpu_kind(cpu, virt);
    fmt_rate(probe_json_num(d, "theoretical_bytes_per_s", NAN), false, a, sizeof a);
    report_bytes(probe_json_num(d, "memory_bytes", 0), UNITS_GB, mem, sizeof mem);
    const char *arch = probe_json_str(d, "arch");
    snprintf(how, sizeof how, "%s%s%s", measure_str_or(probe_json_str(d, "backend"), "?"),
             arch ? ", " : "", arch ? arch : "");
    printf(_("device: %s (%s), memory %s, theoretical %s, catalog: %s\n"),
           measure_str_or(probe_json_str(d, "name"), "?"), how, mem, a,
           on_cpu ? (k == MEASURE_CPU_KNOWN || k == MEASURE_CPU_VIRTUAL ? cpu->id
                     : k == MEASURE_CPU_UNKNOWN                       ? _("unknown CPU")
                                                  : _("unknown CPU (virtual machine)"))
                  : (g ? g->id : _("no match")));
    if (!on_cpu || m->n_results == 0)
        return; /* an all-reduce alone: its own header says the rest */
    const char *isa = probe_json_str(d, "isa"), *avail = probe_json_str(d, "isa_available");
    double threads = probe_json_num(d, "compute_units", 0);
    size_t n = 0;
    line[0] = 0;
    if (isa && avail)
        n += (size_t)snprintf(line, sizeof line, _("runs %s (available: %s)"), isa, avail);
    else if (isa)
        n += (size_t)snprintf(line, sizeof line, _("runs %s"), isa);
    else if (avail)
        n += (size_t)snprintf(line, sizeof line, _("available: %s"), avail);
    if (threads > 0 && n < sizeof line) {
        fmt_many(threads, _("1 thread"), _("%s threads"), a, sizeof a);
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", n ? ", " : "", a);
    }
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n, "%s%s", n ? ", " : "",
                 virt == 1   ? _("virtual machine")
                 : virt == 0 ? _("bare metal")
                             : _("virtual machine or not: not said"));
    printf(_("cpu: %s\n"), line);
    if (probe_json_str(d, "isa_note"))
        printf(_("cpu: %s\n"), probe_json_str(d, "isa_note"));
    if (k == MEASURE_CPU_KNOWN) {
        fmt_rate(cpu->bandwidth_bytes_per_s, false, a, sizeof a);
        /* the memory's part name ("DDR5-4800"): a name, not a figure */
        char type[32];
        size_t t = 0;
        for (; cpu->memory_type[t] && t + 1 < sizeof type; t++)
            type[t] = (char)toupper((unsigned char)cpu->memory_type[t]);
        snprintf(type + t, sizeof type - t, "-%.0f", cpu->memory_transfers_per_s / 1e6);
        printf(_("compared with: the %s data sheet, %u x %u-bit %s = %s (catalog %s)\n"),
               cpu->name, cpu->memory_channels, cpu->channel_bits, type, a, cpu->id);
    } else {
        const char *phrase = _(measure_cpu_phrase(k));
        if (k == MEASURE_CPU_VIRTUAL) {
            snprintf(line, sizeof line, _("%s for %s"), phrase, cpu->name);
            phrase = line;
        }
        printf(_("compared with: itself, %s; every rate is a fraction of this CPU's own C\n"),
               phrase);
    }
}

/* The last block on a CPU: per weight width, the kernel that decodes it
 * here, and what calibrating a plan with these figures means. */
static void print_here(const struct measure_run *m, double c) {
    static const struct {
        const char *weights;
        double bits;
        bool bf16;
    } widths[] = {
        {"fp16", 16, false}, {"bf16", 16, true}, {N_("8-bit"), 8, false}, {N_("4-bit"), 4, false}};
    /* the same weights with x in 8 bits: what CPU runtimes run */
    static const struct {
        const char *weights, *test;
    } a8[] = {{N_("8-bit, x 8-bit"), "w8a8"}, {N_("4-bit, x 8-bit"), "w4a8"}};
    struct mcol col[] = {{"", 14, true}, {"", 10, true}, {"", 12, false}};
    char a[32], f[32];
    bool any = false;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        if (i18n_width(_(widths[i].weights)) > col[0].w)
            col[0].w = i18n_width(_(widths[i].weights));
    for (size_t i = 0; i < sizeof a8 / sizeof a8[0]; i++)
        if (i18n_width(_(a8[i].weights)) > col[0].w)
            col[0].w = i18n_width(_(a8[i].weights));
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        bool nearest;
        const char *t = measure_decode_kernel(widths[i].bits, widths[i].bf16, result_has, m, &nearest);
        if (!t)
            continue;
        if (!any)
            fputs(_("\non this machine: the decode kernel of each weight width (a decode step's "
                    "tokens/s ceiling\nis this rate over the bytes a token reads; the Measure pane "
                    "does it for the scenario):\n"),
                  stdout);
        any = true;
        double bw = result_rate(m, t);
        fmt_rate(bw, false, a, sizeof a);
        fputs("  ", stdout);
        mcell(&col[0], _(widths[i].weights));
        putchar(' ');
        mcell(&col[1], t);
        putchar(' ');
        mcell(&col[2], a);
        if (c > 0) {
            fmt_fixed(bw / c, 2, f, sizeof f);
            printf(_("  %s of C"), f);
        }
        printf("%s\n", nearest ? _("  (the nearest measured)") : "");
    }
    for (size_t i = 0; any && i < sizeof a8 / sizeof a8[0]; i++) {
        double bw = result_rate(m, a8[i].test);
        if (!(bw > 0))
            continue;
        fmt_rate(bw, false, a, sizeof a);
        fputs("  ", stdout);
        mcell(&col[0], _(a8[i].weights));
        putchar(' ');
        mcell(&col[1], a8[i].test);
        putchar(' ');
        mcell(&col[2], a);
        if (c > 0) {
            fmt_fixed(bw / c, 2, f, sizeof f);
            printf(_("  %s of C"), f);
        }
        printf("%s\n", _("  (what CPU runtimes run)"));
    }
    if (any)
        fputs(_("These are this CPU's figures: `vramlab plan --measured-bw` takes a figure as the\n"
                "scenario's GPU's and cannot tell where it came from (see vramlab(1)).\n"),
              stdout);
}

/* A latency for a flag ("0.625us"), one the option parser reads back: the
 * C locale's '.', whatever the reader's (LC_NUMERIC stays "C", i18n.h). */
static void flag_seconds(double s, char *buf, size_t len) {
    if (s >= 1e-3)
        snprintf(buf, len, "%.4gms", s * 1e3);
    else
        snprintf(buf, len, "%.4gus", s * 1e6);
}

/* A bandwidth as a flag's value with 4 significant digits ("1.104GB/s"),
 * so the printed flags calibrate as the --json file does (the display's 3
 * digits would round 1.104 to 1.10, 0.4% off); '.' as flag_seconds. */
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
    enum { DTYPE, BYTES, TIME, ALGBW, BUSBW, SPREAD, OK, PRED, PBUS, RATIO, NCOL };
    struct mcol col[NCOL] = {
        {N_("dtype"), 5, true},      {N_("bytes"), 9, false},     {N_("time"), 10, false},
        {N_("algbw"), 11, false},    {N_("busbw"), 11, false},    {N_("spread"), 6, false},
        {N_("ok"), 4, false},        {N_("predicted"), 10, false}, {N_("pred.busbw"), 11, false},
        {N_("ratio"), 6, false},
    };
    struct engine_scenario sc = m->ar_sc;
    char a[32], b[32], c[32], d[32], e[32], f[32], rk[48], hs[48];
    const struct probe_json *r0 = &m->ar[0];
    unsigned ranks = (unsigned)probe_json_num(r0, "ranks", 0),
             hosts = (unsigned)probe_json_num(r0, "hosts", 1);
    const char *tr = measure_str_or(probe_json_str(r0, "transport"), "?");
    bool across = hosts > 1;
    double bw = engine_allreduce_bandwidth(&sc, across);
    mcol_fit(col, NCOL);
    if (m->n_results || m->n_lab)
        putchar('\n');
    fmt_many(ranks, _("1 rank"), _("%s ranks"), rk, sizeof rk);
    fmt_many(hosts, _("1 host"), _("%s hosts"), hs, sizeof hs);
    printf(_("all-reduce over %s on %s (%s); every sum checked on every rank\n"), rk, hs, tr);
    report_bandwidth(bw, a, sizeof a);
    report_seconds(sc.allreduce_latency_s, b, sizeof b);
    char how[160];
    if (across)
        snprintf(how, sizeof how, "%s", _("--inter-node-bw, per GPU across nodes"));
    else if (sc.gpu.link_bytes_per_s > 0)
        snprintf(how, sizeof how, _("%s's link %s both ways, halved"), sc.gpu.id,
                 (report_bandwidth(sc.gpu.link_bytes_per_s, c, sizeof c), c));
    else
        snprintf(how, sizeof how, "%s", _("no GPU link known: the inter-node figure"));
    printf(_("predicted: the engine's ring model t = 2(n-1)/n x bytes / BW + latency,\n"
             "BW = %s one way (%s), latency %s\n"),
           a, how, b);
    putchar('\n');
    mhead(col, NCOL);
    for (size_t i = 0; i < m->n_ar; i++) {
        const struct probe_json *r = &m->ar[i];
        double bytes = probe_json_num(r, "bytes", NAN), t = probe_json_num(r, "seconds", NAN);
        double pt = measure_ar_predicted_seconds(&sc, bytes, ranks, hosts);
        double pb = measure_ar_predicted_busbw(&sc, bytes, ranks, hosts);
        double busbw = probe_json_num(r, "busbw_bytes_per_s", NAN);
        char sp[32], ratio[32] = "-";
        report_bytes(bytes, UNITS_GIB, a, sizeof a);
        report_seconds(t, b, sizeof b);
        report_bandwidth(probe_json_num(r, "algbw_bytes_per_s", NAN), c, sizeof c);
        report_bandwidth(busbw, d, sizeof d);
        report_seconds(pt, e, sizeof e);
        report_bandwidth(pb, f, sizeof f);
        report_percent(probe_json_num(r, "spread", NAN), sp, sizeof sp);
        if (pb > 0 && busbw > 0)
            fmt_fixed(busbw / pb, busbw / pb >= 0.1 ? 2 : -2, ratio, sizeof ratio);
        const char *cells[NCOL] = {
            measure_str_or(probe_json_str(r, "dtype"), "?"),
            a,
            b,
            c,
            d,
            sp,
            probe_json_bool(r, "verified", false) ? _("yes") : _("NO"),
            pt > 0 ? e : "-",
            pb > 0 ? f : "-",
            ratio,
        };
        mrow(col, NCOL, cells, OK, probe_json_bool(r, "flagged", false) ? '!' : ' ');
        putchar('\n');
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
            printf(_("note: %s\n"), note);
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
        report_int(ft->points, e, sizeof e);
        if (!ft->valid) {
            printf(_("fit %s: no bandwidth (the times did not grow with the size over %s "
                     "sizes)\n"),
                   ft->dtype, e);
            continue;
        }
        report_seconds(ft->alpha_s, a, sizeof a);
        report_bandwidth(ft->beta_bytes_per_s, b, sizeof b);
        report_bandwidth(ft->bus_beta_bytes_per_s, c, sizeof c);
        report_percent(ft->residual, d, sizeof d);
        printf(_("fit %s: t = %s + bytes / %s (link %s = beta x 2(n-1)/n), residual %s over %s "
                 "sizes\n"),
               ft->dtype, a, b, c, d, e);
    }
    const struct measure_ar_fit *pick = measure_ar_pick(fits, nf);
    if (pick && pick->valid) {
        /* the command stays as plan reads it, in any language */
        char cmd[160];
        double link = pick->bus_beta_bytes_per_s;
        flag_bandwidth(across ? link : 2 * link, a, sizeof a);
        flag_seconds(pick->alpha_s, b, sizeof b);
        snprintf(cmd, sizeof cmd, "vramlab plan --%s %s --allreduce-latency %s",
                 across ? "inter-node-bw" : "intra-node-bw", a, b);
        printf(_("calibrate (the %s fit): %s\n"), pick->dtype, cmd);
        if (!across)
            fputs(_("  (intra-node figures are both directions: 2 x the link)\n"), stdout);
        fputs(_("  or save this with --json and give plan --measured-allreduce FILE\n"), stdout);
    }
    printf(_("\nbusbw = algbw x 2(n-1)/n, algbw = bytes / t (nccl-tests); ratio = measured busbw / "
             "predicted;\n'!' marks a spread over 5%%.\n"));
}

/* The human report, in the reader's language and numbers (gettext, the
 * one formatter); the calibrate flags, test ids and ISA names as given. */
static void measure_print_text(const struct measure_run *m, const struct engine_gpu *g,
                               const struct catalog_cpu *cpu) {
    enum { TEST, VARIANT, MEAS, BEST, SPREAD, OK, PRED, RATIO, OFC, ROOF, NCOL };
    struct mcol col[NCOL] = {
        {N_("test"), 11, true},       {N_("variant"), 22, true}, {N_("measured"), 12, false},
        {N_("best"), 12, false},      {N_("spread"), 7, false},  {N_("ok"), 4, false},
        {N_("predicted"), 12, false}, {N_("ratio"), 6, false},   {N_("of C"), 6, false},
        {N_("of roof"), 7, false},
    };
    char a[32], b[32], p[32], v[48];
    bool on_cpu = measure_on_cpu(m);
    int ncol = on_cpu ? NCOL : ROOF;
    const struct catalog_cpu *sheet =
        on_cpu && measure_cpu_kind(cpu, measure_virtual(m)) == MEASURE_CPU_KNOWN ? cpu : NULL;
    double c = measure_copy_c(m), peak = on_cpu ? measure_fma_peak(m) : NAN;
    mcol_fit(col, NCOL);
    if (m->have_device)
        print_device(m, g, cpu);
    if (m->n_results) {
        fmt_rate(c, false, a, sizeof a);
        printf(_("C (measured copy, read + write) = %s\n"), a);
        if (peak > 0) {
            fmt_rate(peak, true, a, sizeof a);
            printf(_("FMA peak (fma-peak, all threads) = %s: the roofline is min(FMA peak, C x "
                     "FLOP/byte)"),
                   a);
            if (c > 0) {
                engine_format(i18n_numfmt(false), ENGINE_UNIT_FLOP_PER_BYTE, peak / c, b,
                              sizeof b);
                printf(_(", ridge %s"), b);
            }
            putchar('\n');
        }
        putchar('\n');
        mhead(col, ncol);
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
        fmt_rate(meas, is_flop, a, sizeof a);
        fmt_rate(best, is_flop, b, sizeof b);
        fmt_rate(pred, is_flop, p, sizeof p);
        variant(r, v, sizeof v);
        char sp[32], ratio[32] = "-", ofc[32] = "-", roof[32] = "-";
        report_percent(probe_json_num(r, "spread", NAN), sp, sizeof sp);
        if (pred > 0)
            fmt_fixed(meas / pred, 2, ratio, sizeof ratio);
        if (!is_flop && c > 0)
            fmt_fixed(meas / c, 2, ofc, sizeof ofc);
        if (on_cpu) {
            double flop = probe_json_num(r, "flop", NAN), bytes = probe_json_num(r, "bytes", NAN);
            double fps = probe_json_num(r, "flop_per_s", NAN);
            /* batch > 1: where a CPU turns compute bound (batch 1 is its
             * fraction of C again) */
            double rf = !is_flop && flop > 0 && bytes > 0 && probe_json_num(r, "batch", 0) > 1
                            ? measure_roofline(peak, c, flop / bytes)
                            : NAN;
            if (rf > 0 && fps > 0)
                fmt_fixed(fps / rf, 2, roof, sizeof roof);
        }
        /* a working set under 4x the device's cache is (partly) a cache figure */
        double cache = m->have_device ? probe_json_num(&m->device, "l2_bytes", 0) : 0;
        double ws = probe_json_num(r, "bytes", 0);
        bool in_cache = cache > 0 && ws > 0 && ws < 4 * cache;
        const char *cells[NCOL] = {
            measure_str_or(probe_json_str(r, "test"), "?"),
            v,
            a,
            b,
            sp,
            probe_json_bool(r, "verified", false) ? _("yes") : _("NO"),
            p,
            ratio,
            ofc,
            roof,
        };
        mrow(col, ncol, cells, OK, probe_json_bool(r, "flagged", false) ? '!' : ' ');
        if (in_cache)
            printf("  %s", _("in cache"));
        putchar('\n');
    }
    /* the copy against the STREAM-style loop the probe ran beside it */
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        const char *t = probe_json_str(r, "test");
        double ref = probe_json_num(r, "reference_bytes_per_s", NAN);
        if (t && !strcmp(t, "copy") && ref > 0) {
            char th[48], q[32];
            fmt_rate(probe_json_num(r, "bytes_per_s", NAN), false, a, sizeof a);
            fmt_rate(ref, false, b, sizeof b);
            fmt_many(probe_json_num(r, "threads", 0), _("1 thread"), _("%s threads"), th,
                     sizeof th);
            fmt_fixed(probe_json_num(r, "bytes_per_s", NAN) / ref, 2, q, sizeof q);
            printf(_("copy with %s / a STREAM-style copy in the same run: %s / %s = %s\n"), th, a,
                   b, q);
        }
    }
    for (size_t i = 0; i < m->n_results; i++) {
        char note[160];
        measure_result_note(&m->results[i], note, sizeof note);
        if (*note) {
            variant(&m->results[i], v, sizeof v);
            printf(_("note, %s %s: %s\n"),
                   measure_str_or(probe_json_str(&m->results[i], "test"), "?"), v, note);
        }
    }
    if (m->n_lab) {
        enum { BITS, GROUP, WEIGHTS, RELERR, ZEROS, MAXSTD, NLAB };
        struct mcol lab[NLAB] = {
            {N_("bits"), 5, true},      {N_("group"), 7, true}, {N_("weights"), 9, true},
            {N_("rel.err"), 10, false}, {N_("zeros"), 7, false}, {N_("max/std"), 8, false},
        };
        mcol_fit(lab, NLAB);
        fputs(_("\nerror lab (relative error ||w - w_hat|| / ||w||, zero codes):\n"), stdout);
        mhead(lab, NLAB);
        for (size_t i = 0; i < m->n_lab; i++) {
            const struct probe_json *r = &m->lab[i];
            const struct probe_json_field *gf = probe_json_get(r, "group");
            char bits[32], grp[PROBE_CLIENT_STR], err[32], zeros[32], mx[32];
            if (gf && gf->type == PROBE_JSON_NUM)
                report_int(gf->num, grp, sizeof grp);
            else
                snprintf(grp, sizeof grp, "%s", gf && gf->type == PROBE_JSON_STR ? gf->str : "?");
            report_value(probe_json_num(r, "bits", 0), ENGINE_UNIT_PLAIN, UNITS_GB, bits,
                         sizeof bits);
            fmt_fixed(probe_json_num(r, "relative_error", NAN), 4, err, sizeof err);
            report_percent(probe_json_num(r, "zero_fraction", NAN), zeros, sizeof zeros);
            fmt_fixed(probe_json_num(r, "outlier_ratio", NAN), 1, mx, sizeof mx);
            const char *cells[NLAB] = {bits, grp, measure_str_or(probe_json_str(r, "weights"), "?"),
                                       err,  zeros, mx};
            mrow(lab, NLAB, cells, -1, ' ');
            putchar('\n');
        }
    }
    for (size_t i = 0; i < m->n_skips; i++)
        printf(_("skipped %s: %s\n"), measure_str_or(probe_json_str(&m->skips[i], "test"), "?"),
               measure_str_or(probe_json_str(&m->skips[i], "reason"), ""));
    if (on_cpu && m->n_results)
        print_here(m, c);
    if (m->n_ar)
        print_allreduce(m);
    if (m->n_results) {
        if (on_cpu)
            printf(_("\n'!' marks a spread over 5%%; ratio = measured / the catalog CPU's data "
                     "sheet\n(none for a virtual machine or an unknown CPU); of C = fraction of "
                     "the measured copy bandwidth;\nin cache = a working set under 4x the "
                     "device's cache (L2 or last level);\nof roof = FLOP/s over this CPU's "
                     "roofline min(FMA peak, C x FLOP/byte), at batch > 1.\n"));
        else
            printf(_("\n'!' marks a spread over 5%%; ratio = measured / catalog prediction; of C "
                     "= fraction of the measured copy bandwidth;\nin cache = a working set under "
                     "4x the device's cache (L2 or last level).\n"));
        if (on_cpu && (result_has("w8a8", m) || result_has("w4a8", m)))
            fputs(_("w8a8, w4a8: the w8a16, w4a16 weights with x quantized to 8 bits per block "
                    "of 32 and\ninteger dot products (what llama.cpp and the other CPU runtimes "
                    "run); w8a16, w4a16\nkeep x in 16 bits.\n"),
                  stdout);
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
        fprintf(stderr, _("vramlab measure: not saved for --device cpu: %s\n"), err);
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
        snprintf(uerr, sizeof uerr, "%s", _("too many options"));
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
            fprintf(stderr, "vramlab measure: %s\n", _("too many options"));
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
            if (nw)
                fprintf(stderr,
                        _("vramlab measure: --mpirun: cannot find the launcher '%s' (not in "
                          "$PATH)\n"),
                        full[0]);
            else
                fprintf(stderr, "%s",
                        _("vramlab measure: --mpirun: expected a launcher like 'mpirun -n 4'\n"));
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
        fprintf(stderr, _("vramlab measure: stopped by %s; the probe was stopped too\n"),
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
        measure_fail(m, N_("the probe exited with status %d"), status);
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
        const char *msg = measure_error_text(m);
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
