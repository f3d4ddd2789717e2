/*
 * test_kernels_client.c: the probe client's JSON-line parser and its
 * non-blocking reader (tui/probe_client.c), driven by the fake probes in
 * tests/fixtures/probe and by /bin/sh one-liners.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/probe_client.h"

/* Parse a literal line into ev. */
static void line(const char *s, struct probe_event *ev) {
    probe_event_from_line(s, strlen(s), ev);
}

Test(probe_client, parses_scalars_escapes_and_nested_values) {
    struct probe_event ev;
    line("{\"event\":\"result\",\"test\":\"copy\",\"bytes\":2.5e9,\"verified\":true,"
         "\"flop\":null,\"list\":[1,[2,\"]\"],{\"a\":3}],\"s\":"
         "\"q\\\"\\\\\\n\\u00e9\\ud83d\\ude00\"}",
         &ev);
    cr_assert_eq(ev.kind, PROBE_EV_RESULT, "%s", ev.error);
    cr_assert_str_eq(probe_json_str(&ev.j, "test"), "copy");
    cr_assert_eq(probe_json_num(&ev.j, "bytes", 0), 2.5e9);
    cr_assert(probe_json_bool(&ev.j, "verified", false));
    cr_assert_eq(probe_json_get(&ev.j, "flop")->type, PROBE_JSON_NULL);
    cr_assert(isnan(probe_json_num(&ev.j, "flop", NAN)));
    cr_assert_str_eq(probe_json_get(&ev.j, "list")->str, "[1,[2,\"]\"],{\"a\":3}]");
    cr_assert_str_eq(probe_json_str(&ev.j, "s"), "q\"\\?\xc3\xa9\xf0\x9f\x98\x80"); /* the newline: '?' */
}

/* Issue 27 item 5: the parser unescapes; the event then shows every control
 * character of a string (a device name, a message) as '?', keeping the
 * rest. */
Test(probe_client, an_events_strings_carry_no_control_characters) {
    struct probe_json j;
    char err[128];
    const char *t = "{\"s\":\"a\\nb\"}";
    cr_assert_eq(probe_json_parse(t, strlen(t), &j, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(probe_json_str(&j, "s"), "a\nb");
    struct probe_event ev;
    line("{\"event\":\"device\",\"name\":\"GPU\\u001b]0;pwned\\u0007 \\u009b2J\xc3\xa9\","
         "\"raw\":[\"\\u001b\"]}",
         &ev);
    cr_assert_eq(ev.kind, PROBE_EV_DEVICE, "%s", ev.error);
    cr_assert_str_eq(probe_json_str(&ev.j, "name"), "GPU?]0;pwned? ?2J\xc3\xa9");
    cr_assert_null(strchr(probe_json_get(&ev.j, "raw")->str, 0x1b));
}

Test(probe_client, classifies_events) {
    struct probe_event ev;
    line("{\"event\":\"device\",\"name\":\"x\"}", &ev);
    cr_assert_eq(ev.kind, PROBE_EV_DEVICE);
    line("{\"event\":\"progress\",\"test\":\"copy\",\"fraction\":0.5}", &ev);
    cr_assert_eq(ev.kind, PROBE_EV_PROGRESS);
    line("{\"event\":\"error\",\"message\":\"m\",\"code\":\"no-device\"}", &ev);
    cr_assert_eq(ev.kind, PROBE_EV_ERROR);
    line("{\"event\":\"skip\",\"test\":\"gemm\"}", &ev);
    cr_assert_eq(ev.kind, PROBE_EV_SKIP);
    line("{\"event\":\"newfangled\"}", &ev);
    cr_assert_eq(ev.kind, PROBE_EV_OTHER);
}

Test(probe_client, malformed_lines_are_bad_not_fatal) {
    const char *bad[] = {"",
                         "not json",
                         "{",
                         "{\"event\":}",
                         "{\"event\":\"x\",}",
                         "{\"event\":\"x\"} trailing",
                         "{\"a\":\"unterminated}",
                         "{\"a\":tru}",
                         "{\"a\":1.2.3}",
                         "{\"a\":\"\\x\"}",
                         "{\"n\":1}",
                         "{\"a\":[1,2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct probe_event ev;
        line(bad[i], &ev);
        cr_assert_eq(ev.kind, PROBE_EV_BAD, "'%s'", bad[i]);
        cr_assert(ev.error[0], "'%s' has a message", bad[i]);
    }
}

Test(probe_client, too_many_members_and_long_strings_are_truncated_safely) {
    char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof buf, "{\"event\":\"result\"");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"k%d\":%d", i, i);
    n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"long\":\"");
    for (int i = 0; i < 1000; i++)
        buf[n++] = 'x';
    snprintf(buf + n, sizeof buf - n, "\"}");
    struct probe_event ev;
    line(buf, &ev);
    cr_assert_eq(ev.kind, PROBE_EV_RESULT, "%s", ev.error);
    cr_assert_eq(ev.j.n, PROBE_CLIENT_MAX_FIELDS);
}

/* Run a command through the client to the end; count events by kind. */
static int drain(const char *path, const char *const *args, int counts[8]) {
    struct probe_client pc;
    char err[256];
    cr_assert_eq(probe_client_start(&pc, path, args, err, sizeof err), 0, "%s", err);
    memset(counts, 0, 8 * sizeof counts[0]);
    struct probe_event ev;
    for (;;) {
        while (probe_client_next(&pc, &ev) > 0)
            counts[ev.kind]++;
        if (pc.eof)
            break;
        struct pollfd p = {probe_client_fd(&pc), POLLIN, 0};
        poll(&p, 1, 5000);
        probe_client_read(&pc);
    }
    while (probe_client_next(&pc, &ev) > 0)
        counts[ev.kind]++;
    return probe_client_finish(&pc);
}

Test(probe_client, reads_a_fake_probe_to_the_end) {
    int c[8];
    int rc = drain(TOP_SRCDIR "/tests/fixtures/probe/fake-ok.sh", NULL, c);
    cr_assert_eq(rc, 0);
    cr_assert_eq(c[PROBE_EV_DEVICE], 1);
    cr_assert_eq(c[PROBE_EV_RESULT], 7);
    cr_assert_eq(c[PROBE_EV_SKIP], 1);
    cr_assert_eq(c[PROBE_EV_OTHER], 1);
    cr_assert_eq(c[PROBE_EV_BAD], 0);
}

Test(probe_client, a_stream_cut_mid_line_is_reported_truncated) {
    int c[8];
    int rc = drain(TOP_SRCDIR "/tests/fixtures/probe/fake-truncated.sh", NULL, c);
    cr_assert_eq(rc, 0);
    cr_assert_eq(c[PROBE_EV_RESULT], 1);
    cr_assert_eq(c[PROBE_EV_TRUNCATED], 1);
}

Test(probe_client, a_probe_that_cannot_be_run_reports_an_error_event) {
    int c[8];
    int rc = drain("/nonexistent/vramlab-probe", NULL, c);
    cr_assert_eq(rc, 127);
    cr_assert_eq(c[PROBE_EV_ERROR], 1);
}

Test(probe_client, cancel_stops_a_probe_that_ignores_sigterm) {
    struct probe_client pc;
    char err[256];
    const char *args[] = {"-c", "trap '' TERM; echo '{\"event\":\"device\"}'; sleep 30", NULL};
    cr_assert_eq(probe_client_start(&pc, "/bin/sh", args, err, sizeof err), 0);
    struct pollfd p = {probe_client_fd(&pc), POLLIN, 0};
    poll(&p, 1, 5000);
    probe_client_read(&pc);
    struct probe_event ev;
    cr_assert_eq(probe_client_next(&pc, &ev), 1);
    cr_assert_eq(ev.kind, PROBE_EV_DEVICE);
    probe_client_cancel(&pc, 200); /* SIGTERM ignored: SIGKILL after 200 ms */
    cr_assert(pc.reaped);
    cr_assert_eq(probe_client_fd(&pc), -1);
    probe_client_cancel(&pc, 200); /* twice is harmless */
}

Test(probe_client, find_honours_vramlab_probe) {
    char path[512], err[512];
    setenv("VRAMLAB_PROBE", "/bin/sh", 1);
    cr_assert_eq(probe_client_find(path, sizeof path, err, sizeof err), 0);
    cr_assert_str_eq(path, "/bin/sh");
    setenv("VRAMLAB_PROBE", "/nonexistent/probe", 1);
    cr_assert_eq(probe_client_find(path, sizeof path, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/probe"));
    unsetenv("VRAMLAB_PROBE");
}
