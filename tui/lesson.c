/*
 * lesson.c: loading and validating lesson files (see lesson.h).
 *
 * The file is read whole with libyaml's document API, so every node keeps
 * its mark for messages. Keys are checked against small tables (netplan's
 * handler tables, as in the catalog); each step's scenario mapping goes
 * through scenario_file_from_node(), the same path as a scenario file and
 * hence the same validation as the command line. Errors are collected
 * (up to LESSON_MAX_ERRORS) so a lesson author sees them all at once; a
 * lesson with any error is refused whole, since a half lesson in front of a
 * class is worse than a clear message before it.
 */
#include "kernels/argv.h"
#include "tui/lesson.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "tui/scenario_file.h"
#include "tui/i18n.h"

/* Largest lesson file read (bytes) and most steps in one lesson. */
#define LESSON_MAX_FILE  (4u << 20)
#define LESSON_MAX_STEPS 1000

static const char *const lesson_pane_names[LESSON_PANE_COUNT] = {
    "", "model", "format", "gpu", "layout", "memory", "speed", "measure",
};

/* The keys of the top level and of a step. */
static const char *const lesson_top_keys[] = {"title", "language", "steps"};
static const char *const lesson_step_keys[] = {"title", "scenario", "caption", "pane",
                                               "explain", "question", "hide", "notes"};

/* What a load is working with. */
struct lesson_ctx {
    struct scenario_source src;
    yaml_document_t *doc;
    const struct catalog *cat;
    char *err;
    size_t errlen;
    unsigned errors;
};

/* The file name of a pane. */
const char *lesson_pane_name(enum lesson_pane p) {
    return (unsigned)p < LESSON_PANE_COUNT ? lesson_pane_names[p] : "";
}

/* Parse a pane name. */
int lesson_pane_parse(const char *s, enum lesson_pane *out) {
    for (int i = 1; i < LESSON_PANE_COUNT; i++) {
        if (s && !strcmp(s, lesson_pane_names[i])) {
            *out = (enum lesson_pane)i;
            return 0;
        }
    }
    return -1;
}

/* Number of steps. */
size_t lesson_count(const struct lesson *l) {
    return l ? l->n_steps : 0;
}

/* Step i, or NULL. */
const struct lesson_step *lesson_step(const struct lesson *l, size_t i) {
    return l && i < l->n_steps ? &l->steps[i] : NULL;
}

/* Free a lesson's strings and steps. */
void lesson_free(struct lesson *l) {
    if (!l)
        return;
    for (size_t i = 0; i < l->n_steps; i++) {
        free((char *)l->steps[i].title);
        free((char *)l->steps[i].caption);
        free((char *)l->steps[i].question);
        free((char *)l->steps[i].notes);
    }
    free(l->steps);
    free(l->path);
    free(l->title);
    free(l->language);
    memset(l, 0, sizeof(*l));
}

/* ---- messages ------------------------------------------------------------------ */

/* Report one error at a node, unless the error budget is spent. */
static void lesson_error(struct lesson_ctx *x, const yaml_node_t *n, const char *key,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Report one error at a node, unless the error budget is spent. */
static void lesson_error(struct lesson_ctx *x, const yaml_node_t *n, const char *key,
                         const char *fmt, ...) {
    char msg[512];
    va_list ap;

    x->errors++;
    if (x->errors > LESSON_MAX_ERRORS)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), _(fmt), ap);
    va_end(ap);
    scenario_file_error(x->err, x->errlen, &x->src, n->start_mark.line + 1,
                        n->start_mark.column + 1, key, "%s", msg);
}

/* Describe a node for "found ...": 'text' (cut), a mapping, nothing. */
static const char *lesson_describe(const yaml_node_t *n, char *buf, size_t len) {
    if (!n)
        return _("nothing");
    if (n->type == YAML_MAPPING_NODE)
        return _("a mapping");
    if (n->type == YAML_SEQUENCE_NODE)
        return _("a sequence");
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && n->data.scalar.length == 0)
        return _("nothing");
    snprintf(buf, len, "'%.40s%s'", (const char *)n->data.scalar.value,
             n->data.scalar.length > 40 ? "..." : "");
    for (char *p = buf; *p; p++) {
        if ((unsigned char)*p < 0x20)
            *p = '?';
    }
    return buf;
}

/* The non-empty text of a scalar node, or NULL after reporting what was found. */
static const char *lesson_text(struct lesson_ctx *x, const yaml_node_t *n, const char *key,
                               const char *expected) {
    char buf[64];

    if (n->type == YAML_SCALAR_NODE && n->data.scalar.length > 0 &&
        strlen((const char *)n->data.scalar.value) == n->data.scalar.length &&
        !(n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
          !strcmp((const char *)n->data.scalar.value, "~")))
        return (const char *)n->data.scalar.value;
    lesson_error(x, n, key, "expected %s, found %s", _(expected),
                 lesson_describe(n, buf, sizeof(buf)));
    return NULL;
}

/* A copy of s without trailing white space (folded YAML ends in "\n"). */
static char *lesson_strdup_trim(const char *s) {
    size_t n = strlen(s);
    char *c;

    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* Write the names of a table as "a, b or c" into buf. */
static void lesson_list(const char *const *names, size_t n, char *buf, size_t len) {
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? _(" or ")
                                      : ", ",
                         names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/*
 * Walk a mapping's pairs: refuse non-scalar, unknown and duplicate keys,
 * and store each known key's value node in values[] (by table index).
 * Returns the number of errors found.
 */
static unsigned lesson_keys(struct lesson_ctx *x, yaml_node_t *map, const char *const *keys,
                            size_t n_keys, yaml_node_t **values, yaml_node_t **key_nodes) {
    unsigned before = x->errors;

    for (size_t i = 0; i < n_keys; i++)
        values[i] = key_nodes[i] = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
        const char *name =
            k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
        size_t i;
        char buf[64], list[160];

        if (!name) {
            lesson_error(x, k, NULL, "expected a key, found %s", lesson_describe(k, buf, 64));
            continue;
        }
        for (i = 0; i < n_keys && strcmp(keys[i], name) != 0; i++)
            ;
        if (i == n_keys) {
            const char *close[2];
            size_t nc = argv_closest(name, keys, n_keys, close, 1);
            lesson_list(keys, n_keys, list, sizeof(list));
            if (nc > 0)
                lesson_error(x, k, name, "unknown key; did you mean %s? (expected %s)", close[0],
                             list);
            else
                lesson_error(x, k, name, "unknown key; expected %s", list);
            continue;
        }
        if (values[i]) {
            lesson_error(x, k, name, "duplicate key (first at line %zu)",
                         (size_t)key_nodes[i]->start_mark.line + 1);
            continue;
        }
        values[i] = v;
        key_nodes[i] = k;
    }
    return x->errors - before;
}

/* ---- steps ------------------------------------------------------------------------ */

/* Check and store the optional pane of a step. */
static void lesson_pane(struct lesson_ctx *x, yaml_node_t *v, struct lesson_step *st) {
    const char *s = lesson_text(x, v, "pane", N_("a pane name"));
    char list[160];

    if (!s)
        return;
    if (lesson_pane_parse(s, &st->pane) != 0) {
        char buf[64];
        lesson_list(lesson_pane_names + 1, LESSON_PANE_COUNT - 1, list, sizeof(list));
        lesson_error(x, v, "pane", "expected %s, found %s", list,
                     lesson_describe(v, buf, sizeof(buf)));
    }
}

/* Check and store the optional explain key of a step (needs the scenario). */
static void lesson_explain(struct lesson_ctx *x, yaml_node_t *v, struct lesson_step *st,
                           bool scenario_ok) {
    const char *s = lesson_text(x, v, "explain", N_("an engine key like memory.weights"));
    const char *names[ENGINE_KEY_COUNT], *close[3];
    char buf[64];

    if (!s)
        return;
    if (engine_key_parse(s, &st->explain) != 0) {
        size_t nc;
        for (int i = 0; i < ENGINE_KEY_COUNT; i++)
            names[i] = engine_key_name((enum engine_key)i);
        nc = argv_closest(s, names, ENGINE_KEY_COUNT, close, 3);
        lesson_error(x, v, "explain",
                     "expected an engine key like decode.tokens_per_s_memory_bound%s%s%s%s%s, "
                     "found %s",
                     nc ? " (closest: " : "", nc > 0 ? close[0] : "", nc > 1 ? ", " : "",
                     nc > 1 ? close[1] : "", nc ? ")" : "", lesson_describe(v, buf, sizeof(buf)));
        return;
    }
    if (scenario_ok && !engine_key_applies(&st->options.sc, st->explain)) {
        lesson_error(x, v, "explain", "expected a key that applies in %s mode, found %s",
                     engine_mode_name(st->options.sc.mode), lesson_describe(v, buf, sizeof(buf)));
        return;
    }
    st->has_explain = true;
}

/* Check and store a question step's panes to hide: a pane name or a
 * sequence of them (at least one). */
static void lesson_hide(struct lesson_ctx *x, yaml_node_t *v, struct lesson_step *st) {
    char buf[64], list[160];
    yaml_node_item_t *it, *end;

    st->hide = 0;
    if (v->type == YAML_SEQUENCE_NODE) {
        it = v->data.sequence.items.start;
        end = v->data.sequence.items.top;
        if (it == end) {
            lesson_error(x, v, "hide", "expected at least one pane name, found %s",
                         _("an empty sequence"));
            return;
        }
    } else {
        it = end = NULL;
    }
    lesson_list(lesson_pane_names + 1, LESSON_PANE_COUNT - 1, list, sizeof(list));
    for (;;) {
        yaml_node_t *n = it ? yaml_document_get_node(x->doc, *it) : v;
        enum lesson_pane p;
        const char *s = n ? lesson_text(x, n, "hide", N_("a pane name or a list of them")) : NULL;

        if (s && lesson_pane_parse(s, &p) != 0)
            lesson_error(x, n, "hide", "expected %s, found %s", list,
                         lesson_describe(n, buf, sizeof(buf)));
        else if (s)
            st->hide |= 1u << (unsigned)p;
        if (!it || ++it == end)
            break;
    }
}

/* Check a text's figure references and quotations against the step's
 * scenario (lesson_text.h), reporting at the text's node. */
static void lesson_refs(struct lesson_ctx *x, yaml_node_t *v, const char *key, const char *text,
                        const struct lesson_step *st) {
    struct lesson_text_problem p;
    if (lesson_text_check(&st->options.sc, text, &p) == 0)
        return;
    switch (p.code) {
    case LESSON_TEXT_UNKNOWN:
        if (p.closest)
            lesson_error(x, v, key, "unknown figure {%.*s}; did you mean {%s}?", (int)p.n, p.path,
                         p.closest);
        else
            lesson_error(x, v, key,
                         "unknown figure {%.*s}; expected a key of vramlab plan --json "
                         "({memory.weights}) or a scenario input ({scenario.context})",
                         (int)p.n, p.path);
        break;
    case LESSON_TEXT_NOT_APPLY:
        lesson_error(x, v, key, "expected a figure that applies in %s mode, found {%.*s}",
                     engine_mode_name(st->options.sc.mode), (int)p.n, p.path);
        break;
    case LESSON_TEXT_BRACE:
        lesson_error(x, v, key, "expected } after {, found none (write {{ for a brace)");
        break;
    case LESSON_TEXT_QUOTE_NESTED:
        lesson_error(x, v, key, "expected %s before the next %s (quotations do not nest)",
                     LESSON_QUOTE_CLOSE, LESSON_QUOTE_OPEN);
        break;
    case LESSON_TEXT_QUOTE_OPEN:
        lesson_error(x, v, key, "expected %s to close the quotation, found none",
                     LESSON_QUOTE_CLOSE);
        break;
    default:
        lesson_error(x, v, key, "expected %s before %s, found none", LESSON_QUOTE_OPEN,
                     LESSON_QUOTE_CLOSE);
        break;
    }
}

/* Check one step and fill st; errors are counted in x. */
static void lesson_parse_step(struct lesson_ctx *x, yaml_node_t *node, struct lesson_step *st) {
    enum { K_TITLE, K_SCENARIO, K_CAPTION, K_PANE, K_EXPLAIN, K_QUESTION, K_HIDE, K_NOTES,
           K_COUNT };
    yaml_node_t *v[K_COUNT], *k[K_COUNT];
    bool scenario_ok = false;
    char buf[64];
    const char *s;

    memset(st, 0, sizeof(*st));
    st->line = node->start_mark.line + 1;
    if (node->type != YAML_MAPPING_NODE) {
        lesson_error(x, node, "steps",
                     "expected a step (a mapping with scenario: and caption:), found %s",
                     lesson_describe(node, buf, sizeof(buf)));
        return;
    }
    lesson_keys(x, node, lesson_step_keys, K_COUNT, v, k);
    if (!v[K_SCENARIO])
        lesson_error(x, node, "scenario", "expected a scenario mapping in every step, found none");
    if (!v[K_CAPTION])
        lesson_error(x, node, "caption", "expected a caption in every step, found none");
    if (v[K_SCENARIO]) {
        if (v[K_SCENARIO]->type != YAML_MAPPING_NODE) {
            lesson_error(x, v[K_SCENARIO], "scenario",
                         "expected a mapping of scenario options (model: ..., gpu: ...), "
                         "found %s",
                         lesson_describe(v[K_SCENARIO], buf, sizeof(buf)));
        } else if (x->errors < LESSON_MAX_ERRORS) {
            if (scenario_file_from_node(x->doc, v[K_SCENARIO], &x->src, x->cat, &st->options,
                                        x->err, x->errlen) == 0)
                scenario_ok = true;
            else
                x->errors++;
        } else {
            x->errors++;
        }
    }
    if (v[K_CAPTION] && (s = lesson_text(x, v[K_CAPTION], "caption", N_("caption text"))) != NULL)
        st->caption = lesson_strdup_trim(s);
    if (v[K_TITLE] && (s = lesson_text(x, v[K_TITLE], "title", N_("a step title"))) != NULL)
        st->title = lesson_strdup_trim(s);
    if (v[K_PANE])
        lesson_pane(x, v[K_PANE], st);
    if (v[K_EXPLAIN])
        lesson_explain(x, v[K_EXPLAIN], st, scenario_ok);
    if (v[K_QUESTION] &&
        (s = lesson_text(x, v[K_QUESTION], "question", N_("question text"))) != NULL)
        st->question = lesson_strdup_trim(s);
    if (v[K_NOTES] && (s = lesson_text(x, v[K_NOTES], "notes", N_("presenter notes"))) != NULL)
        st->notes = lesson_strdup_trim(s);
    if (scenario_ok) {
        if (st->caption)
            lesson_refs(x, v[K_CAPTION], "caption", st->caption, st);
        if (st->question)
            lesson_refs(x, v[K_QUESTION], "question", st->question, st);
        if (st->notes)
            lesson_refs(x, v[K_NOTES], "notes", st->notes, st);
        if (st->caption)
            lesson_text_cites(st->caption, &st->cites);
        if (st->question)
            lesson_text_cites(st->question, &st->cites);
    }
    if (v[K_HIDE] && !v[K_QUESTION])
        lesson_error(x, k[K_HIDE], "hide",
                     "expected a question in the same step (hide: belongs to a question step), "
                     "found none");
    else if (v[K_HIDE])
        lesson_hide(x, v[K_HIDE], st);
    else if (st->question)
        st->hide = 1u << LESSON_PANE_MEMORY | 1u << LESSON_PANE_SPEED |
                   (st->pane != LESSON_PANE_NONE ? 1u << (unsigned)st->pane : 0);
    if (!st->title)
        st->title = lesson_strdup_trim("");
}

/* Check the top level and every step; fill l. */
static void lesson_parse(struct lesson_ctx *x, yaml_node_t *root, struct lesson *l) {
    enum { K_TITLE, K_LANGUAGE, K_STEPS, K_COUNT };
    yaml_node_t *v[K_COUNT], *k[K_COUNT];
    char buf[64];
    const char *s;
    size_t n;

    if (!root) {
        scenario_file_error(x->err, x->errlen, &x->src, 1, 1, NULL,
                            _("expected a lesson (title:, language:, steps:), found an empty file"));
        x->errors++;
        return;
    }
    if (root->type != YAML_MAPPING_NODE) {
        lesson_error(x, root, NULL, "expected a lesson (title:, language:, steps:), found %s",
                     lesson_describe(root, buf, sizeof(buf)));
        return;
    }
    lesson_keys(x, root, lesson_top_keys, K_COUNT, v, k);
    if (!v[K_TITLE])
        lesson_error(x, root, "title", "expected a lesson title, found none");
    else if ((s = lesson_text(x, v[K_TITLE], "title", N_("a lesson title"))) != NULL)
        l->title = lesson_strdup_trim(s);
    if (!v[K_LANGUAGE]) {
        lesson_error(x, root, "language", "expected a language code like en or es, found none");
    } else if ((s = lesson_text(x, v[K_LANGUAGE], "language", N_("a language code like en or es")))) {
        size_t letters = strspn(s, "abcdefghijklmnopqrstuvwxyz");
        if (letters < 2 || letters > 3 || (s[letters] && s[letters] != '_' && s[letters] != '-'))
            lesson_error(x, v[K_LANGUAGE], "language",
                         "expected a language code like en or es, found %s",
                         lesson_describe(v[K_LANGUAGE], buf, sizeof(buf)));
        else
            l->language = lesson_strdup_trim(s);
    }
    if (!v[K_STEPS]) {
        lesson_error(x, root, "steps", "expected a sequence of steps, found none");
        return;
    }
    if (v[K_STEPS]->type != YAML_SEQUENCE_NODE) {
        lesson_error(x, v[K_STEPS], "steps", "expected a sequence of steps, found %s",
                     lesson_describe(v[K_STEPS], buf, sizeof(buf)));
        return;
    }
    n = (size_t)(v[K_STEPS]->data.sequence.items.top - v[K_STEPS]->data.sequence.items.start);
    if (n == 0 || n > LESSON_MAX_STEPS) {
        lesson_error(x, v[K_STEPS], "steps", "expected 1 to %d steps, found %zu", LESSON_MAX_STEPS,
                     n);
        return;
    }
    l->steps = calloc(n, sizeof(*l->steps));
    if (!l->steps) {
        lesson_error(x, v[K_STEPS], "steps", "out of memory");
        return;
    }
    l->n_steps = n;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *item =
            yaml_document_get_node(x->doc, v[K_STEPS]->data.sequence.items.start[i]);
        lesson_parse_step(x, item, &l->steps[i]);
    }
}

/* Report libyaml's own error (syntax, encoding) at its mark. */
static void lesson_syntax_error(struct lesson_ctx *x, const yaml_parser_t *p) {
    size_t line = p->problem_mark.line, col = p->problem_mark.column;

    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry a byte offset, not a mark. */
        size_t off = p->problem_offset < x->src.len ? p->problem_offset : x->src.len;
        line = col = 0;
        for (size_t i = 0; i < off; i++) {
            if (x->src.text[i] == '\n')
                line++, col = 0;
            else if (((unsigned char)x->src.text[i] & 0xc0) != 0x80)
                col++;
        }
    }
    x->errors++;
    scenario_file_error(x->err, x->errlen, &x->src, line + 1, col + 1, NULL, _("YAML syntax: %s%s%s"),
                        p->problem ? p->problem : _("error"), p->context ? " " : "",
                        p->context ? p->context : "");
}

/* Load a lesson from YAML text (see header). */
int lesson_load_buffer(const char *name, const char *text, size_t len, const struct catalog *cat,
                       struct lesson *l, char *err, size_t errlen) {
    struct lesson_ctx x = {{name, text, len}, NULL, cat, err, errlen, 0};
    yaml_parser_t parser;
    yaml_document_t doc;

    memset(l, 0, sizeof(*l));
    if (err && errlen)
        err[0] = '\0';
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, _("%s: out of memory\n"), name);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (scenario_file_check_depth(&x.src, err, errlen) != 0) {
        yaml_parser_delete(&parser);
        return -1;
    }
    if (!yaml_parser_load(&parser, &doc)) {
        lesson_syntax_error(&x, &parser);
        yaml_parser_delete(&parser);
        return -1;
    }
    x.doc = &doc;
    lesson_parse(&x, yaml_document_get_root_node(&doc), l);
    if (x.errors > LESSON_MAX_ERRORS && err && errlen) {
        size_t used = strnlen(err, errlen);
        if (used + 1 < errlen)
            snprintf(err + used, errlen - used, _("%s: %u more errors not shown\n"), name,
                     x.errors - LESSON_MAX_ERRORS);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (x.errors == 0) {
        l->path = lesson_strdup_trim(name);
        if (!l->path || !l->title || !l->language) {
            snprintf(err, errlen, _("%s: out of memory\n"), name);
            x.errors++;
        }
        for (size_t i = 0; i < l->n_steps && x.errors == 0; i++) {
            if (!l->steps[i].caption || !l->steps[i].title ||
                (l->steps[i].hide && !l->steps[i].question)) {
                snprintf(err, errlen, _("%s: out of memory\n"), name);
                x.errors++;
            }
        }
    }
    if (x.errors > 0) {
        lesson_free(l);
        return -1;
    }
    return 0;
}

/* Load a lesson file (see header). */
int lesson_load(const char *path, const struct catalog *cat, struct lesson *l, char *err,
                size_t errlen) {
    size_t len = 0;
    char *text;
    int rc;

    memset(l, 0, sizeof(*l));
    if (err && errlen)
        err[0] = '\0';
    text = scenario_file_read(path, LESSON_MAX_FILE, &len, err, errlen, NULL);
    if (!text)
        return -1;
    rc = lesson_load_buffer(path, text, len, cat, l, err, errlen);
    free(text);
    return rc;
}

/* Whether path names a regular file. */
static bool lesson_is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directories lessons are looked up in, in order (see header). */
size_t lesson_dirs(const char *dirs[LESSON_DIRS_MAX]) {
    size_t n = 0;
    const char *env = getenv("VRAMLAB_LESSONS");
    if (env && *env)
        dirs[n++] = env;
#ifdef VRAMLAB_PKGDATADIR
    dirs[n++] = VRAMLAB_PKGDATADIR "/lessons";
#endif
#ifdef VRAMLAB_ABS_SRCDIR
    dirs[n++] = VRAMLAB_ABS_SRCDIR "/share/lessons";
#endif
    return n;
}

/* Find a lesson file by path or name (see header). */
int lesson_resolve(const char *name, const char *lang, char *buf, size_t len) {
    const char *dirs[LESSON_DIRS_MAX];
    size_t n_dirs;

    if (!name || !*name)
        return -1;
    /* A path: taken as it is when it exists, even when it is not a regular
     * file (a FIFO, a device), so that reading it says what it is; a bare
     * name that is a directory here is still looked up as a lesson name. */
    struct stat st;
    if (strchr(name, '/') || (stat(name, &st) == 0 && !S_ISDIR(st.st_mode))) {
        if (stat(name, &st) != 0)
            return -1;
        snprintf(buf, len, "%s", name);
        return 0;
    }
    n_dirs = lesson_dirs(dirs);
    for (size_t d = 0; d < n_dirs; d++) {
        /* NAME, NAME.yaml, NAME.LANG.yaml, NAME.en.yaml */
        for (int form = 0; form < 4; form++) {
            if (form == 2 && (!lang || !*lang))
                continue;
            const char *mid = form == 2 ? lang : form == 3 ? "en" : "";
            snprintf(buf, len, "%s/%s%s%s%s", dirs[d], name, *mid ? "." : "", mid,
                     form == 0 ? "" : ".yaml");
            if (lesson_is_file(buf))
                return 0;
        }
    }
    return -1;
}

/* ---- progress between sessions ------------------------------------------------ */

/* Make a directory and its parents (mode 0700); 0 or -1 with errno. */
static int lesson_mkdirs(char *dir) {
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(dir, 0700);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(dir, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The progress file of a lesson (see header). */
int lesson_progress_path(const char *lesson_path, char *buf, size_t len, bool create, char *err,
                         size_t errlen) {
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    const char *base = strrchr(lesson_path, '/');
    char dir[4096], key[256];
    int n;
    if (err && errlen)
        err[0] = '\0';
    base = base ? base + 1 : lesson_path;
    snprintf(key, sizeof(key), "%s", base);
    size_t kl = strlen(key);
    if (kl > 5 && !strcmp(key + kl - 5, ".yaml"))
        key[kl -= 5] = '\0';
    char *dot = strrchr(key, '.'); /* seed-000.es */
    if (dot && strlen(dot + 1) >= 2 && strlen(dot + 1) <= 5 && dot > key)
        *dot = '\0';
    if (xdg && xdg[0] == '/')
        n = snprintf(dir, sizeof(dir), "%s/vramlab/lessons", xdg);
    else if (home && home[0] == '/')
        n = snprintf(dir, sizeof(dir), "%s/.local/state/vramlab/lessons", home);
    else {
        snprintf(err, errlen, "%s", _("neither XDG_STATE_HOME nor HOME is set"));
        return -1;
    }
    if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n + strlen(key) + 7 > len) {
        snprintf(err, errlen, "%s", _("the state directory's path is too long"));
        return -1;
    }
    if (create && lesson_mkdirs(dir) != 0) {
        snprintf(err, errlen, _("%s: cannot create: %s"), dir, strerror(errno));
        return -1;
    }
    snprintf(buf, len, "%s/%s.step", dir, key);
    return 0;
}

/* The step kept (see header). */
long lesson_progress_read(const char *path) {
    FILE *f = fopen(path, "r");
    long step = -1, n = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%ld/%ld", &step, &n) < 1 || step < 1)
        step = 0;
    fclose(f);
    return step - 1;
}

/* Keep a step (see header). */
int lesson_progress_write(const char *path, size_t step, size_t n) {
    char tmp[4200], text[64];
    int len = snprintf(text, sizeof(text), "%zu/%zu\n", step + 1, n);
    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    bool wrote = write(fd, text, (size_t)len) == len;
    if (close(fd) != 0 || !wrote || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}
