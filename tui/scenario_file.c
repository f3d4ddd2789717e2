/*
 * scenario_file.c: scenarios as YAML files (see scenario_file.h).
 *
 * Loading: the mapping becomes "--key=value" arguments for options_parse(),
 * the one validator of scenarios. options_parse() reports on stderr, so its
 * message is captured through a non-blocking pipe on fd 2 (it must not
 * reach a curses screen anyway) and pinned to the key it names, using the
 * libyaml marks of that key. Numbers are read with LC_NUMERIC "C" for the
 * duration (strtod would otherwise stop at the '.' of "0.4" under a Spanish
 * locale).
 *
 * Saving: each quantity is written in the most readable unit that parses
 * back to exactly the same double with the same parser the loader uses
 * ("80 GiB", "3.35 TB/s", "5 us"), falling back to a plain number, so a
 * save/load round trip is exact. The write is atomic: mkstemp in the target
 * directory, write, fsync, then rename (overwrite) or link (no clobber,
 * atomically refused when the name exists), and the directory is synced.
 */
#include "tui/scenario_file.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* Largest scenario or lesson file read (bytes). */
#define SF_MAX_FILE (4u << 20)
/* Most keys one scenario mapping may have. */
#define SF_MAX_KEYS 96

/* Options that belong to a session, not to a scenario. */
static const char *const sf_front_end_keys[] = {
    "json", "help", "no-color", "no-mouse", "ascii", "theme", "catalog",
};
/* Options that take no value on the command line (true/false in a file). */
static const char *const sf_flag_keys[] = {"sequence-parallel"};

/* ---- messages --------------------------------------------------------------- */

/* Append formatted text to err (truncating, always NUL-terminated). */
static void sf_append(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append formatted text to err (truncating, always NUL-terminated). */
static void sf_append(char *err, size_t errlen, const char *fmt, ...)
{
    size_t used;
    va_list ap;

    if (!err || errlen == 0)
        return;
    used = strnlen(err, errlen);
    if (used >= errlen - 1)
        return;
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - used, fmt, ap);
    va_end(ap);
}

/* Append line (1-based) of the source, and a caret under col, indented by four. */
static void sf_quote_line(char *err, size_t errlen, const struct scenario_source *src,
                          size_t line, size_t col)
{
    const char *p, *end, *eol;
    char pad[128];
    size_t n = 0, chars = 0;

    if (!src || !src->text)
        return;
    p = src->text;
    end = src->text + src->len;
    for (size_t i = 1; i < line && p < end; i++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return;
        p = nl + 1;
    }
    if (p >= end)
        return;
    eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    if (eol > p && eol[-1] == '\r')
        eol--;
    if (eol - p > 200)
        eol = p + 200;
    /* libyaml counts characters, not bytes: skip UTF-8 continuation bytes. */
    for (size_t i = 0; p + i < eol && chars + 1 < col && n + 1 < sizeof(pad); i++) {
        unsigned char ch = (unsigned char)p[i];
        if ((ch & 0xc0) == 0x80)
            continue;
        pad[n++] = ch == '\t' ? '\t' : ' ';
        chars++;
    }
    pad[n] = '\0';
    sf_append(err, errlen, "    %.*s\n    %s^\n", (int)(eol - p), p, pad);
}

/* Append "name:line:col: key: message" and the quoted line (see header). */
void scenario_file_error(char *err, size_t errlen, const struct scenario_source *src,
                         size_t line, size_t col, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (key && *key)
        sf_append(err, errlen, "%s:%zu:%zu: %s: %s\n", src->name, line, col, key, msg);
    else
        sf_append(err, errlen, "%s:%zu:%zu: %s\n", src->name, line, col, msg);
    sf_quote_line(err, errlen, src, line, col);
}

/* Report an error at a node's start. */
static void sf_error_at(char *err, size_t errlen, const struct scenario_source *src,
                        const yaml_node_t *node, const char *key, const char *msg)
{
    scenario_file_error(err, errlen, src, node->start_mark.line + 1, node->start_mark.column + 1,
                        key, "%s", msg);
}

/* ---- reading ------------------------------------------------------------------ */

/* Read a whole file into a new NUL-terminated buffer; NULL with errno set. */
static char *sf_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (!f)
        return NULL;
    for (;;) {
        size_t got;
        if (n + 4096 + 1 > cap) {
            char *p;
            cap = cap ? cap * 2 : 8192;
            if (cap > SF_MAX_FILE + 4096 + 1) {
                free(buf);
                fclose(f);
                errno = EFBIG;
                return NULL;
            }
            p = realloc(buf, cap);
            if (!p) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = p;
        }
        got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        fclose(f);
        errno = e;
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The text of a scalar node, or NULL for other node kinds. */
static const char *sf_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Whether a scalar is YAML's null (empty, ~ or null, unquoted). */
static bool sf_is_null(const yaml_node_t *n)
{
    const char *s = sf_scalar(n);

    if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* Whether s is one of the n names. */
static bool sf_in(const char *s, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(s, names[i]))
            return true;
    }
    return false;
}

/* ---- options_parse with its messages captured --------------------------------- */

/* Run options_parse on argv in the C numeric locale, with what it writes to
 * stderr captured into msg (first 1 KiB or so). Returns its exit code. */
static int sf_parse_captured(int argc, char **argv, const struct catalog *cat, struct options *o,
                             char *msg, size_t len)
{
    int fds[2] = {-1, -1};
    int saved = -1;
    int rc;
    locale_t base = duplocale(LC_GLOBAL_LOCALE);
    locale_t c_num = base ? newlocale(LC_NUMERIC_MASK, "C", base) : (locale_t)0;
    locale_t old = (locale_t)0;

    msg[0] = '\0';
    if (!c_num && base)
        freelocale(base);
    if (c_num)
        old = uselocale(c_num);
    /* A non-blocking pipe: a long message is cut, never a hang. */
    fflush(stderr);
    if (pipe(fds) == 0) {
        fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
        fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
        saved = dup(STDERR_FILENO);
        if (saved < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
            if (saved >= 0)
                close(saved);
            saved = -1;
        }
    }
    rc = options_parse(argc, argv, cat, o, false);
    if (saved >= 0) {
        ssize_t n;
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        close(fds[1]);
        fds[1] = -1;
        n = read(fds[0], msg, len - 1);
        msg[n > 0 ? (size_t)n : 0] = '\0';
    }
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    if (c_num) {
        uselocale(old);
        freelocale(c_num);
    }
    return rc;
}

/* Remove every occurrence of what from s, in place. */
static void sf_strip(char *s, const char *what)
{
    size_t wl = strlen(what);
    char *p;

    while ((p = strstr(s, what)) != NULL)
        memmove(p, p + wl, strlen(p + wl) + 1);
}

/* Replace the first occurrence of from in s (of size len) by to. */
static void sf_replace(char *s, size_t len, const char *from, const char *to)
{
    char *p = strstr(s, from);
    size_t fl = strlen(from), tl = strlen(to), rest;

    if (!p)
        return;
    rest = strlen(p + fl);
    if ((size_t)(p - s) + tl + rest + 1 > len)
        return;
    memmove(p + tl, p + fl, rest + 1);
    memcpy(p, to, tl);
}

/* One key of the mapping: its name and nodes. */
struct sf_entry {
    const char *key;
    yaml_node_t *key_node, *value_node;
};

/*
 * Turn options_parse's message into one about the file: find the first
 * "--name" it mentions that is a key of the mapping (that key is to blame),
 * drop the program prefix and the dashes. Returns the entry or NULL.
 */
static const struct sf_entry *sf_blame(char *msg, size_t len, const struct sf_entry *e,
                                       size_t n)
{
    const struct sf_entry *found = NULL;
    char *nl = strchr(msg, '\n');

    if (nl)
        *nl = '\0';
    if (!strncmp(msg, "vramlab: ", 9))
        memmove(msg, msg + 9, strlen(msg + 9) + 1);
    for (const char *p = strstr(msg, "--"); p && !found; p = strstr(p + 2, "--")) {
        const char *w = p + 2;
        size_t wl = strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789-");
        for (size_t i = 0; i < n; i++) {
            if (strlen(e[i].key) == wl && !strncmp(e[i].key, w, wl)) {
                found = &e[i];
                break;
            }
        }
    }
    sf_strip(msg, " (see --help)");
    sf_replace(msg, len, "unknown option", "unknown key");
    sf_strip(msg, "--");
    /* "format: unknown format 'x'": the key is printed once, by the caller. */
    if (found) {
        size_t kl = strlen(found->key);
        if (!strncmp(msg, found->key, kl) && msg[kl] == ':' && msg[kl + 1] == ' ')
            memmove(msg, msg + kl + 2, strlen(msg + kl + 2) + 1);
    }
    return found;
}

/* Make the argument "--key=value" (or "--key" for a true flag) in a new
 * string; a relative model-config path is taken from the file's directory. */
static char *sf_argument(const struct scenario_source *src, const char *key, const char *value)
{
    const char *slash = strrchr(src->name, '/');
    size_t dir = 0;
    char *arg;
    size_t len;

    if (!strcmp(key, "model-config") && value[0] != '/' && slash)
        dir = (size_t)(slash - src->name) + 1;
    len = 2 + strlen(key) + 1 + dir + strlen(value) + 1;
    arg = malloc(len);
    if (!arg)
        return NULL;
    if (!value[0] && sf_in(key, sf_flag_keys, sizeof(sf_flag_keys) / sizeof(sf_flag_keys[0])))
        snprintf(arg, len, "--%s", key);
    else
        snprintf(arg, len, "--%s=%.*s%s", key, (int)dir, src->name, value);
    return arg;
}

/* Check one key and value of the mapping; on error report it and return -1.
 * *value is set to the text to pass ("" for a true flag, NULL to omit). */
static int sf_check_entry(const struct scenario_source *src, const struct sf_entry *e,
                          const char **value, char *err, size_t errlen)
{
    const char *v = sf_scalar(e->value_node);
    char msg[256];

    if (!e->key || !*e->key || strspn(e->key, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
                                   strlen(e->key) || e->key[0] == '-') {
        char q[48];
        snprintf(q, sizeof(q), "%s", e->key ? e->key : "");
        snprintf(msg, sizeof(msg),
                 "expected a scenario option name like model or gpu-memory, found '%s'", q);
        sf_error_at(err, errlen, src, e->key_node, NULL, msg);
        return -1;
    }
    if (sf_in(e->key, sf_front_end_keys, sizeof(sf_front_end_keys) / sizeof(sf_front_end_keys[0]))) {
        sf_error_at(err, errlen, src, e->key_node, e->key,
                    "not a scenario field (a command-line option of the session)");
        return -1;
    }
    if (!v) {
        snprintf(msg, sizeof(msg), "expected one value (as on the command line), found a %s",
                 e->value_node->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
        sf_error_at(err, errlen, src, e->value_node, e->key, msg);
        return -1;
    }
    if (strlen(v) != e->value_node->data.scalar.length) {
        sf_error_at(err, errlen, src, e->value_node, e->key,
                    "expected text, found a NUL character");
        return -1;
    }
    if (sf_in(e->key, sf_flag_keys, sizeof(sf_flag_keys) / sizeof(sf_flag_keys[0]))) {
        if (!strcmp(v, "true") || !strcmp(v, "yes")) {
            *value = "";
        } else if (!strcmp(v, "false") || !strcmp(v, "no")) {
            *value = NULL;
        } else {
            snprintf(msg, sizeof(msg), "expected true or false, found '%.40s'", v);
            sf_error_at(err, errlen, src, e->value_node, e->key, msg);
            return -1;
        }
        return 0;
    }
    if (sf_is_null(e->value_node)) {
        sf_error_at(err, errlen, src, e->value_node, e->key, "expected a value, found nothing");
        return -1;
    }
    *value = v;
    return 0;
}

/* Collect the mapping's entries, refusing duplicates and non-scalar keys. */
static int sf_entries(yaml_document_t *doc, yaml_node_t *map, const struct scenario_source *src,
                      struct sf_entry *e, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        const char *key = sf_scalar(k);
        if (!key) {
            sf_error_at(err, errlen, src, k, NULL,
                        "expected a scenario option name, found a collection");
            return -1;
        }
        for (size_t i = 0; i < *n; i++) {
            if (!strcmp(e[i].key, key)) {
                char msg[96];
                snprintf(msg, sizeof(msg), "duplicate key (first at line %zu)",
                         (size_t)e[i].key_node->start_mark.line + 1);
                sf_error_at(err, errlen, src, k, key, msg);
                return -1;
            }
        }
        if (*n == SF_MAX_KEYS) {
            sf_error_at(err, errlen, src, k, key, "too many keys for a scenario");
            return -1;
        }
        e[*n].key = key;
        e[*n].key_node = k;
        e[*n].value_node = v;
        (*n)++;
    }
    return 0;
}

/* Turn a mapping node into options (see header). */
int scenario_file_from_node(struct yaml_document_s *doc, struct yaml_node_s *map,
                            const struct scenario_source *src, const struct catalog *cat,
                            struct options *o, char *err, size_t errlen)
{
    struct sf_entry entries[SF_MAX_KEYS];
    char *argv[SF_MAX_KEYS + 2];
    int argc = 1;
    size_t n = 0;
    int rc = -1;
    struct options parsed;
    char msg[1024];

    if (!map || map->type != YAML_MAPPING_NODE) {
        const char *what = !map ? "nothing"
                           : map->type == YAML_SEQUENCE_NODE ? "a sequence"
                                                             : "a scalar";
        if (map)
            scenario_file_error(err, errlen, src, map->start_mark.line + 1,
                                map->start_mark.column + 1, NULL,
                                "expected a mapping of scenario options (model: ..., gpu: ...), "
                                "found %s", what);
        else
            scenario_file_error(err, errlen, src, 1, 1, NULL,
                                "expected a mapping of scenario options (model: ..., gpu: ...), "
                                "found nothing");
        return -1;
    }
    if (sf_entries(doc, map, src, entries, &n, err, errlen) != 0)
        return -1;
    argv[0] = "vramlab";
    for (size_t i = 0; i < n; i++) {
        const char *value = NULL;
        if (sf_check_entry(src, &entries[i], &value, err, errlen) != 0)
            goto out;
        if (!value)
            continue;
        argv[argc] = sf_argument(src, entries[i].key, value);
        if (!argv[argc]) {
            sf_error_at(err, errlen, src, entries[i].key_node, entries[i].key, "out of memory");
            goto out;
        }
        argc++;
    }
    argv[argc] = NULL;
    if (sf_parse_captured(argc, argv, cat, &parsed, msg, sizeof(msg)) != 0) {
        const struct sf_entry *e = sf_blame(msg, sizeof(msg), entries, n);
        if (!msg[0])
            snprintf(msg, sizeof(msg), "invalid scenario");
        if (e) {
            /* Unknown keys point at the key, bad values at the value. */
            bool at_key = strstr(msg, "unknown key") != NULL;
            sf_error_at(err, errlen, src, at_key ? e->key_node : e->value_node, e->key, msg);
        } else {
            sf_error_at(err, errlen, src, map, NULL, msg);
        }
        goto out;
    }
    *o = parsed;
    rc = 0;
out:
    for (int i = 1; i < argc; i++)
        free(argv[i]);
    return rc;
}

/* Report libyaml's own error (syntax, encoding) at its mark. */
static void sf_syntax_error(const struct scenario_source *src, const yaml_parser_t *p, char *err,
                            size_t errlen)
{
    size_t line = p->problem_mark.line, col = p->problem_mark.column;

    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry a byte offset, not a mark. */
        size_t off = p->problem_offset < src->len ? p->problem_offset : src->len;
        line = col = 0;
        for (size_t i = 0; i < off; i++) {
            if (src->text[i] == '\n')
                line++, col = 0;
            else if (((unsigned char)src->text[i] & 0xc0) != 0x80)
                col++;
        }
    }
    if (p->context)
        scenario_file_error(err, errlen, src, line + 1, col + 1, NULL,
                            "YAML syntax: %s %s (from line %zu)",
                            p->problem ? p->problem : "error", p->context,
                            (size_t)p->context_mark.line + 1);
    else
        scenario_file_error(err, errlen, src, line + 1, col + 1, NULL, "YAML syntax: %s",
                            p->problem ? p->problem : "error");
}

/* Load a scenario from YAML text (see header). */
int scenario_file_load_buffer(const char *name, const char *text, size_t len,
                              const struct catalog *cat, struct options *o, char *err,
                              size_t errlen)
{
    struct scenario_source src = {name, text, len};
    yaml_parser_t parser;
    yaml_document_t doc;
    int rc = SCENARIO_FILE_ERROR;

    if (err && errlen)
        err[0] = '\0';
    if (!yaml_parser_initialize(&parser)) {
        sf_append(err, errlen, "%s: out of memory\n", name);
        return rc;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        sf_syntax_error(&src, &parser, err, errlen);
        yaml_parser_delete(&parser);
        return rc;
    }
    if (scenario_file_from_node(&doc, yaml_document_get_root_node(&doc), &src, cat, o, err,
                                errlen) == 0) {
        yaml_document_t next;
        rc = SCENARIO_FILE_OK;
        /* A second document ("---") would be silently ignored: refuse it. */
        if (!yaml_parser_load(&parser, &next)) {
            sf_syntax_error(&src, &parser, err, errlen);
            rc = SCENARIO_FILE_ERROR;
        } else {
            yaml_node_t *root = yaml_document_get_root_node(&next);
            if (root) {
                sf_error_at(err, errlen, &src, root, NULL,
                            "expected one scenario, found a second YAML document");
                rc = SCENARIO_FILE_ERROR;
            }
            yaml_document_delete(&next);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return rc;
}

/* Load a scenario file (see header). */
int scenario_file_load(const char *path, const struct catalog *cat, struct options *o, char *err,
                       size_t errlen)
{
    size_t len = 0;
    char *text;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    text = sf_read_file(path, &len);
    if (!text) {
        int e = errno;
        sf_append(err, errlen, "%s: cannot read: %s\n", path, strerror(e));
        return e == ENOENT ? SCENARIO_FILE_MISSING : SCENARIO_FILE_ERROR;
    }
    rc = scenario_file_load_buffer(path, text, len, cat, o, err, errlen);
    free(text);
    return rc;
}

/* ---- writing ------------------------------------------------------------------- */

/* A unit a quantity may be written in: its suffix and its factor. */
struct sf_unit {
    const char *suffix;
    double scale;
};

static const struct sf_unit sf_bytes_units[] = {
    {" TiB", 1099511627776.0}, {" GiB", 1073741824.0}, {" MiB", 1048576.0},
    {" TB", 1e12}, {" GB", 1e9}, {" MB", 1e6}, {" KB", 1e3}, {" B", 1},
};
static const struct sf_unit sf_bandwidth_units[] = {
    {" TB/s", 1e12}, {" GB/s", 1e9}, {" MB/s", 1e6}, {" KB/s", 1e3}, {" B/s", 1},
};
static const struct sf_unit sf_flops_units[] = {
    {" TFLOPS", 1e12}, {" GFLOPS", 1e9}, {" FLOPS", 1},
};
static const struct sf_unit sf_seconds_units[] = {
    {" s", 1}, {" ms", 1e-3}, {" us", 1e-6}, {" ns", 1e-9},
};
static const struct sf_unit sf_count_units[] = {
    {"T", 1e12}, {"B", 1e9}, {"M", 1e6}, {"K", 1e3}, {"", 1},
};

typedef int (*sf_parser)(const char *, double *, char *, size_t);

/* Write v into buf in the first unit (and fewest digits) that parse reads
 * back as exactly v; short forms first, then any precision; plain last. */
static void sf_quantity(char *buf, size_t len, double v, const struct sf_unit *units, size_t n,
                        sf_parser parse)
{
    char e[160];
    double back;

    if (v == 0) {
        snprintf(buf, len, "0");
        if (parse(buf, &back, e, sizeof(e)) == 0 && back == 0)
            return;
    }
    for (int pass = 0; pass < 2; pass++) {
        int max_prec = pass == 0 ? 4 : 17;
        for (size_t i = 0; i < n; i++) {
            double m = v / units[i].scale;
            if (v != 0 && m < 1 && i + 1 < n)
                continue;
            for (int prec = 1; prec <= max_prec; prec++) {
                snprintf(buf, len, "%.*g%s", prec, m, units[i].suffix);
                if (strchr(buf, 'e'))
                    continue; /* units take plain decimals only */
                if (parse(buf, &back, e, sizeof(e)) == 0 && back == v)
                    return;
            }
        }
    }
    snprintf(buf, len, "%.17g", v);
}

/* Shortest decimal that strtod reads back as v. */
static void sf_number(char *buf, size_t len, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Features of a custom model that no scenario option carries. */
static void sf_lost_features(const struct engine_model *m, char *buf, size_t len)
{
    buf[0] = '\0';
    if (m->kv_lora_rank || m->q_lora_rank)
        sf_append(buf, len, "%slatent attention", buf[0] ? ", " : "");
    if (m->sliding_window)
        sf_append(buf, len, "%ssliding window", buf[0] ? ", " : "");
    if (m->qk_norm || (m->norms_per_layer && m->norms_per_layer != 2))
        sf_append(buf, len, "%sextra norms", buf[0] ? ", " : "");
    if ((m->moe_ffn && m->moe_ffn != m->ffn) || m->dense_layers)
        sf_append(buf, len, "%sexpert sizes", buf[0] ? ", " : "");
}

/* Write the architecture keys of a model. */
static void sf_write_arch(FILE *f, const struct engine_model *m)
{
    static const char *const bias[] = {"none", "qkv", "all"};

    fprintf(f, "layers: %u\nhidden: %u\nheads: %u\nkv-heads: %u\nhead-dim: %u\nffn: %u\n",
            m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim, m->ffn);
    fprintf(f, "vocab: %u\ntied: %s\ngated: %s\nbias: %s\nnorm: %s\npos-embeddings: %u\n",
            m->vocab, m->tied ? "true" : "false", m->gated ? "true" : "false",
            bias[m->bias <= ENGINE_BIAS_ALL ? m->bias : 0],
            m->norm == ENGINE_NORM_LAYER ? "layer" : "rms", m->pos_embeddings);
    fprintf(f, "experts: %u\n", m->experts);
    if (m->experts > 0)
        fprintf(f, "active-experts: %u\nshared-experts: %u\n", m->active_experts,
                m->shared_experts);
}

/* Write the model keys: an id, a bare size, or an architecture. */
static void sf_write_model(FILE *f, const struct options *o, const struct catalog *cat)
{
    const struct engine_model *m = &o->sc.model;
    const struct engine_model *cm = cat ? catalog_find_model(cat, m->id) : NULL;
    char buf[64];

    if (!o->model_custom && cm) {
        fprintf(f, "model: %s\n", cm->id);
        return;
    }
    if (!m->has_arch && m->params_size > 0) {
        /* options_parse names the model after the text given ("params-70B"):
         * write that text back when it still means this size. */
        double given;
        char e[160];
        if (!strncmp(m->id, "params-", 7) && strspn(m->id + 7, "0123456789.eE+KMBT") ==
                                                   strlen(m->id + 7) &&
            catalog_parse_count(m->id + 7, &given, e, sizeof(e)) == 0 && given == m->params_size)
            snprintf(buf, sizeof(buf), "%s", m->id + 7);
        else
            sf_quantity(buf, sizeof(buf), m->params_size, sf_count_units, 5, catalog_parse_count);
        fprintf(f, "params: %s\n", buf);
        return;
    }
    if (cm) {
        /* A catalog model with single fields overridden. */
        fprintf(f, "model: %s\n", cm->id);
    } else {
        char lost[128];
        sf_lost_features(m, lost, sizeof(lost));
        if (lost[0])
            fprintf(f, "# note: %s of %s not kept (no scenario option)\n", lost, m->name);
    }
    sf_write_arch(f, m);
}

/* Write the GPU keys: an id with overridden figures, or a custom GPU. */
static void sf_write_gpu(FILE *f, const struct options *o, const struct catalog *cat)
{
    const struct engine_gpu *g = &o->sc.gpu;
    const struct engine_gpu *cg = cat ? catalog_find_gpu(cat, g->id) : NULL;
    double flops = g->flops[ENGINE_COMPUTE_FP16];
    char buf[64];

    if (flops <= 0)
        flops = g->flops[ENGINE_COMPUTE_BF16];
    if (flops <= 0)
        flops = g->flops[o->sc.weight_format.compute];
    if (cg)
        fprintf(f, "gpu: %s\n", cg->id);
    if (!o->gpu_custom && cg)
        return;
    if (!cg || g->memory_bytes != cg->memory_bytes) {
        sf_quantity(buf, sizeof(buf), g->memory_bytes, sf_bytes_units, 8, catalog_parse_bytes);
        fprintf(f, "gpu-memory: %s\n", buf);
    }
    if (!cg || g->bandwidth_bytes_per_s != cg->bandwidth_bytes_per_s) {
        sf_quantity(buf, sizeof(buf), g->bandwidth_bytes_per_s, sf_bandwidth_units, 5,
                    catalog_parse_bandwidth);
        fprintf(f, "gpu-bandwidth: %s\n", buf);
    }
    if (!cg || flops != cg->flops[ENGINE_COMPUTE_FP16]) {
        sf_quantity(buf, sizeof(buf), flops, sf_flops_units, 3, catalog_parse_flops);
        fprintf(f, "gpu-flops: %s\n", buf);
    }
}

/* Write the layout and workload keys, every one, defaults included. */
static void sf_write_workload(FILE *f, const struct engine_scenario *sc)
{
    char buf[64];

    fprintf(f, "gpus: %u\ntp: %u\npp: %u\ndp: %u\n", sc->gpus, sc->tp, sc->pp, sc->dp);
    if (sc->gpus_per_node)
        fprintf(f, "gpus-per-node: %u\n", sc->gpus_per_node);
    fprintf(f, "zero: %u\nmode: %s\nbatch: %u\ncontext: %u\nprompt: %u\n", sc->zero,
            engine_mode_name(sc->mode), sc->batch, sc->context, sc->prompt);
    fprintf(f, "micro-batches: %u\ninterleave: %u\nsequence-parallel: %s\n", sc->micro_batches,
            sc->interleave, sc->sequence_parallel ? "true" : "false");
    fprintf(f, "recompute: %s\noptimizer: %s\nlora-rank: %u\n",
            engine_recompute_name(sc->recompute), engine_recipe_info(sc->recipe)->id,
            sc->lora_rank);
    sf_number(buf, sizeof(buf), sc->mfu);
    fprintf(f, "mfu: %s\n", buf);
    sf_quantity(buf, sizeof(buf), sc->training_tokens, sf_count_units, 5, catalog_parse_count);
    fprintf(f, "tokens: %s\n", buf);
    sf_number(buf, sizeof(buf), sc->price_per_hour);
    fprintf(f, "price: %s%s\n", buf, sc->price_per_hour == 0 ? "    # 0: the GPU's own price" : "");
    sf_quantity(buf, sizeof(buf), sc->reserve_bytes, sf_bytes_units, 8, catalog_parse_bytes);
    fprintf(f, "reserve: %s\n", buf);
    sf_quantity(buf, sizeof(buf), sc->intra_node_bytes_per_s, sf_bandwidth_units, 5,
                catalog_parse_bandwidth);
    fprintf(f, "intra-node-bw: %s%s\n", buf,
            sc->intra_node_bytes_per_s == 0 ? "    # 0: the GPU's link" : "");
    sf_quantity(buf, sizeof(buf), sc->inter_node_bytes_per_s, sf_bandwidth_units, 5,
                catalog_parse_bandwidth);
    fprintf(f, "inter-node-bw: %s\n", buf);
    sf_quantity(buf, sizeof(buf), sc->allreduce_latency_s, sf_seconds_units, 4,
                catalog_parse_seconds);
    fprintf(f, "allreduce-latency: %s\n", buf);
    sf_number(buf, sizeof(buf), sc->bw_efficiency);
    fprintf(f, "bw-efficiency: %s\n", buf);
    sf_number(buf, sizeof(buf), sc->flops_efficiency);
    fprintf(f, "flops-efficiency: %s\n", buf);
}

/* Write o as scenario YAML (see header). */
char *scenario_file_format(const struct options *o, const struct catalog *cat, const char *header)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    locale_t base = duplocale(LC_GLOBAL_LOCALE);
    locale_t c_num = base ? newlocale(LC_NUMERIC_MASK, "C", base) : (locale_t)0;
    locale_t old = (locale_t)0;

    if (!c_num && base)
        freelocale(base);
    f = open_memstream(&text, &len);
    if (!f)
        goto out;
    /* Decimal points, whatever the user's locale. */
    if (c_num)
        old = uselocale(c_num);
    if (header)
        fprintf(f, "# %s\n", header);
    sf_write_model(f, o, cat);
    fprintf(f, "format: %s\nkv-format: %s\n", o->sc.weight_format.id, o->sc.kv_format.id);
    sf_write_gpu(f, o, cat);
    sf_write_workload(f, &o->sc);
    fprintf(f, "units: %s\n", o->units == UNITS_GIB ? "gib" : "gb");
    if (c_num)
        uselocale(old);
    if (fclose(f) != 0) {
        free(text);
        text = NULL;
    }
out:
    if (c_num)
        freelocale(c_num);
    return text;
}

/* ---- saving atomically --------------------------------------------------------- */

/* Write all of buf to fd; 0 or -1 with errno. */
static int sf_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* fsync the directory holding path, so the rename itself is durable. */
static void sf_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);

    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Save o to path atomically (see header). */
int scenario_file_save(const char *path, const struct options *o, const struct catalog *cat,
                       bool overwrite, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], tmp[4096 + 64];
    struct stat st;
    char *text;
    int fd, e, rc = SCENARIO_FILE_ERROR;
    mode_t mode = 0644;

    if (err && errlen)
        err[0] = '\0';
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    if (!*path || (slash && !slash[1])) {
        sf_append(err, errlen, "%s: cannot save: not a file name\n", path);
        return rc;
    }
    if (stat(path, &st) == 0) {
        if (!overwrite) {
            sf_append(err, errlen, "%s: exists; not overwritten\n", path);
            return SCENARIO_FILE_EXISTS;
        }
        if (S_ISDIR(st.st_mode)) {
            sf_append(err, errlen, "%s: cannot save: %s\n", path, strerror(EISDIR));
            return rc;
        }
        mode = st.st_mode & 0777; /* keep the old file's permissions */
    }
    text = scenario_file_format(o, cat, "vramlab scenario: vramlab --scenario FILE, or o in the "
                                        "explorer");
    if (!text) {
        sf_append(err, errlen, "%s: cannot save: %s\n", path, strerror(ENOMEM));
        return rc;
    }
    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, slash ? slash + 1 : path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        e = errno;
        sf_append(err, errlen, "%s: cannot save: %s\n", path, strerror(e));
        free(text);
        return rc;
    }
    if (fchmod(fd, mode) != 0 || sf_write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0) {
        e = errno;
        close(fd);
        goto fail;
    }
    if (close(fd) != 0) {
        e = errno;
        goto fail;
    }
    if (overwrite) {
        if (rename(tmp, path) != 0) {
            e = errno;
            goto fail;
        }
    } else if (link(tmp, path) == 0) {
        unlink(tmp);
    } else if (errno == EEXIST) {
        unlink(tmp);
        free(text);
        sf_append(err, errlen, "%s: exists; not overwritten\n", path);
        return SCENARIO_FILE_EXISTS;
    } else if (access(path, F_OK) == 0) {
        /* No hard links here (some file systems): check, then rename. */
        unlink(tmp);
        free(text);
        sf_append(err, errlen, "%s: exists; not overwritten\n", path);
        return SCENARIO_FILE_EXISTS;
    } else if (rename(tmp, path) != 0) {
        e = errno;
        goto fail;
    }
    sf_sync_dir(dir);
    free(text);
    return SCENARIO_FILE_OK;
fail:
    unlink(tmp);
    free(text);
    sf_append(err, errlen, "%s: cannot save: %s\n", path, strerror(e));
    return rc;
}

/* Copy a loaded scenario into the session's options (see header). */
void scenario_file_apply(struct options *session, const struct options *loaded)
{
    session->sc = loaded->sc;
    session->units = loaded->units;
    session->model_custom = loaded->model_custom;
    session->gpu_custom = loaded->gpu_custom;
}

/* ---- the state file -------------------------------------------------------------- */

/* mkdir -p of the directory path (mode 0700 for the parts it makes). */
static int sf_mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* The last-scenario file (see header). */
int scenario_file_state_path(char *buf, size_t len, bool create_dir, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char dir[4096];
    int n;

    if (err && errlen)
        err[0] = '\0';
    /* The XDG spec: a relative XDG_STATE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/') {
        n = snprintf(dir, sizeof(dir), "%s/vramlab", xdg);
    } else {
        if (!home || home[0] != '/') {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home || home[0] != '/') {
            sf_append(err, errlen, "no state directory: set XDG_STATE_HOME or HOME\n");
            return -1;
        }
        n = snprintf(dir, sizeof(dir), "%s/.local/state/vramlab", home);
    }
    if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n + sizeof("/last.yaml") > len) {
        sf_append(err, errlen, "state directory path too long\n");
        return -1;
    }
    if (create_dir && sf_mkdirs(dir) != 0) {
        sf_append(err, errlen, "%s: cannot create: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(buf, len, "%s/last.yaml", dir);
    return 0;
}
