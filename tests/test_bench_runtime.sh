#!/bin/sh
# `vramlab bench` against a real runtime: llama.cpp's llama-server serving
# SmolLM2-135M-Instruct Q4_1, both from scripts/llama-server's cache
# (${XDG_CACHE_HOME:-~/.cache}/vramlab). Runs when the cache is there, or
# with VRAMLAB_TEST_RUNTIME=1 (which builds it first: minutes); else SKIP.
# Checks the run completes with every figure and its prediction, that the
# server's own counts come back, and that killing the server mid-run is an
# error that keeps what was measured. No timing assertions: the figures
# against llama-bench are scripts/bench-runtime's (docs/benchmarks.md).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
LS=$top_srcdir/scripts/llama-server
fail=0

[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
if ! sh "$LS" --check; then
    if [ "${VRAMLAB_TEST_RUNTIME:-0}" != 1 ]; then
        echo "SKIP: no llama-server in the cache (scripts/llama-server builds it; or VRAMLAB_TEST_RUNTIME=1)"
        exit 77
    fi
    sh "$LS" || { echo "FAIL - scripts/llama-server could not build the runtime"; exit 1; }
fi
server=$(sh "$LS" --paths | sed -n 's/^server //p')
model=$(sh "$LS" --paths | sed -n 's/^model //p')
ggml=$(sh "$LS" --paths | sed -n 's/^ggml //p')

t=$(mktemp -d) || exit 99
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; rm -rf "$t"' EXIT

. "${top_srcdir:-.}/tests/check_lib.sh"

jget() {
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# start: llama-server on a free port, 4 slots; its URL in $url. The first
# port tried depends on this script's pid, and a port is ours only when our
# own server says it listens there and still runs (two suites at once, as
# .ci/run's halves, each start one: a health answer can be the other's).
start() {
    port=$((18080 + $$ % 400))
    last=$((port + 100))
    while [ $port -lt $last ]; do
        "$server" -m "$model" --host 127.0.0.1 --port $port -t "$(nproc)" -c 4096 -np 4 \
            >"$t/server.log" 2>&1 &
        spid=$!
        i=0
        while [ $i -lt 300 ]; do
            if ! kill -0 $spid 2>/dev/null; then
                break # the port was taken: try the next
            fi
            if grep -q "listening on http://127.0.0.1:$port" "$t/server.log" &&
                kill -0 $spid 2>/dev/null &&
                python3 -c 'import sys,urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
                    "http://127.0.0.1:$port/health" 2>/dev/null; then
                url=http://127.0.0.1:$port
                return 0
            fi
            sleep 0.2
            i=$((i + 1))
        done
        kill $spid 2>/dev/null
        wait $spid 2>/dev/null
        port=$((port + 1))
    done
    echo "FAIL - llama-server did not start:"
    tail -5 "$t/server.log"
    exit 1
}

# llama.cpp's own kernels (vramlab-ggml with the cached build's ggml) on
# the file's matrices: every type at batch 1, 2, 16 and 512, and plan's
# core-bound from them (a state directory of its own: timed now)
XDG_STATE_HOME=$t/state VRAMLAB_GGML_DIR=$ggml "$VRAMLAB" plan --device cpu --model-file "$model" \
    --batch 1 --prompt 512 --json >"$t/plan.json" 2>"$t/plan.err"
rc=$?
check "plan on llama.cpp's kernels: exit 0" [ "$rc" -eq 0 ]
check "plan on llama.cpp's kernels: timed, and said" grep -q "timing llama.cpp's kernels on this file's matrices ($ggml" "$t/plan.err"
check "plan on llama.cpp's kernels: explain names Q4_1 and the tied Q8_0 head" [ "$(jget "$t/plan.json" "'(llama.cpp Q4_1, measured at batch 1' in j['explain']['decode.tokens_per_s_core_bound']['values'] and '(llama.cpp Q8_0, measured at batch 1' in j['explain']['decode.tokens_per_s_core_bound']['values']")" = True ]
check "plan on llama.cpp's kernels: every type at 1, 2, 16, 512" [ "$(python3 -c 'import glob,json,sys; r=json.load(open(glob.glob(sys.argv[1])[0]))["results"]; print(sorted((int(x["type"]), int(x["batch"])) for x in r if x["weights_per_s"] > 0))' "$t/state/vramlab/ggml-*.json")" = "[(3, 1), (3, 2), (3, 16), (3, 512), (8, 1), (8, 2), (8, 16), (8, 512)]" ]
check "plan on llama.cpp's kernels: each says whether llama.cpp repacks it (Q4_1, Q8_0 here: no)" [ "$(python3 -c 'import glob,json,sys; r=json.load(open(glob.glob(sys.argv[1])[0]))["results"]; print(all(x.get("repacked") is False for x in r))' "$t/state/vramlab/ggml-*.json")" = True ]
check "plan on llama.cpp's kernels: the decode is core-bound" [ "$(jget "$t/plan.json" "j['decode']['tokens_per_s'] == j['decode']['tokens_per_s_core_bound'] > 0")" = True ]

start
"$VRAMLAB" bench --url "$url" --model-file "$model" --concurrency 1,2 --prompt 64 \
    --max-tokens 32 --repetitions 2 --json >"$t/out" 2>"$t/err"
rc=$?
check "llama-server: exit 0" [ "$rc" -eq 0 ]
check "llama-server: complete" [ "$(jget "$t/out" 'j["complete"]')" = True ]
check "llama-server: the runtime from owned_by" [ "$(jget "$t/out" 'j["prediction"]["runtime"]')" = llama.cpp ]
check "llama-server: the model from the file" [ "$(jget "$t/out" 'j["prediction"]["model_from"]')" = options ]
check "llama-server: every figure measured and predicted" [ "$(jget "$t/out" 'all(s["median"] > 0 and s["predicted"] > 0 for r in j["results"] for s in (r["ttft_s"], r["decode_tokens_per_s_per_sequence"], r["aggregate_tokens_per_s"]))')" = True ]
check "llama-server: all 32 tokens generated (ignore_eos)" [ "$(jget "$t/out" '[r["completion_tokens"] for r in j["results"]]')" = "[32, 32]" ]
check "llama-server: its prompt count" [ "$(jget "$t/out" '40 <= j["results"][0]["prompt_tokens"] <= 100')" = True ]

# killed mid-run: many short rounds, the server killed (-9) after 3 s
"$VRAMLAB" bench --url "$url" --model-file "$model" --concurrency 1 --prompt 16 \
    --max-tokens 16 --repetitions 100 --warmup 0 --json >"$t/out" 2>"$t/err" &
bp=$!
sleep 3
kill -9 $spid
wait $bp
rc=$?
spid=
check "killed server: exit 4" [ "$rc" -eq 4 ]
check "killed server: incomplete" [ "$(jget "$t/out" 'j["complete"]')" = False ]
check "killed server: the rounds before are kept, marked partial" [ "$(jget "$t/out" 'j["results"] == [] or j["results"][0]["partial"]')" = True ]
check "killed server: a clear message" grep -q "did the server stop?\|cannot reach" "$t/err"

exit $fail
