/*
 * scenario_file.h: scenarios saved to and loaded from YAML files.
 *
 * A scenario file is one YAML mapping whose keys are the scenario option
 * names without the dashes (product.md "Scenario options"; the full list is
 * `vramlab plan --help`), each with a scalar value written as on the
 * command line:
 *
 *     model: llama-3.1-70b
 *     format: int4-g32
 *     gpu: h100-sxm
 *     gpus: 2
 *     tp: 2
 *     mode: infer
 *     batch: 8
 *     context: 8192
 *
 * Loading turns the mapping into an argv ("--model=llama-3.1-70b" ...) and
 * runs options_parse(), so a file is validated exactly like the command
 * line; the first error is reported as "file:line:col: key: message" with
 * the line quoted, pointing at the key the message is about. Flags without
 * a value (sequence-parallel) take true or false. Front-end options (json,
 * theme, catalog, ...) are refused: a file holds a scenario, not a session.
 *
 * Saving writes every field needed to reproduce the scenario: catalog ids
 * where the model or GPU is a catalog entry, the architecture or the GPU
 * figures otherwise, and every workload field even at its default, so a file
 * is self-describing. Files are written by save_file() (tui/save_file.h):
 * a temporary file in the target's directory, fsync, then rename over a
 * regular file only (link when overwriting is not allowed, so that even a
 * racing writer is never clobbered); a symbolic link's target is written
 * and the link kept; a FIFO, device or directory is refused and left as it
 * is. A failed save leaves the old file as it was.
 *
 * Not saved: the measure pane's calibration (it belongs to the machine, not
 * to the scenario), and model features that have no scenario option
 * (latent attention, sliding windows, expert FFN sizes of a model imported
 * from a config.json); the file says so in a comment when that happens.
 *
 * The screen's part: `s` calls scenario_file_save(path, &opt, cat, false,
 * ...) and, on SCENARIO_FILE_EXISTS, asks, then calls it again with
 * overwrite = true; `o` and --scenario FILE call scenario_file_load() and,
 * on success, scenario_file_apply(); on failure they show err and keep the
 * scenario they had. At start, unless --fresh: scenario_file_state_path(
 * path, len, false, ...) then scenario_file_load(), silently ignoring
 * SCENARIO_FILE_MISSING; on quit: scenario_file_state_path(..., true, ...)
 * then scenario_file_save(..., true, ...).
 *
 * Safe after setlocale(LC_ALL, ""): numbers are read and written in the C
 * numeric locale ("0.4" stays "0.4" under es_ES), and nothing is printed.
 *
 * Format documented in docs/lessons.md.
 */
#ifndef VRAMLAB_SCENARIO_FILE_H
#define VRAMLAB_SCENARIO_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/commands.h"

/* Results of the functions below (0 is success). */
enum {
    SCENARIO_FILE_OK = 0,
    SCENARIO_FILE_ERROR = -1,   /* message in err */
    SCENARIO_FILE_EXISTS = -2,  /* save: the file exists and overwrite was false */
    SCENARIO_FILE_MISSING = -3, /* load: no such file (for "restore the last one") */
};

/* A buffer size that holds any one message with its quoted line. */
#define SCENARIO_FILE_ERR_MAX 1024

/*
 * Load the scenario file at path into *o, resolving ids in cat. On failure
 * *o is left untouched, err holds "path:line:col: key: message" and the
 * quoted line, and SCENARIO_FILE_ERROR (or SCENARIO_FILE_MISSING when the
 * file does not exist) is returned. Writes nothing to stdout or stderr, so
 * it is safe while curses owns the terminal.
 */
int scenario_file_load(const char *path, const struct catalog *cat, struct options *o, char *err,
                       size_t errlen);

/* The same from YAML text in memory; name is used in messages. */
int scenario_file_load_buffer(const char *name, const char *text, size_t len,
                              const struct catalog *cat, struct options *o, char *err,
                              size_t errlen);

/*
 * Write o as scenario YAML into a new NUL-terminated string (the caller
 * frees it); NULL when out of memory. cat tells catalog entries from custom
 * ones; header, when not NULL, becomes a leading "# ..." comment line.
 */
char *scenario_file_format(const struct options *o, const struct catalog *cat, const char *header);

/*
 * Save o to path atomically. Without overwrite an existing file is never
 * replaced: SCENARIO_FILE_EXISTS is returned (the screen asks, then calls
 * again with overwrite = true). Returns SCENARIO_FILE_OK, or
 * SCENARIO_FILE_ERROR with "path: cannot save: reason" in err; the old file,
 * if any, is then intact and no temporary file is left behind.
 */
int scenario_file_save(const char *path, const struct options *o, const struct catalog *cat,
                       bool overwrite, char *err, size_t errlen);

/*
 * Put a loaded scenario into the running session's options: the scenario
 * (o->sc), the units and the custom flags are copied; what belongs to the
 * session (json, theme, colours, mouse, ASCII, --catalog) is kept.
 */
void scenario_file_apply(struct options *session, const struct options *loaded);

/*
 * The file the explorer restores at start (unless --fresh) and saves on
 * quit: $XDG_STATE_HOME/vramlab/last.yaml, or ~/.local/state/vramlab/
 * last.yaml when XDG_STATE_HOME is unset or not absolute
 * (save_file_state_dir: the variable's directory must exist; HOME unset or
 * naming nothing means no state). With create_dir the directories below it
 * are made (mode 0700). Returns 0, or -1 with a message.
 */
int scenario_file_state_path(char *buf, size_t len, bool create_dir, char *err, size_t errlen);

/* ---- shared with lesson.c ------------------------------------------------ */

struct yaml_document_s;
struct yaml_node_s;

/* The text a document was parsed from, to quote lines in messages. */
struct scenario_source {
    const char *name; /* file name as the user gave it */
    const char *text;
    size_t len;
};

/*
 * Turn a mapping node of a loaded document into options (see above).
 * Returns 0, or -1 with one "name:line:col: key: message" (and the quoted
 * line) appended to err. *o is written only on success.
 */
int scenario_file_from_node(struct yaml_document_s *doc, struct yaml_node_s *map,
                            const struct scenario_source *src, const struct catalog *cat,
                            struct options *o, char *err, size_t errlen);

/*
 * Append "name:line:col: key: message\n" and the quoted source line with
 * a caret under col to err (line and col 1-based; key may be NULL). The
 * format of the catalog's messages (docs/catalog.md).
 */
void scenario_file_error(char *err, size_t errlen, const struct scenario_source *src, size_t line,
                         size_t col, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/*
 * Read a scenario or lesson file of at most max bytes: a regular file,
 * checked before it is opened and opened without blocking (a FIFO or a
 * device is refused at once, named as such). Returns the text (the caller
 * frees it) and its length, or NULL with "path: cannot read: why\n" in
 * err; *missing (may be NULL) says the file does not exist.
 */
char *scenario_file_read(const char *path, size_t max, size_t *len, char *err, size_t errlen,
                         bool *missing);
/* 0 when the source nests lists and mappings at most CATALOG_MAX_DEPTH
 * deep, else -1 with "name:line:col: ..." in err (checked in time linear in
 * the text, before libyaml builds the document). */
int scenario_file_check_depth(const struct scenario_source *src, char *err, size_t errlen);

#endif
