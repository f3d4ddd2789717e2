/*
 * files.c: where catalog text comes from: one file on disk, and the user's
 * directory ($XDG_CONFIG_HOME/vramlab, else
 * ~/.config/vramlab), read in name order so overrides are predictable (the
 * embedded default catalog loads from its C tables: tables.c).
 * Files are only ever read. A file that cannot be read or does not parse
 * is reported and skipped; the others still load.
 */
#include "catalog/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest catalog file read: the shipped ones are 100 KB together; ten
 * times that is any real catalog, and it bounds the loader's time. */
#define MAX_FILE_BYTES CATALOG_MAX_FILE_BYTES

/* Record an error about a whole file (no line to point at). */
static void file_error(struct catalog_diag *d, const char *path, const char *what, int err) {
    catalog_diag_append(d, "%s: %s: %s\n", path, what, strerror(err));
    if (d != NULL)
        d->errors++;
}

/* What a file that is not a regular file is, for messages. */
static const char *file_kind(mode_t m) {
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* Whether path names a regular file of at most max bytes; else false and
 * the reason in why (see catalog.h). Only stat: nothing is opened. */
bool catalog_file_check(const char *path, size_t max, char *why, size_t whylen) {
    struct stat st;

    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s, not a regular file", file_kind(st.st_mode));
        return false;
    }
    if (max > 0 && (uintmax_t)st.st_size > max) {
        snprintf(why, whylen, "%jd bytes, larger than the %zu KiB allowed", (intmax_t)st.st_size,
                 max / 1024);
        return false;
    }
    return true;
}

/* Open a regular file for reading (see catalog.h). */
int catalog_open_regular(const char *path, uint64_t *size, char *err, size_t errlen) {
    char why[160];
    struct stat st;

    if (!catalog_file_check(path, 0, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

/* Read a regular file of at most max bytes (see catalog.h). The file is
 * checked with stat before it is opened, and opened without blocking, so a
 * FIFO or a device never blocks; fstat checks the file opened is still
 * a regular one. */
char *catalog_read_regular(const char *path, size_t max, size_t *len, char *why, size_t whylen) {
    struct stat st;
    char *buf;
    size_t n = 0;
    int fd;

    if (!catalog_file_check(path, max, why, whylen))
        return NULL;
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (max > 0 && (uintmax_t)st.st_size > max)) {
        snprintf(why, whylen, "%s", S_ISREG(st.st_mode) ? "changed while being read"
                                                        : "not a regular file");
        close(fd);
        return NULL;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        snprintf(why, whylen, "%s", strerror(ENOMEM));
        close(fd);
        return NULL;
    }
    while (n < (size_t)st.st_size) {
        ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(why, whylen, "%s", strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Load one YAML file; on error nothing of it is added and -1 is returned. */
int catalog_load_file(struct catalog *c, const char *path, struct catalog_diag *d) {
    size_t len = 0;
    char *text, why[160];
    int rc;

    text = catalog_read_regular(path, MAX_FILE_BYTES, &len, why, sizeof why);
    if (text == NULL) {
        catalog_diag_append(d, "%s: cannot read: %s\n", path, why);
        if (d != NULL)
            d->errors++;
        return -1;
    }
    rc = catalog_load_buffer(c, path, text, len, d);
    free(text);
    return rc;
}

/* Order names as strcmp does (byte order, locale independent). */
static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether name ends in ".yaml" and is not hidden. */
static bool is_yaml_name(const char *name) {
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

/* The user's catalog directory into buf; false when neither variable is usable. */
static bool user_dir(char *buf, size_t len) {
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;

    /* The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored. */
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(buf, len, "%s/vramlab", xdg);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, len, "%s/.config/vramlab", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

/* Load every *.yaml of the user's directory in name order; returns failures. */
int catalog_load_user(struct catalog *c, struct catalog_diag *d) {
    char dir[4096], path[4096 + 256];
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    struct dirent *de;
    int failed = 0;
    DIR *dp;

    if (!user_dir(dir, sizeof dir))
        return 0;
    dp = opendir(dir);
    if (dp == NULL) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0; /* no user catalog: the usual case */
        file_error(d, dir, "cannot read", errno);
        return 1;
    }
    while ((de = readdir(dp)) != NULL) {
        char *copy;
        if (!is_yaml_name(de->d_name))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **p = realloc(names, ncap * sizeof *p);
            if (p == NULL)
                break;
            names = p;
            cap = ncap;
        }
        copy = strdup(de->d_name);
        if (copy == NULL)
            break;
        names[n++] = copy;
    }
    closedir(dp);
    if (n > 0)
        qsort(names, n, sizeof *names, compare_names);
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (catalog_load_file(c, path, d) < 0)
            failed++;
        free(names[i]);
    }
    free(names);
    return failed;
}
