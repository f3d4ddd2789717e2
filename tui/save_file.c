/*
 * save_file.c: saving without destroying (see save_file.h).
 *
 * The target is decided first: the path itself, or for a symbolic link the
 * file it finally points to (realpath), so the temporary file lies in the
 * target's directory and rename() replaces the target, never the link.
 * Only a regular file is replaced; the kind is checked again just before
 * the rename, so a file swapped for a FIFO meanwhile is not replaced
 * either. A new file is linked into place (link(2) never replaces); on a
 * file system without hard links it is renamed after a last check.
 */
#include "tui/save_file.h"

#include "tui/i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Append a translated message to err (truncating, always NUL-terminated). */
static void sv_say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void sv_say(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    size_t used;

    if (!err || errlen == 0)
        return;
    used = strnlen(err, errlen);
    if (used + 1 >= errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - used, fmt, ap);
    va_end(ap);
}

/* What a file that is not a regular one is (see header). */
const char *save_file_kind(mode_t mode) {
    if (S_ISREG(mode))
        return NULL;
    if (S_ISFIFO(mode))
        return _("a FIFO (named pipe)");
    if (S_ISCHR(mode))
        return _("a character device");
    if (S_ISBLK(mode))
        return _("a block device");
    if (S_ISDIR(mode))
        return _("a directory");
    if (S_ISSOCK(mode))
        return _("a socket");
    return _("a special file");
}

/* Write all of buf to fd; 0 or -1 with errno. */
static int sv_write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* fsync a directory, so a rename or link in it is durable. */
static void sv_sync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The message for a target that is not a regular file. */
static void sv_not_regular(const char *path, const char *target, bool via_link, mode_t mode,
                           char *err, size_t errlen) {
    if (via_link)
        sv_say(err, errlen,
               _("%s: cannot save: it links to %s, which is %s, not a regular file; both are "
                 "left as they are\n"),
               path, target, save_file_kind(mode));
    else
        sv_say(err, errlen, _("%s: cannot save: it is %s, not a regular file; left as it is\n"),
               path, save_file_kind(mode));
}

/* Save without destroying (see header). */
int save_file(const char *path, const char *data, size_t len, bool overwrite, mode_t mode,
              char *err, size_t errlen) {
    char target[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 32];
    struct stat st;
    bool exists = false, via_link = false;
    int fd, e;

    if (err && errlen)
        err[0] = '\0';
    if (!path || !*path || path[strlen(path) - 1] == '/') {
        sv_say(err, errlen, _("%s: cannot save: not a file name\n"), path ? path : "");
        return SAVE_FILE_ERROR;
    }
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            via_link = true;
            if (!realpath(path, target)) {
                char to[PATH_MAX];
                ssize_t n;
                e = errno;
                n = readlink(path, to, sizeof(to) - 1);
                to[n > 0 ? n : 0] = '\0';
                if (e == ENOENT)
                    sv_say(err, errlen,
                           _("%s: cannot save: a symbolic link to %s, which does not exist; "
                             "the link is left as it is\n"),
                           path, to);
                else
                    sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(e));
                return SAVE_FILE_ERROR;
            }
            if (stat(target, &st) != 0) {
                sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(errno));
                return SAVE_FILE_ERROR;
            }
        } else if (snprintf(target, sizeof(target), "%s", path) >= (int)sizeof(target)) {
            sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(ENAMETOOLONG));
            return SAVE_FILE_ERROR;
        }
        if (!S_ISREG(st.st_mode)) {
            sv_not_regular(path, target, via_link, st.st_mode, err, errlen);
            return SAVE_FILE_ERROR;
        }
        if (!overwrite) {
            sv_say(err, errlen, _("%s: exists; not overwritten\n"), path);
            return SAVE_FILE_EXISTS;
        }
        exists = true;
    } else if (errno != ENOENT) {
        sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(errno));
        return SAVE_FILE_ERROR;
    } else if (snprintf(target, sizeof(target), "%s", path) >= (int)sizeof(target)) {
        sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(ENAMETOOLONG));
        return SAVE_FILE_ERROR;
    }

    /* The temporary file beside the target: ".NAME.XXXXXX". */
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == target)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - target), target);
    if (snprintf(tmp, sizeof(tmp), "%s/.%.200s.XXXXXX", dir, base) >= (int)sizeof(tmp)) {
        sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(ENAMETOOLONG));
        return SAVE_FILE_ERROR;
    }
    fd = mkstemp(tmp);
    if (fd < 0) {
        sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(errno));
        return SAVE_FILE_ERROR;
    }
    if (exists) {
        /* The old file's permissions and, where allowed, its owner. */
        if (fchown(fd, st.st_uid, st.st_gid) != 0) {
            /* not root: the file becomes ours, as any editor's save */
        }
        mode = st.st_mode & 0777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode &= ~mask & 0777;
    }
    if (fchmod(fd, mode) != 0 || sv_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        e = errno;
        close(fd);
        goto fail;
    }
    if (close(fd) != 0) {
        e = errno;
        goto fail;
    }
    if (!exists && link(tmp, target) == 0) {
        unlink(tmp);
    } else if (!exists && errno == EEXIST && !overwrite) {
        unlink(tmp);
        sv_say(err, errlen, _("%s: exists; not overwritten\n"), path);
        return SAVE_FILE_EXISTS;
    } else {
        /* Replacing (or no hard links here): only a regular file, or
         * nothing when nothing was there. */
        if (lstat(target, &st) == 0) {
            if ((!exists && !overwrite) || !S_ISREG(st.st_mode)) {
                unlink(tmp);
                if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
                    sv_say(err, errlen, _("%s: exists; not overwritten\n"), path);
                    return SAVE_FILE_EXISTS;
                }
                sv_not_regular(path, target, via_link, st.st_mode, err, errlen);
                return SAVE_FILE_ERROR;
            }
        } else if (errno != ENOENT) {
            e = errno;
            goto fail;
        }
        if (rename(tmp, target) != 0) {
            e = errno;
            goto fail;
        }
    }
    sv_sync_dir(dir);
    return SAVE_FILE_OK;
fail:
    unlink(tmp);
    sv_say(err, errlen, _("%s: cannot save: %s\n"), path, strerror(e));
    return SAVE_FILE_ERROR;
}

/* mkdir of each part of path after its first keep bytes (mode 0700). */
static int sv_mkdirs_below(char *path, size_t keep) {
    for (char *p = path + keep + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The state directory (see header). */
int save_file_state_dir(const char *sub, bool create, char *buf, size_t len, char *err,
                        size_t errlen) {
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    const char *base, *var, *rest;
    struct stat st;
    int n;

    if (err && errlen)
        err[0] = '\0';
    /* The XDG spec: a relative XDG_STATE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        base = xdg, var = "XDG_STATE_HOME", rest = "/vramlab";
    else if (home && home[0] == '/')
        base = home, var = "HOME", rest = "/.local/state/vramlab";
    else {
        sv_say(err, errlen, "%s",
               _("no state directory: HOME is not set (nor XDG_STATE_HOME); nothing is kept "
                 "between sessions\n"));
        return -1;
    }
    /* A home is never made; XDG_STATE_HOME is, as the spec asks. */
    if (base == home && (stat(base, &st) != 0 || !S_ISDIR(st.st_mode))) {
        sv_say(err, errlen,
               _("no state directory: %s (%s) is not a directory; nothing is kept between "
                 "sessions\n"),
               base, var);
        return -1;
    }
    n = snprintf(buf, len, "%s%s%s%s", base, rest, sub && *sub ? "/" : "", sub ? sub : "");
    if (n < 0 || (size_t)n >= len) {
        sv_say(err, errlen, "%s", _("no state directory: its path is too long\n"));
        return -1;
    }
    if (create && sv_mkdirs_below(buf, base == home ? strlen(base) : 0) != 0) {
        sv_say(err, errlen, _("%s: cannot create: %s\n"), buf, strerror(errno));
        return -1;
    }
    return 0;
}
