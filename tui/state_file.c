/*
 * state_file.c: the Model pane's model-file prompt ("file..." first in
 * the model picker, or `O` in the Model pane: `o` is the lecture kit's
 * scenario file everywhere).
 *
 * The path is typed in the status line (edited as line_edit.h says:
 * Ctrl-U erases the line, Ctrl-W a word, the last path offered selected)
 * and completed with Tab as a shell completes it: one match completes (a
 * directory gets its '/'), several extend to their longest common prefix
 * and, when that adds nothing, are listed in the Model pane; "~/" is the
 * home directory (HOME unset: said, never guessed). Enter reads the
 * file's header (catalog_model_file_load: a GGUF file, a safetensors file,
 * an index or a Hugging Face folder) into the scenario's model; any error
 * closes the prompt and shows in the status line, and the scenario stays
 * as it was. The prompt keeps the last path for the next `O`.
 */
#include "config.h"

#include "tui/state.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tui/i18n.h"
#include "tui/line_edit.h"

/* Entries of one directory looked at while completing, at most. */
#define TUI_FILE_SCAN_MAX 20000

unsigned tui_file_open(struct tui_state *st) {
    st->overlay = TUI_OVERLAY_FILE;
    st->file.selected = st->file.text[0] != '\0';
    st->file.n_matches = 0;
    st->file.more = 0;
    st->message[0] = '\0';
    return TUI_DIRTY_REPAINT;
}

/* The first line of an error, cut to the status line's message. */
static void show_error(struct tui_state *st, const char *err) {
    size_t n = strcspn(err, "\n");
    if (n >= sizeof(st->message))
        n = sizeof(st->message) - 1;
    memcpy(st->message, err, n);
    st->message[n] = '\0';
}

/* Read the typed path into the scenario. */
static unsigned file_load(struct tui_state *st) {
    char path[TUI_PROMPT_MAX + 256], err[1536];
    struct engine_model m;
    struct catalog_model_file *mf = malloc(sizeof(*mf));
    st->overlay = TUI_OVERLAY_NONE;
    st->file.n_matches = 0;
    if (mf == NULL) {
        show_error(st, _("out of memory"));
        return TUI_DIRTY_REPAINT;
    }
    if (tui_path_expand(st->file.text, path, sizeof(path), err, sizeof(err)) != 0) {
        show_error(st, err);
        free(mf);
        return TUI_DIRTY_REPAINT;
    }
    if (catalog_model_file_load(path, &m, mf, err, sizeof(err)) != 0) {
        show_error(st, err);
        free(mf);
        return TUI_DIRTY_REPAINT;
    }
    st->file_mf = *mf;
    free(mf);
    st->opt.sc.model = m;
    st->opt.model_file = &st->file_mf;
    st->opt.model_custom = true;
    /* saved with the scenario (s, last.yaml): the file, absolute */
    char real[PATH_MAX];
    snprintf(st->opt.model_path, sizeof(st->opt.model_path), "%s",
             realpath(path, real) ? real : path);
    st->model_index = -1;
    st->size_step = tui_step_of_size(m.file_params);
    tui_state_fix_layout(st);
    tui_state_fix_focus(st);
    char mix[160];
    catalog_model_file_mix(&st->file_mf, mix, sizeof(mix));
    snprintf(st->message, sizeof(st->message), _("opened %.60s: %s"), st->file.text, mix);
    return TUI_DIRTY_RECOMPUTE | TUI_DIRTY_REPAINT;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

unsigned tui_file_complete(struct tui_state *st) {
    struct tui_file_prompt *fp = &st->file;
    char dir[TUI_PROMPT_MAX + 256], full[TUI_PROMPT_MAX + 512], common[256];
    const char *slash = strrchr(fp->text, '/');
    const char *prefix = slash ? slash + 1 : fp->text;
    size_t plen = strlen(prefix), dlen = slash ? (size_t)(slash - fp->text) + 1 : 0;
    char typed_dir[TUI_PROMPT_MAX];
    char err[256];
    snprintf(typed_dir, sizeof(typed_dir), "%.*s", (int)dlen, fp->text);
    fp->n_matches = 0;
    fp->more = 0;
    fp->selected = false; /* Tab completes the offered path */
    st->message[0] = '\0';
    if (tui_path_expand(dlen ? typed_dir : "./", dir, sizeof(dir), err, sizeof(err)) != 0) {
        show_error(st, err);
        return TUI_DIRTY_REPAINT;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(st->message, sizeof(st->message), _("no directory %.100s"),
                 dlen ? typed_dir : ".");
        return TUI_DIRTY_REPAINT;
    }
    size_t n = 0, scanned = 0;
    bool one_dir = false;
    char first[256] = "";
    struct dirent *e;
    common[0] = '\0';
    while ((e = readdir(d)) != NULL && scanned++ < TUI_FILE_SCAN_MAX) {
        const char *nm = e->d_name;
        if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0)
            continue;
        if (nm[0] == '.' && prefix[0] != '.')
            continue; /* hidden files, as a shell hides them */
        if (strncmp(nm, prefix, plen) != 0 || strlen(nm) >= sizeof(common))
            continue;
        if (n == 0) {
            snprintf(common, sizeof(common), "%s", nm);
            snprintf(first, sizeof(first), "%s", nm);
        } else {
            size_t k = 0;
            while (common[k] && common[k] == nm[k])
                k++;
            common[k] = '\0';
        }
        if (fp->n_matches < TUI_FILE_MATCHES)
            snprintf(fp->matches[fp->n_matches++], sizeof(fp->matches[0]), "%s", nm);
        else
            fp->more++;
        n++;
    }
    closedir(d);
    if (n == 0) {
        snprintf(st->message, sizeof(st->message), _("no file matches %.100s"), fp->text);
        return TUI_DIRTY_REPAINT;
    }
    qsort(fp->matches, fp->n_matches, sizeof(fp->matches[0]), cmp_name);
    if (n == 1) {
        struct stat sb;
        snprintf(full, sizeof(full), "%s%s", dir, first);
        one_dir = stat(full, &sb) == 0 && S_ISDIR(sb.st_mode);
        fp->n_matches = 0;
    }
    /* Extend the typed name to what every match shares. */
    size_t room = sizeof(fp->text) - dlen;
    if (strlen(common) + (one_dir ? 1 : 0) < room) {
        snprintf(fp->text + dlen, room, "%s%s", common, one_dir ? "/" : "");
        if (strlen(common) > plen)
            fp->n_matches = 0; /* it moved on: no list needed yet */
    }
    return TUI_DIRTY_REPAINT;
}

unsigned tui_file_key(struct tui_state *st, int key) {
    char *t = st->file.text;
    size_t n = strlen(t);
    switch (key) {
    case TUI_KEY_ESC:
        st->overlay = TUI_OVERLAY_NONE;
        st->file.n_matches = 0;
        snprintf(st->message, sizeof(st->message), _("cancelled"));
        return TUI_DIRTY_REPAINT;
    case TUI_KEY_ENTER:
        if (n == 0)
            return TUI_DIRTY_REPAINT;
        return file_load(st);
    case TUI_KEY_TAB:
        return tui_file_complete(st);
    case TUI_KEY_RESIZE:
        return TUI_DIRTY_REFLOW | TUI_DIRTY_REPAINT;
    default:
        if (tui_line_key(t, sizeof(st->file.text), &st->file.selected, key)) {
            st->file.n_matches = 0;
            st->message[0] = '\0';
        }
        return TUI_DIRTY_REPAINT;
    }
}
