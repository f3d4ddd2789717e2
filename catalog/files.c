/*
 * files.c: where catalog text comes from: the embedded default files, one
 * file on disk, and the user's directory ($XDG_CONFIG_HOME/vramlab, else
 * ~/.config/vramlab), read in name order so overrides are predictable.
 * Files are only ever read. A file that cannot be read or does not parse
 * is reported and skipped; the others still load.
 */
#include "catalog/internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Largest catalog file read (a catalog is kilobytes; this stops accidents). */
#define MAX_FILE_BYTES (16u << 20)

/* Record an error about a whole file (no line to point at). */
static void file_error(struct catalog_diag *d, const char *path, const char *what, int err) {
    catalog_diag_append(d, "%s: %s: %s\n", path, what, strerror(err));
    if (d != NULL)
        d->errors++;
}

/* Load the embedded default catalog into c (adding to what is there). */
int catalog_load_default(struct catalog *c, struct catalog_diag *d) {
    size_t i;
    int rc = 0;

    for (i = 0; i < catalog_embedded_count; i++) {
        const struct catalog_embedded_file *f = &catalog_embedded_files[i];
        if (catalog_load_buffer(c, f->name, f->text, f->len, d) < 0)
            rc = -1;
    }
    return rc;
}

/* Read the whole file at path into a new NUL-terminated buffer; NULL with errno set. */
char *catalog_read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    struct stat st;
    char *buf;
    size_t n;

    if (fp == NULL)
        return NULL;
    if (fstat(fileno(fp), &st) < 0) {
        int err = errno;
        fclose(fp);
        errno = err;
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > MAX_FILE_BYTES) {
        fclose(fp);
        errno = S_ISREG(st.st_mode) ? EFBIG : EISDIR;
        return NULL;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        fclose(fp);
        errno = ENOMEM;
        return NULL;
    }
    n = fread(buf, 1, (size_t)st.st_size, fp);
    if (ferror(fp)) {
        int err = errno ? errno : EIO;
        free(buf);
        fclose(fp);
        errno = err;
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Load one YAML file; on error nothing of it is added and -1 is returned. */
int catalog_load_file(struct catalog *c, const char *path, struct catalog_diag *d) {
    size_t len = 0;
    char *text;
    int rc;

    errno = 0;
    text = catalog_read_file(path, &len);
    if (text == NULL) {
        file_error(d, path, "cannot read", errno ? errno : EIO);
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
