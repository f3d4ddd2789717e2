/*
 * probe_client.h: start vramlab-probe and read its JSON Lines (shared spec
 * measure.md): blocking for `vramlab measure`, non-blocking for the
 * explorer's Measure pane.
 *
 * Non-blocking use (the pane):
 *   struct probe_client pc;
 *   probe_client_start(&pc, path, args, err, sizeof err);
 *   poll on probe_client_fd(&pc) (POLLIN) alongside the keyboard;
 *   when readable: probe_client_read(&pc); then
 *   while (probe_client_next(&pc, &ev) > 0) { handle ev };
 *   after EOF, probe_client_finish(&pc) reaps the child (exit status);
 *   Esc: probe_client_cancel(&pc) (SIGTERM, a short grace, then SIGKILL,
 *   then waitpid: never a zombie, never a hang).
 * The probe's stderr goes to /dev/null so it can never scribble on a
 * curses screen.
 *
 * Each line is read with jansson into one flat object: scalar members
 * (string, number, true/false/null) kept, nested arrays/objects kept as
 * their compact JSON text; unknown members and unknown events are ignored
 * by the callers, malformed lines reported as PROBE_EV_BAD (jansson's
 * message and column), a last line without its newline at EOF as a
 * truncated stream.
 */
#ifndef VRAMLAB_PROBE_CLIENT_H
#define VRAMLAB_PROBE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROBE_CLIENT_MAX_FIELDS 40
#define PROBE_CLIENT_STR        192
#define PROBE_CLIENT_LINE       8192

enum probe_json_type {
    PROBE_JSON_STR = 0,
    PROBE_JSON_NUM,
    PROBE_JSON_BOOL,
    PROBE_JSON_NULL,
    PROBE_JSON_RAW
};

struct probe_json_field {
    char key[32];
    enum probe_json_type type;
    char str[PROBE_CLIENT_STR]; /* strings (unescaped UTF-8) and raw nested text */
    double num;
    bool b;
};

/* One parsed line. */
struct probe_json {
    size_t n;
    struct probe_json_field f[PROBE_CLIENT_MAX_FIELDS];
};

/* Parse one JSON object. Returns 0, or -1 with a message. */
int probe_json_parse(const char *text, size_t len, struct probe_json *out, char *err,
                     size_t errlen);
/* Member lookups: NULL / dflt when absent or of another type. */
const struct probe_json_field *probe_json_get(const struct probe_json *j, const char *key);
const char *probe_json_str(const struct probe_json *j, const char *key);
double probe_json_num(const struct probe_json *j, const char *key, double dflt);
bool probe_json_bool(const struct probe_json *j, const char *key, bool dflt);

enum probe_event_kind {
    PROBE_EV_DEVICE = 0,
    PROBE_EV_PROGRESS,
    PROBE_EV_RESULT,
    PROBE_EV_ERROR,
    PROBE_EV_SKIP,
    PROBE_EV_OTHER,     /* a well-formed event of a kind this build ignores */
    PROBE_EV_BAD,       /* a malformed line (message in .error) */
    PROBE_EV_TRUNCATED, /* the stream ended inside a line */
    PROBE_EV_FIT,       /* the all-reduce's latency-bandwidth fit (issue 15) */
};

struct probe_event {
    enum probe_event_kind kind;
    struct probe_json j;
    char error[160];
};

/* Classify a parsed line (or a parse error) into an event. */
void probe_event_from_line(const char *line, size_t len, struct probe_event *ev);

struct probe_client {
    pid_t pid;
    int fd;
    char buf[PROBE_CLIENT_LINE];
    size_t len;
    bool eof;
    bool overflow; /* the current line outgrew buf: it is skipped */
    bool reaped;
    int status; /* raw waitpid status once reaped */
};

/* Find the probe: $VRAMLAB_PROBE, else the build tree, else the installed
 * libexec copy. Returns 0 with the path, or -1 with what was tried. */
int probe_client_find(char *path, size_t len, char *err, size_t errlen);
/* The same for another of vramlab's probe programs (vramlab-ggml), its
 * environment variable first (VRAMLAB_GGML_PROBE). */
int probe_client_find_program(const char *name, const char *env_name, char *path, size_t len,
                              char *err, size_t errlen);

/* Start path with the given extra arguments (NULL-terminated, may be
 * NULL). The read end is non-blocking and close-on-exec. Returns 0 or -1. */
int probe_client_start(struct probe_client *c, const char *path, const char *const *args, char *err,
                       size_t errlen);

/* The same, with the child's stderr left where ours goes when keep_stderr
 * (`vramlab measure --mpirun`: the launcher's own messages, never in the
 * explorer). path may be a launcher with the probe among args. */
int probe_client_start_ex(struct probe_client *c, const char *path, const char *const *args,
                          bool keep_stderr, char *err, size_t errlen);

/* The descriptor to poll for POLLIN; -1 once closed. */
int probe_client_fd(const struct probe_client *c);

/* Read what is available without blocking: >0 bytes read, 0 at EOF, -1
 * when nothing is ready (EAGAIN) or on error (then eof is set). */
int probe_client_read(struct probe_client *c);

/* Take the next complete line as an event: 1 when ev was filled, 0 when
 * none is pending. At EOF a partial last line yields PROBE_EV_TRUNCATED. */
int probe_client_next(struct probe_client *c, struct probe_event *ev);

/* Stop the probe: SIGTERM, up to grace_ms for it to exit, then SIGKILL;
 * reaps the child and closes the pipe. Safe to call twice. */
void probe_client_cancel(struct probe_client *c, int grace_ms);

/* Wait for the probe to exit (blocking) and close the pipe. Returns its
 * exit status (128 + signal when killed), or -1 if it could not be reaped. */
int probe_client_finish(struct probe_client *c);

#endif
