/*
 * cli_catalog.c: `vramlab catalog gpus|models|formats [--json]` lists the
 * loaded catalog (embedded default, user files, --catalog FILE), and
 * `vramlab import config.json` turns a Hugging Face config into a ready
 * models.yaml entry with its exact parameter count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/argv.h"
#include "tui/cli.h"
#include "tui/i18n.h"
#include "tui/json.h"
#include "tui/report.h"

/* Print `vramlab catalog --help`. */
static void catalog_usage(FILE *f) {
    fputs(_("usage: vramlab catalog gpus|models|formats|systems [--json] [--units gb|gib]\n"
          "                       [--catalog FILE]\n"
          "\n"
          "List the catalog: the embedded default, then $XDG_CONFIG_HOME/vramlab/*.yaml,\n"
          "then --catalog FILE (entries with the same id replace earlier ones).\n"
          "--json prints one object with an array of entries in base units.\n"),
          f);
}

/* Print `vramlab import --help`. */
static void import_usage(FILE *f) {
    fputs(_("usage: vramlab import [--context N] CONFIG.json | MODEL-DIR\n"
          "\n"
          "Read a Hugging Face config.json and print a complete catalog file (a\n"
          "models: header and one entry with the exact parameter count). For\n"
          "DIR/config.json the id is DIR's name, lower-cased, in [a-z0-9.-]:\n"
          "  vramlab import DIR/config.json > ~/.config/vramlab/my-model.yaml\n"
          "The same file can be used directly: vramlab plan --model-config CONFIG.json\n"
          "\n"
          "  --context N   the model's longest context, for a config.json without\n"
          "                max_position_embeddings (an entry needs one)\n"),
          f);
}

/* Display width of a UTF-8 string (its code points). */
static int catalog_width(const char *s) {
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Print s left-aligned in a column w characters wide, then a space. */
static void catalog_cell(FILE *f, const char *s, int w) {
    fputs(s, f);
    for (int k = catalog_width(s); k < w; k++)
        fputc(' ', f);
    fputc(' ', f);
}

/* Widen *w to hold s. */
static void catalog_fit(int *w, const char *s) {
    int n = catalog_width(s);

    if (n > *w)
        *w = n;
}

/* The GPU table (id and name columns as wide as the longest entry). */
static void catalog_gpus_text(FILE *f, const struct catalog *c, enum units u) {
    int wid = 2, wname = catalog_width(_("name"));

    for (size_t i = 0; i < c->n_gpus; i++) {
        catalog_fit(&wid, c->gpus[i].id);
        catalog_fit(&wname, c->gpus[i].name);
    }
    catalog_cell(f, "id", wid);
    catalog_cell(f, _("name"), wname);
    fprintf(f, "%11s %11s %14s %9s\n", _("memory"), _("bandwidth"), _("16-bit dense"),
            _("price/h"));
    for (size_t i = 0; i < c->n_gpus; i++) {
        const struct engine_gpu *g = &c->gpus[i];
        char mem[32], bw[32], fl[32], price[32];
        double f16 = g->flops[ENGINE_COMPUTE_FP16] > 0 ? g->flops[ENGINE_COMPUTE_FP16]
                                                       : g->flops[ENGINE_COMPUTE_BF16];
        report_bytes(g->memory_bytes, u, mem, sizeof(mem));
        report_bandwidth(g->bandwidth_bytes_per_s, bw, sizeof(bw));
        report_flops(f16, fl, sizeof(fl));
        if (g->price_per_hour > 0)
            report_money(g->price_per_hour, price, sizeof(price));
        else
            snprintf(price, sizeof(price), "-");
        catalog_cell(f, g->id, wid);
        catalog_cell(f, g->name, wname);
        fprintf(f, "%*s %*s %*s %*s\n", report_pad(mem, 11), mem, report_pad(bw, 11), bw,
                report_pad(fl, 14), fl, report_pad(price, 9), price);
    }
}

/* The system table: servers and racks, what --system sets. */
static void catalog_systems_text(FILE *f, const struct catalog *c) {
    int wid = 2, wname = catalog_width(_("name")), wgpu = catalog_width(_("gpu"));

    for (size_t i = 0; i < c->n_systems; i++) {
        catalog_fit(&wid, c->systems[i].id);
        catalog_fit(&wname, c->systems[i].name);
        catalog_fit(&wgpu, c->systems[i].gpu);
    }
    catalog_cell(f, "id", wid);
    catalog_cell(f, _("name"), wname);
    catalog_cell(f, _("gpu"), wgpu);
    fprintf(f, "%5s %7s %11s %11s %9s\n", _("gpus"), _("nvlink"), _("link/GPU"), _("net/GPU"),
            _("power"));
    for (size_t i = 0; i < c->n_systems; i++) {
        const struct catalog_system *y = &c->systems[i];
        char link[32], net[32], power[32];
        report_bandwidth(y->link_bytes_per_s, link, sizeof(link));
        if (y->network_bytes_per_s > 0)
            report_bandwidth(y->network_bytes_per_s, net, sizeof(net));
        else
            snprintf(net, sizeof(net), "-");
        report_value(y->power_w, ENGINE_UNIT_WATTS, UNITS_GB, power, sizeof(power));
        catalog_cell(f, y->id, wid);
        catalog_cell(f, y->name, wname);
        catalog_cell(f, y->gpu, wgpu);
        fprintf(f, "%5u %7u %*s %*s %*s\n", y->gpus, y->nvlink_domain, report_pad(link, 11), link,
                report_pad(net, 11), net, report_pad(power, 9), power);
    }
}

/* The model table (id and name columns as wide as the longest entry). */
static void catalog_models_text(FILE *f, const struct catalog *c) {
    int wid = 2, wname = catalog_width(_("name"));

    for (size_t i = 0; i < c->n_models; i++) {
        catalog_fit(&wid, c->models[i].id);
        catalog_fit(&wname, c->models[i].name);
    }
    catalog_cell(f, "id", wid);
    catalog_cell(f, _("name"), wname);
    fprintf(f, "%8s %8s %6s %7s %9s %8s\n", _("params"), _("active"), _("layers"), _("hidden"),
            _("heads/kv"), _("context"));
    for (size_t i = 0; i < c->n_models; i++) {
        const struct engine_model *m = &c->models[i];
        char total[32], active[32], heads[32];
        report_count(engine_params_total(m), total, sizeof(total));
        report_count(engine_params_active(m), active, sizeof(active));
        snprintf(heads, sizeof(heads), "%u/%u", m->heads, m->kv_heads);
        catalog_cell(f, m->id, wid);
        catalog_cell(f, m->name, wname);
        fprintf(f, "%*s %*s %6u %7u %9s %8u\n", report_pad(total, 8), total, report_pad(active, 8),
                active, m->layers, m->hidden, heads, m->max_context);
    }
}

/* The format table (id and name columns as wide as the longest entry). */
static void catalog_formats_text(FILE *f, const struct catalog *c) {
    int wid = 2, wname = catalog_width(_("name"));

    for (size_t i = 0; i < c->n_formats; i++) {
        catalog_fit(&wid, c->formats[i].id);
        catalog_fit(&wname, c->formats[i].name);
    }
    catalog_cell(f, "id", wid);
    catalog_cell(f, _("name"), wname);
    fprintf(f, "%6s %10s %6s %8s\n", _("kind"), _("bits/wt"), _("block"), _("compute"));
    for (size_t i = 0; i < c->n_formats; i++) {
        const struct engine_format *fm = &c->formats[i];
        static const char *const kinds[] = {"float", "int", "block"};
        catalog_cell(f, fm->id, wid);
        catalog_cell(f, fm->name, wname);
        fprintf(f, "%6s %10.4g %6u %8s\n", fm->kind <= ENGINE_FMT_BLOCK ? kinds[fm->kind] : "?",
                engine_format_bits(fm), fm->block, engine_compute_name(fm->compute));
    }
}

/* A string member (null when s is NULL). */
static void catalog_json_str(struct json_writer *w, const char *key, const char *s) {
    json_key(w, key);
    json_text(w, s);
}

/* A number member. */
static void catalog_json_num(struct json_writer *w, const char *key, double v) {
    json_key(w, key);
    json_number(w, v);
}

/* GPUs as JSON, base units. */
static void catalog_gpus_json(struct json_writer *w, const struct catalog *c) {
    json_key(w, "gpus");
    json_begin_array(w);
    for (size_t i = 0; i < c->n_gpus; i++) {
        const struct engine_gpu *g = &c->gpus[i];
        json_begin_object(w);
        catalog_json_str(w, "id", g->id);
        catalog_json_str(w, "name", g->name);
        catalog_json_str(w, "vendor", g->vendor);
        catalog_json_num(w, "memory_bytes", g->memory_bytes);
        catalog_json_num(w, "bandwidth_bytes_per_s", g->bandwidth_bytes_per_s);
        json_key(w, "flop_per_s");
        json_begin_object(w);
        for (int k = 0; k < ENGINE_COMPUTE_COUNT; k++) {
            if (g->flops[k] > 0)
                catalog_json_num(w, engine_compute_name((enum engine_compute)k), g->flops[k]);
        }
        json_end_object(w);
        catalog_json_str(w, "interconnect", g->interconnect);
        catalog_json_num(w, "link_bytes_per_s", g->link_bytes_per_s);
        catalog_json_num(w, "gpus_per_node", g->gpus_per_node);
        catalog_json_num(w, "tdp_w", g->tdp_w);
        catalog_json_num(w, "price_per_hour", g->price_per_hour > 0 ? g->price_per_hour : NAN);
        catalog_json_str(w, "source", g->source);
        json_end_object(w);
    }
    json_end_array(w);
}

/* Models as JSON with both counts. */
static void catalog_models_json(struct json_writer *w, const struct catalog *c) {
    json_key(w, "models");
    json_begin_array(w);
    for (size_t i = 0; i < c->n_models; i++) {
        const struct engine_model *m = &c->models[i];
        json_begin_object(w);
        catalog_json_str(w, "id", m->id);
        catalog_json_str(w, "name", m->name);
        catalog_json_str(w, "family", m->family);
        catalog_json_num(w, "params_published", m->params_published);
        catalog_json_num(w, "params_total", engine_params_total(m));
        catalog_json_num(w, "params_active", engine_params_active(m));
        catalog_json_num(w, "layers", m->layers);
        catalog_json_num(w, "hidden", m->hidden);
        catalog_json_num(w, "heads", m->heads);
        catalog_json_num(w, "kv_heads", m->kv_heads);
        catalog_json_num(w, "head_dim", m->head_dim);
        catalog_json_num(w, "ffn", m->ffn);
        catalog_json_num(w, "vocab", m->vocab);
        catalog_json_num(w, "max_context", m->max_context);
        catalog_json_num(w, "experts", m->experts);
        catalog_json_num(w, "active_experts", m->active_experts);
        catalog_json_str(w, "source", m->source);
        json_end_object(w);
    }
    json_end_array(w);
}

/* Formats as JSON. */
static void catalog_formats_json(struct json_writer *w, const struct catalog *c) {
    json_key(w, "formats");
    json_begin_array(w);
    for (size_t i = 0; i < c->n_formats; i++) {
        const struct engine_format *f = &c->formats[i];
        json_begin_object(w);
        catalog_json_str(w, "id", f->id);
        catalog_json_str(w, "name", f->name);
        catalog_json_num(w, "bits", f->bits);
        catalog_json_num(w, "bits_per_weight", engine_format_bits(f));
        catalog_json_num(w, "block", f->block);
        catalog_json_num(w, "scale_bits", f->scale_bits);
        catalog_json_num(w, "zero_bits", f->zero_bits);
        catalog_json_str(w, "compute", engine_compute_name(f->compute));
        catalog_json_str(w, "source", f->source);
        json_end_object(w);
    }
    json_end_array(w);
}

/* Systems as JSON, base units. */
static void catalog_systems_json(struct json_writer *w, const struct catalog *c) {
    json_key(w, "systems");
    json_begin_array(w);
    for (size_t i = 0; i < c->n_systems; i++) {
        const struct catalog_system *y = &c->systems[i];
        json_begin_object(w);
        catalog_json_str(w, "id", y->id);
        catalog_json_str(w, "name", y->name);
        catalog_json_str(w, "gpu", y->gpu);
        catalog_json_num(w, "gpus", y->gpus);
        catalog_json_num(w, "nvlink_domain", y->nvlink_domain);
        catalog_json_num(w, "link_bytes_per_s", y->link_bytes_per_s);
        catalog_json_num(w, "network_bytes_per_s",
                         y->network_bytes_per_s > 0 ? y->network_bytes_per_s : NAN);
        catalog_json_num(w, "power_w", y->power_w);
        catalog_json_str(w, "source", y->source);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The arguments of catalog and import: some of the parameter table's
 * rows (--json, --units, --catalog, --help) and one word. */
struct catalog_args {
    const enum param_id *ids; /* the rows taken, by the scanner's index */
    const char *what;         /* the word: gpus ..., or import's path */
    const char *extra;        /* a second word (refused) */
    const char *catalog;      /* --catalog FILE */
    const char *context;      /* import --context N */
    bool json;
    enum units units;
    bool help;
};

/* Record one argument. */
static int catalog_visit(void *ctx, int i, const char *value) {
    struct catalog_args *a = ctx;
    int k;
    if (i == ARGV_POSITIONAL) {
        if (a->what) {
            a->extra = value;
            return 1;
        }
        a->what = value;
        return 0;
    }
    switch (a->ids[i]) {
    case PARAM_JSON:
        a->json = true;
        return 0;
    case PARAM_UNITS:
        if (options_enum(PARAM_UNITS, value, &k) != 0)
            return 2;
        a->units = k ? UNITS_GIB : UNITS_GB;
        return 0;
    case PARAM_HELP:
        a->help = true;
        return 0;
    case PARAM_CONTEXT:
        a->context = value;
        return 0;
    default:
        a->catalog = value;
        return 0;
    }
}

/* Scan the arguments over the rows ids; prints the one wording and
 * returns -1 on a usage error. */
static int catalog_scan(int argc, char **argv, const enum param_id *ids, size_t n,
                        struct catalog_args *a) {
    struct argv_option rows[4];
    struct argv_spec spec = {rows, n, true, false, options_tr};
    char err[512];
    int rc;

    a->ids = ids;
    options_argv_rows(ids, n, rows);
    rc = argv_scan(&spec, argc, argv, catalog_visit, a, err, sizeof(err));
    if (rc == 1)
        argv_error_unexpected(&spec, err, sizeof(err), a->extra);
    if (rc == 2)
        return -1; /* options_enum said why */
    if (rc != 0) {
        fprintf(stderr, "vramlab: %s\n", err);
        return -1;
    }
    return 0;
}

/* `vramlab catalog gpus|models|formats|systems`. */
int cmd_catalog(int argc, char **argv) {
    static const char *const kinds[] = {"gpus", "models", "formats", "systems"};
    const char *what = NULL;
    bool json = false;
    enum units u = UNITS_GB;
    struct cli_run run;
    int rc;

    static const enum param_id ids[] = {PARAM_JSON, PARAM_UNITS, PARAM_CATALOG, PARAM_HELP};
    struct catalog_args args = {.units = UNITS_GB};
    if (catalog_scan(argc, argv, ids, 4, &args) != 0)
        return VRAMLAB_EXIT_USAGE;
    if (args.help) {
        catalog_usage(stdout);
        return 0;
    }
    what = args.what;
    json = args.json;
    u = args.units;
    if (!what || (strcmp(what, "gpus") && strcmp(what, "models") && strcmp(what, "formats") &&
                  strcmp(what, "systems"))) {
        const char *close[3];
        size_t n = what ? argv_closest(what, kinds, 4, close, 3) : 0;
        fputs(_("vramlab: catalog: expected gpus, models, formats or systems"), stderr);
        if (what)
            fprintf(stderr, _(", found '%s'"), what);
        if (n > 0)
            fprintf(stderr, _("; did you mean %s?"), close[0]);
        fputc('\n', stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    rc = cli_begin_catalog(&run, args.catalog);
    if (rc != 0)
        return rc;
    if (json) {
        struct json_writer w;
        json_init(&w, run.out);
        json_begin_object(&w);
        if (!strcmp(what, "gpus"))
            catalog_gpus_json(&w, &run.cat);
        else if (!strcmp(what, "models"))
            catalog_models_json(&w, &run.cat);
        else if (!strcmp(what, "systems"))
            catalog_systems_json(&w, &run.cat);
        else
            catalog_formats_json(&w, &run.cat);
        json_end_object(&w);
    } else if (!strcmp(what, "gpus")) {
        catalog_gpus_text(run.out, &run.cat, u);
    } else if (!strcmp(what, "models")) {
        catalog_models_text(run.out, &run.cat);
    } else if (!strcmp(what, "systems")) {
        catalog_systems_text(run.out, &run.cat);
    } else {
        catalog_formats_text(run.out, &run.cat);
    }
    return cli_finish(&run);
}

/* The last component of a path (into buf, trailing slashes dropped). */
static const char *import_base(const char *path, char *buf, size_t len) {
    size_t n;
    const char *slash;

    snprintf(buf, len, "%s", path);
    n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    slash = strrchr(buf, '/');
    return slash ? slash + 1 : buf;
}

/* For DIR/config.json, name the model after DIR (its real path, so that
 * "./config.json" works); a Hugging Face cache snapshot
 * (models--org--Name/snapshots/HASH) is named after Name. */
static void import_name_from_dir(const char *file, struct engine_model *m) {
    char real[4096], tmp[4096], dir[4096], last[256], *slash;
    const char *base;
    char id[sizeof(m->id)];

    if (!realpath(file, real) || strcmp(import_base(real, tmp, sizeof(tmp)), "config.json"))
        return;
    snprintf(dir, sizeof(dir), "%s", real);
    slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    base = import_base(dir, tmp, sizeof(tmp));
    snprintf(last, sizeof(last), "%s", base);
    slash = strrchr(dir, '/');
    if (slash && slash - dir >= 10 && !strncmp(slash - 10, "/snapshots", 10)) {
        const char *repo, *sep;
        slash[-10] = '\0';
        repo = import_base(dir, tmp, sizeof(tmp));
        sep = strstr(repo, "--");
        while (sep && strstr(sep + 2, "--"))
            sep = strstr(sep + 2, "--");
        base = sep && !strncmp(repo, "models--", 8) ? sep + 2 : repo;
    }
    options_model_id_of(base, id, sizeof(id));
    if (!id[0])
        return;
    memcpy(m->id, id, sizeof(id));
    /* A config without _name_or_path got its name from the path we were given. */
    if (!m->name[0] || !strcmp(m->name, ".") || !strcmp(m->name, "config.json") ||
        !strcmp(m->name, last))
        snprintf(m->name, sizeof(m->name), "%s", base);
}

/* The longest context of an imported model: the config's
 * max_position_embeddings, or --context N (which wins, said so); an entry
 * without one would not load, so none is refused (issue 27 item 6).
 * Returns 0, or -1 having said why. */
static int import_context(const char *path, uint32_t context, struct engine_model *m) {
    if (context > 0) {
        if (m->max_context > 0 && m->max_context != context)
            fprintf(stderr,
                    _("vramlab: import: --context %u replaces the config's "
                      "max_position_embeddings (%u)\n"),
                    context, m->max_context);
        /* learned positions (OPT's offset of 2 alone): sized by the context */
        if (m->max_context == 0 && m->pos_embeddings > 0)
            m->pos_embeddings += context;
        m->max_context = context;
        if (m->native_context >= context) { /* within the native context: no extension */
            m->native_context = 0;
            m->rope_factor = 0;
            m->rope_scaling[0] = '\0';
        }
    }
    if (m->max_context == 0) {
        fprintf(stderr,
                _("%s: max_position_embeddings: expected in a config.json for a catalog entry "
                  "(the model's longest context), found none; give it: vramlab import "
                  "--context N %s\n"),
                path, path);
        return -1;
    }
    return 0;
}

/* Whether the entry in yaml loads as a catalog file (the loader's every
 * check); if not, the loader's messages are printed and nothing else. */
static bool import_loads(const char *path, const char *yaml) {
    struct catalog c;
    struct catalog_diag d = {0};
    size_t n = strlen(yaml) + sizeof("models:\n");
    char *text = malloc(n);
    bool ok;
    if (!text)
        return false;
    snprintf(text, n, "models:\n%s", yaml);
    catalog_init(&c);
    ok = catalog_load_buffer(&c, path, text, strlen(text), &d) == 0 && d.errors == 0;
    if (!ok) {
        fprintf(stderr, _("vramlab: import: the entry made from %s would not load; not printed:\n"),
                path);
        if (d.text)
            fputs(d.text, stderr);
    }
    catalog_diag_free(&d);
    catalog_free(&c);
    free(text);
    return ok;
}

/* `vramlab import config.json`: print a complete catalog file (a models:
 * header and the entry), ready for ~/.config/vramlab/ID.yaml. */
int cmd_import(int argc, char **argv) {
    const char *path = NULL;
    char file[4096];
    struct engine_model m;
    struct catalog_diag d = {0};
    char *buf;
    size_t cap = 8192;
    int rc = 0;

    /* (--catalog is accepted for symmetry; the import does not need it.) */
    static const enum param_id ids[] = {PARAM_CATALOG, PARAM_HELP, PARAM_CONTEXT};
    struct catalog_args args = {.units = UNITS_GB};
    uint32_t context = 0;
    if (catalog_scan(argc, argv, ids, 3, &args) != 0)
        return VRAMLAB_EXIT_USAGE;
    if (args.context && options_uint(PARAM_CONTEXT, args.context, &context) != 0)
        return VRAMLAB_EXIT_USAGE;
    if (args.help) {
        import_usage(stdout);
        return 0;
    }
    path = args.what;
    if (!path) {
        fputs(_("vramlab: import needs a config.json path (see vramlab import --help)\n"), stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    memset(&m, 0, sizeof(m));
    options_config_path(path, file, sizeof(file));
    path = file;
    if (catalog_import_hf_config(path, &m, &d) != 0) {
        if (d.text)
            fprintf(stderr, "%s%s", d.text, d.len > 0 && d.text[d.len - 1] != '\n' ? "\n" : "");
        else
            fprintf(stderr, _("vramlab: import: cannot read '%s'\n"), path);
        catalog_diag_free(&d);
        return VRAMLAB_EXIT_CATALOG;
    }
    import_name_from_dir(path, &m);
    if (import_context(path, context, &m) != 0) {
        catalog_diag_free(&d);
        return VRAMLAB_EXIT_CATALOG;
    }
    buf = malloc(cap);
    if (!buf) {
        catalog_diag_free(&d);
        return 1;
    }
    if (catalog_format_model_yaml(&m, buf, cap) < 0) {
        fputs(_("vramlab: import: the entry does not fit the output buffer\n"), stderr);
        rc = 1;
    } else if (!import_loads(path, buf)) {
        rc = VRAMLAB_EXIT_CATALOG;
    } else {
        if (d.text) /* what was assumed: said, and kept in the file */
            fputs(d.text, stderr);
        printf(_("# vramlab import %s: save as ~/.config/vramlab/%s.yaml\n"), path, m.id);
        for (const char *l = d.text; l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
            printf("# %.*s\n", (int)strcspn(l, "\n"), l);
        fputs("models:\n", stdout);
        fputs(buf, stdout);
        if (fflush(stdout) != 0) {
            perror("vramlab: stdout");
            rc = 1;
        }
    }
    free(buf);
    catalog_diag_free(&d);
    return rc;
}
