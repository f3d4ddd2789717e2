/*
 * line_edit.h: the explorer's one-line prompts' editing and their paths
 * (issue 27 item 3), shared by the save/open prompt of s and o
 * (lecture_ui.c) and the Model pane's model-file prompt of O
 * (state_file.c). No curses: keys arrive as TUI_KEY_* codes.
 *
 * The text is edited at its end, as a shell's line is: Backspace removes a
 * character (a whole UTF-8 one), Ctrl-U erases the line, Ctrl-W erases the
 * last word (back to a '/' or a space, as a shell's filename rubout does).
 * A prompt opens with its offered name selected: the first character typed
 * replaces it, and Backspace erases it; an arrow, Home or End keeps it
 * (the selection goes and typing appends).
 */
#ifndef VRAMLAB_TUI_LINE_EDIT_H
#define VRAMLAB_TUI_LINE_EDIT_H

#include <stdbool.h>
#include <stddef.h>

/* Control keys the editor takes (what the terminal sends). */
enum { TUI_LINE_CTRL_U = 21, TUI_LINE_CTRL_W = 23 };

/* Edit text (a string in a buffer of size bytes) by one key; *selected
 * says whether the whole text is selected and is updated. Returns true
 * when the key was an editing key (the text or its selection may have
 * changed: repaint), false when it is not one (Enter, Esc, Tab and the
 * like are the prompt's own). */
bool tui_line_key(char *text, size_t size, bool *selected, int key);

/* Erase the last word: trailing '/' and spaces, then back to the one
 * before (see the header's comment). */
void tui_line_erase_word(char *text);

/* The path a prompt's text names: a leading "~" or "~/" is $HOME. With
 * HOME unset or empty that is an error saying so (vramlab never guesses
 * a home from the password database), as is "~name" (another user's
 * home: type the whole path). Returns 0 with out filled, or -1 with a
 * translated one-line message in err. */
int tui_path_expand(const char *in, char *out, size_t len, char *err, size_t errlen);

#endif
