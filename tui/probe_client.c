/*
 * probe_client.c: spawn vramlab-probe, read and parse its JSON Lines
 * (see probe_client.h).
 *
 * Its messages (the probe not found, a malformed line) are in the reader's
 * language; what goes through the probe's protocol (the exec failure's
 * error event) stays English, as the probe writes it; jansson's own words
 * and strerror's are theirs.
 */
#include "config.h"

#include "tui/probe_client.h"

#include "catalog/catalog.h"
#include "tui/i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

/* ---- the JSON line parser ----------------------------------------------- */

/* Copy s into a field's buffer, cut to cap - 1 bytes. */
static void pj_copy(char *out, size_t cap, const char *s, size_t n) {
    if (cap == 0)
        return;
    if (n > cap - 1)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

/* Parse one JSON object (jansson) into the flat fields: scalars kept,
 * nested arrays and objects as their compact text. */
int probe_json_parse(const char *text, size_t len, struct probe_json *out, char *err,
                     size_t errlen) {
    json_error_t e;
    const char *key;
    json_t *v;
    out->n = 0;
    json_t *root = json_loadb(text, len, 0, &e);
    if (!root) {
        snprintf(err, errlen, _("%s at column %d"), e.text, e.column);
        return -1;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "%s", _("expected '{' at column 1"));
        json_decref(root);
        return -1;
    }
    json_object_foreach(root, key, v) {
        if (out->n >= PROBE_CLIENT_MAX_FIELDS)
            break;
        struct probe_json_field *f = &out->f[out->n++];
        memset(f, 0, sizeof *f);
        pj_copy(f->key, sizeof f->key, key, strlen(key));
        switch (json_typeof(v)) {
        case JSON_STRING:
            f->type = PROBE_JSON_STR;
            pj_copy(f->str, sizeof f->str, json_string_value(v), json_string_length(v));
            break;
        case JSON_INTEGER:
        case JSON_REAL:
            f->type = PROBE_JSON_NUM;
            f->num = json_number_value(v);
            break;
        case JSON_TRUE:
        case JSON_FALSE:
            f->type = PROBE_JSON_BOOL;
            f->b = json_is_true(v);
            break;
        case JSON_NULL:
            f->type = PROBE_JSON_NULL;
            break;
        default: {
            char *raw = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            f->type = PROBE_JSON_RAW;
            if (raw)
                pj_copy(f->str, sizeof f->str, raw, strlen(raw));
            free(raw);
            break;
        }
        }
    }
    json_decref(root);
    return 0;
}

/* A member by name. */
const struct probe_json_field *probe_json_get(const struct probe_json *j, const char *key) {
    for (size_t i = 0; i < j->n; i++)
        if (strcmp(j->f[i].key, key) == 0)
            return &j->f[i];
    return NULL;
}

/* A string member, or NULL. */
const char *probe_json_str(const struct probe_json *j, const char *key) {
    const struct probe_json_field *f = probe_json_get(j, key);
    return f && f->type == PROBE_JSON_STR ? f->str : NULL;
}

/* A number member, or dflt. */
double probe_json_num(const struct probe_json *j, const char *key, double dflt) {
    const struct probe_json_field *f = probe_json_get(j, key);
    return f && f->type == PROBE_JSON_NUM ? f->num : dflt;
}

/* A boolean member, or dflt. */
bool probe_json_bool(const struct probe_json *j, const char *key, bool dflt) {
    const struct probe_json_field *f = probe_json_get(j, key);
    return f && f->type == PROBE_JSON_BOOL ? f->b : dflt;
}

/* Classify one line. */
void probe_event_from_line(const char *line, size_t len, struct probe_event *ev) {
    static const struct {
        const char *name;
        enum probe_event_kind kind;
    } kinds[] = {
        {"device", PROBE_EV_DEVICE}, {"progress", PROBE_EV_PROGRESS}, {"result", PROBE_EV_RESULT},
        {"error", PROBE_EV_ERROR},   {"skip", PROBE_EV_SKIP},     {"fit", PROBE_EV_FIT},
    };
    ev->error[0] = 0;
    if (probe_json_parse(line, len, &ev->j, ev->error, sizeof ev->error) != 0) {
        ev->kind = PROBE_EV_BAD;
        ev->j.n = 0; /* a line that did not parse has no members */
        catalog_text_clean_str(ev->error);
        return;
    }
    /* Untrusted text (issue 27 item 5): a device name, a test's name or an
     * error message (the driver's, /proc/cpuinfo's, a probe named by
     * VRAMLAB_PROBE) is shown and written as read: its controls '?'. */
    for (size_t i = 0; i < ev->j.n; i++) {
        catalog_text_clean_str(ev->j.f[i].key);
        if (ev->j.f[i].type == PROBE_JSON_STR || ev->j.f[i].type == PROBE_JSON_RAW)
            catalog_text_clean_str(ev->j.f[i].str);
    }
    const char *e = probe_json_str(&ev->j, "event");
    ev->kind = PROBE_EV_OTHER;
    if (!e) {
        ev->kind = PROBE_EV_BAD;
        snprintf(ev->error, sizeof ev->error, "%s", _("a line without an \"event\" member"));
        return;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(e, kinds[i].name) == 0)
            ev->kind = kinds[i].kind;
}

/* ---- the child process ---------------------------------------------------- */

/* Find the probe executable. */
int probe_client_find(char *path, size_t len, char *err, size_t errlen) {
    return probe_client_find_program("vramlab-probe", "VRAMLAB_PROBE", path, len, err, errlen);
}

/* Find one of vramlab's probe programs: $env, else the build tree, else
 * where it is installed. */
int probe_client_find_program(const char *name, const char *env_name, char *path, size_t len,
                              char *err, size_t errlen) {
    const char *env = getenv(env_name);
    if (env && *env) {
        snprintf(path, len, "%s", env);
        if (access(path, X_OK) == 0)
            return 0;
        snprintf(err, errlen, _("%s=%s is not an executable file"), env_name, env);
        return -1;
    }
    char cands[2][1024];
    snprintf(cands[0], sizeof cands[0], "%s/%s", VRAMLAB_ABS_BUILDDIR, name);
    snprintf(cands[1], sizeof cands[1], "%s/%s", VRAMLAB_PKGLIBEXECDIR, name);
    for (size_t i = 0; i < 2; i++)
        if (access(cands[i], X_OK) == 0) {
            snprintf(path, len, "%s", cands[i]);
            return 0;
        }
    snprintf(err, errlen, _("%s not found (tried $%s, %s, %s)"), name, env_name, cands[0],
             cands[1]);
    return -1;
}

/* Start the probe with stdout on a pipe. */
int probe_client_start(struct probe_client *c, const char *path, const char *const *args, char *err,
                       size_t errlen) {
    return probe_client_start_ex(c, path, args, false, err, errlen);
}

/* The same, stderr kept where it is when keep_stderr (see probe_client.h). */
int probe_client_start_ex(struct probe_client *c, const char *path, const char *const *args,
                          bool keep_stderr, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    c->pid = -1;
    c->fd = -1;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    const char *argv[48];
    size_t n = 0;
    argv[n++] = path;
    for (size_t i = 0; args && args[i] && n + 1 < sizeof argv / sizeof argv[0]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        /* child: its own process group (the probe and, under --mpirun, the
         * launcher and its local ranks: one kill reaches them all, and a
         * Ctrl-C at the terminal goes to vramlab, which stops them), and
         * told to go when vramlab goes, even by SIGKILL (Linux's
         * PR_SET_PDEATHSIG: SIGTERM, which mpirun passes to its ranks). A
         * parent already gone before the prctl shows as a new ppid. */
        setpgid(0, 0);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
        if (getppid() != parent)
            _exit(127);
        /* a background process group may still write to the terminal
         * (stderr kept) even where `stty tostop` is set */
        signal(SIGTTOU, SIG_IGN);
        /* stdout to the pipe, stdin and stderr to /dev/null */
        int devnull = open("/dev/null", O_RDWR);
        dup2(fds[1], STDOUT_FILENO);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            if (!keep_stderr)
                dup2(devnull, STDERR_FILENO);
        }
        close(fds[0]);
        close(fds[1]);
        signal(SIGPIPE, SIG_DFL);
        execv(path, (char *const *)argv);
        /* exec failed: say so the way the probe would, then leave */
        char msg[512];
        int k = snprintf(msg, sizeof msg,
                         "{\"event\":\"error\",\"code\":\"exec\",\"message\":\"cannot run the "
                         "probe: %s\"}\n",
                         strerror(errno));
        if (k > 0)
            (void)!write(STDOUT_FILENO, msg, (size_t)k);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first, the group exists */
    close(fds[1]);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    c->pid = pid;
    c->fd = fds[0];
    return 0;
}

/* The descriptor to poll. */
int probe_client_fd(const struct probe_client *c) {
    return c->fd;
}

/* Read what is available without blocking. */
int probe_client_read(struct probe_client *c) {
    if (c->fd < 0 || c->eof)
        return 0;
    if (c->len == sizeof c->buf) {
        /* a line longer than the buffer: drop it up to its newline */
        c->len = 0;
        c->overflow = true;
    }
    ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
    if (k > 0) {
        c->len += (size_t)k;
        return (int)k;
    }
    if (k == 0) {
        c->eof = true;
        return 0;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return -1;
    c->eof = true;
    return -1;
}

/* Take the next complete line as an event. */
int probe_client_next(struct probe_client *c, struct probe_event *ev) {
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (!nl) {
            if (c->eof && c->len > 0) {
                ev->kind = PROBE_EV_TRUNCATED;
                ev->j.n = 0;
                snprintf(ev->error, sizeof ev->error, "%s",
                         _("the probe's output ended in the middle of a line"));
                c->len = 0;
                return 1;
            }
            return 0;
        }
        size_t n = (size_t)(nl - c->buf);
        bool skip = c->overflow || n == 0;
        c->overflow = false;
        if (!skip)
            probe_event_from_line(c->buf, n, ev);
        memmove(c->buf, nl + 1, c->len - n - 1);
        c->len -= n + 1;
        if (!skip)
            return 1;
    }
}

/* Convert a waitpid status to an exit code (128 + signal when killed). */
static int exit_code(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

/* Send a signal to the probe's process group (it and, under a launcher,
 * the launcher's local ranks), or to the probe alone where the group is
 * not there. */
static void probe_kill(const struct probe_client *c, int sig) {
    if (kill(-c->pid, sig) != 0)
        kill(c->pid, sig);
}

/* Stop the probe and reap it. */
void probe_client_cancel(struct probe_client *c, int grace_ms) {
    if (c->pid > 0 && !c->reaped) {
        probe_kill(c, SIGTERM);
        for (int waited = 0;; waited += 10) {
            pid_t r = waitpid(c->pid, &c->status, WNOHANG);
            if (r == c->pid || (r < 0 && errno != EINTR)) {
                c->reaped = true;
                break;
            }
            if (waited >= grace_ms) {
                probe_kill(c, SIGKILL);
                while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
                    ;
                c->reaped = true;
                break;
            }
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->eof = true;
}

/* Wait for the probe to exit and close the pipe. */
int probe_client_finish(struct probe_client *c) {
    if (c->pid > 0 && !c->reaped) {
        pid_t r;
        while ((r = waitpid(c->pid, &c->status, 0)) < 0 && errno == EINTR)
            ;
        c->reaped = r == c->pid;
    }
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    return c->reaped ? exit_code(c->status) : -1;
}
