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
 * Writing, saving and the state file are in scenario_save.c.
 */
#include "tui/scenario_file.h"

#include "catalog/catalog.h"
#include "engine/param_table.h"
#include "tui/i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdbool.h>
#include <stdarg.h>
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

/* The row of a key of the parameter table, or NULL. */
static const struct param_info *sf_row(const char *key) {
    return key ? param_find(key, strlen(key)) : NULL;
}

/* ---- messages --------------------------------------------------------------- */

/* Append formatted text to err (truncating, always NUL-terminated). */
static void sf_append(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append formatted text to err (truncating, always NUL-terminated). */
static void sf_append(char *err, size_t errlen, const char *fmt, ...) {
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
static void sf_quote_line(char *err, size_t errlen, const struct scenario_source *src, size_t line,
                          size_t col) {
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
        pad[n++] = ' '; /* a tab is shown as one space below */
        chars++;
    }
    pad[n] = '\0';
    /* The line as a terminal may show it: a control byte or bad UTF-8 in
     * the file is '?' (catalog_text_clean), never sent to the terminal;
     * each is one column, so the caret stays under it. */
    char shown[256];
    size_t k = (size_t)(eol - p) < sizeof(shown) - 1 ? (size_t)(eol - p) : sizeof(shown) - 1;
    memcpy(shown, p, k);
    shown[k] = '\0';
    for (size_t i = 0; i < k; i++)
        if (shown[i] == '\t')
            shown[i] = ' '; /* one column, as the pad counts it */
    catalog_text_clean(shown, k);
    sf_append(err, errlen, "    %s\n    %s^\n", shown, pad);
}

/* Make a whole message safe to print: each line through
 * catalog_text_clean (a value the message quotes came from the file). */
static void sf_clean_message(char *err) {
    char *line = err, *out = err;
    for (;;) {
        size_t n = strcspn(line, "\n");
        bool more = line[n] == '\n';
        memmove(out, line, n);
        size_t k = catalog_text_clean(out, n);
        out += k;
        if (!more)
            break;
        *out++ = '\n';
        line += n + 1;
    }
    *out = '\0';
}

/* Append "name:line:col: key: message" and the quoted line (see header). */
void scenario_file_error(char *err, size_t errlen, const struct scenario_source *src, size_t line,
                         size_t col, const char *key, const char *fmt, ...) {
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
                        const yaml_node_t *node, const char *key, const char *msg) {
    scenario_file_error(err, errlen, src, node->start_mark.line + 1, node->start_mark.column + 1,
                        key, "%s", msg);
}

/* ---- reading ------------------------------------------------------------------ */

/* Read a scenario or lesson file (see header). */
char *scenario_file_read(const char *path, size_t max, size_t *len, char *err, size_t errlen,
                         bool *missing) {
    struct stat st;
    char why[160];
    char *text;

    if (missing)
        *missing = stat(path, &st) != 0 && errno == ENOENT;
    text = catalog_read_regular(path, max, len, why, sizeof(why));
    if (!text)
        sf_append(err, errlen, _("%s: cannot read: %s\n"), path, why);
    return text;
}

/* The nesting depth of a source (see header). */
int scenario_file_check_depth(const struct scenario_source *src, char *err, size_t errlen) {
    size_t line, col;
    if (catalog_yaml_depth(src->text, src->len, CATALOG_MAX_DEPTH, &line, &col) == 0)
        return 0;
    scenario_file_error(err, errlen, src, line, col, NULL,
                        _("expected lists and mappings nested at most %d deep, found deeper"),
                        CATALOG_MAX_DEPTH);
    return -1;
}

/* The text of a scalar node, or NULL for other node kinds. */
static const char *sf_scalar(const yaml_node_t *n) {
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Whether a scalar is YAML's null (empty, ~ or null, unquoted). */
static bool sf_is_null(const yaml_node_t *n) {
    const char *s = sf_scalar(n);

    if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}


/* ---- options_parse with its messages captured --------------------------------- */

/* Run options_parse on argv in the C numeric locale, with what it writes to
 * stderr captured into msg (first 1 KiB or so). Returns its exit code. */
static int sf_parse_captured(int argc, char **argv, const struct catalog *cat, struct options *o,
                             char *msg, size_t len) {
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
static void sf_strip(char *s, const char *what) {
    size_t wl = strlen(what);
    char *p;

    while ((p = strstr(s, what)) != NULL)
        memmove(p, p + wl, strlen(p + wl) + 1);
}

/* Replace the first occurrence of from in s (of size len) by to. */
static void sf_replace(char *s, size_t len, const char *from, const char *to) {
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
static const struct sf_entry *sf_blame(char *msg, size_t len, const struct sf_entry *e, size_t n) {
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
    sf_strip(msg, _(" (see --help)"));
    sf_replace(msg, len, _("unknown option"), _("unknown key"));
    sf_strip(msg, "--");
    /* "format: unknown format 'x'": the key is printed once, by the caller. */
    if (found) {
        size_t kl = strlen(found->key);
        if (!strncmp(msg, found->key, kl) && msg[kl] == ':' && msg[kl + 1] == ' ')
            memmove(msg, msg + kl + 2, strlen(msg + kl + 2) + 1);
    }
    return found;
}

/* Whether a key names a file a model is read from. */
static bool sf_model_path_key(const char *key) {
    return !strcmp(key, "model-config") || !strcmp(key, "model-file");
}

/* Make the argument "--key=value" (or "--key" for a true flag) in a new
 * string; a relative model path is taken from the file's directory. */
static char *sf_argument(const struct scenario_source *src, const char *key, const char *value) {
    const char *slash = strrchr(src->name, '/');
    const struct param_info *p = sf_row(key);
    size_t dir = 0;
    char *arg;
    size_t len;

    if (sf_model_path_key(key) && value[0] != '/' && slash)
        dir = (size_t)(slash - src->name) + 1;
    len = 2 + strlen(key) + 1 + dir + strlen(value) + 1;
    arg = malloc(len);
    if (!arg)
        return NULL;
    if (!value[0] && p && p->type == PARAM_T_FLAG)
        snprintf(arg, len, "--%s", key);
    else
        snprintf(arg, len, "--%s=%.*s%s", key, (int)dir, src->name, value);
    return arg;
}

/* Check one key and value of the mapping; on error report it and return -1.
 * *value is set to the text to pass ("" for a true flag, NULL to omit). */
static int sf_check_entry(const struct scenario_source *src, const struct sf_entry *e,
                          const char **value, char *err, size_t errlen) {
    const char *v = sf_scalar(e->value_node);
    char msg[256];

    if (!e->key || !*e->key ||
        strspn(e->key, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(e->key) ||
        e->key[0] == '-') {
        char q[48];
        snprintf(q, sizeof(q), "%s", e->key ? e->key : "");
        snprintf(msg, sizeof(msg),
                 _("expected a scenario option name like model or gpu-memory, found '%s'"), q);
        sf_error_at(err, errlen, src, e->key_node, NULL, msg);
        return -1;
    }
    const struct param_info *p = sf_row(e->key);
    if (p && !param_in_file(p)) {
        sf_error_at(err, errlen, src, e->key_node, e->key,
                    _("not a scenario field (a command-line option of the session)"));
        return -1;
    }
    if (!v) {
        snprintf(msg, sizeof(msg), "%s",
                 e->value_node->type == YAML_MAPPING_NODE
                     ? _("expected one value (as on the command line), found a mapping")
                     : _("expected one value (as on the command line), found a sequence"));
        sf_error_at(err, errlen, src, e->value_node, e->key, msg);
        return -1;
    }
    if (strlen(v) != e->value_node->data.scalar.length) {
        sf_error_at(err, errlen, src, e->value_node, e->key,
                    _("expected text, found a NUL character"));
        return -1;
    }
    if (p && p->type == PARAM_T_FLAG) {
        if (!strcmp(v, "true") || !strcmp(v, "yes")) {
            *value = "";
        } else if (!strcmp(v, "false") || !strcmp(v, "no")) {
            *value = NULL;
        } else {
            snprintf(msg, sizeof(msg), _("expected true or false, found '%.40s'"), v);
            sf_error_at(err, errlen, src, e->value_node, e->key, msg);
            return -1;
        }
        return 0;
    }
    if (sf_is_null(e->value_node)) {
        sf_error_at(err, errlen, src, e->value_node, e->key, _("expected a value, found nothing"));
        return -1;
    }
    *value = v;
    return 0;
}

/* Collect the mapping's entries, refusing duplicates and non-scalar keys. */
static int sf_entries(yaml_document_t *doc, yaml_node_t *map, const struct scenario_source *src,
                      struct sf_entry *e, size_t *n, char *err, size_t errlen) {
    *n = 0;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        const char *key = sf_scalar(k);
        if (!key) {
            sf_error_at(err, errlen, src, k, NULL,
                        _("expected a scenario option name, found a collection"));
            return -1;
        }
        for (size_t i = 0; i < *n; i++) {
            if (!strcmp(e[i].key, key)) {
                char msg[96];
                snprintf(msg, sizeof(msg), _("duplicate key (first at line %zu)"),
                         (size_t)e[i].key_node->start_mark.line + 1);
                sf_error_at(err, errlen, src, k, key, msg);
                return -1;
            }
        }
        if (*n == SF_MAX_KEYS) {
            sf_error_at(err, errlen, src, k, key, _("too many keys for a scenario"));
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
                            struct options *o, char *err, size_t errlen) {
    struct sf_entry entries[SF_MAX_KEYS];
    char *argv[SF_MAX_KEYS + 2];
    int argc = 1;
    size_t n = 0;
    int rc = -1;
    struct options parsed;
    char msg[1024];

    if (!map || map->type != YAML_MAPPING_NODE) {
        const char *what = !map                              ? _("nothing")
                           : map->type == YAML_SEQUENCE_NODE ? _("a sequence")
                                                             : _("a scalar");
        if (map)
            scenario_file_error(err, errlen, src, map->start_mark.line + 1,
                                map->start_mark.column + 1, NULL,
                                _("expected a mapping of scenario options (model: ..., gpu: ...), "
                                  "found %s"),
                                what);
        else
            scenario_file_error(err, errlen, src, 1, 1, NULL,
                                _("expected a mapping of scenario options (model: ..., gpu: ...), "
                                  "found nothing"));
        return -1;
    }
    if (sf_entries(doc, map, src, entries, &n, err, errlen) != 0)
        return -1;
    /* A model read from a file (model-file, model-config) is saved with
     * its architecture: the file when it is there, else the saved shape. */
    bool keep_arch = true, drop_path = false;
    char note[sizeof(parsed.note)] = "";
    for (size_t i = 0; i < n; i++) {
        const char *v = sf_scalar(entries[i].value_node);
        char *arg, why[160];
        struct stat st;
        if (!v || !sf_model_path_key(entries[i].key) || !(arg = sf_argument(src, entries[i].key, v)))
            continue;
        const char *path = strchr(arg, '=') + 1;
        bool arch = false;
        for (size_t j = 0; j < n; j++) {
            const struct param_info *p = sf_row(entries[j].key);
            arch = arch || (p && (p->flags & PARAM_F_ARCH));
        }
        if (stat(path, &st) == 0) {
            keep_arch = false;
        } else if (arch) {
            snprintf(why, sizeof(why), "%s", strerror(errno));
            drop_path = true;
            snprintf(note, sizeof(note), _("%s: %s: %s; the saved architecture is used instead"),
                     entries[i].key, path, why);
        }
        free(arg);
    }
    argv[0] = "vramlab";
    for (size_t i = 0; i < n; i++) {
        const char *value = NULL;
        const struct param_info *p = sf_row(entries[i].key);
        if (sf_check_entry(src, &entries[i], &value, err, errlen) != 0)
            goto out;
        if (!value || (!keep_arch && p && (p->flags & PARAM_F_ARCH)) ||
            (drop_path && sf_model_path_key(entries[i].key)))
            continue;
        argv[argc] = sf_argument(src, entries[i].key, value);
        if (!argv[argc]) {
            sf_error_at(err, errlen, src, entries[i].key_node, entries[i].key, _("out of memory"));
            goto out;
        }
        argc++;
    }
    argv[argc] = NULL;
    if (sf_parse_captured(argc, argv, cat, &parsed, msg, sizeof(msg)) != 0) {
        const struct sf_entry *e = sf_blame(msg, sizeof(msg), entries, n);
        if (!msg[0])
            snprintf(msg, sizeof(msg), "%s", _("invalid scenario"));
        if (e) {
            /* Unknown keys point at the key, bad values at the value. */
            bool at_key = strstr(msg, _("unknown key")) != NULL;
            sf_error_at(err, errlen, src, at_key ? e->key_node : e->value_node, e->key, msg);
        } else {
            sf_error_at(err, errlen, src, map, NULL, msg);
        }
        goto out;
    }
    memcpy(parsed.note, note, sizeof(note));
    /* What was given: the file's keys, whose texts are freed below. */
    memset(parsed.given.val, 0, sizeof(parsed.given.val));
    *o = parsed;
    rc = 0;
out:
    for (int i = 1; i < argc; i++)
        free(argv[i]);
    return rc;
}

/* Report libyaml's own error (syntax, encoding) at its mark. */
static void sf_syntax_error(const struct scenario_source *src, const yaml_parser_t *p, char *err,
                            size_t errlen) {
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
                            _("YAML syntax: %s %s (from line %zu)"), p->problem ? p->problem : _("error"),
                            p->context, (size_t)p->context_mark.line + 1);
    else
        scenario_file_error(err, errlen, src, line + 1, col + 1, NULL, _("YAML syntax: %s"),
                            p->problem ? p->problem : _("error"));
}

/* Load a scenario from YAML text (see header). */
static int sf_load_buffer(const char *name, const char *text, size_t len,
                          const struct catalog *cat, struct options *o, char *err,
                          size_t errlen);

/* Load from memory (see header); the message is safe to print. */
int scenario_file_load_buffer(const char *name, const char *text, size_t len,
                              const struct catalog *cat, struct options *o, char *err,
                              size_t errlen) {
    int rc = sf_load_buffer(name, text, len, cat, o, err, errlen);
    if (rc != SCENARIO_FILE_OK && err && errlen)
        sf_clean_message(err);
    return rc;
}

static int sf_load_buffer(const char *name, const char *text, size_t len,
                          const struct catalog *cat, struct options *o, char *err,
                          size_t errlen) {
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
    if (scenario_file_check_depth(&src, err, errlen) != 0) {
        yaml_parser_delete(&parser);
        return rc;
    }
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
                            _("expected one scenario, found a second YAML document"));
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
                       size_t errlen) {
    size_t len = 0;
    char *text;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    bool missing = false;
    text = scenario_file_read(path, SF_MAX_FILE, &len, err, errlen, &missing);
    if (!text)
        return missing ? SCENARIO_FILE_MISSING : SCENARIO_FILE_ERROR;
    rc = scenario_file_load_buffer(path, text, len, cat, o, err, errlen);
    free(text);
    return rc;
}
