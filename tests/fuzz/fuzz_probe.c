/*
 * fuzz_probe.c: libFuzzer target for the probe's JSON Lines as vramlab
 * reads them (tui/probe_client.c: the line splitter over a pipe, the
 * parser, the events), then as the explorer's Measure pane takes them
 * (tui/measure_model.c) and as `vramlab measure` records them
 * (tui/measure_run.c). Built and run by `make fuzz-probe` (clang
 * -fsanitize=fuzzer,address,undefined). Seeds: tests/fuzz/seeds/probe and
 * the output of the fake probes of tests/fixtures/probe, made at test time.
 *
 * The input is the probe's whole output, written into a pipe in pieces
 * (a probe writes lines as it goes) and read back as the client does until
 * end of file. Nothing may crash or read out of bounds; every string an
 * event carries, and the pane's device name and error, are printable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "tests/fuzz/fuzz_util.h"
#include "tui/measure_model.h"
#include "tui/measure_run.h"
#include "tui/probe_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tui_measure pane;
static struct measure_run run;
static struct probe_client client;
static struct probe_event ev;

/* Take every complete line the client holds. */
static void drain(void) {
    while (probe_client_next(&client, &ev) == 1) {
        for (size_t i = 0; i < ev.j.n; i++) {
            FUZZ_PRINTABLE(ev.j.f[i].key, false);
            if (ev.j.f[i].type == PROBE_JSON_STR || ev.j.f[i].type == PROBE_JSON_RAW)
                FUZZ_PRINTABLE(ev.j.f[i].str, false);
        }
        FUZZ_PRINTABLE(ev.error, false);
        tui_measure_take(&pane, &ev, fuzz_catalog());
        measure_run_take(&run, &ev);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const struct catalog *cat = fuzz_catalog();
    int fds[2];
    if (pipe(fds) != 0)
        return 0;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    memset(&client, 0, sizeof client);
    client.pid = -1;
    client.fd = fds[0];
    client.reaped = true;
    tui_measure_clear(&pane);
    memset(&run, 0, sizeof run);

    /* The first byte picks the size of the pieces written (1 to 256):
     * lines split across reads, a read ending inside a UTF-8 character. */
    size_t piece = size ? (size_t)data[0] + 1 : 1, off = size ? 1 : 0;
    while (off < size) {
        size_t n = size - off < piece ? size - off : piece;
        ssize_t w = write(fds[1], data + off, n);
        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno != EAGAIN)
            break;
        while (probe_client_read(&client) > 0)
            drain();
        drain();
    }
    close(fds[1]);
    for (int spins = 0; spins < 1000 && !client.eof; spins++) {
        probe_client_read(&client);
        drain();
    }
    drain();
    close(fds[0]);

    FUZZ_PRINTABLE(pane.device, false);
    FUZZ_PRINTABLE(pane.error, false);
    FUZZ_PRINTABLE(run.error, false);
    const char *test = NULL;
    bool nearest = false;
    (void)tui_measure_decode_bw(&pane, &cat->formats[0], &test, &nearest);
    (void)tui_measure_fma_peak(&pane);
    measure_run_free(&run);
    return 0;
}
