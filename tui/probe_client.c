/*
 * probe_client.c: spawn vramlab-probe, read and parse its JSON Lines
 * (see probe_client.h).
 */
#include "config.h"

#include "tui/probe_client.h"

#include "catalog/catalog.h"

#include <errno.h>
#include <fcntl.h>
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

struct jp {
    const char *s, *end;
    char *err;
    size_t errlen;
};

/* Skip JSON whitespace. */
static void jp_ws(struct jp *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\r' || *p->s == '\n'))
        p->s++;
}

/* Record an error at the current position; returns -1. */
static int jp_fail(struct jp *p, const char *what, const char *start) {
    snprintf(p->err, p->errlen, "%s at column %ld", what, (long)(p->s - start) + 1);
    return -1;
}

/* Append the UTF-8 encoding of code point u to out (bounded). */
static void put_utf8(char *out, size_t cap, size_t *n, unsigned u) {
    unsigned char b[4];
    size_t k;
    if (u < 0x80) {
        b[0] = (unsigned char)u;
        k = 1;
    } else if (u < 0x800) {
        b[0] = (unsigned char)(0xc0 | (u >> 6));
        b[1] = (unsigned char)(0x80 | (u & 0x3f));
        k = 2;
    } else if (u < 0x10000) {
        b[0] = (unsigned char)(0xe0 | (u >> 12));
        b[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (u & 0x3f));
        k = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | (u >> 18));
        b[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3f));
        b[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
        b[3] = (unsigned char)(0x80 | (u & 0x3f));
        k = 4;
    }
    for (size_t i = 0; i < k && *n + 1 < cap; i++)
        out[(*n)++] = (char)b[i];
}

/* Four hex digits. */
static int hex4(const char *s, unsigned *u) {
    *u = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d == 16)
            return -1;
        *u = *u * 16 + d;
    }
    return 0;
}

/* Parse a string at p->s (on the quote) into out (truncated to cap). */
static int jp_string(struct jp *p, char *out, size_t cap, const char *start) {
    size_t n = 0;
    p->s++; /* opening quote */
    while (p->s < p->end && *p->s != '"') {
        char c = *p->s++;
        if ((unsigned char)c < 0x20)
            return jp_fail(p, "control character in a string", start);
        if (c != '\\') {
            if (n + 1 < cap)
                out[n++] = c;
            continue;
        }
        if (p->s >= p->end)
            break;
        char e = *p->s++;
        unsigned u;
        switch (e) {
        case '"':
        case '\\':
        case '/':
            c = e;
            break;
        case 'b':
            c = '\b';
            break;
        case 'f':
            c = '\f';
            break;
        case 'n':
            c = '\n';
            break;
        case 'r':
            c = '\r';
            break;
        case 't':
            c = '\t';
            break;
        case 'u':
            if (p->end - p->s < 4 || hex4(p->s, &u) != 0)
                return jp_fail(p, "bad \\u escape", start);
            p->s += 4;
            /* a surrogate pair becomes one code point; a lone one U+FFFD */
            if (u >= 0xd800 && u < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' &&
                p->s[1] == 'u') {
                unsigned lo;
                if (hex4(p->s + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                    p->s += 6;
                }
            }
            if (u >= 0xd800 && u < 0xe000)
                u = 0xfffd;
            put_utf8(out, cap, &n, u);
            continue;
        default:
            return jp_fail(p, "bad escape", start);
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    if (p->s >= p->end)
        return jp_fail(p, "unterminated string", start);
    p->s++; /* closing quote */
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return 0;
}

/* Skip a nested array or object, keeping its raw text (truncated). */
static int jp_nested(struct jp *p, char *out, size_t cap, const char *start) {
    const char *b = p->s;
    int depth = 0;
    bool in_str = false;
    for (; p->s < p->end; p->s++) {
        char c = *p->s;
        if (in_str) {
            if (c == '\\')
                p->s++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"')
            in_str = true;
        else if (c == '[' || c == '{')
            depth++;
        else if ((c == ']' || c == '}') && --depth == 0) {
            p->s++;
            size_t n = (size_t)(p->s - b);
            n = n < cap - 1 ? n : cap - 1;
            memcpy(out, b, n);
            out[n] = 0;
            return 0;
        }
    }
    return jp_fail(p, "unterminated array or object", start);
}

/* Parse one JSON object with scalar (or raw nested) members. */
int probe_json_parse(const char *text, size_t len, struct probe_json *out, char *err,
                     size_t errlen) {
    struct jp p = {text, text + len, err, errlen};
    out->n = 0;
    jp_ws(&p);
    if (p.s >= p.end || *p.s != '{')
        return jp_fail(&p, "expected '{'", text);
    p.s++;
    jp_ws(&p);
    if (p.s < p.end && *p.s == '}') {
        p.s++;
        goto tail;
    }
    for (;;) {
        jp_ws(&p);
        if (p.s >= p.end || *p.s != '"')
            return jp_fail(&p, "expected a member name", text);
        struct probe_json_field scratch,
            *f = out->n < PROBE_CLIENT_MAX_FIELDS ? &out->f[out->n] : &scratch;
        memset(f, 0, sizeof *f);
        if (jp_string(&p, f->key, sizeof f->key, text) != 0)
            return -1;
        jp_ws(&p);
        if (p.s >= p.end || *p.s != ':')
            return jp_fail(&p, "expected ':'", text);
        p.s++;
        jp_ws(&p);
        if (p.s >= p.end)
            return jp_fail(&p, "expected a value", text);
        char c = *p.s;
        if (c == '"') {
            f->type = PROBE_JSON_STR;
            if (jp_string(&p, f->str, sizeof f->str, text) != 0)
                return -1;
        } else if (c == '{' || c == '[') {
            f->type = PROBE_JSON_RAW;
            if (jp_nested(&p, f->str, sizeof f->str, text) != 0)
                return -1;
        } else if (p.end - p.s >= 4 && memcmp(p.s, "true", 4) == 0) {
            f->type = PROBE_JSON_BOOL;
            f->b = true;
            p.s += 4;
        } else if (p.end - p.s >= 5 && memcmp(p.s, "false", 5) == 0) {
            f->type = PROBE_JSON_BOOL;
            p.s += 5;
        } else if (p.end - p.s >= 4 && memcmp(p.s, "null", 4) == 0) {
            f->type = PROBE_JSON_NULL;
            p.s += 4;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            char num[64];
            size_t k = 0;
            while (p.s < p.end && k + 1 < sizeof num && strchr("+-0123456789.eE", *p.s) != NULL)
                num[k++] = *p.s++;
            num[k] = 0;
            char *e;
            f->type = PROBE_JSON_NUM;
            f->num = strtod(num, &e);
            if (*e || k == 0)
                return jp_fail(&p, "bad number", text);
        } else {
            return jp_fail(&p, "unexpected character", text);
        }
        if (f != &scratch)
            out->n++;
        jp_ws(&p);
        if (p.s < p.end && *p.s == ',') {
            p.s++;
            continue;
        }
        if (p.s < p.end && *p.s == '}') {
            p.s++;
            break;
        }
        return jp_fail(&p, "expected ',' or '}'", text);
    }
tail:
    jp_ws(&p);
    if (p.s != p.end)
        return jp_fail(&p, "text after the object", text);
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
        snprintf(ev->error, sizeof ev->error, "a line without an \"event\" member");
        return;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(e, kinds[i].name) == 0)
            ev->kind = kinds[i].kind;
}

/* ---- the child process ---------------------------------------------------- */

/* Find the probe executable. */
int probe_client_find(char *path, size_t len, char *err, size_t errlen) {
    const char *env = getenv("VRAMLAB_PROBE");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        if (access(path, X_OK) == 0)
            return 0;
        snprintf(err, errlen, "VRAMLAB_PROBE=%s is not an executable file", env);
        return -1;
    }
    const char *cands[] = {VRAMLAB_ABS_BUILDDIR "/vramlab-probe",
                           VRAMLAB_PKGLIBEXECDIR "/vramlab-probe"};
    for (size_t i = 0; i < 2; i++)
        if (access(cands[i], X_OK) == 0) {
            snprintf(path, len, "%s", cands[i]);
            return 0;
        }
    snprintf(err, errlen, "vramlab-probe not found (tried $VRAMLAB_PROBE, %s, %s)", cands[0],
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
                snprintf(ev->error, sizeof ev->error,
                         "the probe's output ended in the middle of a line");
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
