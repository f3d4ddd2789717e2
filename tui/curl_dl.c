/*
 * curl_dl.c: libcurl's functions looked up in libcurl.so.4 the first time
 * `vramlab bench` needs them (see curl_dl.h).
 */
#define VRAMLAB_CURL_DL_IMPL
#include "config.h"

#include "tui/curl_dl.h"

#include <dlfcn.h>
#include <stdio.h>

struct curl_dl_api curl_dl;

/* Each entry: its name in the library and where its address goes. */
#define CURL_DL_SYM(field, name) {name, (void **)&curl_dl.field}

int curl_dl_load(char *err, size_t len) {
    static void *lib;
    if (lib)
        return 0;
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, len, "libcurl.so.4 could not be loaded: %s", dlerror());
        return -1;
    }
    const struct {
        const char *name;
        void **at;
    } syms[] = {
        CURL_DL_SYM(global_init, "curl_global_init"),
        CURL_DL_SYM(global_cleanup, "curl_global_cleanup"),
        CURL_DL_SYM(easy_init, "curl_easy_init"),
        CURL_DL_SYM(easy_cleanup, "curl_easy_cleanup"),
        CURL_DL_SYM(easy_setopt, "curl_easy_setopt"),
        CURL_DL_SYM(easy_getinfo, "curl_easy_getinfo"),
        CURL_DL_SYM(easy_strerror, "curl_easy_strerror"),
        CURL_DL_SYM(easy_perform, "curl_easy_perform"),
        CURL_DL_SYM(multi_init, "curl_multi_init"),
        CURL_DL_SYM(multi_cleanup, "curl_multi_cleanup"),
        CURL_DL_SYM(multi_add_handle, "curl_multi_add_handle"),
        CURL_DL_SYM(multi_remove_handle, "curl_multi_remove_handle"),
        CURL_DL_SYM(multi_perform, "curl_multi_perform"),
        CURL_DL_SYM(multi_poll, "curl_multi_poll"),
        CURL_DL_SYM(multi_info_read, "curl_multi_info_read"),
        CURL_DL_SYM(multi_strerror, "curl_multi_strerror"),
        CURL_DL_SYM(slist_append, "curl_slist_append"),
        CURL_DL_SYM(slist_free_all, "curl_slist_free_all"),
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].at = dlsym(h, syms[i].name);
        if (!*syms[i].at) {
            snprintf(err, len, "libcurl has no %s (7.68 or later is needed)", syms[i].name);
            dlclose(h);
            return -1;
        }
    }
    lib = h;
    return 0;
}
