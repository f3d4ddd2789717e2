#!/bin/sh
# `vramlab bench` against tests/fake_openai.py, a fake server whose answers
# are known: the OpenAI API (completions and chat, streamed), Ollama's, an
# HTML server, a server error, a stream cut short, a server killed mid-run,
# nothing listening, SIGINT; the --json contract, the prediction beside
# each figure (the same as `vramlab plan` for that scenario), the partial
# results kept. No timing assertions: the fake server's pace only makes
# the run short.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
FAKE=$top_srcdir/tests/fake_openai.py
fail=0
t=$(mktemp -d) || exit 99
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$t"' EXIT
XDG_CONFIG_HOME=$t/xdg
HOME=$t/home
export XDG_CONFIG_HOME HOME

[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 (the fake server) not found"; exit 77; }

. "${top_srcdir:-.}/tests/check_lib.sh"

# serve NAME args...: start a fake server; its URL in $url.
serve() {
    name=$1
    shift
    python3 "$FAKE" "$t/$name.port" "$@" &
    pids="$pids $!"
    last_pid=$!
    i=0
    while [ ! -s "$t/$name.port" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    url=http://127.0.0.1:$(cat "$t/$name.port")
}

run() { # args... -> $t/out, $t/err, $rc
    "$VRAMLAB" bench "$@" >"$t/out" 2>"$t/err"
    rc=$?
}

# jget FILE EXPR: a Python expression over the JSON object j.
jget() {
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

LOAD="--prompt 16 --max-tokens 8 --repetitions 2 --warmup 1"

# --- the OpenAI API, completions ---------------------------------------------
serve ok --token-ms 2 --prefill-ms 5
run --url "$url" --concurrency 1,2 $LOAD --json
check "completions: exit 0" [ "$rc" -eq 0 ]
check "completions: complete" [ "$(jget "$t/out" 'j["complete"]')" = True ]
check "completions: no error" [ "$(jget "$t/out" 'j["error"]')" = None ]
check "completions: the API" [ "$(jget "$t/out" 'j["api"]')" = completions ]
check "completions: one result per concurrency" [ "$(jget "$t/out" '[r["concurrency"] for r in j["results"]]')" = "[1, 2]" ]
check "completions: rounds" [ "$(jget "$t/out" '[r["rounds"] for r in j["results"]]')" = "[2, 2]" ]
check "completions: every request a sample" [ "$(jget "$t/out" '[r["decode_tokens_per_s_per_sequence"]["samples"] for r in j["results"]]')" = "[2, 4]" ]
# the fake server counts the prompt's words: "Request N." and 14 more
check "completions: the server's prompt count" [ "$(jget "$t/out" 'j["results"][0]["prompt_tokens"]')" = 16 ]
check "completions: the server's token count" [ "$(jget "$t/out" 'j["results"][1]["completion_tokens"]')" = 8 ]
check "completions: median within its spread" [ "$(jget "$t/out" 'all(s["min"] <= s["median"] <= s["max"] for r in j["results"] for s in (r["ttft_s"], r["decode_tokens_per_s_per_sequence"], r["aggregate_tokens_per_s"]))')" = True ]
check "completions: ratio = median / predicted" [ "$(jget "$t/out" 'all(abs(s["ratio"] - s["median"] / s["predicted"]) < 1e-9 * s["ratio"] for r in j["results"] for s in (r["ttft_s"], r["decode_tokens_per_s_per_sequence"], r["aggregate_tokens_per_s"]))')" = True ]
# the model from the server's name (its quantization too), the runtime from owned_by
check "completions: model matched to the catalogue" [ "$(jget "$t/out" 'j["prediction"]["model_id"]')" = llama-3.1-8b ]
check "completions: format from the name (Q4_K_M: the mix q4-k-m)" [ "$(jget "$t/out" 'j["prediction"]["weight_format"]')" = q4-k-m ]
check "completions: runtime from owned_by" [ "$(jget "$t/out" 'j["prediction"]["runtime"]')" = llama.cpp ]
# the prediction is plan's for the same scenario (batch = concurrency)
cp "$t/out" "$t/bench.json"
"$VRAMLAB" plan --model llama-3.1-8b --format q4-k-m --runtime llama.cpp --batch 2 --prompt 16 \
    --context 24 --json >"$t/plan.json"
check "prediction: decode per sequence is plan's" [ "$(python3 -c '
import json,sys
b=json.load(open(sys.argv[1])); p=json.load(open(sys.argv[2]))
r=b["results"][1]
print(abs(r["decode_tokens_per_s_per_sequence"]["predicted"] - p["decode"]["tokens_per_s_per_sequence"]) < 1e-9 * p["decode"]["tokens_per_s_per_sequence"]
      and abs(r["ttft_s"]["predicted"] - 2 * p["prefill"]["seconds"]) < 1e-9 * p["prefill"]["seconds"])' "$t/bench.json" "$t/plan.json")" = True ]
run --url "$url/v1/" --concurrency 1 $LOAD
check "text: exit 0 (a /v1/ URL is the server)" [ "$rc" -eq 0 ]
check "text: the table" grep -q "decode per sequence" "$t/out"
check "text: predicted and ratio" grep -q "predicted" "$t/out"
check "text: no progress bar off a terminal" [ ! -s "$t/err" ]
run --url "$url" --api chat --concurrency 2 $LOAD --json
check "chat: exit 0" [ "$rc" -eq 0 ]
check "chat: the API" [ "$(jget "$t/out" 'j["api"]')" = chat ]
check "chat: tokens" [ "$(jget "$t/out" 'j["results"][0]["completion_tokens"]')" = 8 ]
run --url "$url" --model mistral-7b --concurrency 1 $LOAD --json
check "--model wins over the server's name" [ "$(jget "$t/out" 'j["prediction"]["model_from"]')" = options ]
run --url "$url" --server-model nothing-here $LOAD
check "--server-model not served: exit 2" [ "$rc" -eq 2 ]
check "--server-model not served: says what is" grep -q "does not serve the model 'nothing-here' (it lists 'llama-3.1-8b-instruct-Q4_K_M.gguf')" "$t/err"
run --url "$url" --concurrency 0 $LOAD
check "--concurrency 0: exit 2" [ "$rc" -eq 2 ]
check "--concurrency 0: the range" grep -q -- "--concurrency: expected a whole number in 1..256, found '0'" "$t/err"
run --url "$url" --api grpc $LOAD
check "--api unknown: exit 2" [ "$rc" -eq 2 ]
run --concurrency 1 $LOAD
check "no --url: exit 2" [ "$rc" -eq 2 ]
VRAMLAB_BENCH_URL=$url run --concurrency 1 $LOAD --json
check "VRAMLAB_BENCH_URL stands for --url" [ "$rc" -eq 0 ]
run --url "$url" --gpu no-such-gpu $LOAD
check "a bad scenario option: exit 2 before any request" [ "$rc" -eq 2 ]

# --- a model the catalogue does not know -----------------------------------
serve unknown --model SmolThing-7M-Q4_1.gguf
run --url "$url" --concurrency 1 $LOAD
check "unknown model: exit 2" [ "$rc" -eq 2 ]
check "unknown model: says so and what to give" grep -q "the server's model 'SmolThing-7M-Q4_1.gguf' is not in the catalogue: give --model ID, --model-file FILE" "$t/err"
run --url "$url" --params 7B --concurrency 1 $LOAD --json
check "unknown model with --params: exit 0" [ "$rc" -eq 0 ]

# --- Ollama --------------------------------------------------------------
serve ollama --mode ollama --model llama3.1:8b-instruct-q8_0
run --url "$url" --concurrency 1 $LOAD --json
check "ollama: exit 0" [ "$rc" -eq 0 ]
check "ollama: the API" [ "$(jget "$t/out" 'j["api"]')" = ollama ]
check "ollama: runtime" [ "$(jget "$t/out" 'j["prediction"]["runtime"]')" = ollama ]
check "ollama: model and format from llama3.1:8b-instruct-q8_0" [ "$(jget "$t/out" 'j["prediction"]["model_id"] + " " + j["prediction"]["weight_format"]')" = "llama-3.1-8b q8-0" ]
check "ollama: eval_count" [ "$(jget "$t/out" 'j["results"][0]["completion_tokens"]')" = 8 ]

# --- errors ------------------------------------------------------------
serve html --mode html
run --url "$url" $LOAD
check "not a server: exit 4" [ "$rc" -eq 4 ]
check "not a server: says so with what answered" grep -q "is not an OpenAI-compatible server: GET /v1/models answered HTTP 404 (text/html" "$t/err"
kill "$last_pid"
wait "$last_pid" 2>/dev/null
run --url "$url" $LOAD
check "nothing listening: exit 4" [ "$rc" -eq 4 ]
check "nothing listening: cannot reach" grep -q "cannot reach $url" "$t/err"
run --url "ftp://127.0.0.1:1" $LOAD
check "not http: exit 4" [ "$rc" -eq 4 ]
check "not http: says so" grep -q "is not an http:// or https:// URL" "$t/err"

serve error --mode error
run --url "$url" --concurrency 1 $LOAD --json
check "server error: exit 4" [ "$rc" -eq 4 ]
check "server error: incomplete" [ "$(jget "$t/out" 'j["complete"]')" = False ]
check "server error: the code" [ "$(jget "$t/out" 'j["error"]["code"]')" = server-error ]
check "server error: the server's message" grep -q "answered HTTP 500: the fake server failed on purpose" "$t/err"

serve noeos --mode noeos
run --url "$url" --concurrency 1 $LOAD --json
check "stream cut short: exit 4" [ "$rc" -eq 4 ]
check "stream cut short: the code" [ "$(jget "$t/out" 'j["error"]["code"]')" = cut-short ]

# killed mid-run: the warm-up and concurrency 1's two rounds are answered,
# the fourth request dies half way
serve die --die-after 3
run --url "$url" --concurrency 1,2 $LOAD --json
check "killed mid-run: exit 4" [ "$rc" -eq 4 ]
check "killed mid-run: incomplete" [ "$(jget "$t/out" 'j["complete"]')" = False ]
check "killed mid-run: what was measured is kept" [ "$(jget "$t/out" '(j["results"][0]["concurrency"], j["results"][0]["rounds"], j["results"][0]["partial"])')" = "(1, 2, False)" ]
check "killed mid-run: the message" grep -q "did the server stop?" "$t/err"
serve die2 --die-after 3
run --url "$url" --concurrency 1,2 $LOAD
check "killed mid-run, text: marked partial" grep -q "^PARTIAL: " "$t/out"
check "killed mid-run, text: the measured level" grep -q "^concurrency 1" "$t/out"

# SIGINT stops the run, keeps what was measured, 128 + 2
serve slow --token-ms 100
"$VRAMLAB" bench --url "$url" --concurrency 1 --prompt 16 --max-tokens 50 --repetitions 20 --warmup 0 --json >"$t/out" 2>"$t/err" &
bp=$!
sleep 2
kill -INT $bp
wait $bp
rc=$?
check "SIGINT: exit 130" [ "$rc" -eq 130 ]
check "SIGINT: the JSON says stopped" [ "$(jget "$t/out" 'j["error"]["code"]')" = stopped ]

exit $fail
