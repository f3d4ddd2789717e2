/*
 * bench_run.c: find the server at a URL, send it streaming requests, time
 * the answers (see bench_run.h). libcurl carries the HTTP (its multi
 * interface runs a round's requests side by side in this one thread);
 * jansson reads every JSON the server sends.
 */
#include "config.h"

#include "tui/bench_run.h"

#include "catalog/catalog.h"

#include <curl/curl.h>
#include "tui/curl_dl.h" /* after curl.h: the calls through the loaded table */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_BODY_MAX  (1u << 20) /* a /v1/models answer larger than this is not one */
#define BENCH_LINE_MAX  (1u << 20) /* one streamed line */
#define BENCH_ERRBODY   2048       /* what an error answer's body keeps */
#define BENCH_CONNECT_S 10L        /* connection timeout */

static const char *const bench_api_names[BENCH_API_COUNT] = {"completions", "chat", "ollama"};

/* The name of an API. */
const char *bench_api_name(enum bench_api a) {
    return (unsigned)a < BENCH_API_COUNT ? bench_api_names[a] : "?";
}

/* Parse an API name. */
int bench_api_parse(const char *s) {
    for (int i = 0; i < BENCH_API_COUNT; i++)
        if (strcmp(s, bench_api_names[i]) == 0)
            return i;
    return -1;
}

/* Start libcurl. */
int bench_global_init(void) {
    char why[256];
    if (curl_dl_load(why, sizeof why) != 0) {
        fprintf(stderr, "vramlab bench: %s\n", why);
        return -1;
    }
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

/* Stop libcurl. */
void bench_global_cleanup(void) {
    curl_global_cleanup();
}

/* Seconds on the monotonic clock. */
static double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* printf into err (may be NULL); returns kind. */
static enum bench_error bench_fail(char *err, size_t errlen, enum bench_error kind,
                                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum bench_error bench_fail(char *err, size_t errlen, enum bench_error kind,
                                   const char *fmt, ...) {
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return kind;
}

/* Whether a libcurl error means no connection was made. */
static bool bench_curl_unreachable(CURLcode c) {
    return c == CURLE_COULDNT_CONNECT || c == CURLE_COULDNT_RESOLVE_HOST ||
           c == CURLE_COULDNT_RESOLVE_PROXY || c == CURLE_UNSUPPORTED_PROTOCOL ||
           c == CURLE_URL_MALFORMAT || c == CURLE_OPERATION_TIMEDOUT ||
           c == CURLE_SSL_CONNECT_ERROR;
}

/* ---- one GET with its body in memory -------------------------------------- */

struct bench_buf {
    char *p;
    size_t n, cap, max;
    bool over; /* the body outgrew max: the rest was dropped */
};

/* Append n bytes (up to b->max). */
static int bench_buf_add(struct bench_buf *b, const char *s, size_t n) {
    if (b->n + n > b->max) {
        b->over = true;
        n = b->max - b->n;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

/* libcurl's write callback for a GET. */
static size_t bench_get_write(char *data, size_t size, size_t nmemb, void *ud) {
    struct bench_buf *b = ud;
    return bench_buf_add(b, data, size * nmemb) == 0 ? size * nmemb : 0;
}

struct bench_get {
    CURLcode code;
    long status;
    char type[96]; /* Content-Type */
    struct bench_buf body;
};

/* GET url into g (g->body freed by the caller). */
static void bench_http_get(const char *url, double timeout_s, struct bench_get *g) {
    memset(g, 0, sizeof(*g));
    g->body.max = BENCH_BODY_MAX;
    CURL *c = curl_easy_init();
    if (!c) {
        g->code = CURLE_FAILED_INIT;
        return;
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, BENCH_CONNECT_S);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout_s > 0 ? timeout_s * 1000 : 30000));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, bench_get_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &g->body);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "vramlab-bench/" PACKAGE_VERSION);
    g->code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &g->status);
    char *ct = NULL;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
        snprintf(g->type, sizeof(g->type), "%s", ct);
    curl_easy_cleanup(c);
}

/* What an answer that is not ours was, for messages: "HTTP 404 (text/html:
 * '<html>...')". */
static void bench_describe(const struct bench_get *g, char *buf, size_t len) {
    char head[48] = "";
    size_t k = 0;
    for (size_t i = 0; g->body.p && i < g->body.n && k + 1 < sizeof(head); i++) {
        unsigned char ch = (unsigned char)g->body.p[i];
        head[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ' ';
    }
    head[k] = '\0';
    snprintf(buf, len, "HTTP %ld (%s%s'%s%s')", g->status, g->type[0] ? g->type : "no type",
             ": ", head, g->body.n > k ? "..." : "");
    catalog_text_clean_str(buf); /* the Content-Type is the server's */
}

/* A JSON object from a body, or NULL. */
static json_t *bench_json_object(const struct bench_buf *b) {
    if (!b->p || b->over)
        return NULL;
    json_t *j = json_loadb(b->p, b->n, 0, NULL);
    if (j && !json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* Copy a JSON string member into buf ("" when absent). */
static void bench_copy_str(json_t *obj, const char *key, char *buf, size_t len) {
    const char *s = json_string_value(json_object_get(obj, key));
    snprintf(buf, len, "%s", s ? s : "");
}

/* Pick the model from an array of entries whose name is at key; want
 * (may be empty) must be among them. */
static enum bench_error bench_pick_model(struct bench_server *srv, json_t *list, const char *key,
                                         const char *want, char *err, size_t errlen) {
    size_t i;
    json_t *m;
    char names[256] = "";
    srv->n_models = (unsigned)json_array_size(list);
    json_array_foreach(list, i, m) {
        const char *id = json_string_value(json_object_get(m, key));
        if (!id)
            continue;
        size_t n = strlen(names);
        if (n + 8 < sizeof(names))
            snprintf(names + n, sizeof(names) - n, "%s'%s'", n ? ", " : "", id);
        if ((!want || !*want) ? srv->model[0] == '\0' : strcmp(id, want) == 0) {
            snprintf(srv->model, sizeof(srv->model), "%s", id);
            bench_copy_str(m, "owned_by", srv->owned_by, sizeof(srv->owned_by));
            /* the server's words reach a terminal */
            catalog_text_clean_str(srv->model);
            catalog_text_clean_str(srv->owned_by);
            json_t *meta = json_object_get(m, "meta"); /* llama.cpp's */
            srv->meta_params = json_number_value(json_object_get(meta, "n_params"));
            srv->meta_bytes = json_number_value(json_object_get(meta, "size"));
        }
    }
    if (srv->model[0])
        return BENCH_OK;
    catalog_text_clean_str(names);
    if (want && *want)
        return bench_fail(err, errlen, BENCH_ERR_SERVER,
                          "%s does not serve the model '%s' (it lists %s)", srv->url, want,
                          names[0] ? names : "none");
    return bench_fail(err, errlen, BENCH_ERR_NOT_SERVER, "%s lists no models", srv->url);
}

/* GET a server's model list at u: its answer when that is a JSON object
 * with an array `key` (the caller frees it), else NULL; what came back
 * (status and a piece of the body, or curl's error) said in seen. */
static json_t *bench_get_list(const char *u, double timeout_s, const char *key,
                              struct bench_get *g, char *seen, size_t seen_len) {
    bench_http_get(u, timeout_s, g);
    if (g->code != CURLE_OK)
        snprintf(seen, seen_len, "%s", curl_easy_strerror(g->code));
    else
        bench_describe(g, seen, seen_len);
    json_t *j = g->code == CURLE_OK && g->status == 200 ? bench_json_object(&g->body) : NULL;
    free(g->body.p);
    g->body.p = NULL;
    if (j && !json_is_array(json_object_get(j, key))) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Ask url what it is (see bench_run.h). */
enum bench_error bench_find_server(struct bench_server *srv, const char *url,
                                   const char *want_model, int api, double timeout_s, char *err,
                                   size_t errlen) {
    char u[BENCH_URL_MAX + 32], seen_models[160], seen_tags[160];
    struct bench_get g;
    json_t *j;
    memset(srv, 0, sizeof(*srv));
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return bench_fail(err, errlen, BENCH_ERR_UNREACHABLE,
                          "'%s' is not an http:// or https:// URL", url);
    if (strlen(url) >= sizeof(srv->url))
        return bench_fail(err, errlen, BENCH_ERR_UNREACHABLE, "the URL is longer than %d bytes",
                          BENCH_URL_MAX - 1);
    snprintf(srv->url, sizeof(srv->url), "%s", url);
    /* http://host:port/, .../v1 and .../v1/ all mean the server */
    size_t n = strlen(srv->url);
    while (n > 0 && srv->url[n - 1] == '/')
        srv->url[--n] = '\0';
    if (n >= 3 && strcmp(srv->url + n - 3, "/v1") == 0)
        srv->url[n -= 3] = '\0';

    snprintf(u, sizeof(u), "%s/v1/models", srv->url);
    j = bench_get_list(u, timeout_s, "data", &g, seen_models, sizeof(seen_models));
    if (g.code != CURLE_OK && bench_curl_unreachable(g.code))
        return bench_fail(err, errlen, BENCH_ERR_UNREACHABLE,
                          "cannot reach %s: %s (is the server running?)", srv->url,
                          curl_easy_strerror(g.code));
    if (j) {
        enum bench_error e =
            bench_pick_model(srv, json_object_get(j, "data"), "id", want_model, err, errlen);
        json_decref(j);
        if (e != BENCH_OK)
            return e;
        srv->api = api >= 0 && api < BENCH_API_COUNT ? (enum bench_api)api : BENCH_API_COMPLETIONS;
        return BENCH_OK;
    }

    /* Ollama's own API */
    snprintf(u, sizeof(u), "%s/api/tags", srv->url);
    j = bench_get_list(u, timeout_s, "models", &g, seen_tags, sizeof(seen_tags));
    if (j) {
        enum bench_error e =
            bench_pick_model(srv, json_object_get(j, "models"), "name", want_model, err, errlen);
        json_decref(j);
        if (e != BENCH_OK)
            return e;
        snprintf(srv->owned_by, sizeof(srv->owned_by), "ollama");
        srv->api = api >= 0 && api < BENCH_API_COUNT ? (enum bench_api)api : BENCH_API_OLLAMA;
        return BENCH_OK;
    }
    return bench_fail(err, errlen, BENCH_ERR_NOT_SERVER,
                      "%s is not an OpenAI-compatible server: GET /v1/models answered %s, "
                      "GET /api/tags (Ollama) %s",
                      srv->url, seen_models, seen_tags);
}

/* ---- the prompt ------------------------------------------------------------ */

/* Common English words, one token each in the usual vocabularies (GPT-2's,
 * Llama's, SmolLM2's). */
static const char *const bench_words[] = {
    "the", "of", "and", "to", "in", "is", "that", "it", "for", "on", "with", "as",
    "was", "at", "by", "an", "be", "this", "from", "or", "are", "but", "not", "all",
};
#define BENCH_N_WORDS (sizeof(bench_words) / sizeof(bench_words[0]))

/* The prompt of request seq (see bench_run.h). */
char *bench_prompt_text(unsigned seq, unsigned prompt_words) {
    size_t cap = 32 + (size_t)prompt_words * 6;
    char *p = malloc(cap);
    if (!p)
        return NULL;
    int n = snprintf(p, cap, "Request %u.", seq);
    size_t k = (size_t)n;
    for (unsigned w = 2; w < prompt_words; w++) {
        const char *s = bench_words[(w * 7u + seq) % BENCH_N_WORDS];
        k += (size_t)snprintf(p + k, cap - k, " %s", s);
    }
    return p;
}

/* ---- one streamed request -------------------------------------------------- */

struct bench_req {
    CURL *c;
    struct curl_slist *hdr;
    char *body;
    const struct bench_server *srv;
    struct bench_sample *s;
    struct bench_buf line;   /* the line being received */
    struct bench_buf errbody; /* the body of an HTTP error */
    bool finished;           /* [DONE], a finish_reason or done: true */
    bool failed;             /* the server said error */
    char error[256];
};

/* A JSON "error" member as text: {"error": {"message": ...}} or a string. */
static void bench_error_text(json_t *e, char *buf, size_t len) {
    const char *m = json_string_value(e);
    if (!m)
        m = json_string_value(json_object_get(e, "message"));
    snprintf(buf, len, "%s", m ? m : "an error object without a message");
    catalog_text_clean_str(buf); /* the server's words reach a terminal */
}

/* One line of the stream. */
static void bench_req_line(struct bench_req *r, char *line, size_t n, double now) {
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        line[--n] = '\0';
    if (n == 0)
        return;
    const char *payload = line;
    if (r->srv->api != BENCH_API_OLLAMA) {
        /* server-sent events: data lines carry the JSON; others (event:,
         * id:, comments) are ignored */
        if (strncmp(line, "data:", 5) == 0) {
            payload = line + 5;
            while (*payload == ' ')
                payload++;
        } else if (strncmp(line, "error:", 6) == 0) {
            payload = line + 6;
        } else {
            return;
        }
        if (strcmp(payload, "[DONE]") == 0) {
            r->finished = true;
            return;
        }
    }
    json_t *j = json_loads(payload, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    json_t *e = json_object_get(j, "error");
    if (e && !json_is_null(e)) {
        bench_error_text(e, r->error, sizeof(r->error));
        r->failed = true;
        json_decref(j);
        return;
    }
    const char *text = NULL;
    if (r->srv->api == BENCH_API_OLLAMA) {
        text = json_string_value(json_object_get(j, "response"));
        if (json_is_true(json_object_get(j, "done"))) {
            r->finished = true;
            json_t *pc = json_object_get(j, "prompt_eval_count");
            json_t *ec = json_object_get(j, "eval_count");
            if (json_is_integer(pc))
                r->s->prompt_tokens = (long)json_integer_value(pc);
            if (json_is_integer(ec))
                r->s->completion_tokens = (long)json_integer_value(ec);
        }
    } else {
        json_t *ch = json_array_get(json_object_get(j, "choices"), 0);
        if (r->srv->api == BENCH_API_CHAT)
            text = json_string_value(json_object_get(json_object_get(ch, "delta"), "content"));
        else
            text = json_string_value(json_object_get(ch, "text"));
        json_t *fr = json_object_get(ch, "finish_reason");
        if (fr && !json_is_null(fr))
            r->finished = true;
        json_t *u = json_object_get(j, "usage");
        if (json_is_object(u)) {
            json_t *pt = json_object_get(u, "prompt_tokens");
            json_t *ct = json_object_get(u, "completion_tokens");
            if (json_is_integer(pt))
                r->s->prompt_tokens = (long)json_integer_value(pt);
            if (json_is_integer(ct))
                r->s->completion_tokens = (long)json_integer_value(ct);
        }
    }
    if (text && *text) {
        if (r->s->pieces == 0)
            r->s->first_s = now;
        r->s->last_s = now;
        r->s->pieces++;
    }
    json_decref(j);
}

/* libcurl's write callback for a streamed answer: split into lines. */
static size_t bench_req_write(char *data, size_t size, size_t nmemb, void *ud) {
    struct bench_req *r = ud;
    size_t n = size * nmemb;
    double now = bench_now();
    long status = 0;
    curl_easy_getinfo(r->c, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 400) {
        bench_buf_add(&r->errbody, data, n);
        return n;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j < n && data[j] != '\n')
            j++;
        if (bench_buf_add(&r->line, data + i, j - i) != 0)
            return 0;
        if (j < n) { /* a whole line */
            bench_req_line(r, r->line.p, r->line.n, now);
            r->line.n = 0;
            r->line.over = false;
        }
        i = j;
    }
    return n;
}

/* The request body (jansson builds it, so the prompt is escaped). */
static char *bench_req_body(const struct bench_server *srv, const struct bench_load *load,
                            unsigned seq) {
    char *prompt = bench_prompt_text(seq, load->prompt_words);
    if (!prompt)
        return NULL;
    json_t *b;
    if (srv->api == BENCH_API_OLLAMA) {
        b = json_pack("{s:s, s:s, s:b, s:{s:i, s:f}}", "model", srv->model, "prompt", prompt,
                      "stream", 1, "options", "num_predict", (json_int_t)load->max_tokens,
                      "temperature", 0.0);
    } else {
        b = json_pack("{s:s, s:i, s:b, s:b, s:f, s:{s:b}}", "model", srv->model, "max_tokens",
                      (json_int_t)load->max_tokens, "stream", 1, "ignore_eos", 1, "temperature",
                      0.0, "stream_options", "include_usage", 1);
        if (b && srv->api == BENCH_API_CHAT)
            json_object_set_new(b, "messages",
                                json_pack("[{s:s, s:s}]", "role", "user", "content", prompt));
        else if (b)
            json_object_set_new(b, "prompt", json_string(prompt));
    }
    free(prompt);
    char *s = b ? json_dumps(b, JSON_COMPACT) : NULL;
    json_decref(b);
    return s;
}

/* Set up request r (sample s) for the multi handle. */
static int bench_req_init(struct bench_req *r, const struct bench_server *srv,
                          const struct bench_load *load, unsigned seq, struct bench_sample *s) {
    static const char *const paths[BENCH_API_COUNT] = {"/v1/completions", "/v1/chat/completions",
                                                       "/api/generate"};
    char u[BENCH_URL_MAX + 32];
    memset(r, 0, sizeof(*r));
    memset(s, 0, sizeof(*s));
    s->prompt_tokens = s->completion_tokens = -1;
    s->decode_tokens_per_s = s->ttft_s = NAN;
    r->srv = srv;
    r->s = s;
    r->line.max = BENCH_LINE_MAX;
    r->errbody.max = BENCH_ERRBODY;
    r->body = bench_req_body(srv, load, seq);
    r->c = curl_easy_init();
    if (!r->body || !r->c)
        return -1;
    snprintf(u, sizeof(u), "%s%s", srv->url, paths[srv->api]);
    r->hdr = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(r->c, CURLOPT_URL, u);
    curl_easy_setopt(r->c, CURLOPT_HTTPHEADER, r->hdr);
    curl_easy_setopt(r->c, CURLOPT_POSTFIELDS, r->body);
    curl_easy_setopt(r->c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(r->c, CURLOPT_CONNECTTIMEOUT, BENCH_CONNECT_S);
    if (load->timeout_s > 0)
        curl_easy_setopt(r->c, CURLOPT_TIMEOUT_MS, (long)(load->timeout_s * 1000));
    curl_easy_setopt(r->c, CURLOPT_WRITEFUNCTION, bench_req_write);
    curl_easy_setopt(r->c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(r->c, CURLOPT_PRIVATE, r);
    curl_easy_setopt(r->c, CURLOPT_USERAGENT, "vramlab-bench/" PACKAGE_VERSION);
    return 0;
}

/* Free a request's buffers and handle. */
static void bench_req_free(struct bench_req *r) {
    if (r->c)
        curl_easy_cleanup(r->c);
    curl_slist_free_all(r->hdr);
    free(r->body);
    free(r->line.p);
    free(r->errbody.p);
    memset(r, 0, sizeof(*r));
}

/* A finished transfer: settle its sample; BENCH_OK or the error with err. */
static enum bench_error bench_req_done(struct bench_req *r, CURLcode code, double now, char *err,
                                       size_t errlen) {
    struct bench_sample *s = r->s;
    long status = 0;
    curl_easy_getinfo(r->c, CURLINFO_RESPONSE_CODE, &status);
    s->end_s = now;
    if (r->line.n > 0) /* a last line without its newline */
        bench_req_line(r, r->line.p, r->line.n, now);
    if (code != CURLE_OK) {
        if (code == CURLE_COULDNT_CONNECT)
            return bench_fail(err, errlen, BENCH_ERR_UNREACHABLE,
                              "cannot reach %s: %s (did the server stop?)", r->srv->url,
                              curl_easy_strerror(code));
        if (code == CURLE_OPERATION_TIMEDOUT)
            return bench_fail(err, errlen, BENCH_ERR_CUT,
                              "no complete answer from %s in time (%s)", r->srv->url,
                              curl_easy_strerror(code));
        return bench_fail(err, errlen, BENCH_ERR_CUT,
                          "the answer from %s stopped half way: %s (did the server stop?)",
                          r->srv->url, curl_easy_strerror(code));
    }
    if (status >= 400) {
        char msg[256] = "";
        json_t *j = r->errbody.p ? json_loadb(r->errbody.p, r->errbody.n, 0, NULL) : NULL;
        if (json_is_object(j) && json_object_get(j, "error"))
            bench_error_text(json_object_get(j, "error"), msg, sizeof(msg));
        else if (r->errbody.p)
            snprintf(msg, sizeof(msg), "%.200s", r->errbody.p);
        catalog_text_clean_str(msg);
        json_decref(j);
        return bench_fail(err, errlen, BENCH_ERR_SERVER, "%s answered HTTP %ld: %s", r->srv->url,
                          status, msg[0] ? msg : "(no message)");
    }
    if (r->failed)
        return bench_fail(err, errlen, BENCH_ERR_SERVER, "%s reported an error: %s", r->srv->url,
                          r->error);
    if (!r->finished)
        return bench_fail(err, errlen, BENCH_ERR_CUT,
                          "the answer from %s ended before its last chunk (did the server stop?)",
                          r->srv->url);
    if (s->pieces == 0)
        return bench_fail(err, errlen, BENCH_ERR_SERVER,
                          "%s answered without any text (is '%s' a text model?)", r->srv->url,
                          r->srv->model);
    if (s->completion_tokens < 0)
        s->completion_tokens = (long)s->pieces;
    s->ttft_s = s->first_s - s->start_s;
    if (s->completion_tokens >= 2 && s->last_s > s->first_s)
        s->decode_tokens_per_s = (double)(s->completion_tokens - 1) / (s->last_s - s->first_s);
    s->ok = true;
    return BENCH_OK;
}

/* Run one round (see bench_run.h). */
enum bench_error bench_round_run(const struct bench_server *srv, const struct bench_load *load,
                                 unsigned concurrency, unsigned seq, struct bench_round *out,
                                 bench_progress_fn progress, void *ud,
                                 volatile sig_atomic_t *stop, char *err, size_t errlen) {
    enum bench_error rc = BENCH_OK;
    struct bench_req *reqs;
    struct bench_sample tmp[BENCH_MAX_CONCURRENCY];
    unsigned done = 0;
    memset(out, 0, sizeof(*out));
    out->concurrency = concurrency;
    out->aggregate_tokens_per_s = NAN;
    if (concurrency < 1 || concurrency > BENCH_MAX_CONCURRENCY)
        return bench_fail(err, errlen, BENCH_ERR_OTHER, "concurrency %u is out of 1..%d",
                          concurrency, BENCH_MAX_CONCURRENCY);
    reqs = calloc(concurrency, sizeof(*reqs));
    CURLM *m = curl_multi_init();
    if (!reqs || !m) {
        free(reqs);
        if (m)
            curl_multi_cleanup(m);
        return bench_fail(err, errlen, BENCH_ERR_OTHER, "out of memory");
    }
    for (unsigned i = 0; i < concurrency; i++)
        if (bench_req_init(&reqs[i], srv, load, seq + i, &tmp[i]) != 0) {
            rc = bench_fail(err, errlen, BENCH_ERR_OTHER, "out of memory");
            goto out;
        }
    double t0 = bench_now();
    for (unsigned i = 0; i < concurrency; i++) {
        tmp[i].start_s = t0;
        curl_multi_add_handle(m, reqs[i].c);
    }
    if (progress)
        progress(ud, 0, concurrency);
    int running = (int)concurrency;
    while (running > 0 && rc == BENCH_OK) {
        if (stop && *stop) {
            rc = bench_fail(err, errlen, BENCH_ERR_STOPPED, "stopped");
            break;
        }
        CURLMcode mc = curl_multi_perform(m, &running);
        if (mc != CURLM_OK) {
            rc = bench_fail(err, errlen, BENCH_ERR_OTHER, "libcurl: %s", curl_multi_strerror(mc));
            break;
        }
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct bench_req *r = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
            enum bench_error e = bench_req_done(r, msg->data.result, bench_now(),
                                                rc == BENCH_OK ? err : NULL, errlen);
            if (e == BENCH_OK) {
                out->s[out->n++] = *r->s;
                out->tokens += r->s->completion_tokens;
            } else if (rc == BENCH_OK) {
                rc = e;
            }
            done++;
            if (progress)
                progress(ud, done, concurrency);
        }
        if (running > 0 && rc == BENCH_OK)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    if (rc == BENCH_OK) {
        double last = t0;
        for (unsigned i = 0; i < out->n; i++)
            if (out->s[i].end_s > last)
                last = out->s[i].end_s;
        out->wall_s = last - t0;
        if (out->wall_s > 0)
            out->aggregate_tokens_per_s = (double)out->tokens / out->wall_s;
    }
out:
    for (unsigned i = 0; i < concurrency; i++) {
        if (reqs[i].c)
            curl_multi_remove_handle(m, reqs[i].c);
        bench_req_free(&reqs[i]);
    }
    curl_multi_cleanup(m);
    free(reqs);
    return rc;
}
