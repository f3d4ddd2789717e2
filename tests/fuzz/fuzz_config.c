/*
 * fuzz_config.c: libFuzzer target for the Hugging Face config.json reader
 * (catalog_import_hf_buffer, what `import`, --model-config and a model
 * folder read), built and run by `make fuzz-config` (clang
 * -fsanitize=fuzzer,address,undefined). Seeds: tests/fuzz/seeds/config and
 * the fixtures' config.json files, copied at test time.
 *
 * Every input is refused with a message or accepted; an accepted model's
 * id and name are printable (catalog_text_clean), and the entry `import`
 * would print for it (given a context, as `import --context` gives one)
 * loads back as a catalog file: import never prints an entry that does
 * not load (issue 27 item 6).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct engine_model m;
    struct catalog_diag d = {0};
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    memset(&m, 0, sizeof m);
    int rc = catalog_import_hf_buffer("config.json", text, size, &m, &d);
    if (rc != 0 && d.errors == 0)
        abort(); /* refused without a word */
    if (d.text)
        FUZZ_PRINTABLE(d.text, true); /* a tab of a quoted line is harmless */
    catalog_diag_free(&d);
    if (rc == 0) {
        FUZZ_PRINTABLE(m.id, false);
        FUZZ_PRINTABLE(m.name, false);
        if (m.max_context == 0)
            m.max_context = 4096; /* import --context 4096 */
        if (!m.id[0])
            snprintf(m.id, sizeof m.id, "fuzz-model");
        static char yaml[16384];
        int n = snprintf(yaml, sizeof yaml, "models:\n");
        if (catalog_format_model_yaml(&m, yaml + n, sizeof yaml - (size_t)n) >= 0) {
            struct catalog c;
            catalog_init(&c);
            if (catalog_load_buffer(&c, "import.yaml", yaml, strlen(yaml), &d) != 0 &&
                getenv("FUZZ_CONFIG_LOOSE") == NULL) {
                fprintf(stderr, "the entry made from this config does not load:\n%s\n%s", yaml,
                        d.text ? d.text : "");
                abort();
            }
            catalog_free(&c);
            catalog_diag_free(&d);
        }
    }
    free(text);
    return 0;
}
