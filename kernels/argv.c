/*
 * argv.c: the one command-line scanner and its one wording (see argv.h).
 * Includes nothing of ours.
 */
#include "kernels/argv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message in the caller's language. */
static const char *argv_tr(const struct argv_spec *spec, const char *msgid) {
    return spec && spec->tr ? spec->tr(msgid) : msgid;
}

/* Format into err (always NUL-terminated). */
static void argv_put(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void argv_put(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Levenshtein distance between two short strings (capped at 63 chars). */
static size_t argv_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    size_t row[64];

    if (la > 63)
        la = 63;
    if (lb > 63)
        lb = 63;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The names closest to word (see argv.h). */
size_t argv_closest(const char *word, const char *const *names, size_t n_names, const char **out,
                    size_t n) {
    size_t count = 0;
    size_t wl = strlen(word);
    size_t limit = wl / 3 + 1;

    if (limit < 2)
        limit = 2;
    /* Closest first: scan by increasing distance. */
    for (size_t d = 0; d <= limit && count < n; d++) {
        for (size_t i = 0; i < n_names && count < n; i++) {
            size_t dist = argv_distance(word, names[i]);
            bool prefix = wl >= 2 && strncmp(names[i], word, wl) == 0;
            if (prefix && dist > limit)
                dist = limit; /* "--micro" still finds "--micro-batches" */
            if (dist == d)
                out[count++] = names[i];
        }
    }
    return count;
}

/* The index of the option named name (len bytes), or -1. */
static int argv_find(const struct argv_spec *spec, const char *name, size_t len) {
    for (size_t i = 0; i < spec->n_options; i++) {
        const char *o = spec->options[i].name;
        if (strlen(o) == len && strncmp(o, name, len) == 0)
            return (int)i;
    }
    return -1;
}

/* "--NAME: expected WHAT, found 'TEXT'". */
void argv_error_value(const struct argv_spec *spec, char *err, size_t errlen, const char *name,
                      const char *expected, const char *found) {
    argv_put(err, errlen, argv_tr(spec, ARGV_N_("--%s: expected %s, found '%s'")), name, expected,
             found ? found : "");
}

/* "unexpected argument 'WORD' (see --help)". */
void argv_error_unexpected(const struct argv_spec *spec, char *err, size_t errlen,
                           const char *word) {
    argv_put(err, errlen, argv_tr(spec, ARGV_N_("unexpected argument '%s' (see --help)")), word);
}

/* "unknown option '--WORD'" with the closest names of the spec. */
static void argv_error_unknown(const struct argv_spec *spec, char *err, size_t errlen, const char *arg) {
    const char *names[256], *close[3];
    char word[64], list[160] = "";
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg), n_names = 0, n, used = 0;

    while (len > 0 && *arg == '-') {
        arg++;
        len--;
    }
    if (len >= sizeof(word))
        len = sizeof(word) - 1;
    memcpy(word, arg, len);
    word[len] = '\0';
    for (size_t i = 0; i < spec->n_options && n_names < 256; i++)
        names[n_names++] = spec->options[i].name;
    n = argv_closest(word, names, n_names, close, 3);
    if (n == 0) {
        argv_put(err, errlen, argv_tr(spec, ARGV_N_("unknown option '--%s' (see --help)")), word);
        return;
    }
    for (size_t i = 0; i < n && used < sizeof(list); i++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s--%s", i ? ", " : "", close[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    argv_put(err, errlen, argv_tr(spec, ARGV_N_("unknown option '--%s'; did you mean %s?")), word,
             list);
}

/* Scan the arguments (see argv.h). */
int argv_scan(const struct argv_spec *spec, int argc, char **argv, argv_visit visit, void *ctx,
              char *err, size_t errlen) {
    int help = argv_find(spec, "help", 4);

    if (err && errlen)
        err[0] = '\0';
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *name, *eq, *value;
        int k, rc;

        if (!strcmp(arg, "--")) {
            if (!spec->skip_unknown && !spec->positionals && i + 1 < argc) {
                argv_error_unexpected(spec, err, errlen, argv[i + 1]);
                return -1;
            }
            for (int j = i + 1; spec->positionals && j < argc; j++)
                if ((rc = visit(ctx, ARGV_POSITIONAL, argv[j])) != 0)
                    return rc;
            return 0;
        }
        if (!strcmp(arg, "-h") && help >= 0) {
            if ((rc = visit(ctx, help, "")) != 0)
                return rc;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (spec->positionals && (arg[0] != '-' || arg[1] == '\0')) {
                if ((rc = visit(ctx, ARGV_POSITIONAL, arg)) != 0)
                    return rc;
                continue;
            }
            if (spec->skip_unknown)
                continue;
            if (arg[0] == '-' && arg[1] != '\0')
                argv_error_unknown(spec, err, errlen, arg);
            else
                argv_error_unexpected(spec, err, errlen, arg);
            return -1;
        }
        name = arg + 2;
        eq = strchr(name, '=');
        k = argv_find(spec, name, eq ? (size_t)(eq - name) : strlen(name));
        if (k < 0) {
            if (spec->skip_unknown)
                continue;
            argv_error_unknown(spec, err, errlen, arg);
            return -1;
        }
        const struct argv_option *o = &spec->options[k];
        if (o->arg == ARGV_NONE) {
            if (eq) {
                argv_put(err, errlen, argv_tr(spec, ARGV_N_("--%s takes no value")), o->name);
                return -1;
            }
            value = "";
        } else if (eq) {
            value = eq + 1;
        } else if (o->arg == ARGV_OPTIONAL) {
            value = "";
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            if (o->metavar)
                argv_put(err, errlen, argv_tr(spec, ARGV_N_("--%s needs a value (%s)")), o->name,
                         o->metavar);
            else
                argv_put(err, errlen, argv_tr(spec, ARGV_N_("--%s needs a value")), o->name);
            return -1;
        }
        if ((rc = visit(ctx, k, value)) != 0)
            return rc;
    }
    return 0;
}
