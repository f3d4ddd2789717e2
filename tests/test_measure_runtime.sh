#!/bin/sh
# test_measure_runtime.sh: the Measure pane's runtime row (issue 26) end to
# end (tmux): with VRAMLAB_BENCH_URL set, m measures the kernels (a fake
# probe) and then the server (tests/fake_openai.py), and the row shows the
# measured decode and first token beside the prediction for the scenario's
# GPU, the same figure `vramlab bench --json` predicts; r alone, with the
# URL unset, says how to give one; a server that is not there is a clear
# error on the row. Skips (77) without tmux or python3.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)

. "$top_srcdir/tests/tui_lib.sh"
tui_setup mrt
tui_need_tmux "the runtime row's tests"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 (the fake server) not found"; exit 77; }

python3 "$top_srcdir/tests/fake_openai.py" "$TMP/port" --token-ms 2 --prefill-ms 5 &
spid=$!
trap 'kill $spid 2>/dev/null; tui_cleanup' EXIT INT TERM
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
url=http://127.0.0.1:$(cat "$TMP/port")

# start NAME ENV... -- ARGS
start() {
    name=$1
    shift
    envs=""
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        envs="$envs $1"
        shift
    done
    [ "$#" -gt 0 ] && shift
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x 120 -y 32 \
        "env TERM=screen-256color VRAMLAB_PROBE='$FIX/fake-ok.sh' $envs '$VRAMLAB' $*; sleep 60"
}

SCEN="--model llama-3.1-8b --gpu h100-sxm --fresh"
start run VRAMLAB_BENCH_URL="$url" -- $SCEN
wait_for run "Roofline" || fail "run: no explorer"
tmux -L "$SOCK" send-keys -t run m
if wait_for run "decode" 150 && wait_for run "first token" 150; then
    row=$(capture run | grep "runtime")
    echo "$row" | grep -q "predicted" && ok "m then the server: the runtime row, measured and predicted" ||
        fail "runtime row: '$row'"
    # its prediction is bench's for the same load and GPU
    "$VRAMLAB" bench --url "$url" --gpu h100-sxm --concurrency 1 --repetitions 1 --warmup 0 \
        --prompt 64 --max-tokens 32 --json >"$TMP/b.json" 2>/dev/null
    want=$(python3 -c '
import json,sys
j=json.load(open(sys.argv[1]))
p=j["results"][0]["decode_tokens_per_s_per_sequence"]["predicted"]
print(("%.0f" % p) if p >= 100 else ("%.3g" % p))' "$TMP/b.json")
    echo "$row" | grep -q "predicted $want" && ok "the row's prediction is bench's ($want tok/s)" ||
        fail "the row's prediction: want $want in '$row'"
else
    fail "no runtime row"
    capture run
fi

start unset -- $SCEN
wait_for unset "Roofline" || fail "unset: no explorer"
# m measures the kernels (and focuses the pane); r then asks for a URL
tmux -L "$SOCK" send-keys -t unset m
wait_for unset "ratio" 80 || fail "unset: no kernel table"
tmux -L "$SOCK" send-keys -t unset r
wait_for unset "VRAMLAB_BENCH_URL=http://HOST:PORT" && ok "r without a URL says how to give one" ||
    { fail "r without a URL"; capture unset; }

start gone VRAMLAB_BENCH_URL=http://127.0.0.1:1 -- $SCEN
wait_for gone "Roofline" || fail "gone: no explorer"
tmux -L "$SOCK" send-keys -t gone m
wait_for gone "cannot reach http://127.0.0.1:1" 150 && ok "a server that is not there: the row says so" ||
    { fail "no error on the row"; capture gone; }

[ $fails -eq 0 ]
