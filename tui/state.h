/*
 * state.h: the explorer's state machine, with no screen attached.
 *
 * The state holds the scenario (struct options, as `vramlab plan` parses
 * it), the estimate computed from it, which pane and field have focus, and
 * the open overlay (help, explain, picker). Keys arrive as TUI_KEY_* codes
 * (the app translates curses keys), and tui_state_key() returns the dirty
 * flags the loop must honour: reflow (layout), recompute (engine), repaint.
 * Everything here is testable without a terminal (tests/test_state.c).
 *
 * Editable fields are a table (tmux's options-table): each row names its
 * pane, label, the engine key its explain overlay shows, and whether it
 * applies in the current mode; stepping a field only ever reaches valid
 * scenarios (TP divides the heads, PP <= layers, tp*pp*dp = GPUs), and a
 * refused step leaves a message saying why.
 */
#ifndef VRAMLAB_TUI_STATE_H
#define VRAMLAB_TUI_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/modelfile.h"
#include "tui/commands.h"
#include "tui/layout.h"
#include "tui/lesson_text.h"
#include "tui/measure_ar.h"

/* Keys, independent of curses. Printable ASCII keys are themselves. */
enum {
    TUI_KEY_NONE = 0,
    TUI_KEY_TAB = 9,
    TUI_KEY_ENTER = 10,
    TUI_KEY_ESC = 27,
    TUI_KEY_BACKSPACE = 127,
    TUI_KEY_UP = 0x1000,
    TUI_KEY_DOWN,
    TUI_KEY_LEFT,
    TUI_KEY_RIGHT,
    TUI_KEY_PGUP,
    TUI_KEY_PGDN,
    TUI_KEY_HOME,
    TUI_KEY_END,
    TUI_KEY_BTAB, /* Shift-Tab */
    TUI_KEY_F1,
    TUI_KEY_RESIZE,
    TUI_KEY_SRIGHT, /* Shift-Right, Shift-Left: a lesson's next and previous step */
    TUI_KEY_SLEFT,
};

/* Dirty flags returned by handlers (NeoMutt's reflow/recalc/repaint). */
enum {
    TUI_DIRTY_REFLOW = 1u << 0,
    TUI_DIRTY_RECOMPUTE = 1u << 1,
    TUI_DIRTY_REPAINT = 1u << 2,
    TUI_DIRTY_ALL = 7u,
};

/* Every field the user can focus, in Tab order within each pane. */
enum tui_field {
    TUI_F_MODEL = 0,
    TUI_F_SIZE,
    TUI_F_WFORMAT,
    TUI_F_GROUP,
    TUI_F_KVFORMAT,
    TUI_F_GPU,
    TUI_F_GPUS,
    TUI_F_MODE,
    TUI_F_BATCH,
    TUI_F_CONTEXT,
    TUI_F_TP,
    TUI_F_PP,
    TUI_F_DP,
    TUI_F_ZERO,
    TUI_F_MICRO,
    TUI_F_EP, /* expert parallelism (MoE training) */
    TUI_F_RECOMPUTE,
    TUI_F_RECIPE,
    /* Read-outs: focusable for explain, not editable. */
    TUI_F_MEM_WEIGHTS,
    TUI_F_MEM_KV,
    TUI_F_MEM_ACT,
    TUI_F_MEM_GRADS,
    TUI_F_MEM_MASTER,
    TUI_F_MEM_OPT,
    TUI_F_MEM_RESERVE,
    TUI_F_MEM_OVERHEAD, /* the runtime's buffers (vLLM, llama.cpp, Ollama) */
    TUI_F_MEM_TOTAL,
    TUI_F_MEM_HOST,     /* host RAM of a partial offload */
    TUI_F_DECODE_MEM, /* Speed read-outs in the order they are drawn */
    TUI_F_DECODE_COMPUTE,
    TUI_F_DECODE,
    TUI_F_PER_SEQ,
    TUI_F_PREFILL,
    TUI_F_TTFT,
    TUI_F_TPOT,
    TUI_F_RIDGE,
    TUI_F_BSTAR,
    TUI_F_TRAIN_STEP,
    TUI_F_TRAIN_BUBBLE,
    TUI_F_TRAIN_DAYS,
    TUI_F_TRAIN_HOURS,
    TUI_F_TRAIN_COST,
    TUI_F_MEASURE,
    TUI_F_COUNT
};

enum tui_overlay {
    TUI_OVERLAY_NONE = 0,
    TUI_OVERLAY_HELP,
    TUI_OVERLAY_EXPLAIN,
    TUI_OVERLAY_PICKER,
    TUI_OVERLAY_FILE, /* the Model pane's model-file prompt (O, "file..." in the picker) */
};

/* Pickers list one kind of thing, filtered by a typed string. */
enum tui_pick {
    TUI_PICK_MODEL = 0,
    TUI_PICK_WFORMAT,
    TUI_PICK_KVFORMAT,
    TUI_PICK_GPU,
    TUI_PICK_MODE,
    TUI_PICK_RECOMPUTE,
    TUI_PICK_RECIPE,
};

#define TUI_FILTER_MAX 48
#define TUI_MSG_MAX 160
#define TUI_VERDICT_MAX 160
#define TUI_CURVE_POINTS 13 /* batch 1, 2, 4, ... 4096 */

struct tui_picker {
    enum tui_pick kind;
    char filter[TUI_FILTER_MAX];
    size_t cursor; /* index into the filtered list */
    size_t scroll;
};

/* The Measure pane: filled by the app from the probe's events. */
enum tui_measure_status {
    TUI_MEASURE_IDLE = 0,
    TUI_MEASURE_RUNNING,
    TUI_MEASURE_DONE,
    TUI_MEASURE_FAILED,
};
#define TUI_MEASURE_ROWS 12
#define TUI_MEASURE_TESTS 10 /* progress bars */
#define TUI_MEASURE_LAB 32   /* error-lab rows: 7 widths x 2 groupings x 2 weight sets */
struct tui_measure_row {
    char test[24];
    double bytes_per_s; /* median */
    double threads, batch;
    /* Filled by tui_measure_take (tui/measure_model.c). */
    double flop_per_s, bytes; /* bytes: the working set of one repetition */
    bool verified, flagged;
    double reference_bytes_per_s; /* copy: the STREAM-style loop beside it; 0 = none */
    char note[96];                /* what the probe wants said about it, or "" */
};
/* One test's progress bar. */
struct tui_measure_bar {
    char test[24];
    double fraction; /* 0..1; 1 once its result arrived */
};
/* One error-lab row: relative error and zero codes at b bits. */
struct tui_measure_lab {
    unsigned bits, group; /* group 0: one scale per matrix */
    bool outliers;        /* the weights with planted 13-sigma outliers */
    double relative_error, zero_fraction;
};
/* The all-reduce of the Measure pane (x; issue 15): the sizes measured,
 * the fits, and what a calibrated the communication from (so that a again
 * puts the scenario's own figures back). Kept across kernel runs (m). */
#define TUI_MEASURE_AR 48
struct tui_measure_ar_point {
    double bytes, seconds, busbw;
    bool bf16, verified;
};
struct tui_measure_ar {
    size_t n, n_fit;
    struct tui_measure_ar_point p[TUI_MEASURE_AR];
    struct measure_ar_fit fit[2];
    unsigned ranks, hosts;
    char transport[16];
    char note[128]; /* the probe's (one GPU: degenerate), or "" */
    bool calibrated;
    double saved_intra, saved_inter, saved_latency;
};
/* The runtime row (issue 26): `vramlab bench --events` against a server
 * that is running (r, or m when VRAMLAB_BENCH_URL is set), measured
 * decode and time to first token beside the prediction. */
struct tui_measure_runtime {
    enum tui_measure_status status; /* IDLE until r or m starts it */
    char url[256];
    char server_model[96], model[96], device[64], runtime[24];
    double fraction;
    double ttft_s, predicted_ttft_s, decode, predicted_decode;
    char error[160];
};

struct tui_measure {
    enum tui_measure_status status;
    bool start_request;  /* set by m; the app starts the probe */
    bool cancel_request; /* set by Esc while running */
    char device[96];
    char progress[64];
    char error[160];
    size_t n_rows;
    struct tui_measure_row rows[TUI_MEASURE_ROWS];
    /* The Measure pane's session data (tui/measure_model.c, measure_pane.c). */
    char backend[16];
    double cache_bytes;               /* the device's L2 or last-level cache */
    const struct engine_gpu *match;   /* the catalog GPU of the device, or NULL */
    size_t n_bars, n_lab;
    struct tui_measure_bar bars[TUI_MEASURE_TESTS];
    struct tui_measure_lab lab[TUI_MEASURE_LAB];
    bool lab_view;      /* v: the error lab instead of the rates */
    bool confirm_save;  /* w found the file: y overwrites */
    char note[TUI_MSG_MAX]; /* the last save, calibration or fallback */
    char calibrated_gpu[ENGINE_ID_MAX]; /* a: the scenario GPU it calibrated, or "" */
    /* The CPU backend: the CPU compared with itself (tui/measure_model.c). */
    bool on_cpu;                    /* the device is the CPU */
    int virt;                       /* 1 a virtual machine, 0 bare metal, -1 not said */
    const struct catalog_cpu *cpu;  /* the catalog CPU of its model name, or NULL */
    char isa[16];                   /* the CPU path that ran ("avx2"), or "" */
    double memory_bytes;            /* the device's memory, 0 = not said */
    bool confirm_calibrate;         /* a asked: y applies another device's figures */
    struct tui_measure_ar ar;       /* x: the all-reduce */
    bool ar_view;                   /* v: the all-reduce view */
    struct tui_measure_runtime rt;  /* r: a running server's figures */
};

/* The lecture kit's part of the state (kept by tui/lecture_ui.c, read by
 * the drawing code): the lesson step shown, presentation mode, the pinned
 * scenario of a comparison, and the one-line prompt of s and o. */
enum tui_prompt {
    TUI_PROMPT_NONE = 0,
    TUI_PROMPT_SAVE,
    TUI_PROMPT_OVERWRITE,
    TUI_PROMPT_LOAD,
    TUI_PROMPT_GOTO, /* a lesson's : or g: the step to go to */
    TUI_PROMPT_QUIT, /* q in a lesson: leave it? y/n */
};
#define TUI_PROMPT_MAX 256
struct tui_lecture_view {
    bool lesson;          /* a lesson is loaded */
    size_t step, n_steps; /* the step shown (0-based) and how many */
    const char *step_title, *caption; /* owned by the lesson */
    /* The caption's page shown, and (set by the app after each frame) how
     * many pages it takes at this size: n and p page before they step. */
    size_t caption_page, caption_pages;
    bool off_step;        /* changed since the step was shown (r returns) */
    /* A question step (issue 17): the question, the panes whose figures
     * show as '?' until n reveals them (bit 1u << enum tui_pane; Roofline
     * goes with Speed), and whether n (or a change) revealed them. */
    const char *question; /* owned by the lesson; NULL on a plain step */
    unsigned hide;
    bool revealed;
    /* The figures and inputs the step's caption and question cite
     * (lesson_text.h): the panes highlight them while the step is shown. */
    struct lesson_cites cites;
    bool present;         /* presentation mode */
    bool pinned;          /* c: the comparison's pinned scenario */
    struct options pin_opt;
    struct engine_estimate pin_est;
    enum tui_prompt prompt;
    char prompt_text[TUI_PROMPT_MAX]; /* what the user typed */
    bool prompt_selected;             /* the offered name is selected (line_edit.h) */
};

/* The Model pane's model-file prompt: the path typed, and what the last Tab
 * found when it could not complete alone (the matches, shown in the pane). */
#define TUI_FILE_MATCHES 8
struct tui_file_prompt {
    char text[TUI_PROMPT_MAX];
    bool selected; /* the offered path is selected: typing replaces it (line_edit.h) */
    char matches[TUI_FILE_MATCHES][64];
    size_t n_matches, more; /* shown, and how many more there were */
};
/* Whether the step shown asks a question not yet answered (the caption
 * shows the question, n reveals). */
static inline bool tui_lecture_asking(const struct tui_lecture_view *lx) {
    return lx->lesson && lx->question && !lx->revealed;
}
/* Whether the step shown cites figure k and it is highlighted now: on the
 * step as the file has it (not after a change), once a question is
 * answered. */
static inline bool tui_lecture_cites(const struct tui_lecture_view *lx, enum engine_key k) {
    return lx->lesson && !lx->off_step && !tui_lecture_asking(lx) &&
           lesson_cites_key(&lx->cites, k);
}
/* The same for a scenario input (lesson_input_find's index). */
static inline bool tui_lecture_cites_input(const struct tui_lecture_view *lx, int i) {
    return lx->lesson && !lx->off_step && !tui_lecture_asking(lx) && i >= 0 &&
           (lx->cites.inputs >> i & 1u) != 0;
}
/* Whether pane p's figures show as '?' now. */
static inline bool tui_lecture_hides(const struct tui_lecture_view *lx, enum tui_pane p) {
    return tui_lecture_asking(lx) && (lx->hide & (1u << (unsigned)p)) != 0;
}

/* The verdict's layout and GPU-count advice (state_advice.c): searched by
 * the advice worker off the input thread once tui_state_advice_start ran
 * (the explorer), else at once (tests, benchmarks). */
struct tui_advice {
    bool pending;                     /* the worker has not answered the verdict shown */
    unsigned long request;            /* the worker's id of the request shown */
    unsigned spin;                    /* the spinner's frame */
    char head[TUI_VERDICT_MAX];       /* the verdict before the advice searched */
    char pre[48];                     /* what comes before it: "try ", " or " */
    struct engine_search_cache cache; /* the searches made at once */
};

struct tui_state {
    struct options opt;
    const struct catalog *cat;
    struct engine_estimate est;

    int model_index; /* catalog index, or -1: a bare size or a custom model */
    int wfmt_index, kvfmt_index, gpu_index; /* -1: custom */
    int size_step;   /* log slider position, 0..TUI_SIZE_STEPS */

    enum tui_pane focus_pane;
    enum tui_field focus[TUI_PANE_COUNT]; /* focused field per pane */
    enum tui_pane last_input;             /* input pane the compact layout shows */

    enum tui_overlay overlay;
    struct tui_picker picker;
    /* Help and explain scroll: the first line shown, and (set by the app
     * after each frame) the most it can scroll and the lines of a page. */
    unsigned overlay_scroll, overlay_scroll_max, overlay_page;

    char message[TUI_MSG_MAX]; /* last refusal or note; "" when none */
    char verdict[TUI_VERDICT_MAX];
    double curve_batch[TUI_CURVE_POINTS];
    double curve_tokens[TUI_CURVE_POINTS];
    bool curve_fits[TUI_CURVE_POINTS];
    struct tui_measure measure;
    int explain_key;       /* the key a lesson step explains, or -1: the focused field's */
    struct tui_lecture_view lx;
    /* QLoRA switched the weights to NF4: the format to restore on leaving. */
    bool qlora_switched;
    int qlora_saved_index;
    struct engine_format qlora_saved_format;
    struct tui_file_prompt file;
    /* The model file opened in the explorer (opt.model_file points here). */
    struct catalog_model_file file_mf;
    bool quit;
    bool compact; /* the app's layout hides Roofline and Measure */
    unsigned recomputes; /* for tests and the benchmark */
    struct tui_advice advice;
};

#define TUI_SIZE_MIN 1e8
#define TUI_SIZE_STEPS 69 /* 1e8 * 10^(69/16) = 2.05e12 */

/* Field table access. */
struct tui_field_info {
    enum tui_field id;
    enum tui_pane pane;
    enum param_id param; /* the parameter it edits (engine/param_table.h); PARAM_COUNT: a figure */
    const char *label;
    const char *help;
};
const struct tui_field_info *tui_field_info(enum tui_field f);
/* Whether the explorer sets a parameter, by a field or a key. */
bool tui_param_reached(enum param_id id);

/* Set up a state from parsed options and a loaded catalog (filling in a
 * default model, format and GPU where the options left them empty), then
 * compute. cat must outlive the state. */
void tui_state_init(struct tui_state *st, const struct options *o, const struct catalog *cat);

/* Handle one key; returns TUI_DIRTY_* flags. */
unsigned tui_state_key(struct tui_state *st, int key);

/* Recompute the estimate, the verdict and the batch curve. */
void tui_state_recompute(struct tui_state *st);

/* Focus a field (mouse click); returns dirty flags. */
unsigned tui_state_focus(struct tui_state *st, enum tui_field f);
/* Change the focused field by delta small steps (wheel); returns flags. */
unsigned tui_state_change(struct tui_state *st, int delta);

/* Whether a field applies now (training-only fields in inference...). */
bool tui_field_applies(const struct tui_state *st, enum tui_field f);
/* The engine key the explain overlay shows for a field. */
int tui_field_key(const struct tui_state *st, enum tui_field f);

/* Picker contents: number of entries matching the filter, and the label of
 * the i-th (filtered) entry; the current pick is marked by *current. */
size_t tui_picker_count(const struct tui_state *st);
const char *tui_picker_label(const struct tui_state *st, size_t i, bool *current);
/* Choose the i-th filtered entry (mouse or Enter); returns flags. */
unsigned tui_picker_choose(struct tui_state *st, size_t i);

/* The size the slider shows, in parameters. */
double tui_size_of_step(int step);
int tui_step_of_size(double params);

/* Record one measured result (keeps, per test, the batch-1 row with the
 * most threads). */
void tui_measure_add(struct tui_measure *m, const char *test, double bytes_per_s,
                     double threads, double batch);
/* The measured rate of a test, or 0. */
double tui_measure_rate(const struct tui_measure *m, const char *test);

/* Internal to state*.c: step one field (dir +1/-1, big for PgUp/PgDn),
 * and make TP/PP valid for the model after a model change. */
unsigned tui_field_step(struct tui_state *st, enum tui_field f, int dir, bool big);
void tui_state_fix_layout(struct tui_state *st);
/* The same, TP capped at max_tp instead of a node's GPUs: the starting
 * scenario (command line, scenario file, lesson step) keeps a TP that spans
 * nodes, as plan does (with its warning); the explorer's own steps stay
 * inside a node. */
void tui_state_fix_layout_within(struct tui_state *st, uint32_t max_tp);
/* Another GPU was picked: the --system it came from no longer applies
 * (its links and GPUs per node stay as set; its power is dropped). */
void tui_state_leave_system(struct tui_state *st);
/* Internal (state_advice.c): the verdict line; the GPU count with the best
 * layout for it (false: no valid layout); the mode, with QLoRA's NF4 switch;
 * which formats each picker lists; GPUs per node. */
void tui_state_verdict(struct tui_state *st);
/* The advice worker (state_advice.c): one thread for the session that
 * answers the verdict's layout and GPU-count searches while the screen
 * stays live. start: 0, or -1 when no thread could start (the searches are
 * then made at once); poll: after a key or a timeout, the dirty flags of
 * an answer arrived or the spinner's next frame; pending: whether one is
 * awaited (the loop then wakes more often); stop: before the state goes. */
int tui_state_advice_start(void);
unsigned tui_state_advice_poll(struct tui_state *st);
bool tui_state_advice_pending(const struct tui_state *st);
void tui_state_advice_stop(void);
bool tui_state_set_gpus(struct tui_state *st, uint32_t gpus);
void tui_state_set_mode(struct tui_state *st, enum engine_mode mode);
bool tui_format_for_weights(const struct engine_format *f);
bool tui_format_for_kv(const struct engine_format *f);
uint32_t tui_gpus_per_node(const struct engine_scenario *sc);
/* Internal (state_fields.c): the first field of a pane that applies now
 * (TUI_F_COUNT: none); keep every pane's focus on a field that applies. */
enum tui_field tui_field_first(const struct tui_state *st, enum tui_pane p);
void tui_state_fix_focus(struct tui_state *st);
/* Internal (state_picker.c): open the focused field's picker; a key while
 * a picker is open. */
unsigned tui_picker_open(struct tui_state *st, enum tui_field f);
unsigned tui_picker_key(struct tui_state *st, int key);
/* Internal (state_file.c): open the model-file prompt; a key while it is
 * open (Tab completes the path as a shell does, Enter reads the file, Esc
 * cancels; an error closes it and shows in the status line). */
unsigned tui_file_open(struct tui_state *st);
unsigned tui_file_key(struct tui_state *st, int key);
/* Complete the prompt's path once (what Tab does); returns flags. */
unsigned tui_file_complete(struct tui_state *st);

/* The message saying the recipe sets the weights in full training. */
void tui_state_recipe_note(struct tui_state *st);

#endif
