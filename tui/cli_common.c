/*
 * cli_common.c: the run protocol every headless command follows: load the
 * catalog (exit 3 on a bad --catalog FILE), parse the options (exit 2 on a
 * usage error), write the whole output into memory, and copy it to stdout
 * only once it is complete, so a failure never leaves half an answer.
 */
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"
#include "tui/i18n.h"
#include "tui/report.h"

/* Whether --help or -h appears before "--". */
bool cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return false;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    }
    return false;
}

/* Load the catalog and open the output buffer. */
int cli_begin_catalog(struct cli_run *run, const char *file) {
    int rc;

    memset(run, 0, sizeof(*run));
    rc = options_load_catalog(file, &run->cat);
    if (rc != 0) {
        catalog_free(&run->cat);
        return rc;
    }
    run->out = open_memstream(&run->buf, &run->len);
    if (!run->out) {
        perror("vramlab: open_memstream");
        catalog_free(&run->cat);
        return 1;
    }
    return 0;
}

/* Scan the command line once, load the catalog, build the scenario, open
 * the output buffer. */
int cli_begin(struct cli_run *run, int argc, char **argv) {
    struct options o;
    int rc = options_scan(argc, argv, false, &o);

    if (rc != 0)
        return rc;
    rc = cli_begin_catalog(run, o.catalog_file);
    if (rc != 0)
        return rc;
    run->o = o;
    rc = options_build(&run->cat, &run->o);
    if (rc == 0 && !run->o.help)
        rc = options_apply_scenario_file(&run->o, &run->cat);
    if (rc != 0) {
        cli_end(run);
        return rc;
    }
    /* Notes about options given but without effect in this scenario. */
    run->notes.n = options_ignored_notes(&run->o, run->notes.text, CLI_MAX_NOTES);
    /* A scenario file's model file gone: the saved shape, said so. */
    if (run->o.note[0] && run->notes.n < CLI_MAX_NOTES)
        run->notes.text[run->notes.n++] = run->o.note;
    return 0;
}

/* Free the run without printing anything. */
void cli_end(struct cli_run *run) {
    if (run->out)
        fclose(run->out);
    free(run->buf);
    catalog_free(&run->cat);
    memset(run, 0, sizeof(*run));
}

/* Copy the finished output to stdout; a write error is exit 1. */
int cli_finish(struct cli_run *run) {
    int rc = 0;

    if (fclose(run->out) != 0) {
        run->out = NULL;
        perror("vramlab: output");
        cli_end(run);
        return 1;
    }
    run->out = NULL;
    if (run->len > 0 && fwrite(run->buf, 1, run->len, stdout) != run->len)
        rc = 1;
    if (fflush(stdout) != 0)
        rc = 1;
    if (rc)
        perror("vramlab: stdout");
    cli_end(run);
    return rc;
}

/* Print every invalid-scenario reason the engine found. */
void cli_report_invalid(const struct engine_scenario *sc, uint32_t invalid) {
    for (int b = 0; b < 32; b++) {
        char text[320];
        if (!(invalid & (1u << b)))
            continue;
        engine_invalid_text(i18n_numfmt(false), sc, 1u << b, text, sizeof(text));
        fprintf(stderr, _("vramlab: invalid scenario: %s\n"), text);
    }
}

/* One aligned line of the text table. */
void plan_line(FILE *f, const char *label, const char *value, const char *note) {
    /* Pad by display cells, not bytes: a translated label may hold "ñ",
     * a value a no-break space (printf's width counts bytes). */
    int pad = 26 + (int)strlen(label) - i18n_width(label);
    int vpad = report_pad(value, 16); /* a no-break space is 2 bytes, 1 cell */
    if (note && *note)
        fprintf(f, "  %-*s %*s   %s\n", pad, label, vpad, value, note);
    else
        fprintf(f, "  %-*s %*s\n", pad, label, vpad, value);
}
