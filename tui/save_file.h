/*
 * save_file.h: the one way vramlab writes a file the user named or a state
 * file (scenario files, last.yaml, the Measure pane's results), so that a
 * save never destroys what is there.
 *
 * - The text goes to a temporary file in the target's own directory, is
 *   fsync'ed, then renamed over the target; the directory is synced. A
 *   failed save leaves the old file as it was and no temporary file.
 * - Only a regular file is ever replaced. A FIFO, a device, a socket or a
 *   directory is refused, named as such, and left as it is.
 * - A symbolic link is followed: its target is written and the link stays
 *   a link. A link to nothing (dangling) is refused, saying so.
 * - Without overwrite an existing file is never replaced (SAVE_FILE_EXISTS:
 *   the caller asks, then calls again with overwrite); a new file is made
 *   with link(2), so even a racing writer is never clobbered.
 * - An overwritten file keeps its permissions (and, where allowed, its
 *   owner); a new one gets mode & ~umask.
 *
 * Messages are "path: cannot save: why" (translated, one line, ending in a
 * newline); nothing is printed, so it is safe while curses owns the screen.
 */
#ifndef VRAMLAB_SAVE_FILE_H
#define VRAMLAB_SAVE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum {
    SAVE_FILE_OK = 0,
    SAVE_FILE_ERROR = -1,  /* message in err */
    SAVE_FILE_EXISTS = -2, /* overwrite was false and the file exists */
};

/* Write len bytes of data to path as above; mode is a new file's
 * permissions before the umask (0666 for a document). */
int save_file(const char *path, const char *data, size_t len, bool overwrite, mode_t mode,
              char *err, size_t errlen);

/* What a file that is not a regular one is, for messages ("a FIFO (named
 * pipe)", "a directory", ...), translated; NULL for a regular file. */
const char *save_file_kind(mode_t mode);

/*
 * vramlab's state directory, with sub appended when not empty ("lessons"):
 * $XDG_STATE_HOME/vramlab when XDG_STATE_HOME is absolute, else
 * $HOME/.local/state/vramlab (the XDG base directories). HOME must name an
 * existing directory: vramlab never creates a home (HOME=/nonexistent, as
 * service accounts and containers have, creates nothing), and with HOME
 * unset there is no state at all (the password database's home is not
 * guessed). With create, the directories are made (mode 0700): below HOME,
 * or XDG_STATE_HOME itself too, as the XDG spec asks. Returns 0, or -1 with one line (translated, ending in a
 * newline) in err saying why there is no state.
 */
int save_file_state_dir(const char *sub, bool create, char *buf, size_t len, char *err,
                        size_t errlen);

#endif
