/*
 * fuzz_catalog.c: libFuzzer target for everything that reads untrusted
 * text in catalog/: the YAML loader, the config.json importer and each
 * unit parser. Built by `make fuzz` with clang -fsanitize=fuzzer,address.
 * Every input goes through all of them; the loader must never crash,
 * leak, or accept a file and still report an error.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one input through the loader, the importer and the unit parsers. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int (*const parsers[])(const char *, double *, char *, size_t) = {
        catalog_parse_bytes, catalog_parse_bandwidth, catalog_parse_flops,   catalog_parse_price,
        catalog_parse_count, catalog_parse_power,     catalog_parse_seconds, catalog_parse_number,
    };
    struct catalog c;
    struct catalog_diag d = {0};
    struct engine_model m;
    char *text = malloc(size + 1), err[256];
    size_t i;
    int rc;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    catalog_init(&c);
    rc = catalog_load_buffer(&c, "fuzz.yaml", text, size, &d);
    /* Accepted means no message; refused means at least one. */
    if ((rc == 0) != (d.errors == 0))
        abort();
    if (rc == 0) {
        const char *near[4];
        size_t n_gpus = c.n_gpus, n_models = c.n_models;
        for (i = 0; i < c.n_gpus; i++)
            if (catalog_find_gpu(&c, c.gpus[i].id) == NULL)
                abort();
        /* Loading the same file again replaces every entry: counts stay. */
        if (catalog_load_buffer(&c, "fuzz.yaml", text, size, &d) != 0 || c.n_gpus != n_gpus ||
            c.n_models != n_models)
            abort();
        (void)catalog_suggest(&c, CATALOG_GPU, text, near, 4);
        (void)catalog_match_device(&c, text);
    }
    catalog_free(&c);
    catalog_diag_free(&d);

    if (catalog_import_hf_buffer("config.json", text, size, &m, &d) == 0) {
        char yaml[4096];
        (void)catalog_format_model_yaml(&m, yaml, sizeof yaml);
    }
    catalog_diag_free(&d);

    if (size < 256) {
        double v;
        for (i = 0; i < sizeof parsers / sizeof parsers[0]; i++) {
            if (parsers[i](text, &v, err, sizeof err) == 0 && !(v >= 0 && isfinite(v)))
                abort();
        }
    }
    free(text);
    return 0;
}
