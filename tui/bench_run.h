/*
 * bench_run.h: talk to a running inference server and time its answers
 * (`vramlab bench`, the Measure pane's runtime row).
 *
 * What speaks at a URL is found by asking: GET /v1/models (the OpenAI API:
 * llama.cpp's llama-server, vLLM, SGLang, TGI, Ollama's /v1), else GET
 * /api/tags (Ollama's own API). Requests then stream: /v1/completions or
 * /v1/chat/completions with "stream": true and the usage in the last
 * chunk (stream_options.include_usage), or Ollama's /api/generate, one JSON
 * object per line. Every answer is read with jansson as it arrives, and the
 * clock (CLOCK_MONOTONIC) is read when each piece of text arrives:
 *   time to first token  = first text - request sent
 *   decode per sequence  = (tokens - 1) / (last text - first text)
 *   aggregate of a round = the round's generated tokens / its wall time
 * A round sends `concurrency` requests at once through libcurl's multi
 * interface and waits for all of them. Each prompt starts with its own
 * request number, so no server can answer it from a prompt cache; it is
 * a run of common English words the server's tokenizer reads as about one
 * token each, and the token counts reported are the server's own (usage)
 * where it gives them, else the pieces of text counted.
 *
 * No curses, no output: errors come back in a caller's buffer with their
 * kind (unreachable, not a server we know, the server's own error, cut
 * short), and what a round measured before an error is kept.
 */
#ifndef VRAMLAB_BENCH_RUN_H
#define VRAMLAB_BENCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_CONCURRENCY 256
#define BENCH_URL_MAX         512
#define BENCH_NAME_MAX        256

enum bench_api {
    BENCH_API_COMPLETIONS = 0, /* OpenAI /v1/completions */
    BENCH_API_CHAT,            /* OpenAI /v1/chat/completions */
    BENCH_API_OLLAMA,          /* Ollama /api/generate */
    BENCH_API_COUNT
};

/* What went wrong (BENCH_OK when nothing did). */
enum bench_error {
    BENCH_OK = 0,
    BENCH_ERR_UNREACHABLE, /* no connection: refused, unknown host, timeout */
    BENCH_ERR_NOT_SERVER,  /* something answered, but not an API we speak */
    BENCH_ERR_SERVER,      /* the server refused or failed a request (HTTP >= 400, an error object) */
    BENCH_ERR_CUT,         /* an answer stopped half way (the server died, the connection reset) */
    BENCH_ERR_STOPPED,     /* we were told to stop (a signal) */
    BENCH_ERR_OTHER,       /* out of memory, libcurl could not start */
};

/* The server found at a URL. */
struct bench_server {
    char url[BENCH_URL_MAX];   /* base URL, without a trailing '/' */
    enum bench_api api;        /* the API requests use */
    char model[BENCH_NAME_MAX];    /* the model id requests name */
    char owned_by[64];         /* /v1/models' owned_by ("llamacpp", "vllm"), or "ollama" */
    unsigned n_models;         /* models the server lists */
    double meta_params;        /* llama.cpp's meta.n_params, else 0 */
    double meta_bytes;         /* llama.cpp's meta.size (the model file's tensors), else 0 */
};

/* The load of one request. */
struct bench_load {
    unsigned prompt_words; /* words of the prompt (about one token each) */
    unsigned max_tokens;   /* tokens to generate (ignore_eos asks for all of them) */
    double timeout_s;      /* one request at most this long (0 = none) */
};

/* One request's measurement. */
struct bench_sample {
    bool ok;                  /* it finished; else it is the request an error stopped */
    double start_s, first_s, last_s, end_s; /* CLOCK_MONOTONIC */
    double ttft_s;            /* first - start */
    double decode_tokens_per_s; /* (tokens - 1) / (last - first); NaN below 2 tokens */
    long prompt_tokens;       /* the server's count, or -1 */
    long completion_tokens;   /* the server's count, else the pieces of text */
    unsigned pieces;          /* pieces of text that arrived */
};

/* One round: `concurrency` requests at once. */
struct bench_round {
    unsigned concurrency;
    unsigned n;        /* samples filled (all of them unless an error stopped the round) */
    struct bench_sample s[BENCH_MAX_CONCURRENCY];
    double wall_s;     /* first request sent to last answer complete */
    long tokens;       /* generated tokens of the finished requests */
    double aggregate_tokens_per_s; /* tokens / wall_s; NaN unless every request finished */
};

/* Progress: requests finished of the round's; may be NULL. */
typedef void (*bench_progress_fn)(void *ud, unsigned done, unsigned total);

/* The name of an API for messages and JSON ("completions", "chat", "ollama"). */
const char *bench_api_name(enum bench_api a);
/* Parse an API name; -1 when unknown. */
int bench_api_parse(const char *s);

/* Start and stop libcurl (once per process). */
int bench_global_init(void);
void bench_global_cleanup(void);

/* Ask url what it is: GET /v1/models, else GET /api/tags. want_model (may
 * be NULL or "") picks the listed model requests name (else the first);
 * api is BENCH_API_COUNT for the default (completions on the OpenAI API,
 * ollama on Ollama's). Returns BENCH_OK or the error kind with err. */
enum bench_error bench_find_server(struct bench_server *srv, const char *url,
                                   const char *want_model, int api, double timeout_s, char *err,
                                   size_t errlen);

/* Run one round of concurrency requests (1..BENCH_MAX_CONCURRENCY); seq
 * numbers the requests' prompts from there. *stop set (a signal) ends the
 * round early. Returns BENCH_OK, or the error kind with err and the samples
 * measured so far in out (out->n). */
enum bench_error bench_round_run(const struct bench_server *srv, const struct bench_load *load,
                                 unsigned concurrency, unsigned seq, struct bench_round *out,
                                 bench_progress_fn progress, void *ud,
                                 volatile sig_atomic_t *stop, char *err, size_t errlen);

/* The prompt of request seq (malloc'd; NULL without memory): "Request
 * seq." and then words up to prompt_words in all. */
char *bench_prompt_text(unsigned seq, unsigned prompt_words);

#endif
