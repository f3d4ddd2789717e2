/*
 * lesson_notes.h: vramlab --lesson NAME --notes, the presenter notes of the
 * step the presenter shows, followed from a second terminal (lesson_notes.c).
 */
#ifndef VRAMLAB_LESSON_NOTES_H
#define VRAMLAB_LESSON_NOTES_H

#include "tui/commands.h"

/* Show the notes of the lesson name (a path or a name in the reader's
 * language), following the presenter's step, until q and Enter or a
 * signal. Returns the exit status (2 when the lesson does not load, 1 when
 * there is no state directory to follow). */
int lesson_notes_main(const char *name, const struct catalog *cat, enum units units);

#endif
