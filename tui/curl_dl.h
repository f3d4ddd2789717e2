/*
 * curl_dl.h: libcurl loaded when `vramlab bench` runs (dlopen of its
 * SONAME, libcurl.so.4), not linked into every start: the 30-odd
 * libraries libcurl needs (TLS, HTTP/2, LDAP, Kerberos...) cost about
 * 13 M instructions of relocation at each `vramlab plan` (docs/benchmarks.md,
 * "Cost in instructions"). bench_run.c includes this after <curl/curl.h>;
 * its curl_* calls then go through the table curl_dl_load() fills.
 */
#ifndef VRAMLAB_CURL_DL_H
#define VRAMLAB_CURL_DL_H

#include <stddef.h>

#include <curl/curl.h>

/* The libcurl functions vramlab uses. */
struct curl_dl_api {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *h);
    CURLcode (*easy_setopt)(CURL *h, CURLoption o, ...);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO i, ...);
    const char *(*easy_strerror)(CURLcode c);
    CURLcode (*easy_perform)(CURL *h);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *m);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
    CURLMcode (*multi_perform)(CURLM *m, int *running);
    CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra[], unsigned n, int ms, int *ret);
    CURLMsg *(*multi_info_read)(CURLM *m, int *left);
    const char *(*multi_strerror)(CURLMcode c);
    struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
    void (*slist_free_all)(struct curl_slist *l);
};

extern struct curl_dl_api curl_dl;

/* Load libcurl once and fill curl_dl; 0, or -1 with why in err. */
int curl_dl_load(char *err, size_t len);

#ifndef VRAMLAB_CURL_DL_IMPL
/* (curl's typecheck macros of these two are left out: the table's
 * variadic pointers take the same arguments) */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init curl_dl.global_init
#define curl_global_cleanup curl_dl.global_cleanup
#define curl_easy_init curl_dl.easy_init
#define curl_easy_cleanup curl_dl.easy_cleanup
#define curl_easy_setopt curl_dl.easy_setopt
#define curl_easy_getinfo curl_dl.easy_getinfo
#define curl_easy_strerror curl_dl.easy_strerror
#define curl_easy_perform curl_dl.easy_perform
#define curl_multi_init curl_dl.multi_init
#define curl_multi_cleanup curl_dl.multi_cleanup
#define curl_multi_add_handle curl_dl.multi_add_handle
#define curl_multi_remove_handle curl_dl.multi_remove_handle
#define curl_multi_perform curl_dl.multi_perform
#define curl_multi_poll curl_dl.multi_poll
#define curl_multi_info_read curl_dl.multi_info_read
#define curl_multi_strerror curl_dl.multi_strerror
#define curl_slist_append curl_dl.slist_append
#define curl_slist_free_all curl_dl.slist_free_all
#endif

#endif
