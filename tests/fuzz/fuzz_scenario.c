/*
 * fuzz_scenario.c: libFuzzer target for the scenario file reader
 * (tui/scenario_file.c: --scenario, o in the explorer, last.yaml) and the
 * lesson reader on top of it (tui/lesson.c), built and run by
 * `make fuzz-scenario` (clang -fsanitize=fuzzer,address,undefined).
 * Seeds: tests/fuzz/seeds/scenario, the scenario and lesson fixtures and
 * the shipped lessons, copied at test time.
 *
 * Every input is refused with a printable "file:line:col" message (no
 * control byte of the file reaches it) or accepted; an accepted scenario
 * saves (scenario_file_format) to a file that loads back to the same
 * scenario, written the same way again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "tests/fuzz/fuzz_util.h"
#include "tui/lesson.h"
#include "tui/scenario_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const struct catalog *cat = fuzz_catalog();
    char *text = malloc(size + 1);
    static struct options o, back;
    static char err[SCENARIO_FILE_ERR_MAX], err2[SCENARIO_FILE_ERR_MAX];
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    memset(&o, 0, sizeof o);
    int rc = scenario_file_load_buffer("fuzz.yaml", text, size, cat, &o, err, sizeof err);
    if (rc != SCENARIO_FILE_OK) {
        if (!err[0])
            abort(); /* refused without a word */
        FUZZ_PRINTABLE(err, false);
    } else {
        char *y = scenario_file_format(&o, cat, NULL);
        if (y) {
            memset(&back, 0, sizeof back);
            if (scenario_file_load_buffer("saved.yaml", y, strlen(y), cat, &back, err2,
                                          sizeof err2) != SCENARIO_FILE_OK) {
                fprintf(stderr, "a loaded scenario saves to a file that does not load:\n%s\n%s",
                        y, err2);
                abort();
            }
            char *y2 = scenario_file_format(&back, cat, NULL);
            if (y2 && strcmp(y, y2) != 0) {
                fprintf(stderr, "saved, loaded and saved again differs:\n%s\n---\n%s", y, y2);
                abort();
            }
            FUZZ_PRINTABLE(y, false);
            free(y2);
            free(y);
        }
    }

    /* The same bytes as a lesson (each step's scenario is read as above). */
    static struct lesson l;
    static char lerr[8192];
    memset(&l, 0, sizeof l);
    if (lesson_load_buffer("fuzz.lesson.yaml", text, size, cat, &l, lerr, sizeof lerr) == 0)
        lesson_free(&l);
    else if (!lerr[0])
        abort();
    free(text);
    return 0;
}
