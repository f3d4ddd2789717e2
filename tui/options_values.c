/*
 * options_values.c: the value readers of the parameter table
 * (engine/param_table.h). Each value is read by its row's type and range,
 * and a bad one gets the one wording of kernels/argv.h: "--NAME: expected
 * WHAT, found 'TEXT'", WHAT said by the type (a whole number from 1 to
 * 16777216, one of the enumeration's names, the catalog's units). Below
 * tui/options.c, options_build.c and options_serving.c, which use them.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/argv.h"
#include "tui/commands.h"
#include "tui/i18n.h"
#include "tui/options_internal.h"

/* The name (without dashes) of a parameter. */
const char *opt_name(enum param_id id) {
    const struct param_info *p = param_info(id);
    return p ? p->name : "?";
}

/* Print "vramlab: " and a formatted message to stderr. */
void opt_error(const char *fmt, ...) {
    va_list ap;
    fputs("vramlab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, _(fmt), ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* gettext for the scanner's messages. */
static const char *opt_tr(const char *msgid) {
    return _(msgid);
}

/* Print the one wording of a bad value (see options_internal.h). */
void opt_expected_of(const char *flag, const char *expected, const char *found) {
    struct argv_spec spec = {.tr = opt_tr};
    char msg[512];
    argv_error_value(&spec, msg, sizeof(msg), flag, expected, found);
    fprintf(stderr, "vramlab: %s\n", msg);
}

/* The catalog id a Hugging Face model name would have: the part after the
 * last '/', lower-cased, other characters than [a-z0-9.] turned into '-'. */
void options_model_id_of(const char *name, char *out, size_t len) {
    const char *slash = strrchr(name, '/');
    size_t n = 0;
    bool dash = false;

    if (slash && slash[1])
        name = slash + 1;
    for (; *name && n + 2 < len; name++) {
        char ch = *name;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.') {
            if (dash && n > 0)
                out[n++] = '-';
            out[n++] = ch;
            dash = false;
        } else {
            dash = true;
        }
    }
    out[n] = '\0';
}

/* A whole number, or with tokens a k (x1024) or M (x1024^2) suffix as
 * model cards mean it ("128K context" is 131,072 tokens); -1 when s is
 * none, else 0 with the value (not range-checked) in *v. */
static int opt_scan_whole(const char *s, bool tokens, double *v) {
    char *end;
    double scale = 1;

    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    if (!tokens) {
        if (strspn(s, "0123456789") != strlen(s) || strlen(s) > 15)
            return -1;
        *v = strtod(s, NULL);
        return 0;
    }
    *v = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        scale = 1024;
    else if (*end == 'm' || *end == 'M')
        scale = 1024.0 * 1024.0;
    if (scale > 1)
        end++;
    else if (strpbrk(s, ".eExX"))
        return -1; /* a bare count is a whole number */
    *v *= scale;
    return *end || *v != floor(*v) ? -1 : 0;
}

/* What a whole number of the row must be, into buf. */
static void opt_whole_expected(const struct param_info *p, char *buf, size_t len) {
    if (p->type == PARAM_T_TOKENS)
        snprintf(buf, len,
                 _("a whole number of tokens from %.0f to %.0f like 4096, 8k or 128K (k = 1024, "
                   "M = 1024k)"),
                 p->min, p->max);
    else
        snprintf(buf, len, _("a whole number from %.0f to %.0f"), p->min, p->max);
}

/* A whole number in the row's range (see options_internal.h). */
int opt_uint(enum param_id id, const char *s, uint32_t *out) {
    const struct param_info *p = param_info(id);
    char what[160];
    double v;

    if (opt_scan_whole(s, p->type == PARAM_T_TOKENS, &v) == 0 && v >= p->min && v <= p->max) {
        *out = (uint32_t)v;
        return 0;
    }
    opt_whole_expected(p, what, sizeof(what));
    opt_expected_of(p->name, what, s);
    return -1;
}

/* A token count of another option's text (--global-batch N-tokens). */
int opt_token_count(const char *flag, const char *s, uint32_t *out) {
    const struct param_info *p = param_info(PARAM_CONTEXT);
    char what[160];
    double v;

    if (opt_scan_whole(s, true, &v) == 0 && v >= 1 && v <= p->max) {
        *out = (uint32_t)v;
        return 0;
    }
    opt_whole_expected(p, what, sizeof(what));
    opt_expected_of(flag, what, s);
    return -1;
}

/* The row's names as "a, b or c" into buf. */
static void opt_names(const struct param_info *p, char *buf, size_t len) {
    size_t used = 0, n = 0;
    while (param_value_name(p, (unsigned)n))
        n++;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? _(" or ")
                                      : ", ",
                         param_value_name(p, (unsigned)i));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* An ENUM or SWITCH value's index. */
int opt_enum(enum param_id id, const char *s, int *out) {
    const struct param_info *p = param_info(id);
    char what[256];

    if (p->value_optional && s && !*s && p->type == PARAM_T_SWITCH) {
        *out = 0; /* --tied alone: yes */
        return 0;
    }
    if (param_value_parse(p, s, out) == 0)
        return 0;
    opt_names(p, what, sizeof(what));
    opt_expected_of(p->name, what, s);
    return -1;
}

/* The same for other front ends (see commands.h). */
int options_enum(enum param_id id, const char *s, int *out) {
    return opt_enum(id, s, out);
}

/* A whole number of an INT or TOKENS row (see commands.h). */
int options_uint(enum param_id id, const char *s, uint32_t *out) {
    return opt_uint(id, s, out);
}

/* A fraction in (min, max], written 0.4 or 40%. */
static int opt_ratio(const struct param_info *p, const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);

    if (end != s && *end == '%' && end[1] == '\0') {
        v /= 100;
        end++;
    }
    if (end == s || *end || !(v > p->min && v <= p->max)) {
        opt_expected_of(p->name, _("a fraction in (0, 1] like 0.4 or 40%"), s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Apply one of catalog.h's strict unit parsers, naming the flag on error
 * (their messages are "expected ..., found '...'" already). */
int opt_unit(const char *flag, const char *s,
             int (*parse)(const char *, double *, char *, size_t), double *out) {
    char err[160];

    if (parse(s, out, err, sizeof(err)) != 0) {
        opt_error("--%s: %s", flag, err);
        return -1;
    }
    return 0;
}

/* A RATIO, NUMBER, AMOUNT or quantity with a unit (see options_internal.h). */
int opt_number(enum param_id id, const char *s, double *out) {
    const struct param_info *p = param_info(id);
    int (*parse)(const char *, double *, char *, size_t) = NULL;

    switch (p->type) {
    case PARAM_T_RATIO:
        return opt_ratio(p, s, out);
    case PARAM_T_NUMBER: {
        char *end, what[96];
        double v = strtod(s, &end);
        if (end != s && !*end && v >= p->min && v <= p->max) {
            *out = v;
            return 0;
        }
        snprintf(what, sizeof(what), _("a number from %g to %g"), p->min, p->max);
        opt_expected_of(p->name, what, s);
        return -1;
    }
    case PARAM_T_INT:
    case PARAM_T_TOKENS: {
        uint32_t v;
        if (opt_uint(id, s, &v) != 0)
            return -1;
        *out = v;
        return 0;
    }
    case PARAM_T_AMOUNT:
        parse = catalog_parse_count;
        break;
    case PARAM_T_BYTES:
        parse = catalog_parse_bytes;
        break;
    case PARAM_T_BANDWIDTH:
        parse = catalog_parse_bandwidth;
        break;
    case PARAM_T_FLOPS:
        parse = catalog_parse_flops;
        break;
    case PARAM_T_SECONDS:
        parse = catalog_parse_seconds;
        break;
    case PARAM_T_PRICE:
        parse = catalog_parse_price;
        break;
    default:
        opt_error("--%s: not a number", p->name);
        return -1;
    }
    return opt_unit(p->name, s, parse, out);
}

/* Whether the generic reader takes a row: stored in the scenario, and
 * read in no particular order (the mode, the layout, the architecture and
 * the custom GPU are resolved in order by options.c and options_build.c;
 * the MFU takes "predict"). */
static bool opt_generic(const struct param_info *p) {
    if (p->store == PARAM_S_NONE || (p->flags & (PARAM_F_ARCH | PARAM_F_CUSTOM_GPU)))
        return false;
    switch (p->id) {
    case PARAM_MODE:
    case PARAM_GPUS:
    case PARAM_TP:
    case PARAM_PP:
    case PARAM_DP:
    case PARAM_GPUS_PER_NODE:
    case PARAM_CP:
    case PARAM_MFU:
        return false;
    default:
        return true;
    }
}

/* Every given generic row, read by type into sc. */
int opt_read_stored(const struct options_given *s, struct engine_scenario *sc) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        double v;
        int k;
        if (!s->set[i] || !opt_generic(p))
            continue;
        if (p->type == PARAM_T_FLAG) {
            v = 1;
        } else if (p->type == PARAM_T_ENUM || p->type == PARAM_T_SWITCH) {
            if (opt_enum(p->id, s->val[i], &k) != 0)
                return -1;
            v = p->type == PARAM_T_SWITCH ? k == 0 : k;
        } else if (opt_number(p->id, s->val[i], &v) != 0) {
            return -1;
        }
        param_set(sc, p->id, v);
    }
    return 0;
}
