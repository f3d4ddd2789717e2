/*
 * test_catalog.c: the YAML loader and what is built on it.
 *
 * Broken files (tests/fixtures/catalog/) are refused with their exact
 * message: file:line:col: key: expected ..., found ..., the line quoted
 * and a caret under the column. A refused file adds nothing; entries with
 * a known id replace the old ones; the user directory loads in name order
 * and skips bad files. Lookups are exact on normalised ids (an H100 SXM
 * never gets PCIe figures). config.json imports count parameters exactly
 * (published totals: Llama-3.1-8B 8,030,261,248; Pythia-1.4B 1,414,647,808;
 * GPT-2 124,439,808; OPT-125m 125,239,296; Qwen2.5-0.5B 494,032,768).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "catalog/internal.h"

#define FIXTURES TOP_SRCDIR "/tests/fixtures/catalog/"
#define GIB      1073741824.0

/* Load fixture `file` from memory, named "fixtures/<file>" in messages. */
static int load_fixture(struct catalog *c, const char *file, struct catalog_diag *d) {
    char path[1024], name[256], why[160];
    size_t len;
    char *text;
    int rc;

    snprintf(path, sizeof path, FIXTURES "%s", file);
    snprintf(name, sizeof name, "fixtures/%s", file);
    text = catalog_read_regular(path, CATALOG_MAX_FILE_BYTES, &len, why, sizeof why);
    cr_assert_not_null(text, "cannot read %s: %s", path, why);
    rc = catalog_load_buffer(c, name, text, len, d);
    free(text);
    return rc;
}

/* A broken fixture and the whole message it must produce. */
struct broken {
    const char *file;
    const char *message;
};

static const struct broken broken_files[] = {
    {"unknown_key.yaml",
     "fixtures/unknown_key.yaml:6:5: bandwith: unknown key in a gpus entry (did you mean "
     "'bandwidth'?)\n"
     "        bandwith: 3.35 TB/s\n"
     "        ^\n"},
    {"duplicate_id.yaml",
     "fixtures/duplicate_id.yaml:7:9: id: expected a unique id, found 'fp8-test' again (first "
     "at line 2)\n"
     "      - id: fp8-test\n"
     "            ^\n"},
    {"missing_field.yaml",
     "fixtures/missing_field.yaml:2:5: memory: expected in every gpus entry, found none\n"
     "      - id: test-gpu\n"
     "        ^\n"},
    {"wrong_unit.yaml",
     "fixtures/wrong_unit.yaml:6:16: bandwidth: expected a bandwidth like '3.35 TB/s' (B/s "
     "KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s), found '3.35 TB'\n"
     "        bandwidth: 3.35 TB\n"
     "                   ^\n"},
    {"negative.yaml",
     "fixtures/negative.yaml:5:13: memory: expected a size that is not negative, found '-80 "
     "GiB'\n"
     "        memory: -80 GiB\n"
     "                ^\n"},
    {"zero_bandwidth.yaml",
     "fixtures/zero_bandwidth.yaml:6:16: bandwidth: expected a bandwidth above zero, found '0 "
     "TB/s'\n"
     "        bandwidth: 0 TB/s\n"
     "                   ^\n"},
    {"bad_syntax.yaml",
     "fixtures/bad_syntax.yaml:5:11: YAML syntax: did not find expected ',' or '}' while "
     "parsing a flow mapping (from line 4)\n"
     "        source: \"test\"\n"
     "              ^\n"},
    {"wrong_type.yaml",
     "fixtures/wrong_type.yaml:7:12: flops: expected a mapping (check indentation), found '989 "
     "TFLOPS'\n"
     "        flops: 989 TFLOPS\n"
     "               ^\n"},
    {"overflow.yaml",
     "fixtures/overflow.yaml:6:13: layers: expected a whole number of at most 4294967295, "
     "found '99999999999'\n"
     "        layers: 99999999999\n"
     "                ^\n"},
    {"bad_kv_heads.yaml",
     "fixtures/bad_kv_heads.yaml:10:15: kv_heads: expected a divisor of heads (32), found '7'\n"
     "        kv_heads: 7\n"
     "                  ^\n"},
    {"top_level.yaml",
     "fixtures/top_level.yaml:2:1: accelerators: unknown key at the top; expected gpus, models, "
     "formats, evidence, cpus or systems\n"
     "    accelerators:\n"
     "    ^\n"},
};

Test(loader, broken_files_give_exact_messages_and_add_nothing) {
    size_t i;

    for (i = 0; i < sizeof broken_files / sizeof broken_files[0]; i++) {
        struct catalog c;
        struct catalog_diag d = {0};
        catalog_init(&c);
        cr_assert_eq(load_fixture(&c, "good.yaml", &d), 0, "%s", d.text);
        cr_expect_eq(load_fixture(&c, broken_files[i].file, &d), -1, "%s accepted",
                     broken_files[i].file);
        cr_expect_str_eq(d.text ? d.text : "", broken_files[i].message);
        cr_expect_eq(d.errors, 1, "%s: %u errors", broken_files[i].file, d.errors);
        /* Nothing of the refused file arrived. */
        cr_expect_eq(c.n_gpus, 3);
        cr_expect_eq(c.n_models, 4);
        cr_expect_eq(c.n_formats, 3);
        catalog_free(&c);
        catalog_diag_free(&d);
    }
}

Test(loader, every_mistake_in_a_file_is_reported) {
    struct catalog c;
    struct catalog_diag d = {0};

    catalog_init(&c);
    cr_assert_eq(load_fixture(&c, "many_errors.yaml", &d), -1);
    cr_expect_eq(d.errors, 10, "%s", d.text);
    cr_expect(strstr(d.text, "many_errors.yaml:4:13: vendor: expected one of nvidia, amd, "
                             "apple, google, intel, found 'nvidea'\n") != NULL,
              "%s", d.text);
    cr_expect(strstr(d.text, "many_errors.yaml:9:21: unified_memory: expected true or false, "
                             "found 'yes'\n") != NULL,
              "%s", d.text);
    cr_expect(strstr(d.text, "many_errors.yaml:11:5: memory: expected each key once, found it "
                             "again (first at line 5)\n") != NULL,
              "%s", d.text);
    cr_expect(strstr(d.text, "many_errors.yaml:7:29: flops.fp64: unknown key in a flops "
                             "mapping (did you mean 'fp4'?)\n") != NULL,
              "%s", d.text);
    cr_expect_eq(c.n_gpus, 0);
    catalog_free(&c);
    catalog_diag_free(&d);
}

Test(loader, messages_name_the_file_on_disk) {
    struct catalog c;
    struct catalog_diag d = {0};

    catalog_init(&c);
    cr_assert_eq(catalog_load_file(&c, FIXTURES "negative.yaml", &d), -1);
    cr_expect(strncmp(d.text, FIXTURES "negative.yaml:5:13: memory: ", strlen(FIXTURES) + 28) == 0,
              "%s", d.text);
    catalog_diag_free(&d);
    cr_assert_eq(catalog_load_file(&c, FIXTURES "no-such-file.yaml", &d), -1);
    cr_expect_str_eq(d.text, FIXTURES "no-such-file.yaml: cannot read: No such file or "
                                      "directory\n");
    catalog_free(&c);
    catalog_diag_free(&d);
}

Test(loader, good_file_values_and_defaults) {
    struct catalog c;
    struct catalog_diag d = {0};
    const struct engine_gpu *g;
    const struct engine_model *m;
    const struct engine_format *f;
    const struct catalog_evidence *e;
    const char *names[4];

    catalog_init(&c);
    cr_assert_eq(load_fixture(&c, "good.yaml", &d), 0, "%s", d.text);
    cr_assert_null(d.text);
    g = catalog_find_gpu(&c, "h100-sxm");
    cr_assert_not_null(g);
    cr_expect_str_eq(g->name, "H100 SXM");
    cr_expect_str_eq(g->vendor, "nvidia");
    cr_expect_eq(g->memory_bytes, 80 * GIB);
    cr_expect_eq(g->bandwidth_bytes_per_s, 3.35e12);
    cr_expect_eq(g->flops[ENGINE_COMPUTE_FP16], 989e12);
    cr_expect_eq(g->flops[ENGINE_COMPUTE_INT8], 1979e12);
    cr_expect_eq(g->flops[ENGINE_COMPUTE_FP4], 0);
    cr_expect_eq(g->link_bytes_per_s, 900e9);
    cr_expect_eq(g->gpus_per_node, 8);
    cr_expect_eq(g->tdp_w, 700);
    cr_expect_eq(g->price_per_hour, 2.99);
    cr_expect_eq(g->spot_price_per_hour, 1.60);
    cr_expect_str_eq(g->price_date, "2026-10");
    cr_expect_str_eq(g->interconnect, "NVLink 4");
    cr_expect_str_eq(g->source, "NVIDIA H100 datasheet (2022)");
    cr_expect_eq(catalog_device_names(&c, "h100-sxm", names, 4), 1);
    cr_expect_str_eq(names[0], "NVIDIA H100 80GB HBM3");
    g = catalog_find_gpu(&c, "m2-ultra");
    cr_expect_eq(g->gpus_per_node, 1, "default one GPU per node");
    cr_expect(g->unified_memory);

    m = catalog_find_model(&c, "mixtral-8x7b");
    cr_assert_not_null(m);
    cr_expect_eq(m->params_published, 46.7e9);
    cr_expect_eq(m->head_dim, 128, "default hidden / heads");
    cr_expect_eq(m->norms_per_layer, 2);
    cr_expect(m->gated, "gated by default");
    cr_expect(!m->tied);
    cr_expect(m->has_arch);
    cr_expect_eq(m->experts, 8);
    cr_expect_eq(m->active_experts, 2);
    m = catalog_find_model(&c, "llama-3.1-8b");
    cr_expect_eq(m->kv_heads, 8);
    cr_expect_eq(m->params_published, 8030261248.0);
    m = catalog_find_model(&c, "deepseek-v3");
    cr_expect_eq(m->kv_heads, 128, "default kv_heads = heads");
    cr_expect_eq(m->kv_lora_rank, 512);
    cr_expect_eq(m->dense_layers, 3);
    cr_expect_eq(m->moe_ffn, 2048);
    m = catalog_find_model(&c, "gemma-2-9b");
    cr_expect_eq(m->sliding_layers, 21);
    cr_expect_eq(m->norms_per_layer, 4);

    f = catalog_find_format(&c, "int4-g32");
    cr_assert_not_null(f);
    cr_expect_eq(f->kind, ENGINE_FMT_INT);
    cr_expect_eq(f->compute, ENGINE_COMPUTE_FP16, "default compute column");
    cr_expect_eq(f->block, 32);
    cr_expect_eq(f->scale_bits, 16);
    f = catalog_find_format(&c, "fp16");
    cr_expect_eq(f->max_value, 65504);
    cr_expect_eq(f->mantissa_bits, 10);
    cr_expect_eq(f->decimal_digits, 3.3);

    e = catalog_find_evidence(&c, "pythia-1.4b-loss");
    cr_assert_not_null(e);
    cr_expect_eq(e->n_points, 2);
    cr_expect_eq(e->group, 32);
    cr_expect_eq(e->bits[1], 8);
    cr_expect_eq(e->loss_per_matrix[1], 2.6002);
    catalog_free(&c);
}

Test(loader, override_by_id_replaces_whole_entries) {
    struct catalog c;
    struct catalog_diag d = {0};
    const struct engine_gpu *g;

    catalog_init(&c);
    cr_assert_eq(load_fixture(&c, "good.yaml", &d), 0);
    cr_assert_not_null(catalog_match_device(&c, "NVIDIA H100 80GB HBM3"));
    cr_assert_eq(load_fixture(&c, "override.yaml", &d), 0, "%s", d.text);
    cr_expect_eq(c.n_gpus, 4, "one replaced, one added");
    g = catalog_find_gpu(&c, "h100-sxm");
    cr_assert_not_null(g);
    cr_expect_str_eq(g->name, "H100 SXM (derated)");
    cr_expect_eq(g->bandwidth_bytes_per_s, 3e12);
    cr_expect_eq(g->flops[ENGINE_COMPUTE_FP16], 0, "no field survives from the old entry");
    cr_expect_eq(g->tdp_w, 0);
    cr_expect_str_eq(g->source, "test: a lab's measured figures");
    /* The replaced entry's driver names went with it. */
    cr_expect_null(catalog_match_device(&c, "NVIDIA H100 80GB HBM3"));
    cr_expect_eq(catalog_match_device(&c, "NVIDIA H100 80GB HBM3 (lab)"), g);
    cr_expect_not_null(catalog_find_gpu(&c, "l4"));
    catalog_free(&c);
}

/* Write text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text) {
    char path[1024];
    FILE *fp;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    fp = fopen(path, "w");
    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    fputs(text, fp);
    fclose(fp);
}

#define GPU_YAML(id, bw)                                                                           \
    "gpus:\n  - id: " id "\n    name: " id "\n    vendor: amd\n    memory: 192 GiB\n"              \
    "    bandwidth: " bw "\n    flops: {fp16: 1307 TFLOPS}\n    source: \"test\"\n"

Test(loader, user_directory_in_name_order_bad_files_skipped) {
    char tmp[] = "/tmp/vramlab-test-XXXXXX", dir[256];
    struct catalog c;
    struct catalog_diag d = {0};
    const struct engine_gpu *g;

    cr_assert_not_null(mkdtemp(tmp));
    snprintf(dir, sizeof dir, "%s/vramlab", tmp);
    cr_assert_eq(mkdir(dir, 0700), 0);
    write_file(dir, "10-first.yaml", GPU_YAML("mi300x", "5.3 TB/s"));
    write_file(dir, "20-broken.yaml", GPU_YAML("mi325x", "6 TB"));
    write_file(dir, "30-later.yaml", GPU_YAML("mi300x", "4 TB/s"));
    write_file(dir, "notes.txt", "not yaml: ignored");
    write_file(dir, ".hidden.yaml", "garbage: [");
    setenv("XDG_CONFIG_HOME", tmp, 1);

    catalog_init(&c);
    cr_expect_eq(catalog_load_user(&c, &d), 1, "one bad file");
    cr_expect_eq(d.errors, 1);
    cr_expect(strstr(d.text, "/vramlab/20-broken.yaml:6:16: bandwidth: expected a bandwidth "
                             "like '3.35 TB/s'") != NULL,
              "%s", d.text);
    g = catalog_find_gpu(&c, "mi300x");
    cr_assert_not_null(g);
    cr_expect_eq(g->bandwidth_bytes_per_s, 4e12, "30-later.yaml loads after 10-first.yaml");
    cr_expect_null(catalog_find_gpu(&c, "mi325x"));
    catalog_free(&c);
    catalog_diag_free(&d);

    /* Without XDG_CONFIG_HOME: ~/.config/vramlab. */
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "/nonexistent-home-for-test", 1);
    catalog_init(&c);
    cr_expect_eq(catalog_load_user(&c, &d), 0, "a missing directory is no error");
    cr_expect_null(d.text);
    catalog_free(&c);
}

Test(loader, home_config_fallback) {
    char tmp[] = "/tmp/vramlab-home-XXXXXX", dir[256];
    struct catalog c;
    struct catalog_diag d = {0};

    cr_assert_not_null(mkdtemp(tmp));
    snprintf(dir, sizeof dir, "%s/.config", tmp);
    cr_assert_eq(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/.config/vramlab", tmp);
    cr_assert_eq(mkdir(dir, 0700), 0);
    write_file(dir, "mine.yaml", GPU_YAML("mi250x", "3.2 TB/s"));
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", tmp, 1);
    catalog_init(&c);
    cr_expect_eq(catalog_load_user(&c, &d), 0, "%s", d.text);
    cr_expect_not_null(catalog_find_gpu(&c, "mi250x"));
    catalog_free(&c);
}

Test(loader, documents_and_edge_shapes) {
    static const struct {
        const char *text;
        int rc;
        const char *message;
    } cases[] = {
        {"", 0, NULL},
        {"# only a comment\n", 0, NULL},
        {"gpus:\nmodels: []\n", 0, NULL},
        {"gpus: []\n---\ngpus: []\n", -1,
         "t.yaml:3:1: expected one YAML document, found a second\n    gpus: []\n    ^\n"},
        {"- a\n- b\n", -1,
         "t.yaml:1:1: expected a mapping of gpus, models, formats, evidence, cpus or systems, found "
         "a list\n"
         "    - a\n    ^\n"},
        {"gpus: h100\n", -1,
         "t.yaml:1:7: gpus: expected a list of entries ('- id: ...'), found 'h100'\n"
         "    gpus: h100\n          ^\n"},
        {"gpus:\n  - h100\n", -1,
         "t.yaml:2:5: gpus: expected a mapping (check indentation), found 'h100'\n"
         "      - h100\n        ^\n"},
        {"gpus: []\ngpus: []\n", -1,
         "t.yaml:2:1: gpus: expected each key once, found it again (first at line 1)\n"
         "    gpus: []\n    ^\n"},
        {"gpus: [\xff]\n", -1, NULL},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct catalog c;
        struct catalog_diag d = {0};
        catalog_init(&c);
        cr_expect_eq(catalog_load_buffer(&c, "t.yaml", cases[i].text, strlen(cases[i].text), &d),
                     cases[i].rc, "case %zu: %s", i, d.text);
        if (cases[i].message != NULL)
            cr_expect_str_eq(d.text ? d.text : "", cases[i].message, "case %zu: %s", i,
                             d.text ? d.text : "");
        if (cases[i].rc < 0)
            cr_expect_gt(d.errors, 0, "case %zu", i);
        catalog_free(&c);
        catalog_diag_free(&d);
    }
}

Test(loader, model_and_format_consistency_checks) {
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {"formats:\n  - {id: '-', name: Q, kind: int, bits: 4, source: s}\n",
         "t.yaml:2:10: id: expected an id of a-z, 0-9, '.' and '-', found '-'\n"},
        {"formats:\n  - {id: q, name: Q, kind: int, bits: 4, scale_bits: 16, source: s}\n",
         "t.yaml:2:54: block: expected a block above zero to share the scale, found none\n"},
        {"models:\n  - {id: m, name: M, family: f, params: 1B, layers: 2, hidden: 100, ffn: 4,"
         " heads: 3, vocab: 9, max_context: 8, source: s}\n",
         "t.yaml:2:5: head_dim: expected when hidden (100) is not a multiple of heads (3), found "
         "none\n"},
        {"models:\n  - {id: m, name: M, family: f, params: 1B, layers: 2, hidden: 8, ffn: 4,"
         " heads: 2, vocab: 9, max_context: 8, moe: {experts: 4, active: 5}, source: s}\n",
         "t.yaml:2:137: moe.active: expected at most experts (4), found '5'\n"},
        {"models:\n  - {id: m, name: M, family: f, params: 0, layers: 2, hidden: 8, ffn: 4,"
         " heads: 2, vocab: 9, max_context: 8, source: s}\n",
         "t.yaml:2:41: params: expected a count above zero, found '0'\n"},
        {"models:\n  - {id: m, name: M, family: f, params: 1B, layers: 2.5, hidden: 8, ffn: 4,"
         " heads: 2, vocab: 9, max_context: 8, source: s}\n",
         "t.yaml:2:53: layers: expected a whole number like '32', found '2.5'\n"},
        /* systems: an NVLink domain that neither divides nor spans whole
         * systems; a negative power; a system without its power. */
        {"systems:\n  - {id: s, name: S, gpu: h100-sxm, gpus: 8, nvlink_domain: 3, "
         "link_bandwidth: 900 GB/s, power: 10 kW, source: s}\n",
         "t.yaml:2:61: nvlink_domain: expected a divisor or a multiple of gpus (8), found '3'\n"},
        {"systems:\n  - {id: s, name: S, gpu: h100-sxm, gpus: 8, link_bandwidth: 900 GB/s, "
         "power: -5 kW, source: s}\n",
         "t.yaml:2:79: power: expected a power that is not negative, found '-5 kW'\n"},
        {"systems:\n  - {id: s, name: S, gpu: h100-sxm, gpus: 8, link_bandwidth: 900 GB/s, "
         "source: s}\n",
         "t.yaml:2:5: power: expected in every systems entry, found none\n"},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct catalog c;
        struct catalog_diag d = {0};
        char *nl;
        catalog_init(&c);
        cr_expect_eq(catalog_load_buffer(&c, "t.yaml", cases[i].text, strlen(cases[i].text), &d),
                     -1, "case %zu", i);
        /* Compare the message line; the quoted line follows it. */
        nl = d.text ? strchr(d.text, '\n') : NULL;
        if (nl != NULL)
            nl[1] = '\0';
        cr_expect_str_eq(d.text ? d.text : "", cases[i].message, "case %zu: %s", i,
                         d.text ? d.text : "");
        catalog_free(&c);
        catalog_diag_free(&d);
    }
}

Test(loader, no_diagnostics_buffer_is_fine) {
    struct catalog c;

    catalog_init(&c);
    cr_expect_eq(catalog_load_buffer(&c, "t.yaml", "gpus: [", 7, NULL), -1);
    cr_expect_eq(catalog_load_file(&c, "/nonexistent/x.yaml", NULL), -1);
    catalog_free(&c);
}

Test(embedded, default_catalog_loads_cleanly_with_real_names) {
    struct catalog c;
    struct catalog_diag d = {0};
    size_t i;

    catalog_init(&c);
    cr_assert_eq(catalog_load_default(&c, &d), 0, "%s", d.text);
    cr_expect_null(d.text);
    cr_expect_gt(c.n_gpus, 10);
    cr_expect_gt(c.n_models, 10);
    cr_expect_gt(c.n_formats, 5);
    cr_expect_not_null(catalog_find_gpu(&c, "h100-sxm"));
    cr_expect_not_null(catalog_find_model(&c, "llama-3.1-8b"));
    for (i = 0; i < catalog_embedded_count; i++)
        cr_expect(strncmp(catalog_embedded_files[i].name, "share/catalog/", 14) == 0, "%s",
                  catalog_embedded_files[i].name);
    catalog_free(&c);
}

/* Entries a and b of size bytes are equal, the pointer at ptr compared by
 * the string it points to. */
static void same_entry(const void *a, const void *b, size_t size, size_t ptr, const char *what,
                       size_t i) {
    unsigned char x[4096], y[4096];
    const char *sa, *sb;
    cr_assert_leq(size, sizeof x);
    memcpy(x, a, size);
    memcpy(y, b, size);
    memcpy(&sa, x + ptr, sizeof sa);
    memcpy(&sb, y + ptr, sizeof sb);
    cr_assert_eq(sa == NULL, sb == NULL, "%s %zu", what, i);
    if (sa)
        cr_assert_str_eq(sa, sb, "%s %zu", what, i);
    memset(x + ptr, 0, sizeof sa);
    memset(y + ptr, 0, sizeof sb);
    cr_assert(memcmp(x, y, size) == 0, "%s %zu differs from the YAML", what, i);
}

/* The default catalog from its generated C tables (catalog/tables.h) is the
 * shipped YAML as the loader reads it, every byte of every entry (a field
 * the tables lost would show here). */
Test(embedded, tables_are_the_yaml_loaded) {
    struct catalog t, y;
    struct catalog_diag d = {0};

    catalog_init(&t);
    catalog_init(&y);
    cr_assert_eq(catalog_load_default(&t, &d), 0, "%s", d.text);
    for (size_t i = 0; i < catalog_embedded_count; i++)
        cr_assert_eq(catalog_load_buffer(&y, catalog_embedded_files[i].name,
                                         catalog_embedded_files[i].text,
                                         catalog_embedded_files[i].len, &d),
                     0, "%s", d.text);
#define SAME(arr, n, type, field)                                                                  \
    do {                                                                                           \
        cr_assert_eq(t.n, y.n, #arr);                                                              \
        for (size_t i = 0; i < t.n; i++)                                                           \
            same_entry(&t.arr[i], &y.arr[i], sizeof(type), offsetof(type, field), #arr, i);       \
    } while (0)
    SAME(gpus, n_gpus, struct engine_gpu, source);
    SAME(models, n_models, struct engine_model, source);
    SAME(formats, n_formats, struct engine_format, source);
    SAME(evidence, n_evidence, struct catalog_evidence, source);
    SAME(device_names, n_device_names, struct catalog_device_name, name);
    SAME(cpus, n_cpus, struct catalog_cpu, source);
    SAME(cpu_names, n_cpu_names, struct catalog_device_name, name);
    SAME(systems, n_systems, struct catalog_system, source);
#undef SAME
    cr_assert_gt(t.n_models, 10);
    catalog_free(&t);
    catalog_free(&y);
}

Test(lookup, normalised_ids_never_substrings) {
    struct catalog c;
    struct catalog_diag d = {0};
    const struct engine_gpu *sxm;

    catalog_init(&c);
    cr_assert_eq(catalog_load_default(&c, &d), 0, "%s", d.text);
    sxm = catalog_find_gpu(&c, "h100-sxm");
    cr_assert_not_null(sxm);
    cr_expect_eq(catalog_find_gpu(&c, "H100_SXM"), sxm);
    cr_expect_eq(catalog_find_gpu(&c, "h100 sxm"), sxm);
    cr_expect_eq(catalog_find_gpu(&c, "H100.SXM"), sxm);
    /* An H100 SXM must never get PCIe figures, nor the reverse: no prefixes. */
    cr_expect_null(catalog_find_gpu(&c, "h100"));
    cr_expect_null(catalog_find_gpu(&c, "h100-sx"));
    cr_expect_null(catalog_find_gpu(&c, "h100-sxm5"));
    cr_expect_null(catalog_find_gpu(&c, ""));
    cr_expect_neq(catalog_find_gpu(&c, "h100-pcie"), sxm);
    cr_expect_not_null(catalog_find_model(&c, "Llama-3.1-8B"));
    cr_expect_null(catalog_find_model(&c, "llama"));
    catalog_free(&c);
}

Test(lookup, suggestions_by_edit_distance) {
    struct catalog c;
    struct catalog_diag d = {0};
    const char *out[5];
    size_t n, i;
    bool sxm = false, pcie = false;

    catalog_init(&c);
    cr_assert_eq(load_fixture(&c, "good.yaml", &d), 0);
    n = catalog_suggest(&c, CATALOG_GPU, "h100", out, 5);
    for (i = 0; i < n; i++) {
        sxm |= strcmp(out[i], "h100-sxm") == 0;
        pcie |= strcmp(out[i], "h100-pcie") == 0;
    }
    cr_expect(sxm && pcie, "h100 suggests both H100 entries (%zu)", n);
    n = catalog_suggest(&c, CATALOG_GPU, "h100-smx", out, 5);
    cr_assert_geq(n, 1);
    cr_expect_str_eq(out[0], "h100-sxm");
    n = catalog_suggest(&c, CATALOG_MODEL, "lama-3.1-8b", out, 1);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(out[0], "llama-3.1-8b");
    cr_expect_eq(catalog_suggest(&c, CATALOG_FORMAT, "zzzzzzzzzz", out, 5), 0);
    catalog_free(&c);
}

/* What was typed is found inside an id before ids fewer edits away (issue
 * 27 item 6): "3060" is rtx-3060 first, not b300 (2 edits). */
Test(lookup, a_number_inside_an_id_comes_first) {
    struct catalog c;
    struct catalog_diag d = {0};
    const char *out[4];
    size_t n;

    catalog_init(&c);
    cr_assert_eq(catalog_load_default(&c, &d), 0);
    n = catalog_suggest(&c, CATALOG_GPU, "3060", out, 4);
    cr_assert_geq(n, 1);
    cr_expect_str_eq(out[0], "rtx-3060");
    n = catalog_suggest(&c, CATALOG_GPU, "4090", out, 4);
    cr_assert_geq(n, 1);
    cr_expect_str_eq(out[0], "rtx-4090");
    n = catalog_suggest(&c, CATALOG_GPU, "mi300", out, 4);
    cr_assert_geq(n, 1);
    cr_expect_str_eq(out[0], "mi300x");
    /* two characters are too few to mean a name */
    n = catalog_suggest(&c, CATALOG_GPU, "30", out, 4);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_neq(out[i], "rtx-3060");
    catalog_free(&c);
}

Test(lookup, driver_names_match_exactly) {
    struct catalog c;
    struct catalog_diag d = {0};

    catalog_init(&c);
    cr_assert_eq(load_fixture(&c, "good.yaml", &d), 0);
    cr_expect_eq(catalog_match_device(&c, "NVIDIA H100 80GB HBM3"),
                 catalog_find_gpu(&c, "h100-sxm"));
    cr_expect_eq(catalog_match_device(&c, "nvidia h100 pcie"), catalog_find_gpu(&c, "h100-pcie"));
    cr_expect_eq(catalog_match_device(&c, "H100 SXM"), catalog_find_gpu(&c, "h100-sxm"));
    cr_expect_null(catalog_match_device(&c, "NVIDIA H100"));
    cr_expect_null(catalog_match_device(&c, "NVIDIA H100 80GB"));
    cr_expect_null(catalog_match_device(&c, ""));
    catalog_free(&c);
}

/* Import fixtures/hf/<dir>/config.json into m, asserting success. */
static void import_fixture(const char *dir, struct engine_model *m) {
    char path[1024];
    struct catalog_diag d = {0};

    snprintf(path, sizeof path, FIXTURES "hf/%s/config.json", dir);
    cr_assert_eq(catalog_import_hf_config(path, m, &d), 0, "%s", d.text);
    catalog_diag_free(&d);
}

Test(import, published_parameter_counts) {
    static const struct {
        const char *dir;
        double params; /* published total (model card / HF num_parameters) */
    } golden[] = {
        {"Llama-3.1-8B", 8030261248.0}, {"pythia-1.4b", 1414647808.0},
        {"gpt2", 124439808.0},          {"opt-125m", 125239296.0},
        {"Qwen2.5-0.5B", 494032768.0},  {"Mixtral-8x7B-v0.1", 46702792704.0},
    };
    size_t i;

    for (i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        struct engine_model m;
        import_fixture(golden[i].dir, &m);
        cr_expect_eq(engine_params_total(&m), golden[i].params, "%s: %.0f", golden[i].dir,
                     engine_params_total(&m));
    }
}

Test(import, shapes_by_model_type) {
    struct engine_model m;

    import_fixture("Llama-3.1-8B", &m);
    cr_expect_str_eq(m.id, "llama-3.1-8b");
    cr_expect_str_eq(m.name, "Llama-3.1-8B");
    cr_expect_eq(m.kv_heads, 8);
    cr_expect_eq(m.head_dim, 128);
    cr_expect(m.gated && !m.tied && m.bias == ENGINE_BIAS_NONE && m.norm == ENGINE_NORM_RMS);
    cr_expect_eq(m.max_context, 131072);

    import_fixture("Qwen2.5-0.5B", &m);
    cr_expect_eq(m.bias, ENGINE_BIAS_QKV, "Qwen2 has q, k, v biases");
    cr_expect(m.tied);
    cr_expect_eq(m.sliding_window, 0, "use_sliding_window: false");

    import_fixture("pythia-1.4b", &m);
    cr_expect(!m.gated && m.bias == ENGINE_BIAS_ALL && m.norm == ENGINE_NORM_LAYER);
    cr_expect_eq(m.pos_embeddings, 0, "rotary");

    import_fixture("gpt2", &m);
    cr_expect_eq(m.layers, 12);
    cr_expect_eq(m.ffn, 3072, "n_inner absent: 4h");
    cr_expect_eq(m.pos_embeddings, 1024);
    cr_expect(m.tied && !m.gated);

    import_fixture("opt-125m", &m);
    cr_expect_str_eq(m.name, "opt-125m", "from _name_or_path");
    cr_expect_eq(m.pos_embeddings, 2050, "OPT keeps 2 extra position rows");

    import_fixture("gemma-3-4b-it", &m);
    cr_expect_eq(m.layers, 34, "text_config wins over the vision tower");
    cr_expect_eq(m.hidden, 2560);
    cr_expect_eq(m.heads, 8, "Gemma3TextConfig default");
    cr_expect_eq(m.head_dim, 256);
    cr_expect_eq(m.vocab, 262208);
    cr_expect_eq(m.sliding_window, 1024);
    cr_expect_eq(m.sliding_layers, 29, "5 of every 6 layers local");
    cr_expect(m.qk_norm && m.tied);
    cr_expect_eq(m.norms_per_layer, 4);
}

Test(import, experts_and_latent_attention) {
    struct engine_model m;

    import_fixture("Mixtral-8x7B-v0.1", &m);
    cr_expect_eq(m.experts, 8);
    cr_expect_eq(m.active_experts, 2);
    cr_expect_eq(m.sliding_window, 0, "sliding_window: null");

    /* DeepSeek-V3: 671B published (without the MTP module), within 0.5%. */
    import_fixture("DeepSeek-V3", &m);
    cr_expect_eq(m.experts, 256);
    cr_expect_eq(m.active_experts, 8);
    cr_expect_eq(m.shared_experts, 1);
    cr_expect_eq(m.moe_ffn, 2048);
    cr_expect_eq(m.dense_layers, 3);
    cr_expect_eq(m.q_lora_rank, 1536);
    cr_expect_eq(m.kv_lora_rank, 512);
    cr_expect_eq(m.rope_dim, 64);
    cr_expect_eq(m.nope_dim, 128);
    cr_expect_eq(m.v_head_dim, 128);
    cr_expect(fabs(engine_params_total(&m) / 671e9 - 1) < 0.005, "%.0f", engine_params_total(&m));
}

Test(import, errors_point_into_the_json) {
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {"{\n  \"model_type\": \"llama\",\n  \"num_hidden_layers\": 2\n}\n",
         "config.json:1:1: hidden_size: expected in a config.json (the model's hidden), found "
         "none\n"},
        {"{\n  \"hidden_size\": -5\n}\n",
         "config.json:2:18: hidden_size: expected a whole number that is not negative, found "
         "'-5'\n"},
        {"{\n  \"hidden_size\": 4096,\n",
         "config.json:3:1: JSON syntax: string or '}' expected near end of file\n"},
        {"[1, 2]\n", "config.json:1:1: expected a JSON object (a config.json), found another "
                     "value\n"},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct engine_model m;
        struct catalog_diag d = {0};
        char *nl;
        cr_expect_eq(
            catalog_import_hf_buffer("config.json", cases[i].text, strlen(cases[i].text), &m, &d),
            -1, "case %zu", i);
        nl = d.text ? strchr(d.text, '\n') : NULL;
        if (nl != NULL)
            nl[1] = '\0';
        cr_expect_str_eq(d.text ? d.text : "", cases[i].message, "case %zu: %s", i,
                         d.text ? d.text : "");
        catalog_diag_free(&d);
    }
}

Test(import, printed_entry_loads_back_unchanged) {
    static const char *const dirs[] = {"Llama-3.1-8B", "gpt2", "gemma-3-4b-it", "Qwen2.5-0.5B"};
    size_t i;

    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        struct engine_model m;
        const struct engine_model *back;
        struct catalog c;
        struct catalog_diag d = {0};
        char buf[4096] = "models:\n";
        int n;

        import_fixture(dirs[i], &m);
        n = catalog_format_model_yaml(&m, buf + 8, sizeof buf - 8);
        cr_assert_gt(n, 0);
        cr_expect_eq(catalog_format_model_yaml(&m, buf, 10), -1, "too small a buffer");
        snprintf(buf, sizeof buf, "models:\n");
        catalog_format_model_yaml(&m, buf + 8, sizeof buf - 8);
        catalog_init(&c);
        cr_assert_eq(catalog_load_buffer(&c, "printed.yaml", buf, strlen(buf), &d), 0, "%s\n%s",
                     d.text, buf);
        back = catalog_find_model(&c, m.id);
        cr_assert_not_null(back);
        cr_expect_eq(back->params_published, engine_params_total(&m));
        cr_expect_eq(engine_params_total(back), engine_params_total(&m), "%s", dirs[i]);
        cr_expect_eq(back->layers, m.layers);
        cr_expect_eq(back->kv_heads, m.kv_heads);
        cr_expect_eq(back->sliding_layers, m.sliding_layers);
        cr_expect_eq(back->pos_embeddings, m.pos_embeddings);
        cr_expect_eq(back->bias, m.bias);
        catalog_free(&c);
    }
}

/* Untrusted text (issue 27 item 5, catalog/text.c): controls and bad UTF-8
 * become '?', one per character or stray byte; valid UTF-8 stays as it is;
 * the text never grows. */
Test(text_clean, controls_become_question_marks) {
    char s[] = "\x1b]0;t\x07N\x08\x7f\t\n";
    size_t n = catalog_text_clean(s, strlen(s));
    cr_expect_str_eq(s, "?]0;t?N????");
    cr_expect_eq(n, strlen("?]0;t?N????"));
}

Test(text_clean, utf8_kept_c1_and_invalid_replaced) {
    /* é (c3 a9), 中 (e4 b8 ad), 😀 (f0 9f 98 80) kept; C1 CSI (c2 9b) one
     * '?'; a stray continuation byte, an overlong '/' (c0 af), a surrogate
     * (ed a0 80) and a cut sequence each a '?' per byte. */
    char s[] = "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80|\xc2\x9b|\x80|\xc0\xaf|\xed\xa0\x80|\xe4\xb8";
    catalog_text_clean_str(s);
    cr_expect_str_eq(s, "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80|?|?|??|???|??");
}

Test(text_clean, property_never_longer_and_always_clean) {
    /* Every 2-byte string and a sweep of 3-byte ones: the result is no
     * longer, has no C0/DEL byte, and a second pass changes nothing. */
    for (unsigned a = 0; a < 256; a++)
        for (unsigned b = 0; b < 256; b += (a < 0x80 ? 17 : 1)) {
            char s[4] = {(char)a, (char)b, (char)0xa9, 0}, t[4];
            size_t n = catalog_text_clean(s, 3);
            cr_assert_leq(n, 3);
            for (size_t i = 0; i < n; i++)
                cr_assert((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] != 0x7f,
                          "byte %02x left at %zu (from %02x %02x a9)", (unsigned char)s[i], i, a,
                          b);
            memcpy(t, s, 4);
            cr_assert_eq(catalog_text_clean(t, n), n);
            cr_assert(memcmp(s, t, n) == 0, "not idempotent for %02x %02x", a, b);
        }
}
