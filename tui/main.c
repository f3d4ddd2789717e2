/*
 * main.c: vramlab's one entry point. With no command (or only scenario
 * options) it starts the interactive explorer; otherwise it dispatches to
 * a headless command (product.md "Headless commands"). Exit codes: 0 ok,
 * 2 usage error, 3 catalog error, 4 device error.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/argv.h"
#include "tui/commands.h"
#include "tui/i18n.h"
#include "tui/lesson.h"
#include "tui/lesson_notes.h"

/* A headless command: its name, entry point and one line of help. */
struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
};

static const struct command commands[] = {
    {"plan", cmd_plan, N_("one scenario, full breakdown (text or --json)")},
    {"search", cmd_search, N_("rank the (tp, pp, dp) layouts of --gpus N")},
    {"measure", cmd_measure, N_("predicted vs measured bandwidth and FLOP/s")},
    {"quantize", cmd_quantize, N_("quantize weights and report the error")},
    {"bench", cmd_bench, N_("benchmark a running server (--url) against the prediction")},
    {"catalog", cmd_catalog, N_("list gpus, models, formats or systems")},
    {"import", cmd_import, N_("turn a Hugging Face config.json into a catalog entry")},
    {"lesson", cmd_lesson, N_("a lesson without a terminal: show, check, export")},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void main_lesson_index(FILE *out);

/* Print the top-level usage. */
static void main_usage(FILE *f) {
    fputs(_("usage: vramlab [scenario options]         interactive explorer\n"
            "       vramlab --lesson NAME [--present]  a lesson (seed-000), for a room\n"
            "       vramlab --lesson NAME --notes      its presenter notes, following the room's step\n"
            "       vramlab --lesson                   list the lessons; --lang es|en\n"
            "       vramlab COMMAND [options]          headless command\n"
            "       vramlab --help | --version\n"
            "\n"
            "Commands:\n"),
          f);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, _(commands[i].help));
    fputs(_("\n'vramlab COMMAND --help' lists a command's options; see also vramlab(1).\n"), f);
    fputc('\n', f);
    main_lesson_index(f);
}

/* Print an unknown-command error with the closest names. */
static void main_unknown(const char *name) {
    const char *names[N_COMMANDS], *close[3];
    size_t n;

    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    n = argv_closest(name, names, N_COMMANDS, close, 3);
    fprintf(stderr, _("vramlab: unknown command '%s'"), name);
    if (n > 0) {
        fputs(_("; did you mean"), stderr);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%s %s", i ? "," : "", close[i]);
        fputc('?', stderr);
    }
    fputs(_(" (see vramlab --help)\n"), stderr);
}

/* qsort's order of two file names. */
static int main_cmp_name(const void *a, const void *b) {
    return strcmp(a, b);
}

/* Add the lesson names of one directory (NAME.yaml, NAME.LANG.yaml) to
 * names[], without repeats, sorted by name; returns the new count. */
static size_t main_lesson_names(const char *dir, char names[][64], size_t n, size_t max) {
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return n;
    while ((e = readdir(d)) && n < max) {
        char name[64];
        size_t len = strlen(e->d_name);
        char *dot;
        if (e->d_name[0] == '.' || len < 6 || len >= sizeof(name) ||
            strcmp(e->d_name + len - 5, ".yaml"))
            continue;
        memcpy(name, e->d_name, len - 5);
        name[len - 5] = '\0';
        dot = strrchr(name, '.'); /* a language: seed-000.es */
        if (dot && strlen(dot + 1) == 2)
            *dot = '\0';
        size_t k = 0;
        while (k < n && strcmp(names[k], name))
            k++;
        if (k == n)
            memcpy(names[n++], name, strlen(name) + 1);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), main_cmp_name);
    return n;
}

/* The value of a top-level "key: value" line of a lesson file (title,
 * language), unquoted, into buf; "" when the file has none. */
static void main_lesson_field(const char *path, const char *key, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    char line[512];
    size_t kl = strlen(key);
    buf[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, kl) || line[kl] != ':')
            continue;
        char *v = line + kl + 1;
        v += strspn(v, " ");
        v[strcspn(v, "\r\n")] = '\0';
        size_t n = strlen(v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        snprintf(buf, len, "%s", v);
        break;
    }
    fclose(f);
}

/* vramlab --lesson with no name: every shipped lesson, its languages and
 * titles, from the directories lesson_resolve() searches (the first that
 * has a name wins). */
static void main_lesson_index(FILE *out) {
    const char *dirs[LESSON_DIRS_MAX];
    size_t n_dirs = lesson_dirs(dirs), n = 0;
    char names[32][64], lang[16];
    for (size_t d = 0; d < n_dirs; d++)
        n = main_lesson_names(dirs[d], names, n, 32);
    i18n_language(lang, sizeof(lang));
    fprintf(out, _("Lessons (vramlab --lesson NAME; the language follows the locale, now %s):\n"),
            lang);
    for (size_t i = 0; i < n; i++) {
        char path[4096], title[256], code[16];
        bool first = true;
        for (size_t d = 0; d < n_dirs; d++) {
            DIR *dir = opendir(dirs[d]);
            struct dirent *e;
            char files[8][256];
            size_t nf = 0;
            if (!dir)
                continue;
            while ((e = readdir(dir)) && nf < 8) {
                size_t nl = strlen(names[i]), el = strlen(e->d_name);
                if (strncmp(e->d_name, names[i], nl) || el < 5 ||
                    strcmp(e->d_name + el - 5, ".yaml") || e->d_name[nl] != '.' ||
                    (el != nl + 5 && el != nl + 8) || el >= sizeof(files[0]))
                    continue;
                memcpy(files[nf++], e->d_name, el + 1);
            }
            closedir(dir);
            /* the directory's order is the file system's: list by name */
            qsort(files, nf, sizeof(files[0]), main_cmp_name);
            for (size_t f = 0; f < nf; f++) {
                snprintf(path, sizeof(path), "%s/%s", dirs[d], files[f]);
                main_lesson_field(path, "language", code, sizeof(code));
                main_lesson_field(path, "title", title, sizeof(title));
                fprintf(out, "  %-12s %-4s %s\n", first ? names[i] : "", code, title);
                first = false;
            }
            if (!first)
                break;
        }
    }
    if (n == 0)
        fputs(_("  (none found; see docs/lessons.md)\n"), out);
}

/* Whether --lesson NAME names a lesson; if not, say which ones exist. */
static bool main_lesson_ok(int argc, char **argv) {
    const char *name = NULL;
    char lang[16], path[4096], names[32][64];
    size_t n = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--lesson") && i + 1 < argc)
            name = argv[++i];
        else if (!strncmp(argv[i], "--lesson=", 9))
            name = argv[i] + 9;
    }
    if (!name)
        return true;
    i18n_language(lang, sizeof(lang));
    if (lesson_resolve(name, lang, path, sizeof(path)) == 0)
        return true;
    if (getenv("VRAMLAB_LESSONS") && *getenv("VRAMLAB_LESSONS"))
        n = main_lesson_names(getenv("VRAMLAB_LESSONS"), names, n, 32);
#ifdef VRAMLAB_PKGDATADIR
    n = main_lesson_names(VRAMLAB_PKGDATADIR "/lessons", names, n, 32);
#endif
#ifdef VRAMLAB_ABS_SRCDIR
    n = main_lesson_names(VRAMLAB_ABS_SRCDIR "/share/lessons", names, n, 32);
#endif
    fprintf(stderr, _("vramlab: --lesson: no lesson file or name '%s'"), name);
    if (n > 0) {
        fputs(_("; lessons:"), stderr);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%s %s", i ? "," : "", names[i]);
    }
    fputs(_(" (or a lesson file's path; see docs/lessons.md)\n"), stderr);
    return false;
}

/* The options of vramlab --lesson NAME --notes (the one scanner). */
enum { MN_LESSON, MN_NOTES, MN_UNITS, MN_CATALOG, MN_COUNT };
static const struct argv_option notes_options[MN_COUNT] = {
    [MN_LESSON] = {"lesson", ARGV_REQUIRED, "NAME"},
    [MN_NOTES] = {"notes", ARGV_NONE, NULL},
    [MN_UNITS] = {"units", ARGV_REQUIRED, "gb|gib"},
    [MN_CATALOG] = {"catalog", ARGV_REQUIRED, "FILE"},
};
struct notes_args {
    const char *lesson, *catalog, *bad_units;
    enum units units;
};

/* Record one option of --notes. */
static int notes_visit(void *ctx, int i, const char *v) {
    struct notes_args *a = ctx;
    if (i == MN_LESSON)
        a->lesson = v;
    else if (i == MN_CATALOG)
        a->catalog = v;
    else if (i == MN_UNITS && (!strcmp(v, "gb") || !strcmp(v, "gib")))
        a->units = !strcmp(v, "gib") ? UNITS_GIB : UNITS_GB;
    else if (i == MN_UNITS)
        return a->bad_units = v, 2;
    return 0;
}

/* vramlab --lesson NAME --notes [--units gb|gib] [--catalog FILE]: the
 * presenter's view (lesson_notes.c) instead of the explorer. */
static int main_notes(int argc, char **argv) {
    struct argv_spec spec = {notes_options, MN_COUNT, false, false, options_tr};
    struct notes_args a = {NULL, NULL, NULL, UNITS_GB};
    struct catalog cat;
    char err[512];
    int rc = argv_scan(&spec, argc, argv, notes_visit, &a, err, sizeof(err));
    if (rc == 2)
        argv_error_value(&spec, err, sizeof(err), "units", "gb or gib", a.bad_units);
    if (rc != 0) {
        fprintf(stderr, "vramlab: %s\n", err);
        return VRAMLAB_EXIT_USAGE;
    }
    if (!a.lesson) {
        fputs(_("vramlab: --notes goes with --lesson NAME (the lesson the room sees)\n"), stderr);
        return VRAMLAB_EXIT_USAGE;
    }
    rc = options_load_catalog(a.catalog, &cat);
    if (rc == 0)
        rc = lesson_notes_main(a.lesson, &cat, a.units);
    catalog_free(&cat);
    return rc;
}

/* Run the explorer or a command; 0 for help and version. */
static int main_dispatch(int argc, char **argv) {
    const char *cmd = argc > 1 ? argv[1] : NULL;

    if (!cmd || cmd[0] == '-') {
        if (cmd && (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))) {
            main_usage(stdout);
            return 0;
        }
        if (cmd && !strcmp(cmd, "--version")) {
            printf("vramlab %s\n", PACKAGE_VERSION);
            return 0;
        }
        /* --lesson with no name (last, or before another option): the index. */
        for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
            if (!strcmp(argv[i], "--lesson") && (i + 1 == argc || !strncmp(argv[i + 1], "--", 2))) {
                main_lesson_index(stdout);
                return 0;
            }
        }
        if (!main_lesson_ok(argc, argv))
            return VRAMLAB_EXIT_USAGE;
        for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
            if (!strcmp(argv[i], "--notes"))
                return main_notes(argc, argv);
        return tui_main(argc, argv);
    }
    if (!strcmp(cmd, "help")) {
        main_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    }
    main_unknown(cmd);
    return VRAMLAB_EXIT_USAGE;
}

/* Dispatch, then make sure what was printed reached stdout: a full disk or
 * a closed pipe is a failure, not a silent success. */
int main(int argc, char **argv) {
    /* --lang es|en (explorer and lessons): the language of the messages and
     * of the lesson a name picks, whatever the locale says. Taken out of
     * argv before the options are read. */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        const char *v = NULL;
        int take = 0;
        if (!strcmp(argv[i], "--lang") && i + 1 < argc)
            v = argv[i + 1], take = 2;
        else if (!strncmp(argv[i], "--lang=", 7))
            v = argv[i] + 7, take = 1;
        else if (!strcmp(argv[i], "--lang"))
            v = "", take = 1;
        if (!take)
            continue;
        if (strcmp(v, "es") && strcmp(v, "en")) {
            fprintf(stderr, "vramlab: --lang: expected es or en, found '%s'\n", v);
            return VRAMLAB_EXIT_USAGE;
        }
        setenv("VRAMLAB_LANG", v, 1);
        setenv("LANGUAGE", v, 1);
        for (int j = i; j + take <= argc; j++)
            argv[j] = argv[j + take];
        argc -= take;
        i--;
    }
    i18n_init(argc > 0 ? argv[0] : "vramlab");
    int rc = main_dispatch(argc, argv);

    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc == 0)
            perror("vramlab: stdout");
        if (rc == 0)
            rc = 1;
    }
    return rc;
}
