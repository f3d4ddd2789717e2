/*
 * lesson_export.h: a lesson for a page or for slides (issue 24 item 5):
 * `vramlab lesson export NAME --format md|html|svg -o DIR`.
 *
 * Into DIR, for each step N (01, 02, ...):
 *  - stepNN.yaml: the step's scenario, loadable with `vramlab plan
 *    --scenario stepNN.yaml` (the scenario writer's text, every field);
 *  - stepNN.svg: the screen as the explorer shows the step at 100x30
 *    (tui/screen.h), and for a question step stepNN-answer.svg once it is
 *    answered;
 *  - figures.tsv: each figure a step's texts cite, "N<TAB>key<TAB>value"
 *    as the screen writes it (a reader can find it in plan's output for
 *    stepNN.yaml: tests/test_lesson_export.sh checks);
 *  - md: lesson.md, html: index.html, a page with every step's title,
 *    picture, question, caption, notes and scenario file.
 * The captions are rendered in the reader's language (the lesson file's)
 * and units. DIR is made when missing; an existing DIR must be empty or
 * an earlier export (it holds .vramlab-export), so nothing else is ever
 * overwritten.
 */
#ifndef VRAMLAB_LESSON_EXPORT_H
#define VRAMLAB_LESSON_EXPORT_H

#include <stddef.h>

#include "tui/commands.h"

/* Export the lesson name (a path or a name, in the reader's language) in
 * format "md", "html" or "svg" into dir. Returns 0, or -1 with a message in
 * err. Prints nothing. */
int lesson_export(const char *name, const struct catalog *cat, const char *format,
                  const char *dir, enum units units, char *err, size_t errlen);

#endif
