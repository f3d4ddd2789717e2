/*
 * test_params.c: the parameter table (engine/param_table.h) walked row by
 * row (issue 23): each parameter is accepted by the command line with its
 * example and changes the scenario, appears in --help and as an entry of
 * the man page's option list, round-trips through a scenario file (saved,
 * loaded, the same text and the same estimate), its stated default is the
 * real one, and it is an explorer field (or key) exactly when the table
 * says so. And every state a shipped lesson visits (share/lessons) saved
 * and loaded back gives every figure of its estimate bit for bit.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/param_table.h"
#include "tui/lesson.h"
#include "tui/scenario_file.h"
#include "tui/state.h"

static struct catalog cat;
static char dir[256];
static char gguf[300], fit[300], config[300];

/* The catalog, a scratch directory, and the files the PATH rows read: a
 * GGUF file (tests/gguf_write.py; none without python3), a measured
 * all-reduce fit, a config.json fixture. */
static void setup(void) {
    struct catalog_diag d = {0};
    char cmd[1024];
    FILE *f;

    catalog_init(&cat);
    cr_assert_eq(catalog_load_default(&cat, &d), 0, "%s", d.text ? d.text : "");
    catalog_diag_free(&d);
    snprintf(dir, sizeof(dir), "/tmp/vramlab-test-params-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(gguf, sizeof(gguf), "%s/tiny.gguf", dir);
    snprintf(cmd, sizeof(cmd), "cd '%s' && python3 '%s/tests/gguf_write.py' '%s' q4km >/dev/null 2>&1",
             dir, TOP_SRCDIR, gguf);
    if (system(cmd) != 0)
        gguf[0] = '\0';
    snprintf(fit, sizeof(fit), "%s/fit.jsonl", dir);
    f = fopen(fit, "w");
    cr_assert_not_null(f);
    fputs("{\"event\":\"fit\",\"test\":\"allreduce\",\"transport\":\"nccl\",\"dtype\":\"fp32\","
          "\"ranks\":8,\"hosts\":1,\"points\":10,\"alpha_s\":1.2e-05,\"beta_bytes_per_s\":3.1e11,"
          "\"bus_beta_bytes_per_s\":5.4e11,\"residual\":0.1,\"ok\":true}\n",
          f);
    fclose(f);
    snprintf(config, sizeof(config), "%s/tests/fixtures/catalog/hf/Llama-3.1-8B/config.json",
             TOP_SRCDIR);
    /* --device cpu: this machine's CPU measured by the fake CPU probe
     * (fixed rates), saved in the scratch directory, not the user's. */
    setenv("VRAMLAB_PROBE", TOP_SRCDIR "/tests/fixtures/probe/fake-cpu.sh", 1);
    setenv("XDG_STATE_HOME", dir, 1);
}

static void teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    (void)!system(cmd);
    catalog_free(&cat);
}

TestSuite(params, .init = setup, .fini = teardown);

/* ---- the arguments that exercise one row ---------------------------------------- */

struct args {
    const char *v[48];
    int n;
    char buf[8][320];
    int nbuf;
};

static void add(struct args *a, const char *s) {
    cr_assert_lt(a->n, 46);
    a->v[a->n++] = s;
}

/* "--name=value" in the args' own storage. */
static void add_kv(struct args *a, const char *name, const char *value) {
    cr_assert_lt(a->nbuf, 8);
    snprintf(a->buf[a->nbuf], sizeof(a->buf[0]), "--%s=%s", name, value);
    add(a, a->buf[a->nbuf++]);
}

/* The example a row is tried with ("" for a flag); NULL when it cannot
 * be tried here (a model file without python3). */
static const char *example_of(const struct param_info *p) {
    switch (p->id) {
    case PARAM_MODEL_FILE:
        return gguf[0] ? gguf : NULL;
    case PARAM_MODEL_CONFIG:
        return config;
    case PARAM_MEASURED_ALLREDUCE:
        return fit;
    case PARAM_CATALOG:
    case PARAM_SCENARIO:
        return TOP_SRCDIR "/tests/fixtures/scenarios/good.yaml";
    default:
        return p->example;
    }
}

/* The companions a row needs to mean something: a mode that uses it and
 * what it depends on (a MoE model for --ep, full recompute for its
 * method, an architecture for its fields). */
static void context_of(const struct param_info *p, struct args *a) {
    add(a, "vramlab");
    if (p->id != PARAM_MODE && !(p->modes & PARAM_M_INFER))
        add(a, p->modes & PARAM_M_TRAIN ? "--mode=train" : "--mode=lora");
    switch (p->id) {
    case PARAM_OFFLOAD:
        add(a, "--zero=1");
        break;
    case PARAM_HOST_LINK_BW:
        add(a, "--zero=1");
        add(a, "--offload=cpu");
        break;
    case PARAM_RECOMPUTE_METHOD:
    case PARAM_RECOMPUTE_NUM_LAYERS:
        add(a, "--recompute=full");
        break;
    case PARAM_EP:
        add(a, "--model=mixtral-8x7b");
        add(a, "--dp=2");
        break;
    case PARAM_N_CPU_MOE:
        add(a, "--model=mixtral-8x7b");
        break;
    case PARAM_EPOCHS:
        add(a, "--dataset-tokens=1M");
        break;
    case PARAM_GPU_MEMORY:
    case PARAM_GPU_BANDWIDTH:
    case PARAM_GPU_FLOPS:
        add(a, "--gpu=h100-sxm");
        break;
    default:
        break;
    }
    if (p->flags & PARAM_F_ARCH) {
        /* a custom architecture, the row's example after it (the last wins) */
        add(a, "--layers=32");
        add(a, "--hidden=4096");
        add(a, "--heads=32");
        add(a, "--vocab=32000");
        if (p->id == PARAM_ACTIVE_EXPERTS || p->id == PARAM_SHARED_EXPERTS)
            add(a, "--experts=8");
    }
}

/* Parse argv; returns options_parse's code (messages to stderr). */
static int parse(struct args *a, struct options *o) {
    a->v[a->n] = NULL;
    return options_parse(a->n, (char **)a->v, &cat, o, false);
}

/* ---- the table itself ---------------------------------------------------------- */

Test(params, rows_in_order_named_once_with_what_their_type_needs) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        cr_assert_eq(p->id, i, "row %d is out of order", i);
        cr_expect(p->name && *p->name && p->help && *p->help, "row %d has no name or help", i);
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(p->name, param_info((enum param_id)j)->name, "--%s twice", p->name);
        cr_expect_eq(param_find(p->name, strlen(p->name)), p, "--%s not found by name", p->name);
        /* the model's id is at offset 0: a stored row never is */
        cr_expect(p->store == PARAM_S_NONE || p->offset != 0, "--%s stored at offset 0", p->name);
        cr_expect(p->type == PARAM_T_FLAG || p->metavar, "--%s has no metavar", p->name);
        if (p->type == PARAM_T_ENUM || p->type == PARAM_T_SWITCH) {
            cr_expect_not_null(param_value_name(p, 0), "--%s lists no values", p->name);
            for (unsigned k = 0; param_value_name(p, k); k++) {
                int back = -1;
                cr_expect_eq(param_value_parse(p, param_value_name(p, k), &back), 0);
                cr_expect_eq(back, (int)k, "--%s %s reads back as %d", p->name,
                             param_value_name(p, k), back);
            }
        }
        if (p->type == PARAM_T_INT || p->type == PARAM_T_TOKENS || p->type == PARAM_T_RATIO ||
            p->type == PARAM_T_NUMBER)
            cr_expect(p->min < p->max, "--%s has no range", p->name);
        cr_expect(p->modes != 0 && (p->modes & ~PARAM_M_ALL) == 0, "--%s: modes", p->name);
    }
}

/* The default a row states is the scenario's own: given explicitly, it
 * changes nothing. */
Test(params, stated_defaults_are_the_real_ones) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        struct args a = {0}, b = {0};
        struct options with, without;
        double v1, v2;
        if (!p->def || p->store == PARAM_S_NONE)
            continue;
        context_of(p, &a);
        context_of(p, &b);
        add_kv(&a, p->name, p->def);
        cr_assert_eq(parse(&a, &with), 0, "--%s=%s refused", p->name, p->def);
        cr_assert_eq(parse(&b, &without), 0, "the context of --%s refused", p->name);
        cr_assert(param_get(&with.sc, p->id, &v1) && param_get(&without.sc, p->id, &v2));
        cr_expect_eq(v1, v2, "--%s: the table's default %s is %.17g, the scenario's %.17g",
                     p->name, p->def, v1, v2);
    }
}

/* ---- the command line, --help and the man page ----------------------------------- */

Test(params, each_row_is_accepted_and_changes_the_scenario) {
    struct args b = {0};
    struct options base;
    add(&b, "vramlab");
    cr_assert_eq(parse(&b, &base), 0);
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        const char *ex = example_of(p);
        struct args a = {0}, c = {0};
        struct options o, ctx;
        if (!ex) {
            cr_log_warn("--%s: no example file here (python3 missing)", p->name);
            continue;
        }
        context_of(p, &a);
        context_of(p, &c);
        if (p->type == PARAM_T_FLAG) {
            add_kv(&a, p->name, "x"); /* a flag takes no value: refused */
            cr_expect_neq(parse(&a, &o), 0, "--%s=x accepted", p->name);
            a.n--;
            char *flag = a.buf[--a.nbuf];
            snprintf(flag, sizeof(a.buf[0]), "--%s", p->name);
            add(&a, flag);
        } else {
            add_kv(&a, p->name, ex);
        }
        cr_assert_eq(parse(&a, &o), 0, "--%s %s refused", p->name, ex);
        cr_assert_eq(parse(&c, &ctx), 0, "the context of --%s refused", p->name);
        if (p->scope != PARAM_SCOPE_SCENARIO)
            continue; /* output, session and explorer options change no scenario */
        /* The scenario (or the model's file) differs from the same
         * arguments without the row. */
        bool changed = memcmp(&o.sc, &ctx.sc, sizeof(o.sc)) != 0 || o.model_file != ctx.model_file;
        cr_expect(changed, "--%s %s changed nothing", p->name, ex);
    }
}

/* A bad value of every typed row gets the one wording. */
Test(params, bad_values_get_the_one_wording) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        struct args a = {0};
        struct options o;
        if (p->type != PARAM_T_INT && p->type != PARAM_T_TOKENS && p->type != PARAM_T_RATIO &&
            p->type != PARAM_T_NUMBER &&
            p->type != PARAM_T_ENUM && p->type != PARAM_T_SWITCH)
            continue;
        context_of(p, &a);
        add_kv(&a, p->name, "nonsense");
        cr_expect_eq(parse(&a, &o), VRAMLAB_EXIT_USAGE, "--%s=nonsense accepted", p->name);
    }
}

/* Whether text holds "--name" followed by a non-name character. */
static bool has_option(const char *text, const char *name) {
    char want[96];
    snprintf(want, sizeof(want), "--%s", name);
    for (const char *at = strstr(text, want); at; at = strstr(at + 1, want)) {
        char next = at[strlen(want)];
        if (!(next >= 'a' && next <= 'z') && next != '-' && !(next >= '0' && next <= '9'))
            return true;
    }
    return false;
}

Test(params, each_row_appears_in_help) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    options_print_help(f, OPTIONS_HELP_EXPLORER | OPTIONS_HELP_JSON | OPTIONS_HELP_EXPLAIN);
    fclose(f);
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        cr_expect(has_option(text, p->name), "--%s is not in --help", p->name);
    }
    /* the multiplier rules are stated */
    cr_expect_not_null(strstr(text, "k = 1024"), "%s", text);
    cr_expect_not_null(strstr(text, "B = 10^9"), "%s", text);
    free(text);
}

/* The man page's option list: each ".TP" entry's first line, with the
 * roff escapes "\-" as "-". */
static char *man_entries(void) {
    FILE *f = fopen(TOP_SRCDIR "/share/man/vramlab.1", "r");
    char line[1024];
    bool take = false;
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    cr_assert_not_null(f);
    while (fgets(line, sizeof(line), f)) {
        if (take) {
            for (char *s = line; *s; s++)
                if (!(s[0] == '\\' && s[1] == '-'))
                    fputc(*s, o);
        }
        take = !strncmp(line, ".TP", 3);
    }
    fclose(f);
    fclose(o);
    return out;
}

Test(params, the_man_page_lists_each_row_and_no_other_scenario_option) {
    static const char *const others[] = {
        /* measure, quantize, the program's own */
        "device", "quick", "tests", "threads", "allreduce", "sizes", "dtypes", "iters",
        "deadline", "mpirun", "bits", "group", "lang", "version", "help",
        /* measure --batches; bench's own */
        "batches", "url", "max-tokens", "repetitions", "warmup", "api", "server-model",
        "timeout", "events"};
    char *man = man_entries();
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        if (p->id == PARAM_HELP)
            continue;
        cr_expect(has_option(man, p->name), "--%s has no entry in share/man/vramlab.1", p->name);
    }
    /* every option the man page describes is a row (or another command's) */
    for (size_t at = 0; man[at]; at++) {
        char name[64];
        size_t n;
        bool known = false;
        if (strncmp(man + at, "--", 2) != 0)
            continue;
        n = strspn(man + at + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
        snprintf(name, sizeof(name), "%.*s", (int)n, man + at + 2);
        at += 1 + n;
        if (!n)
            continue;
        known = param_find(name, strlen(name)) != NULL;
        for (size_t k = 0; k < sizeof(others) / sizeof(others[0]) && !known; k++)
            known = !strcmp(name, others[k]);
        cr_expect(known, "the man page describes --%s, which no table has", name);
    }
    free(man);
}

/* ---- scenario files ---------------------------------------------------------------- */

/* Save o, load it back, and compare: the same text again, the same
 * estimate bit for bit; returns the loaded options in *back. */
static void round_trip(const char *what, const struct options *o, struct options *back) {
    char err[SCENARIO_FILE_ERR_MAX];
    struct engine_estimate e1, e2;
    char *t1 = scenario_file_format(o, &cat, NULL), *t2;
    cr_assert_not_null(t1);
    cr_assert_eq(scenario_file_load_buffer(what, t1, strlen(t1), &cat, back, err, sizeof(err)), 0,
                 "%s: the saved file does not load: %s\n%s", what, err, t1);
    t2 = scenario_file_format(back, &cat, NULL);
    cr_expect_str_eq(t1, t2, "%s: saved again, the file differs", what);
    memset(&e1, 0, sizeof(e1));
    memset(&e2, 0, sizeof(e2));
    engine_estimate(&o->sc, &e1);
    engine_estimate(&back->sc, &e2);
    cr_expect(memcmp(&e1, &e2, sizeof(e1)) == 0, "%s: the estimate differs after a round trip\n%s",
              what, t1);
    free(t1);
    free(t2);
}

Test(params, each_scenario_row_round_trips) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        const char *ex = example_of(p);
        struct args a = {0};
        struct options o, back;
        double v1, v2;
        if (!param_in_file(p) || !ex)
            continue;
        context_of(p, &a);
        if (p->type == PARAM_T_FLAG) {
            char *flag = a.buf[a.nbuf++];
            snprintf(flag, sizeof(a.buf[0]), "--%s", p->name);
            add(&a, flag);
        } else {
            add_kv(&a, p->name, ex);
        }
        cr_assert_eq(parse(&a, &o), 0, "--%s %s refused", p->name, ex);
        round_trip(p->name, &o, &back);
        if (param_get(&o.sc, p->id, &v1) && param_get(&back.sc, p->id, &v2))
            cr_expect_eq(v1, v2, "--%s: %.17g saved, %.17g loaded", p->name, v1, v2);
        cr_expect_eq(o.units, back.units, "--%s: units", p->name);
        cr_expect_eq(o.model_file != NULL, back.model_file != NULL, "--%s: the model file",
                     p->name);
    }
}

/* ---- the explorer -------------------------------------------------------------------- */

Test(params, explorer_fields_are_the_rows_marked_so) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        bool marked = (p->flags & PARAM_F_TUI) != 0;
        cr_expect_eq(marked, tui_param_reached(p->id),
                     "--%s: the table says %s, the explorer %s", p->name,
                     marked ? "a field" : "CLI-only", marked ? "has none" : "sets it");
    }
    for (int f = 0; f < TUI_F_COUNT; f++) {
        enum param_id id = tui_field_info((enum tui_field)f)->param;
        cr_expect(id == PARAM_COUNT || (param_info(id)->flags & PARAM_F_TUI),
                  "field %d edits --%s, not marked PARAM_F_TUI", f, param_info(id)->name);
    }
}

/* Every state a shipped lesson visits, saved and loaded back (as s and o
 * do, and last.yaml), gives every figure of its estimate and of the
 * tokens/s-vs-batch curve bit for bit. */
Test(params, every_lesson_state_round_trips) {
    DIR *d = opendir(TOP_SRCDIR "/share/lessons");
    struct dirent *e;
    size_t steps = 0;
    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[512], err[4096];
        struct lesson l;
        if (!strstr(e->d_name, ".yaml"))
            continue;
        snprintf(path, sizeof(path), "%s/share/lessons/%s", TOP_SRCDIR, e->d_name);
        cr_assert_eq(lesson_load(path, &cat, &l, err, sizeof(err)), 0, "%s", err);
        for (size_t i = 0; i < lesson_count(&l); i++) {
            static struct tui_state a, b;
            struct options back;
            char what[600];
            snprintf(what, sizeof(what), "%s step %zu", e->d_name, i + 1);
            tui_state_init(&a, &lesson_step(&l, i)->options, &cat);
            round_trip(what, &a.opt, &back);
            tui_state_init(&b, &back, &cat);
            cr_expect(memcmp(&a.est, &b.est, sizeof(a.est)) == 0, "%s: the explorer's estimate",
                      what);
            cr_expect(memcmp(a.curve_tokens, b.curve_tokens, sizeof(a.curve_tokens)) == 0,
                      "%s: the tokens/s curve", what);
            steps++;
        }
        lesson_free(&l);
    }
    closedir(d);
    cr_expect_gt(steps, 50, "only %zu lesson steps found", steps);
}
