/*
 * line_edit.c: the prompts' one-line editing and path expansion (see
 * line_edit.h).
 */
#include "config.h"

#include "tui/line_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/state.h"

void tui_line_erase_word(char *text) {
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '/' || text[n - 1] == ' '))
        n--;
    while (n > 0 && text[n - 1] != '/' && text[n - 1] != ' ')
        n--;
    text[n] = '\0';
}

bool tui_line_key(char *text, size_t size, bool *selected, int key) {
    size_t n = strlen(text);
    switch (key) {
    case TUI_KEY_LEFT:
    case TUI_KEY_RIGHT:
    case TUI_KEY_UP:
    case TUI_KEY_DOWN:
    case TUI_KEY_HOME:
    case TUI_KEY_END:
        /* Keep the offered text: typing appends from now on. */
        *selected = false;
        return true;
    case TUI_LINE_CTRL_U:
        text[0] = '\0';
        *selected = false;
        return true;
    case TUI_LINE_CTRL_W:
        tui_line_erase_word(text);
        *selected = false;
        return true;
    case TUI_KEY_BACKSPACE:
    case 8:
        if (*selected) {
            text[0] = '\0';
            *selected = false;
            return true;
        }
        /* Remove one whole UTF-8 character. */
        while (n > 0 && ((unsigned char)text[n - 1] & 0xc0) == 0x80)
            text[--n] = '\0';
        if (n > 0)
            text[--n] = '\0';
        return true;
    default:
        if (key < 32 || key >= 256 || key == 127)
            return false;
        if (*selected) {
            text[0] = '\0';
            n = 0;
            *selected = false;
        }
        if (n + 1 < size) {
            text[n] = (char)key;
            text[n + 1] = '\0';
        }
        return true;
    }
}

int tui_path_expand(const char *in, char *out, size_t len, char *err, size_t errlen) {
    if (in[0] != '~') {
        if ((size_t)snprintf(out, len, "%s", in) >= len) {
            snprintf(err, errlen, _("%.60s...: the path is too long"), in);
            return -1;
        }
        return 0;
    }
    if (in[1] != '/' && in[1] != '\0') {
        size_t k = strcspn(in, "/");
        snprintf(err, errlen,
                 _("%.*s: only ~ alone (your home directory) is expanded; type the whole path"),
                 (int)(k > 60 ? 60 : k), in);
        return -1;
    }
    const char *home = getenv("HOME");
    if (home == NULL || home[0] == '\0') {
        snprintf(err, errlen, "%s", _("~ is the home directory, but HOME is not set: type the whole path"));
        return -1;
    }
    if ((size_t)snprintf(out, len, "%s%s", home, in + 1) >= len) {
        snprintf(err, errlen, _("%.60s...: the path is too long"), in);
        return -1;
    }
    return 0;
}
