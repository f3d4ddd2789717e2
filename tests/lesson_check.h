/*
 * lesson_check.h: checks every shipped lesson's test shares (Criterion):
 * load a lesson file, check that every step is a valid scenario with a
 * title and a caption, and that a lesson's two languages walk the same
 * scenarios, panes, explain keys and questions in other words.
 */
#ifndef VRAMLAB_TESTS_LESSON_CHECK_H
#define VRAMLAB_TESTS_LESSON_CHECK_H

#include <stddef.h>

#include "tui/lesson.h"

#define LESSONS TOP_SRCDIR "/share/lessons/"

/* The embedded catalog, for a TestSuite's .init/.fini:
 *     TestSuite(seed_002, .init = lesson_check_setup, .fini = lesson_check_teardown); */
extern struct catalog lesson_check_cat;
void lesson_check_setup(void);
void lesson_check_teardown(void);

/* The first step titled title; fails the test when there is none. */
const struct lesson_step *lesson_check_step_titled(const struct lesson *l, const char *title);

/* Load a lesson file with cat; asserts success. */
void lesson_check_load(const struct catalog *cat, const char *file, struct lesson *l);

/* Every step: a valid estimate, a title, a caption longer than 40 bytes, an
 * explain key that applies; question steps hide at least one pane. Returns
 * the number of question steps. */
size_t lesson_check_steps(const char *file, const struct lesson *l);

/* en and es (loaded from the two files) are the same lesson in two
 * languages: same steps, estimates, panes, keys, hidden panes; different
 * words. Also checks each file with lesson_check_steps() and that it has
 * at least min_questions question steps. */
void lesson_check_pair(const struct catalog *cat, const char *en_file, const char *es_file,
                       size_t min_questions);

/* Every caption, question and presenter note of l cites its figures (no
 * literal figure outside «quotes»: lesson_text_literal), and every step has
 * presenter notes. */
void lesson_check_cited(const char *file, const struct lesson *l);

/* Step i's caption or question (what the screen shows) cites each of the
 * space-separated figure paths or scenario inputs in paths
 * ("memory.kv_cache scenario.context"): the figures its claim rests on. */
void lesson_check_cites(const char *file, const struct lesson *l, size_t i, const char *paths);

#endif
