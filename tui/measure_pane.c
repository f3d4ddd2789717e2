/*
 * measure_pane.c: the probe behind the Measure pane and the pane's keys
 * (see measure_pane.h). Nothing here draws; tui/draw_measure.c paints
 * st->measure.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/cpu_device.h"
#include "tui/i18n.h"
#include "tui/measure_model.h"
#include "tui/measure_pane.h"
#include "tui/save_file.h"

/* The tests the pane runs, in the probe's order (the quick sizes): on a
 * GPU the GEMM sweep, on the CPU its peak FMA rate (its roofline's roof)
 * and the quantized GEMVs both ways, x in 16 bits (what W8A16 / W4A16
 * mean) and in 8 (W8A8 / W4A8: what CPU runtimes run); MPANE_TESTS_CPU_A16
 * for a probe without the A8 tests, MPANE_TESTS_CPU_OLD for one that does
 * not know fma-peak yet. */
#define MPANE_TESTS         "copy,read,gemv-fp16,gemm,w8a16,w4a16,error"
#define MPANE_TESTS_CPU     "copy,read,fma-peak,gemv-fp16,w8a16,w4a16,w8a8,w4a8,error"
#define MPANE_TESTS_CPU_A16 "copy,read,fma-peak,gemv-fp16,w8a16,w4a16,error"
#define MPANE_TESTS_CPU_OLD "copy,read,gemv-fp16,w8a16,w4a16,error"
#define MPANE_TESTS_AR      "allreduce" /* x: with --quick, 8 B to 64 MiB */

/* The compact layout has no Measure pane: the status line says how the
 * run went. */
static void mpane_say(struct tui_state *st) {
    const struct tui_measure *m = &st->measure;
    if (!st->compact)
        return;
    if (m->status == TUI_MEASURE_RUNNING)
        snprintf(st->message, sizeof(st->message), "%s",
                 _("measuring (Esc cancels); 80x24 or more shows the Measure pane"));
    else if (m->status == TUI_MEASURE_FAILED)
        snprintf(st->message, sizeof(st->message), _("measure: %.130s"), m->error);
    else
        snprintf(st->message, sizeof(st->message), "%s",
                 _("measured; 80x24 or more shows the Measure pane"));
}

/* Start the probe on a device ("cuda" or "cpu") with a test list;
 * failures land in the pane. */
static void mpane_start(struct tui_mpane *mp, struct tui_state *st, const char *device,
                        const char *tests) {
    const char *args[] = {"--device", device, "--quick", "--tests", tests, NULL};
    struct tui_measure *m = &st->measure;
    char path[512], err[256], list[128];
    m->start_request = m->cancel_request = false;
    tui_measure_clear(m);
    m->note[0] = '\0'; /* a fallback to the CPU says so after this */
    measure_run_free(&mp->run);
    mp->on_cpu = strcmp(device, "cpu") == 0;
    mp->with_fma = strstr(tests, "fma-peak") != NULL;
    mp->with_a8 = strstr(tests, "w8a8") != NULL;
    mp->retry_old = mp->retry_a16 = false;
    mp->got_data = false;
    mp->ar_run = strcmp(tests, MPANE_TESTS_AR) == 0;
    if (mp->ar_run) {
        tui_measure_ar_clear(m);
        m->ar_view = true;
        m->lab_view = false;
    }
    /* one bar per test of the list */
    snprintf(list, sizeof(list), "%s", tests);
    m->n_bars = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t && m->n_bars < TUI_MEASURE_TESTS;
         t = strtok_r(NULL, ",", &save)) {
        snprintf(m->bars[m->n_bars].test, sizeof(m->bars[0].test), "%s", t);
        m->bars[m->n_bars++].fraction = 0;
    }
    if (probe_client_find(path, sizeof(path), err, sizeof(err)) != 0 ||
        probe_client_start(&mp->pc, path, args, err, sizeof(err)) != 0) {
        snprintf(m->error, sizeof(m->error), "%.150s", err);
        m->status = TUI_MEASURE_FAILED;
        return;
    }
    mp->running = true;
    m->status = TUI_MEASURE_RUNNING;
    mpane_say(st);
}

static void mpane_rt_start(struct tui_mpane *mp, struct tui_state *st);

/* Whether an error event means "no GPU here" (then the CPU is measured). */
static bool mpane_no_gpu(const struct probe_event *ev) {
    static const char *const codes[] = {"no-cuda", "no-driver", "no-device", "driver-too-old"};
    const char *c = probe_json_str(&ev->j, "code");
    for (size_t i = 0; c && i < sizeof(codes) / sizeof(codes[0]); i++)
        if (strcmp(c, codes[i]) == 0)
            return true;
    return false;
}

/* A CPU run, saved for --device cpu (tui/cpu_device.c): the same object
 * as `vramlab measure --json`. */
static void mpane_save_cpu(struct tui_mpane *mp, struct tui_state *st) {
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    measure_run_json(f, &mp->run, st->measure.match, st->measure.cpu);
    if (fclose(f) == 0 && cpu_device_save(buf, len, err, sizeof(err)) != 0)
        snprintf(st->measure.note, sizeof(st->measure.note), _("not saved for --device cpu: %.100s"),
                 err);
    free(buf);
}

/* Read what the probe wrote; at EOF reap it and settle the status. */
static unsigned mpane_read(struct tui_mpane *mp, struct tui_state *st) {
    static struct probe_event ev; /* 8 KB lines: not on the stack */
    struct tui_measure *m = &st->measure;
    unsigned dirty = 0;
    /* Take the complete lines before each read: reading on with a full
     * buffer would drop it as one overlong line. */
    for (bool more = true; more;) {
        while (probe_client_next(&mp->pc, &ev) > 0) {
            dirty = TUI_DIRTY_REPAINT;
            if (ev.kind == PROBE_EV_ERROR && !mp->on_cpu && !mp->got_data && mpane_no_gpu(&ev)) {
                mp->fallback = true; /* no GPU: measure the CPU instead */
                continue;
            }
            if (ev.kind == PROBE_EV_ERROR && mp->on_cpu && mp->with_fma && !mp->got_data &&
                measure_str_or(probe_json_str(&ev.j, "code"), "")[0] &&
                strcmp(probe_json_str(&ev.j, "code"), "usage") == 0 &&
                strstr(measure_str_or(probe_json_str(&ev.j, "message"), ""), "fma-peak")) {
                mp->retry_old = true; /* an older probe: the same run without fma-peak */
                continue;
            }
            if (ev.kind == PROBE_EV_ERROR && mp->on_cpu && mp->with_a8 && !mp->got_data &&
                measure_str_or(probe_json_str(&ev.j, "code"), "")[0] &&
                strcmp(probe_json_str(&ev.j, "code"), "usage") == 0 &&
                strstr(measure_str_or(probe_json_str(&ev.j, "message"), ""), "w8a8")) {
                mp->retry_a16 = true; /* a probe before W8A8 / W4A8: without them */
                continue;
            }
            if (ev.kind == PROBE_EV_RESULT)
                mp->got_data = true;
            measure_run_take(&mp->run, &ev);
            tui_measure_take(m, &ev, st->cat);
        }
        more = !mp->pc.eof && probe_client_read(&mp->pc) > 0;
    }
    while (mp->pc.eof && probe_client_next(&mp->pc, &ev) > 0) {
        measure_run_take(&mp->run, &ev); /* a truncated last line */
        tui_measure_take(m, &ev, st->cat);
    }
    if (!mp->pc.eof)
        return dirty;
    int rc = probe_client_finish(&mp->pc);
    mp->running = false;
    if (mp->fallback) {
        mp->fallback = false;
        bool ar = mp->ar_run;
        mpane_start(mp, st, "cpu", ar ? MPANE_TESTS_AR : MPANE_TESTS_CPU);
        snprintf(m->note, sizeof(m->note), "%s", _("no GPU found: measuring the CPU"));
        return TUI_DIRTY_REPAINT;
    }
    if (mp->retry_a16) {
        mpane_start(mp, st, "cpu", MPANE_TESTS_CPU_A16);
        snprintf(m->note, sizeof(m->note), "%s",
                 _("this probe has no W8A8 test: measuring with x in 16 bits only"));
        return TUI_DIRTY_REPAINT;
    }
    if (mp->retry_old) {
        mpane_start(mp, st, "cpu", MPANE_TESTS_CPU_OLD);
        snprintf(m->note, sizeof(m->note), "%s",
                 _("this probe has no fma-peak test: measuring without the CPU's FLOP peak"));
        return TUI_DIRTY_REPAINT;
    }
    if (rc == 0 && !m->error[0] && (m->n_rows > 0 || m->n_lab > 0 || m->ar.n > 0)) {
        m->status = TUI_MEASURE_DONE;
        if (mp->on_cpu && !mp->ar_run)
            mpane_save_cpu(mp, st); /* for --device cpu and the GPU picker */
        const char *url = getenv("VRAMLAB_BENCH_URL");
        if (!mp->ar_run && url && *url)
            mpane_rt_start(mp, st); /* then the server, as r would */
    } else {
        m->status = TUI_MEASURE_FAILED;
        if (!m->error[0])
            snprintf(m->error, sizeof(m->error), _("the probe exited with status %d"), rc);
    }
    mpane_say(st);
    return TUI_DIRTY_REPAINT;
}

static unsigned mpane_poll_probe(struct tui_mpane *mp, struct tui_state *st);

/* ---- the runtime row: vramlab bench --events in a child ------------------ */

/* Start the bench of the server at m->rt.url (or $VRAMLAB_BENCH_URL). */
static void mpane_rt_start(struct tui_mpane *mp, struct tui_state *st) {
    struct tui_measure_runtime *rt = &st->measure.rt;
    const char *url = getenv("VRAMLAB_BENCH_URL");
    char self[1024], err[256];
    if (mp->rt_running)
        return;
    if (!url || !*url) {
        snprintf(st->measure.note, sizeof(st->measure.note), "%s",
                 _("r: start vramlab with VRAMLAB_BENCH_URL=http://HOST:PORT of a running "
                   "server (llama-server, vLLM, Ollama)"));
        return;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        snprintf(rt->error, sizeof(rt->error), "%s", _("cannot find this program to run bench"));
        rt->status = TUI_MEASURE_FAILED;
        return;
    }
    self[n] = '\0';
    memset(rt, 0, sizeof(*rt));
    snprintf(rt->url, sizeof(rt->url), "%s", url);
    /* a short load: one request at a time, the prediction for the
     * scenario's GPU */
    const char *args[16] = {"bench", "--events", "--url", rt->url, "--concurrency", "1",
                            "--repetitions", "2", "--warmup", "1", "--prompt", "64",
                            "--max-tokens", "32"};
    int k = 14;
    char gpu[ENGINE_ID_MAX + 8];
    if (st->opt.sc.gpu.cpu) { /* this machine's CPU: its saved rates */
        args[k++] = "--device=cpu";
    } else if (!st->opt.gpu_custom && st->opt.sc.gpu.id[0]) {
        snprintf(gpu, sizeof(gpu), "--gpu=%s", st->opt.sc.gpu.id);
        args[k++] = gpu;
    }
    args[k] = NULL;
    if (probe_client_start(&mp->rtc, self, args, err, sizeof(err)) != 0) {
        snprintf(rt->error, sizeof(rt->error), "%.150s", err);
        rt->status = TUI_MEASURE_FAILED;
        return;
    }
    mp->rt_running = true;
    rt->status = TUI_MEASURE_RUNNING;
}

/* Read the bench's lines; at its end settle the row. */
static unsigned mpane_rt_read(struct tui_mpane *mp, struct tui_state *st) {
    static struct probe_event ev;
    struct tui_measure_runtime *rt = &st->measure.rt;
    unsigned dirty = 0;
    for (bool more = true; more;) {
        while (probe_client_next(&mp->rtc, &ev) > 0) {
            dirty = TUI_DIRTY_REPAINT;
            const struct probe_json *j = &ev.j;
            if (ev.kind == PROBE_EV_PROGRESS) {
                rt->fraction = probe_json_num(j, "fraction", rt->fraction);
            } else if (ev.kind == PROBE_EV_RESULT && probe_json_num(j, "concurrency", 0) == 1) {
                snprintf(rt->server_model, sizeof(rt->server_model), "%s",
                         measure_str_or(probe_json_str(j, "server_model"), "?"));
                snprintf(rt->model, sizeof(rt->model), "%s",
                         measure_str_or(probe_json_str(j, "model"), "?"));
                snprintf(rt->device, sizeof(rt->device), "%s",
                         measure_str_or(probe_json_str(j, "device"), "?"));
                snprintf(rt->runtime, sizeof(rt->runtime), "%s",
                         measure_str_or(probe_json_str(j, "runtime"), "?"));
                rt->ttft_s = probe_json_num(j, "ttft_s", NAN);
                rt->predicted_ttft_s = probe_json_num(j, "predicted_ttft_s", NAN);
                rt->decode = probe_json_num(j, "decode_tokens_per_s", NAN);
                rt->predicted_decode = probe_json_num(j, "predicted_decode_tokens_per_s", NAN);
            } else if (ev.kind == PROBE_EV_ERROR) {
                snprintf(rt->error, sizeof(rt->error), "%.150s",
                         measure_str_or(probe_json_str(j, "message"), "?"));
            }
        }
        more = !mp->rtc.eof && probe_client_read(&mp->rtc) > 0;
    }
    if (!mp->rtc.eof)
        return dirty;
    int rc = probe_client_finish(&mp->rtc);
    mp->rt_running = false;
    if (rt->error[0] || !isfinite(rt->decode)) {
        if (!rt->error[0])
            snprintf(rt->error, sizeof(rt->error), _("vramlab bench exited with status %d"), rc);
        rt->status = TUI_MEASURE_FAILED;
    } else {
        rt->status = TUI_MEASURE_DONE;
    }
    return TUI_DIRTY_REPAINT;
}

/* Start, cancel and read the probe as st->measure asks. */
unsigned tui_mpane_poll(struct tui_mpane *mp, struct tui_state *st) {
    unsigned dirty = 0;
    if (mp->rt_running && st->measure.cancel_request && !mp->running) {
        probe_client_cancel(&mp->rtc, 200);
        mp->rt_running = false;
        st->measure.cancel_request = false;
        st->measure.rt.status = TUI_MEASURE_FAILED;
        snprintf(st->measure.rt.error, sizeof(st->measure.rt.error), "%s",
                 _("cancelled (r measures again)"));
        return TUI_DIRTY_REPAINT;
    }
    if (mp->rt_running)
        dirty |= mpane_rt_read(mp, st);
    return dirty | mpane_poll_probe(mp, st);
}

/* Start, cancel and read the probe as st->measure asks. */
static unsigned mpane_poll_probe(struct tui_mpane *mp, struct tui_state *st) {
    struct tui_measure *m = &st->measure;
    if (tui_measure_recheck_calibration(m, &st->opt.sc)) {
        snprintf(st->message, sizeof(st->message), "%s", m->note);
        return TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
    }
    if (m->start_request && !mp->running) {
        m->ar_view = false;
        mpane_start(mp, st, "cuda", MPANE_TESTS);
        return TUI_DIRTY_REPAINT;
    }
    if (!mp->running)
        return 0;
    if (m->cancel_request) {
        probe_client_cancel(&mp->pc, 200);
        mp->running = false;
        m->cancel_request = false;
        m->status = TUI_MEASURE_FAILED;
        snprintf(m->error, sizeof(m->error), "%s", _("cancelled (m measures again)"));
        mpane_say(st);
        return TUI_DIRTY_REPAINT;
    }
    return mpane_read(mp, st);
}

/* Stop a running probe and free the run. */
void tui_mpane_stop(struct tui_mpane *mp) {
    if (mp->running)
        probe_client_cancel(&mp->pc, 200);
    mp->running = false;
    if (mp->rt_running)
        probe_client_cancel(&mp->rtc, 200);
    mp->rt_running = false;
    measure_run_free(&mp->run);
}

/* Write the run as JSON to path (see measure_pane.h; the writing itself
 * is save_file's: links followed, FIFOs and devices refused). */
int tui_mpane_save(const struct measure_run *run, const struct engine_gpu *g,
                   const struct catalog_cpu *cpu, const char *path, bool overwrite, char *err,
                   size_t errlen) {
    char *text = NULL, why[1024];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    measure_run_json(f, run, g, cpu);
    if (fclose(f) != 0) {
        free(text);
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        return -1;
    }
    int rc = save_file(path, text, len, overwrite, 0666, why, sizeof(why));
    free(text);
    if (rc == SAVE_FILE_EXISTS)
        return 1;
    if (rc != SAVE_FILE_OK) {
        why[strcspn(why, "\n")] = '\0';
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

/* w (and y to confirm): save the results. */
static unsigned mpane_write(struct tui_mpane *mp, struct tui_state *st, bool overwrite) {
    struct tui_measure *m = &st->measure;
    char err[256];
    m->confirm_save = false;
    if (!mp->run.have_device && mp->run.n_results == 0 && mp->run.n_lab == 0) {
        snprintf(m->note, sizeof(m->note), "%s", _("nothing to save yet: m runs the probe"));
        return TUI_DIRTY_REPAINT;
    }
    /* the ring model beside an all-reduce: the scenario's, as the pane shows */
    mp->run.ar_sc = st->opt.sc;
    mp->run.have_ar_sc = true;
    int rc = tui_mpane_save(&mp->run, m->match, m->cpu, TUI_MEASURE_FILE, overwrite, err,
                            sizeof(err));
    if (rc == 1) {
        m->confirm_save = true;
        snprintf(m->note, sizeof(m->note), _("%s exists: y replaces it, any other key keeps it"),
                 TUI_MEASURE_FILE);
    } else if (rc == 0) {
        snprintf(m->note, sizeof(m->note), _("saved %s (the `vramlab measure --json` object)"),
                 TUI_MEASURE_FILE);
    } else {
        snprintf(m->note, sizeof(m->note), _("not saved: %.120s"), err);
    }
    return TUI_DIRTY_REPAINT;
}

/* The pane's keys. */
bool tui_mpane_key(struct tui_mpane *mp, struct tui_state *st, int key, unsigned *dirty) {
    struct tui_measure *m = &st->measure;
    *dirty = 0;
    if (m->confirm_calibrate) { /* the answer to "apply X's figures to Y?" */
        *dirty = tui_measure_confirm(m, &st->opt.sc, key == 'y')
                     ? TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT
                     : TUI_DIRTY_REPAINT;
        return true;
    }
    if (m->confirm_save) { /* the answer to "exists: y replaces it" */
        if (key == 'y') {
            *dirty = mpane_write(mp, st, true);
        } else {
            m->confirm_save = false;
            snprintf(m->note, sizeof(m->note), _("kept %s"), TUI_MEASURE_FILE);
            *dirty = TUI_DIRTY_REPAINT;
        }
        return true;
    }
    if (st->focus_pane != TUI_PANE_MEASURE || st->overlay != TUI_OVERLAY_NONE || st->compact ||
        st->lx.prompt != TUI_PROMPT_NONE)
        return false;
    switch (key) {
    case 'a':
        if (m->ar_view ? tui_measure_toggle_ar_calibration(m, &st->opt.sc)
                       : tui_measure_toggle_calibration(m, &st->opt.sc))
            *dirty = TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
        else
            *dirty = TUI_DIRTY_REPAINT;
        return true;
    case 'w':
        *dirty = mpane_write(mp, st, false);
        return true;
    case 'v':
        /* rates, error lab, then the all-reduce when there is one */
        if (m->ar_view) {
            m->ar_view = false;
        } else if (m->lab_view) {
            m->lab_view = false;
            m->ar_view = m->ar.n > 0;
        } else {
            m->lab_view = true;
        }
        *dirty = TUI_DIRTY_REPAINT;
        return true;
    case 'r':
        mpane_rt_start(mp, st);
        *dirty = TUI_DIRTY_REPAINT;
        return true;
    case 'x':
        if (!mp->running) {
            mpane_start(mp, st, "cuda", MPANE_TESTS_AR);
            *dirty = TUI_DIRTY_REPAINT;
        }
        return true;
    default:
        return false;
    }
}
