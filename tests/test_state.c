/*
 * test_state.c: the explorer's key handling on the state machine alone, no
 * screen: focus order, stepping only to valid layouts (with the reason for
 * skipped values), PP up to the layers, pickers with filters, overlays, mode and units, and a
 * random key storm that must never reach an invalid layout.
 *
 * The catalog is built here by hand (three models, three formats, two
 * GPUs) so the tests do not depend on the shipped data's order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/line_edit.h"
#include "tui/state.h"

static struct engine_model models[3];
static struct engine_format formats[7];
static struct engine_gpu gpus[2];
static struct catalog cat;
static struct tui_state st;

/* A model with an architecture. */
static void model(struct engine_model *m, const char *id, const char *name, uint32_t layers,
                  uint32_t hidden, uint32_t heads, uint32_t kv, uint32_t ffn) {
    memset(m, 0, sizeof(*m));
    snprintf(m->id, sizeof(m->id), "%s", id);
    snprintf(m->name, sizeof(m->name), "%s", name);
    m->has_arch = true;
    m->layers = layers;
    m->hidden = hidden;
    m->heads = heads;
    m->kv_heads = kv;
    m->head_dim = hidden / heads;
    m->ffn = ffn;
    m->vocab = 128256;
    m->gated = true;
    m->max_context = 131072;
}

/* A format: bits, group, scale bits. */
static void format(struct engine_format *f, const char *id, const char *name, double bits,
                   uint32_t block, double scale) {
    memset(f, 0, sizeof(*f));
    snprintf(f->id, sizeof(f->id), "%s", id);
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->kind = block ? ENGINE_FMT_BLOCK : ENGINE_FMT_FLOAT;
    f->bits = bits;
    f->block = block;
    f->scale_bits = scale;
    f->compute = ENGINE_COMPUTE_FP16;
}

/* A GPU: memory in GiB, bandwidth, FP16 FLOP/s. */
static void gpu(struct engine_gpu *g, const char *id, const char *name, double gib, double bw,
                double flops) {
    memset(g, 0, sizeof(*g));
    snprintf(g->id, sizeof(g->id), "%s", id);
    snprintf(g->name, sizeof(g->name), "%s", name);
    g->memory_bytes = gib * 1073741824.0;
    g->bandwidth_bytes_per_s = bw;
    for (int c = 0; c < ENGINE_COMPUTE_COUNT; c++)
        g->flops[c] = flops;
    g->link_bytes_per_s = 450e9;
    g->gpus_per_node = 8;
    g->price_per_hour = 2.5;
}

/* The hand-built catalog and a state on its defaults. */
static void setup(void) {
    memset(&cat, 0, sizeof(cat));
    model(&models[0], "llama-3.1-8b", "Llama 3.1 8B", 32, 4096, 32, 8, 14336);
    model(&models[1], "llama-3.1-70b", "Llama 3.1 70B", 80, 8192, 64, 8, 28672);
    model(&models[2], "odd-24", "Odd 24 heads", 30, 3072, 24, 8, 8192);
    format(&formats[0], "fp16", "FP16", 16, 0, 0);
    format(&formats[1], "int8", "INT8", 8, 0, 0);
    format(&formats[2], "int4", "INT4", 4, 32, 16);
    format(&formats[3], "nf4", "NF4", 4, 64, 8);
    format(&formats[4], "int4-kv", "INT4 (KV cache, g32)", 4, 32, 16);
    format(&formats[5], "fp8-e4m3", "FP8 E4M3", 8, 0, 0);
    formats[5].compute = ENGINE_COMPUTE_FP8;
    format(&formats[6], "q8-0", "GGUF Q8_0", 8, 32, 16);
    gpu(&gpus[0], "h100-sxm", "H100 SXM", 80, 3.35e12, 989e12);
    gpu(&gpus[1], "a100-40", "A100 40GB", 40, 1.555e12, 312e12);
    cat.models = models;
    cat.n_models = 3;
    cat.formats = formats;
    cat.n_formats = 7;
    cat.gpus = gpus;
    cat.n_gpus = 2;

    struct options o;
    memset(&o, 0, sizeof(o));
    engine_scenario_defaults(&o.sc);
    tui_state_init(&st, &o, &cat);
}

/* Press a key and recompute when asked, as the loop does. */
static unsigned press(int key) {
    unsigned d = tui_state_key(&st, key);
    if (d & TUI_DIRTY_RECOMPUTE)
        tui_state_recompute(&st);
    return d;
}

/* Tab until a pane has focus. */
static void focus_pane(enum tui_pane p) {
    for (int i = 0; i < 20 && st.focus_pane != p; i++)
        press(TUI_KEY_TAB);
    cr_assert_eq(st.focus_pane, p);
}

/* Focus a field by walking down its pane. */
static void focus_field(enum tui_field f) {
    cr_assert_neq(tui_state_focus(&st, f), 0, "field %d can be focused", f);
    cr_assert_eq(st.focus[st.focus_pane], f);
}

TestSuite(state, .init = setup);

Test(state, opens_on_the_documented_defaults) {
    cr_assert_str_eq(st.opt.sc.model.id, "llama-3.1-8b");
    cr_assert_str_eq(st.opt.sc.weight_format.id, "fp16");
    cr_assert_str_eq(st.opt.sc.gpu.id, "h100-sxm");
    cr_assert_eq(st.est.invalid, 0);
    cr_assert(st.est.fits);
    cr_assert(strstr(st.verdict, "fits on 1 x H100 SXM") != NULL, "%s", st.verdict);
    cr_assert_eq(st.focus_pane, TUI_PANE_MODEL);
}

Test(state, tab_and_shift_tab_cycle_the_panes) {
    enum tui_pane order[] = {TUI_PANE_FORMAT, TUI_PANE_GPU,  TUI_PANE_LAYOUT, TUI_PANE_MEMORY,
                             TUI_PANE_SPEED,  TUI_PANE_ROOF, TUI_PANE_MEASURE, TUI_PANE_MODEL};
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        press(TUI_KEY_TAB);
        cr_assert_eq(st.focus_pane, order[i], "step %zu", i);
    }
    press(TUI_KEY_BTAB);
    cr_assert_eq(st.focus_pane, TUI_PANE_MEASURE);
}

Test(state, compact_tab_skips_hidden_panes) {
    st.compact = true;
    for (int i = 0; i < 16; i++) {
        press(TUI_KEY_TAB);
        cr_assert_neq(st.focus_pane, TUI_PANE_ROOF);
        cr_assert_neq(st.focus_pane, TUI_PANE_MEASURE);
    }
}

Test(state, changing_the_format_changes_the_weights_to_the_engines_value) {
    focus_pane(TUI_PANE_FORMAT);
    double before = st.est.memory.weights;
    unsigned d = press(TUI_KEY_RIGHT);
    cr_assert(d & TUI_DIRTY_RECOMPUTE);
    cr_assert_str_eq(st.opt.sc.weight_format.id, "int8");
    cr_assert_float_eq(st.est.memory.weights, before / 2, before * 1e-9);
    press('l');
    cr_assert_str_eq(st.opt.sc.weight_format.id, "int4");
    /* 4 + 16/32 = 4.5 bits per weight. */
    double n = st.est.params_total;
    cr_assert_float_eq(st.est.memory.weights, n * 4.5 / 8, n * 1e-6);
    cr_assert_float_eq(st.est.bits_per_weight, 4.5, 1e-9);
}

Test(state, group_size_applies_to_block_formats_only) {
    focus_pane(TUI_PANE_FORMAT);
    cr_assert(!tui_field_applies(&st, TUI_F_GROUP));
    press(TUI_KEY_RIGHT);
    press(TUI_KEY_RIGHT); /* int4 g32 */
    cr_assert(tui_field_applies(&st, TUI_F_GROUP));
    press(TUI_KEY_DOWN);
    cr_assert_eq(st.focus[TUI_PANE_FORMAT], TUI_F_GROUP);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.weight_format.block, 64);
    cr_assert_float_eq(st.est.bits_per_weight, 4.25, 1e-9);
}

Test(state, tp_walks_divisors_of_the_heads_and_says_why) {
    /* 24 heads: 1 2 3 4 6 8 12 24; 5 is skipped with a reason. */
    st.opt.sc.model = models[2];
    st.model_index = 2;
    tui_state_recompute(&st);
    focus_field(TUI_F_TP);
    uint32_t want[] = {2, 3, 4, 6, 8, 8}; /* 12 and 24: more than a node's 8 GPUs */
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        press(TUI_KEY_RIGHT);
        cr_assert_eq(st.opt.sc.tp, want[i], "step %zu: tp %u", i, st.opt.sc.tp);
        cr_assert_eq(st.opt.sc.gpus, st.opt.sc.tp * st.opt.sc.pp * st.opt.sc.dp);
        if (want[i] == 6)
            cr_assert(strstr(st.message, "TP 5 skipped") != NULL, "%s", st.message);
    }
    cr_assert(strstr(st.message, "TP 12 skipped: more than the 8 GPUs of one node") != NULL, "%s",
              st.message);
    cr_assert_eq(st.est.invalid, 0);
}

Test(state, pp_may_split_the_layers_unevenly_and_says_so) {
    st.opt.sc.model = models[1]; /* 80 layers */
    tui_state_recompute(&st);
    focus_field(TUI_F_PP);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.pp, 2);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.pp, 3);
    cr_assert(strstr(st.message, "uneven") != NULL, "%s", st.message);
    cr_assert_eq(st.opt.sc.gpus, 3);
    cr_assert_eq(st.est.invalid, 0);
    for (int i = 0; i < 50; i++)
        press(TUI_KEY_PGUP);
    cr_assert_eq(st.opt.sc.pp, 80, "never more stages than layers");
}

Test(state, the_gpu_count_takes_the_best_layout_for_it) {
    st.opt.sc.model = models[1]; /* 70B, 64 heads: 141 GB in FP16 */
    st.model_index = 1;
    tui_state_recompute(&st);
    cr_assert(!st.est.fits);
    focus_field(TUI_F_GPUS);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.gpus, 2);
    cr_assert_eq(st.opt.sc.gpus, st.opt.sc.tp * st.opt.sc.pp * st.opt.sc.dp);
    cr_assert_eq(st.opt.sc.dp, 1, "not DP2: %u %u %u", st.opt.sc.tp, st.opt.sc.pp, st.opt.sc.dp);
    press(TUI_KEY_RIGHT);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.gpus, 4);
    cr_assert(st.est.fits, "%s", st.verdict);
    cr_assert_eq(st.opt.sc.gpus, st.opt.sc.tp * st.opt.sc.pp * st.opt.sc.dp);
    cr_assert_leq(st.opt.sc.tp, 8);
    /* The user's layout edits stay reachable. */
    uint32_t dp = st.opt.sc.dp;
    focus_field(TUI_F_DP);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.dp, dp + 1);
    cr_assert_eq(st.opt.sc.gpus, st.opt.sc.tp * st.opt.sc.pp * st.opt.sc.dp);
    press(TUI_KEY_PGDN);
    focus_field(TUI_F_GPUS);
    for (int i = 0; i < 10; i++)
        press(TUI_KEY_LEFT);
    cr_assert_eq(st.opt.sc.gpus, 1, "down to one GPU");
    cr_assert_eq(st.opt.sc.tp * st.opt.sc.pp * st.opt.sc.dp, 1);
}

/* The GPU counts a verdict suggests ("try N GPUs"): all above min. */
static void assert_no_count_at_or_below(const char *v, uint32_t min) {
    for (const char *s = v; (s = strstr(s, " GPUs")) != NULL; s++) {
        const char *d = s;
        while (d > v && d[-1] >= '0' && d[-1] <= '9')
            d--;
        if (d < s)
            cr_assert_gt((uint32_t)atoi(d), min, "%s", v);
    }
}

Test(state, advice_never_suggests_the_gpus_already_on_screen) {
    st.opt.sc.model = models[1];
    st.model_index = 1;
    st.opt.sc.dp = 4; /* DP4: each GPU holds all 141 GB */
    st.opt.sc.gpus = 4;
    tui_state_recompute(&st);
    cr_assert(!st.est.fits);
    assert_no_count_at_or_below(st.verdict, 4);
    cr_assert(strstr(st.verdict, "TP=") != NULL, "%s", st.verdict);
    st.opt.sc.dp = 1;
    st.opt.sc.gpus = 1;
    st.opt.sc.context = 131072;
    st.opt.sc.batch = 64;
    tui_state_recompute(&st);
    assert_no_count_at_or_below(st.verdict, 1);
}

Test(state, tp_stops_at_the_gpus_of_one_node) {
    focus_field(TUI_F_TP); /* 8B: 32 heads, 8 GPUs per node */
    for (int i = 0; i < 6; i++)
        press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.tp, 8);
    cr_assert(strstr(st.message, "node") != NULL, "%s", st.message);
    press(TUI_KEY_PGUP);
    cr_assert_eq(st.opt.sc.tp, 8);
}

Test(state, advice_prefers_the_gpus_native_fp8_to_gguf) {
    st.opt.sc.model = models[1];
    st.model_index = 1;
    tui_state_recompute(&st);
    cr_assert(!st.est.fits);
    cr_assert(strstr(st.verdict, "try FP8 E4M3") != NULL, "%s", st.verdict);
    for (int c = 0; c < ENGINE_COMPUTE_COUNT; c++)
        if (c != ENGINE_COMPUTE_FP16)
            st.opt.sc.gpu.flops[c] = 0; /* no FP8, no INT8 */
    tui_state_recompute(&st);
    cr_assert(strstr(st.verdict, "GGUF") == NULL, "%s", st.verdict);
}

Test(state, qlora_switches_to_nf4_and_back) {
    focus_field(TUI_F_MODE);
    press(TUI_KEY_RIGHT);
    press(TUI_KEY_RIGHT);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_QLORA);
    cr_assert_str_eq(st.opt.sc.weight_format.id, "nf4");
    press(TUI_KEY_LEFT);
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_LORA);
    cr_assert_str_eq(st.opt.sc.weight_format.id, "fp16");
    press('t');
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_QLORA);
    cr_assert_str_eq(st.opt.sc.weight_format.id, "nf4");
    press('t');
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_INFER);
    cr_assert_str_eq(st.opt.sc.weight_format.id, "fp16");
}

Test(state, format_pickers_list_what_applies) {
    bool cur;
    focus_field(TUI_F_WFORMAT);
    press(TUI_KEY_ENTER);
    cr_assert_eq(st.overlay, TUI_OVERLAY_PICKER);
    for (size_t i = 0; i < tui_picker_count(&st); i++)
        cr_assert(strstr(tui_picker_label(&st, i, &cur), "KV") == NULL);
    cr_assert_eq(tui_picker_count(&st), 6);
    press(TUI_KEY_ESC);
    focus_field(TUI_F_KVFORMAT);
    press(TUI_KEY_ENTER);
    size_t n = tui_picker_count(&st);
    cr_assert_eq(n, 4, "fp16, int8, the KV INT4, FP8");
    for (size_t i = 0; i < n; i++) {
        const char *l = tui_picker_label(&st, i, &cur);
        cr_assert(strstr(l, "GGUF") == NULL && strstr(l, "NF4") == NULL, "%s", l);
    }
    press(TUI_KEY_ESC);
    for (int i = 0; i < 10; i++) {
        press(TUI_KEY_RIGHT);
        cr_assert(strcmp(st.opt.sc.kv_format.id, "nf4") != 0);
        cr_assert(strcmp(st.opt.sc.kv_format.id, "int4") != 0, "the weight INT4 g32");
    }
}

Test(state, batch_and_context_walk_a_nice_ladder) {
    focus_field(TUI_F_BATCH);
    for (int i = 0; i < 16; i++)
        press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.batch, 18, "by one to 16, then by two");
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.batch, 20);
    press(TUI_KEY_PGDN);
    cr_assert_eq(st.opt.sc.batch, 10);
    for (int i = 0; i < 40; i++)
        press(TUI_KEY_LEFT);
    cr_assert_eq(st.opt.sc.batch, 1);
    focus_field(TUI_F_CONTEXT);
    press(TUI_KEY_PGUP);
    cr_assert_eq(st.opt.sc.context, 8192);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.context, 9216);
    press(TUI_KEY_LEFT);
    cr_assert_eq(st.opt.sc.context, 8192);
}

Test(state, picker_filters_and_picks) {
    press(TUI_KEY_ENTER);
    cr_assert_eq(st.overlay, TUI_OVERLAY_PICKER);
    cr_assert_eq(tui_picker_count(&st), 4); /* "file..." and the three models */
    press('7');
    press('0');
    cr_assert_eq(tui_picker_count(&st), 1);
    bool cur;
    cr_assert_str_eq(tui_picker_label(&st, 0, &cur), "Llama 3.1 70B");
    unsigned d = press(TUI_KEY_ENTER);
    cr_assert(d & TUI_DIRTY_RECOMPUTE);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    cr_assert_str_eq(st.opt.sc.model.id, "llama-3.1-70b");
    cr_assert_eq(st.model_index, 1);
}

Test(state, slash_filters_and_backspace_edits) {
    focus_pane(TUI_PANE_GPU);
    press('/');
    cr_assert_eq(st.overlay, TUI_OVERLAY_PICKER);
    press('q'); /* typed into the filter, does not quit */
    cr_assert(!st.quit);
    cr_assert_eq(tui_picker_count(&st), 0);
    press(TUI_KEY_BACKSPACE);
    press('a');
    press('1');
    cr_assert_eq(tui_picker_count(&st), 1);
    press(TUI_KEY_ENTER);
    cr_assert_str_eq(st.opt.sc.gpu.id, "a100-40");
}

Test(state, q_and_esc_close_overlays_before_quitting) {
    press('?');
    cr_assert_eq(st.overlay, TUI_OVERLAY_HELP);
    press('q');
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    cr_assert(!st.quit);
    press('e');
    cr_assert_eq(st.overlay, TUI_OVERLAY_EXPLAIN);
    press(TUI_KEY_ESC);
    cr_assert(!st.quit);
    press(TUI_KEY_ENTER);
    press(TUI_KEY_ESC);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    cr_assert(!st.quit);
    press(TUI_KEY_ESC);
    cr_assert(st.quit);
}

Test(state, q_quits) {
    press('q');
    cr_assert(st.quit);
}

Test(state, explain_uses_the_focused_fields_key) {
    focus_pane(TUI_PANE_FORMAT);
    cr_assert_eq(tui_field_key(&st, st.focus[st.focus_pane]), ENGINE_KEY_MEM_WEIGHTS);
    focus_field(TUI_F_PREFILL);
    cr_assert_eq(tui_field_key(&st, st.focus[st.focus_pane]), ENGINE_KEY_PREFILL);
}

Test(state, t_cycles_the_mode_and_moves_focus_off_fields_that_stop_applying) {
    focus_field(TUI_F_KVFORMAT);
    press('t');
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_TRAIN);
    cr_assert_neq(st.focus[TUI_PANE_FORMAT], TUI_F_KVFORMAT);
    cr_assert(tui_field_applies(&st, TUI_F_ZERO));
    cr_assert(isfinite(st.est.train_step_seconds));
    press('t');
    press('t');
    press('t');
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_INFER);
    cr_assert(!tui_field_applies(&st, TUI_F_ZERO));
}

Test(state, u_toggles_units) {
    cr_assert_eq(st.opt.units, UNITS_GB);
    press('u');
    cr_assert_eq(st.opt.units, UNITS_GIB);
    cr_assert(strstr(st.verdict, "GiB") != NULL, "%s", st.verdict);
    press('u');
    cr_assert_eq(st.opt.units, UNITS_GB);
}

Test(state, size_slider_makes_a_bare_size_model) {
    focus_field(TUI_F_SIZE);
    int step = st.size_step;
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.size_step, step + 1);
    cr_assert_eq(st.model_index, -1);
    cr_assert(st.opt.sc.model.derived);
    cr_assert_eq(st.est.invalid, 0);
    cr_assert_float_eq(st.opt.sc.model.params_size, tui_size_of_step(step + 1), 1);
    for (int i = 0; i < 100; i++)
        press(TUI_KEY_PGUP);
    cr_assert_eq(st.size_step, TUI_SIZE_STEPS);
    cr_assert(tui_size_of_step(TUI_SIZE_STEPS) >= 2e12);
    cr_assert_float_eq(tui_size_of_step(0), 1e8, 1);
}

Test(state, readout_panes_move_between_numbers_without_changing_anything) {
    focus_pane(TUI_PANE_MEMORY);
    struct engine_scenario before = st.opt.sc;
    enum tui_field f = st.focus[TUI_PANE_MEMORY];
    press(TUI_KEY_RIGHT);
    cr_assert_neq(st.focus[TUI_PANE_MEMORY], f);
    cr_assert_eq(memcmp(&before, &st.opt.sc, sizeof(before)), 0);
}

Test(state, down_walks_the_speed_numbers_in_screen_order) {
    focus_pane(TUI_PANE_SPEED);
    enum tui_field want[] = {TUI_F_DECODE_MEM, TUI_F_DECODE_COMPUTE, TUI_F_DECODE,
                             TUI_F_PER_SEQ, TUI_F_PREFILL};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_eq(st.focus[TUI_PANE_SPEED], want[i], "step %zu", i);
        press(TUI_KEY_DOWN);
    }
}

Test(state, a_scenario_that_does_not_fit_gets_advice) {
    st.opt.sc.model = models[1];
    st.model_index = 1;
    tui_state_recompute(&st);
    cr_assert(!st.est.fits);
    cr_assert(strncmp(st.verdict, "needs ", 6) == 0, "%s", st.verdict);
    cr_assert(strstr(st.verdict, "GB short") != NULL, "%s", st.verdict);
    cr_assert(strstr(st.verdict, "try ") != NULL, "%s", st.verdict);
    cr_assert(strstr(st.verdict, "FP8") != NULL, "the GPU computes FP8: %s", st.verdict);
}

Test(state, m_asks_for_a_measure_and_esc_cancels_it_without_quitting) {
    press('m');
    cr_assert(st.measure.start_request);
    st.measure.status = TUI_MEASURE_RUNNING;
    press(TUI_KEY_ESC);
    cr_assert(st.measure.cancel_request);
    cr_assert(!st.quit);
    tui_measure_add(&st.measure, "copy", 10e9, 1, 1);
    tui_measure_add(&st.measure, "copy", 20e9, 2, 1);
    tui_measure_add(&st.measure, "copy", 99e9, 2, 4); /* batch 4: not a bandwidth row */
    cr_assert_float_eq(tui_measure_rate(&st.measure, "copy"), 20e9, 1);
    cr_assert_float_eq(tui_measure_rate(&st.measure, "read"), 0, 1e-9);
}

Test(state, resize_asks_for_a_reflow) {
    cr_assert(press(TUI_KEY_RESIZE) & TUI_DIRTY_REFLOW);
}

Test(state, a_random_key_storm_never_reaches_an_invalid_layout) {
    static const int keys[] = {TUI_KEY_TAB, TUI_KEY_BTAB, TUI_KEY_UP,   TUI_KEY_DOWN,
                               TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_PGUP, TUI_KEY_PGDN,
                               TUI_KEY_ENTER, TUI_KEY_ESC, 't', 'u', 'e', '?', '/', 'a',
                               TUI_KEY_BACKSPACE, 'h', 'l', 'j', 'k'};
    unsigned seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        int k = keys[(seed >> 16) % (sizeof(keys) / sizeof(keys[0]))];
        press(k);
        st.quit = false;
        const struct engine_scenario *sc = &st.opt.sc;
        cr_assert_eq(sc->gpus, sc->tp * sc->pp * sc->dp, "key %d at %d", k, i);
        cr_assert_eq(sc->model.heads % sc->tp, 0, "tp %u heads %u", sc->tp, sc->model.heads);
        cr_assert_leq(sc->pp, sc->model.layers, "pp %u layers %u", sc->pp, sc->model.layers);
        cr_assert_eq(st.est.invalid & (ENGINE_INVALID_LAYOUT | ENGINE_INVALID_TP_HEADS |
                                       ENGINE_INVALID_PP_LAYERS),
                     0);
        enum tui_field f = st.focus[st.focus_pane];
        cr_assert(f < TUI_F_COUNT && tui_field_applies(&st, f), "focus on a field that applies");
    }
}

Test(state, full_training_keeps_the_recipes_weights) {
    press('t');
    cr_assert_eq(st.opt.sc.mode, ENGINE_MODE_TRAIN);
    focus_field(TUI_F_WFORMAT);
    press(TUI_KEY_RIGHT);
    cr_assert_str_eq(st.opt.sc.weight_format.id, "fp16");
    cr_assert(strstr(st.message, "adam-mixed recipe") != NULL, "%s", st.message);
    press(TUI_KEY_ENTER);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE, "no format picker in full training");
}

Test(state, help_and_explain_scroll_within_what_the_frame_allows) {
    press('?');
    st.overlay_scroll_max = 5; /* the app copies these from the frame */
    st.overlay_page = 4;
    cr_assert(press(TUI_KEY_DOWN) & TUI_DIRTY_REPAINT);
    cr_assert_eq(st.overlay_scroll, 1);
    press(TUI_KEY_PGDN);
    cr_assert_eq(st.overlay_scroll, 4);
    press(TUI_KEY_PGDN);
    cr_assert_eq(st.overlay_scroll, 5, "never past the end");
    cr_assert_eq(press(TUI_KEY_DOWN), 0);
    press(TUI_KEY_HOME);
    cr_assert_eq(st.overlay_scroll, 0);
    cr_assert_eq(press(TUI_KEY_UP), 0);
    cr_assert_eq(st.overlay, TUI_OVERLAY_HELP, "scrolling keeps it open");
    press('q');
    press('e');
    cr_assert_eq(st.overlay_scroll, 0, "a new overlay starts at the top");
    press('j');
    cr_assert_eq(st.overlay_scroll, 1);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.overlay_scroll, 0, "the next number starts at the top");
    cr_assert_eq(st.overlay, TUI_OVERLAY_EXPLAIN);
}

/* A scenario from --system keeps the system's power until another GPU is
 * picked: then the system no longer applies (its energy figures go). */
Test(state, another_gpu_leaves_the_system) {
    st.opt.has_system = true;
    memcpy(st.opt.sc.system_id, "dgx-h100", sizeof "dgx-h100");
    st.opt.sc.system_gpus = 8;
    st.opt.sc.system_power_w = 10200;
    tui_state_recompute(&st);
    cr_assert_eq(st.est.systems, 1);
    focus_field(TUI_F_GPU);
    press(TUI_KEY_RIGHT);
    cr_assert_str_eq(st.opt.sc.gpu.id, "a100-40");
    cr_assert_not(st.opt.has_system);
    cr_assert_eq(st.opt.sc.system_gpus, 0);
    cr_assert_str_eq(st.opt.sc.system_id, "");
    cr_assert(isnan(st.est.systems), "no system, no system count");
}

/* A --global-batch given at start: the mb field shows the engine's
 * micro-batches (global / (batch x dp)), and stepping it sets them, the
 * global batch then following from them (it was ignored before). */
Test(state, micro_batches_field_follows_a_global_batch) {
    st.opt.sc.mode = ENGINE_MODE_TRAIN;
    st.opt.sc.gpus = 4;
    st.opt.sc.dp = 4;
    st.opt.sc.batch = 1;
    st.opt.sc.global_batch = 32;
    tui_state_recompute(&st);
    cr_assert_eq(engine_micro_batches(&st.opt.sc), 8);
    cr_assert_eq(st.est.train_micro_batches, 8);
    focus_field(TUI_F_MICRO);
    press(TUI_KEY_RIGHT);
    cr_assert_eq(st.opt.sc.global_batch, 0, "the user's micro-batches win");
    cr_assert_gt(st.opt.sc.micro_batches, 8, "stepped up from the shown 8: %u",
                 st.opt.sc.micro_batches);
    cr_assert_eq(st.est.train_micro_batches, st.opt.sc.micro_batches);
    cr_assert_eq(st.est.train_global_batch, 4.0 * st.opt.sc.micro_batches);
    cr_assert_str_neq(st.message, "");
}

/* Expert parallelism (issue 12): the Layout pane's EP field exists in MoE
 * training only, walks the degrees that divide both the experts and DP, and
 * follows DP and the mode down when they change under it. */
Test(state, ep_walks_divisors_of_the_experts_and_dp) {
    struct engine_model moe;
    model(&moe, "moe-8x", "MoE 8 experts", 32, 4096, 32, 8, 14336);
    moe.experts = 8;
    moe.active_experts = 2;
    st.opt.sc.model = moe;
    tui_state_set_mode(&st, ENGINE_MODE_TRAIN);
    st.opt.sc.dp = 8;
    st.opt.sc.gpus = 8;
    tui_state_recompute(&st);
    cr_assert(tui_field_applies(&st, TUI_F_EP));
    focus_field(TUI_F_EP);
    uint32_t want[] = {2, 4, 8, 8};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        press(TUI_KEY_RIGHT);
        cr_assert_eq(engine_ep(&st.opt.sc), want[i], "step %zu: ep %u", i, st.opt.sc.ep);
        cr_assert_eq(st.est.invalid, 0);
    }
    cr_assert(strstr(st.message, "EP 8 is the most") != NULL, "%s", st.message);
    /* DP 8 -> 6: EP 8 no longer divides it; it falls to 2, said in the status line. */
    st.opt.sc.dp = 6;
    st.opt.sc.gpus = 6;
    tui_state_recompute(&st);
    cr_assert_eq(engine_ep(&st.opt.sc), 2);
    cr_assert(strstr(st.message, "EP 8 -> 2") != NULL, "%s", st.message);
    cr_assert_eq(st.est.invalid, 0);
    /* Inference: no EP field, EP back to 1. */
    tui_state_set_mode(&st, ENGINE_MODE_INFER);
    tui_state_recompute(&st);
    cr_assert(!tui_field_applies(&st, TUI_F_EP));
    cr_assert_eq(engine_ep(&st.opt.sc), 1);
    cr_assert_eq(st.est.invalid, 0);
    /* A dense model in training: no EP field either. */
    st.opt.sc.model = models[0];
    tui_state_set_mode(&st, ENGINE_MODE_TRAIN);
    tui_state_recompute(&st);
    cr_assert(!tui_field_applies(&st, TUI_F_EP));
}

/* A starting scenario whose TP spans nodes (a lesson step, --tp 16 on
 * servers of 8) keeps it, as plan does with its warning: the explorer used
 * to lower it to 8 silently, so the screen disagreed with the step. */
Test(state, a_starting_tp_across_nodes_is_kept) {
    struct options o;
    memset(&o, 0, sizeof(o));
    engine_scenario_defaults(&o.sc);
    o.sc.model = models[1]; /* 64 heads */
    o.sc.gpu = gpus[0];
    o.sc.gpu.gpus_per_node = 8;
    o.sc.gpus = 16;
    o.sc.tp = 16;
    o.sc.pp = 1;
    o.sc.dp = 1;
    tui_state_init(&st, &o, &cat);
    cr_assert_eq(st.opt.sc.tp, 16);
    cr_assert_eq(st.opt.sc.gpus, 16);
    cr_assert(st.est.warnings & ENGINE_WARN_TP_ACROSS_NODES);
    /* heads still bound it: 24 heads take no TP 16 */
    o.sc.model = models[2];
    tui_state_init(&st, &o, &cat);
    cr_assert_eq(24 % st.opt.sc.tp, 0, "tp %u", st.opt.sc.tp);
}

/* ---- the Model pane's model-file prompt ------------------------------ */

/* Type a string into the open prompt. */
static void type(const char *s) {
    for (; *s; s++)
        press((unsigned char)*s);
}

/* A scratch directory with files to complete and open. */
static char scratch[64];
static void make_scratch(void) {
    snprintf(scratch, sizeof(scratch), "/tmp/vramlab-state-XXXXXX");
    cr_assert(mkdtemp(scratch) != NULL);
    char p[160];
    snprintf(p, sizeof(p), "%s/alpha.gguf", scratch);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fclose(f);
    snprintf(p, sizeof(p), "%s/alphabet", scratch);
    cr_assert_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof(p), "%s/beta", scratch);
    cr_assert_eq(mkdir(p, 0700), 0);
    /* beta: a Hugging Face folder, config.json and a safetensors header
     * (the data section sparse: only the header is read) */
    snprintf(p, sizeof(p), "%s/beta/config.json", scratch);
    f = fopen(p, "w");
    cr_assert(f);
    fputs("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": 256,"
          " \"intermediate_size\": 512, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
          " \"vocab_size\": 512, \"max_position_embeddings\": 8192}", f);
    fclose(f);
    snprintf(p, sizeof(p), "%s/beta/model.safetensors", scratch);
    f = fopen(p, "wb");
    cr_assert(f);
    const char *h = "{\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[512,256],"
                    "\"data_offsets\":[0,262144]},\"model.layers.0.mlp.up_proj.weight\":"
                    "{\"dtype\":\"BF16\",\"shape\":[512,256],\"data_offsets\":[262144,524288]}}";
    uint64_t n = strlen(h);
    for (int i = 0; i < 8; i++)
        fputc((int)(n >> (8 * i)) & 0xff, f);
    fputs(h, f);
    fclose(f);
    cr_assert_eq(truncate(p, (off_t)(8 + n + 524288)), 0);
}

static void rm_scratch(void) {
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
    cr_assert_eq(system(cmd), 0);
}

Test(state, capital_o_in_the_model_pane_opens_the_file_prompt_and_esc_cancels) {
    focus_pane(TUI_PANE_MODEL);
    press('O');
    cr_assert_eq(st.overlay, TUI_OVERLAY_FILE);
    type("q/x");
    cr_assert(!st.quit, "q is typed into the path");
    cr_assert_str_eq(st.file.text, "q/x");
    press(TUI_KEY_BACKSPACE);
    cr_assert_str_eq(st.file.text, "q/");
    press(21); /* Ctrl-U */
    cr_assert_str_eq(st.file.text, "");
    press(TUI_KEY_ESC);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    cr_assert_str_eq(st.opt.sc.model.id, "llama-3.1-8b");
}

/* Issue 27 item 3: the prompts' line editor (tui/line_edit.c). */
Test(state, the_line_editor_erases_words_and_lines) {
    char t[32] = "dir/sub/file.yaml";
    bool sel = false;
    cr_assert(tui_line_key(t, sizeof(t), &sel, TUI_LINE_CTRL_W));
    cr_assert_str_eq(t, "dir/sub/");
    tui_line_key(t, sizeof(t), &sel, TUI_LINE_CTRL_W);
    cr_assert_str_eq(t, "dir/", "a trailing slash goes with its word");
    snprintf(t, sizeof(t), "a b  ");
    tui_line_key(t, sizeof(t), &sel, TUI_LINE_CTRL_W);
    cr_assert_str_eq(t, "a ");
    tui_line_key(t, sizeof(t), &sel, TUI_LINE_CTRL_U);
    cr_assert_str_eq(t, "");
    tui_line_key(t, sizeof(t), &sel, TUI_LINE_CTRL_W);
    cr_assert_str_eq(t, "", "nothing to erase is no error");
    /* Backspace removes a whole UTF-8 character. */
    snprintf(t, sizeof(t), "a\xc3\xa9");
    tui_line_key(t, sizeof(t), &sel, TUI_KEY_BACKSPACE);
    cr_assert_str_eq(t, "a");
    /* Full: a typed character is dropped, never written past the end. */
    char small[4] = "abc";
    tui_line_key(small, sizeof(small), &sel, 'd');
    cr_assert_str_eq(small, "abc");
    cr_assert_not(tui_line_key(t, sizeof(t), &sel, TUI_KEY_ENTER), "Enter is the prompt's");
    cr_assert_not(tui_line_key(t, sizeof(t), &sel, TUI_KEY_ESC));
}

Test(state, the_offered_name_is_selected_typing_replaces_it_an_arrow_keeps_it) {
    char t[32] = "scenario.yaml";
    bool sel = true;
    tui_line_key(t, sizeof(t), &sel, 'x');
    cr_assert_str_eq(t, "x");
    cr_assert_not(sel);
    snprintf(t, sizeof(t), "scenario.yaml");
    sel = true;
    tui_line_key(t, sizeof(t), &sel, TUI_KEY_END);
    cr_assert_not(sel);
    tui_line_key(t, sizeof(t), &sel, 'x');
    cr_assert_str_eq(t, "scenario.yamlx");
    snprintf(t, sizeof(t), "scenario.yaml");
    sel = true;
    tui_line_key(t, sizeof(t), &sel, TUI_KEY_BACKSPACE);
    cr_assert_str_eq(t, "", "Backspace erases the selection");
    snprintf(t, sizeof(t), "scenario.yaml");
    sel = true;
    tui_line_key(t, sizeof(t), &sel, TUI_KEY_LEFT);
    tui_line_key(t, sizeof(t), &sel, TUI_KEY_BACKSPACE);
    cr_assert_str_eq(t, "scenario.yam");
}

Test(state, a_leading_tilde_is_home_and_without_home_says_so) {
    char out[64], err[256];
    const char *old = getenv("HOME");
    char saved[256];
    snprintf(saved, sizeof(saved), "%s", old ? old : "");
    setenv("HOME", "/h/me", 1);
    cr_assert_eq(tui_path_expand("~/x.yaml", out, sizeof(out), err, sizeof(err)), 0);
    cr_assert_str_eq(out, "/h/me/x.yaml");
    cr_assert_eq(tui_path_expand("~", out, sizeof(out), err, sizeof(err)), 0);
    cr_assert_str_eq(out, "/h/me");
    cr_assert_eq(tui_path_expand("a/~/b", out, sizeof(out), err, sizeof(err)), 0);
    cr_assert_str_eq(out, "a/~/b", "only a leading ~ is HOME");
    cr_assert_eq(tui_path_expand("~bob/x", out, sizeof(out), err, sizeof(err)), -1);
    cr_assert(strstr(err, "~bob: only ~ alone") != NULL, "%s", err);
    unsetenv("HOME");
    cr_assert_eq(tui_path_expand("~/x.yaml", out, sizeof(out), err, sizeof(err)), -1);
    cr_assert(strstr(err, "HOME is not set") != NULL, "%s", err);
    setenv("HOME", "", 1);
    cr_assert_eq(tui_path_expand("~/x.yaml", out, sizeof(out), err, sizeof(err)), -1);
    char longer[128];
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    cr_assert_eq(tui_path_expand(longer, out, sizeof(out), err, sizeof(err)), -1);
    cr_assert(strstr(err, "too long") != NULL, "%s", err);
    if (old)
        setenv("HOME", saved, 1);
}

Test(state, the_file_prompt_offers_the_last_path_selected) {
    focus_pane(TUI_PANE_MODEL);
    press('O');
    cr_assert_not(st.file.selected, "nothing offered: nothing selected");
    type("/no/such/model.gguf");
    press(TUI_KEY_ENTER);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    press('O');
    cr_assert_str_eq(st.file.text, "/no/such/model.gguf");
    cr_assert(st.file.selected);
    type("m.gguf");
    cr_assert_str_eq(st.file.text, "m.gguf", "typing replaced the offered path");
    press(TUI_KEY_ESC);
    press('O');
    press(TUI_LINE_CTRL_W);
    cr_assert_str_eq(st.file.text, "");
    press(TUI_KEY_ESC);
    setenv("VRAMLAB_TEST_HOME_SAVED", getenv("HOME") ? getenv("HOME") : "", 1);
    unsetenv("HOME");
    press('O');
    type("~/m.gguf");
    press(TUI_KEY_ENTER);
    cr_assert(strstr(st.message, "HOME is not set") != NULL, "%s", st.message);
    cr_assert_str_eq(st.opt.sc.model.id, "llama-3.1-8b", "the scenario stays");
    if (getenv("VRAMLAB_TEST_HOME_SAVED")[0])
        setenv("HOME", getenv("VRAMLAB_TEST_HOME_SAVED"), 1);
}

Test(state, the_model_picker_starts_with_file) {
    press(TUI_KEY_ENTER);
    bool cur;
    cr_assert(strstr(tui_picker_label(&st, 0, &cur), "file...") != NULL);
    press(TUI_KEY_HOME);
    press(TUI_KEY_ENTER);
    cr_assert_eq(st.overlay, TUI_OVERLAY_FILE);
}

Test(state, tab_completes_paths_as_a_shell_does) {
    make_scratch();
    focus_pane(TUI_PANE_MODEL);
    press('O');
    char want[160];
    /* one match: completed, a directory gets its slash */
    snprintf(st.file.text, sizeof(st.file.text), "%s/b", scratch);
    press(TUI_KEY_TAB);
    snprintf(want, sizeof(want), "%s/beta/", scratch);
    cr_assert_str_eq(st.file.text, want);
    /* several: their common prefix, then the list */
    snprintf(st.file.text, sizeof(st.file.text), "%s/al", scratch);
    press(TUI_KEY_TAB);
    snprintf(want, sizeof(want), "%s/alpha", scratch);
    cr_assert_str_eq(st.file.text, want);
    press(TUI_KEY_TAB);
    cr_assert_eq(st.file.n_matches, 2);
    cr_assert_str_eq(st.file.matches[0], "alpha.gguf");
    cr_assert_str_eq(st.file.matches[1], "alphabet");
    /* none: said, the text kept */
    snprintf(st.file.text, sizeof(st.file.text), "%s/zz", scratch);
    press(TUI_KEY_TAB);
    cr_assert(strstr(st.message, "no file matches"), "%s", st.message);
    cr_assert_eq(st.overlay, TUI_OVERLAY_FILE);
    rm_scratch();
}

Test(state, a_bad_path_shows_in_the_status_line_and_keeps_the_scenario) {
    make_scratch();
    focus_pane(TUI_PANE_MODEL);
    press('O');
    snprintf(st.file.text, sizeof(st.file.text), "%s/alpha.gguf", scratch);
    press(TUI_KEY_ENTER);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    /* an empty file, named as such (catalog/sniff.c) */
    cr_assert(strstr(st.message, "alpha.gguf: not a model file: it is an empty file"), "%s", st.message);
    cr_assert_str_eq(st.opt.sc.model.id, "llama-3.1-8b");
    cr_assert_null(st.opt.model_file);
    press('O');
    snprintf(st.file.text, sizeof(st.file.text), "%s/alphabet", scratch);
    press(TUI_KEY_ENTER);
    cr_assert(strstr(st.message, "no model in this directory"), "%s", st.message);
    rm_scratch();
}

Test(state, a_folder_opens_with_its_bytes_and_the_format_pane_mix) {
    make_scratch();
    focus_pane(TUI_PANE_MODEL);
    press('O');
    snprintf(st.file.text, sizeof(st.file.text), "%s/beta", scratch);
    unsigned d = press(TUI_KEY_ENTER);
    cr_assert(d & TUI_DIRTY_RECOMPUTE);
    cr_assert_eq(st.overlay, TUI_OVERLAY_NONE);
    cr_assert(st.opt.model_file == &st.file_mf);
    cr_assert_eq(st.opt.sc.model.layers, 2);
    cr_assert_eq(st.model_index, -1);
    /* the weights are the file's bytes exactly: 2 x 512 x 256 BF16 */
    cr_assert_eq(st.est.memory.weights, 524288.0);
    cr_assert_eq(st.file_mf.n_types, 1);
    cr_assert_str_eq(st.file_mf.types[0].name, "BF16");
    cr_assert(strstr(st.message, "BF16 100%; 16.00 bits per weight"), "%s", st.message);
    /* no group to step, and the weight format says why it cannot change */
    cr_assert(!tui_field_applies(&st, TUI_F_GROUP));
    focus_pane(TUI_PANE_FORMAT);
    press(TUI_KEY_RIGHT);
    cr_assert(strstr(st.message, "file's tensors"), "%s", st.message);
    /* a catalog model again: the file is forgotten */
    focus_pane(TUI_PANE_MODEL);
    press(TUI_KEY_ENTER);
    press(TUI_KEY_DOWN);
    press(TUI_KEY_ENTER);
    cr_assert_null(st.opt.model_file);
    cr_assert_str_eq(st.opt.sc.model.id, "llama-3.1-8b");
    rm_scratch();
}
