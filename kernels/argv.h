/*
 * argv.h: the one command-line scanner of vramlab (every command and the
 * explorer) and of vramlab-probe, and the one wording of its errors:
 *
 *     unknown option '--bogus' (see --help)
 *     unknown option '--modle'; did you mean --model?
 *     --model needs a value (ID)
 *     --json takes no value
 *     unexpected argument 'llama' (see --help)
 *     --gpus: expected a whole number from 1 to 16777216, found 'eight'
 *
 * Options are GNU style: `--name value` or `--name=value`, in any order;
 * "-h" is --help when the table has one; "--" ends the options. The caller
 * prefixes the program's name ("vramlab: ") or, in the probe, puts the
 * message into an error event.
 *
 * A leaf: it includes nothing of ours, so every module may use it
 * (kernels/ too, which may include nothing else of ours; see
 * docs/architecture.md). Messages are English msgids marked ARGV_N_ for
 * xgettext; a caller that translates passes its gettext in spec->tr.
 */
#ifndef VRAMLAB_ARGV_H
#define VRAMLAB_ARGV_H

#include <stdbool.h>
#include <stddef.h>

/* Marks a translatable message for xgettext (po/Makevars). */
#define ARGV_N_(s) s

enum argv_arg { ARGV_NONE = 0, ARGV_REQUIRED, ARGV_OPTIONAL };

struct argv_option {
    const char *name;    /* without the dashes */
    enum argv_arg arg;
    const char *metavar; /* for "needs a value (N)"; may be NULL */
};

/* What a scan accepts. */
struct argv_spec {
    const struct argv_option *options;
    size_t n_options;
    bool positionals;  /* words that are no option are passed on as ARGV_POSITIONAL */
    bool skip_unknown; /* unknown options and stray words are skipped, not errors */
    const char *(*tr)(const char *msgid); /* translates the messages; NULL: English */
};

/* The index a visit gets for a word that is no option. */
#define ARGV_POSITIONAL (-1)

/* Called for each option (its index in spec->options) or positional word,
 * in order, with its value ("" for none, and for an optional value not
 * given). Returns 0 to go on; anything else stops the scan with it. */
typedef int (*argv_visit)(void *ctx, int index, const char *value);

/* Scan argv[1..argc): returns 0, what a visit returned, or -1 with the
 * message in err (without the program's name). */
int argv_scan(const struct argv_spec *spec, int argc, char **argv, argv_visit visit, void *ctx,
              char *err, size_t errlen);

/* The one wording of a bad or out-of-range value, into err:
 * "--NAME: expected WHAT, found 'TEXT'" (WHAT as the caller words it). */
void argv_error_value(const struct argv_spec *spec, char *err, size_t errlen, const char *name,
                      const char *expected, const char *found);
/* "unexpected argument 'WORD' (see --help)". */
void argv_error_unexpected(const struct argv_spec *spec, char *err, size_t errlen,
                           const char *word);

/* Up to n of the n_names names closest to word (edit distance below about
 * a third of its length, or a prefix), closest first; returns how many. */
size_t argv_closest(const char *word, const char *const *names, size_t n_names, const char **out,
                    size_t n);

#endif
