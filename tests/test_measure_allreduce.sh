#!/bin/sh
# test_measure_allreduce.sh: the all-reduce's display (issue 15) from a
# recorded run (tests/fixtures/probe/fake-allreduce.sh: 4 MPI ranks on one
# host), no MPI needed: `vramlab measure --allreduce` text and --json (the
# engine's ring model beside each size, the fits, the flags to calibrate),
# `plan --measured-allreduce` on the saved object; the Measure pane (tmux,
# TERM=vt100, LANG=C, NO_COLOR=1) at 100x32, 80x24 and 140x45: x draws
# measured and predicted busbw by size, a calibrates the links and latency
# (the Speed pane's training time moves) and a again restores them, v
# cycles the views; x with the real probe on a CPU alone explains that one
# rank has nothing to reduce. Skips the pane (77 when nothing else ran)
# without tmux.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)
. "$top_srcdir/tests/tui_lib.sh"
tui_setup mar

# --- vramlab measure --allreduce ----------------------------------------------------
VRAMLAB_PROBE="$FIX/fake-allreduce.sh" "$VRAMLAB" measure --allreduce >"$TMP/m.raw" 2>"$TMP/m.err" ||
    fail "measure: $(cat "$TMP/m.err")"
# (a no-break space joins a number and its unit: engine/format.h)
sed "s/$TUI_NBSP/ /g" "$TMP/m.raw" >"$TMP/m.txt"
# the fixture's 1 MiB FP32 row: 807 us... whatever was recorded; the model's
# column is the engine's: 2 x 3/4 x 2^20 / 450e9 + 5e-6 = 8.50 us on h100-sxm
for want in "all-reduce over 4 ranks on 1 host (mpi); every sum checked on every rank" \
    "BW = 450 GB/s one way (h100-sxm's link 900 GB/s both ways, halved), latency 5.00 us" \
    "8.50 us" "fit fp32: t = " "calibrate (the fp32 fit): vramlab plan --intra-node-bw "; do
    grep -qF -- "$want" "$TMP/m.txt" || fail "measure text: '$want' missing"
done
grep -E "^fp32 +1.00 MiB .* 8.50 us " "$TMP/m.txt" >/dev/null &&
    ok "measure --allreduce: sizes beside the ring model, fits, the flags" ||
    { fail "measure text"; cat "$TMP/m.txt"; }
VRAMLAB_PROBE="$FIX/fake-allreduce.sh" "$VRAMLAB" measure --allreduce --json >"$TMP/m.json" ||
    fail "measure --json"
if command -v python3 >/dev/null 2>&1; then
    P="--model llama-3.1-8b --gpu h100-sxm --mode train --gpus 8 --tp 8"
    "$VRAMLAB" plan $P --json >"$TMP/p0.json"
    "$VRAMLAB" plan $P --json --measured-allreduce "$TMP/m.json" >"$TMP/p1.json" ||
        fail "plan --measured-allreduce"
    python3 - "$TMP/m.json" "$TMP/p0.json" "$TMP/p1.json" <<'PY' && ok "--json: the model beside each size; plan --measured-allreduce = the fit's flags" || fail "--json / plan"
import json, sys
m, p0, p1 = (json.load(open(f)) for f in sys.argv[1:4])
assert m["complete"] and m["results"] == [] and len(m["allreduce"]) == 20
r = [x for x in m["allreduce"] if x["dtype"] == "fp32" and x["bytes"] == 1048576][0]
want = 2 * 3 / 4 * 1048576 / 450e9 + 5e-6
assert abs(r["predicted_seconds"] - want) < 1e-15, r
assert abs(r["ratio"] - want / r["seconds"]) < 1e-12
assert m["allreduce_model"] == {"intra_node_bytes_per_s": 450e9, "inter_node_bytes_per_s": 50e9,
                                "latency_s": 5e-6}
assert p1["training"]["tp_comm_seconds"] > 10 * p0["training"]["tp_comm_seconds"]
PY
    # the same as the flags of the FP32 fit: intra-node = 2 x beta x 2(n-1)/n, latency = alpha
    flags=$(python3 -c "
import json, sys
f = [f for f in json.load(open(sys.argv[1]))['allreduce_fit'] if f['dtype'] == 'fp32'][0]
print('--intra-node-bw %.6fB/s --allreduce-latency %.9fus' % (2 * f['beta_bytes_per_s'] * 1.5, f['alpha_s'] * 1e6))" "$TMP/m.json")
    "$VRAMLAB" plan $P --json $flags >"$TMP/p2.json" &&
        python3 - "$TMP/p1.json" "$TMP/p2.json" <<'PY' && ok "--measured-allreduce sets $flags" || fail "flags: $flags"
import json, sys
a, b = (json.load(open(f))["training"] for f in sys.argv[1:3])
assert abs(a["tp_comm_seconds"] - b["tp_comm_seconds"]) <= 1e-9 * b["tp_comm_seconds"], (a, b)
assert abs(a["days"] - b["days"]) <= 1e-9 * b["days"]
PY
    # The flags the text report prints calibrate as its --json does (moved
    # here from test_allreduce_mpi.sh: a recorded run has a fit whatever the
    # load, so this holds on every machine, with MPI or without).
    tflags=$(sed -n 's/.*vramlab plan \(--intra-node-bw [^ ]* --allreduce-latency [^ ]*\).*/\1/p' "$TMP/m.txt")
    if [ -n "$tflags" ] && "$VRAMLAB" plan $P --json $tflags >"$TMP/q1.json" &&
        python3 - "$TMP/q1.json" "$TMP/p1.json" <<'PY'; then
import json, sys
a, b = (json.load(open(f))["training"]["tp_comm_seconds"] for f in sys.argv[1:3])
assert abs(a - b) <= 2e-3 * a, (a, b)  # the flags keep 4 significant digits (0.05% each)
PY
        ok "the printed flags ($tflags) calibrate as the --json file does"
    else
        fail "flags vs file: '$tflags'"
    fi
fi

# The progress line of the all-reduce on a terminal (the mechanism is
# test_measure_cpu.sh's): its steps are sizes, then it is cleared.
if command -v tmux >/dev/null 2>&1; then
    tmux -L "$SOCK" -f /dev/null new-session -d -s arprog -x 100 -y 10 \
        "env LANG=C TERM=vt100 VRAMLAB_PROBE='$FIX/fake-allreduce.sh' FAKE_PROBE_SLEEP=2 '$VRAMLAB' measure --allreduce >'$TMP/arprog.out'; echo \$? >'$TMP/arprog.rc'; sleep 30"
    wait_for arprog "all-reduce, size 11 of 20,  50%, about 2 s left" 100 &&
        ok "a terminal shows 'all-reduce, size i of N, time left'" ||
        { fail "no all-reduce progress line"; capture arprog; }
    i=0
    while [ $i -lt 300 ] && [ ! -s "$TMP/arprog.rc" ]; do sleep 0.1; i=$((i + 1)); done
    [ "$(cat "$TMP/arprog.rc" 2>/dev/null)" = 0 ] && ! capture arprog | grep -q "size 11 of" &&
        grep -q "^fit fp32: t = " "$TMP/arprog.out" &&
        ok "the progress line is cleared at the end, the report on stdout" ||
        fail "progress line left: $(capture arprog)"
    tmux -L "$SOCK" kill-session -t arprog 2>/dev/null
fi

if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux not found; the pane's checks need it"
    [ $fails -eq 0 ] && exit 0 || exit 1
fi

# start NAME W H PROBE -- ARGS: the explorer in tmux, its probe PROBE.
start() {
    name=$1 w=$2 h=$3 probe=$4
    shift 5
    mkdir -p "$TMP/$name"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" \
        "cd '$TMP/$name' && env TERM=vt100 LANG=C LC_ALL=C NO_COLOR=1 VRAMLAB_PROBE='$probe' '$VRAMLAB' $*; echo \$? > '$TMP/$name.rc'; sleep 60"
}
keys() {
    tmux -L "$SOCK" send-keys -t "$@"
    sleep 0.3
}
wait_exit() {
    i=0
    while [ $i -lt 300 ] && [ ! -s "$TMP/$1.rc" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    cat "$TMP/$1.rc" 2>/dev/null || echo none
}
# focus NAME: Tab to the Measure pane (its idle text names x).
focus() {
    tries=0 # not i: wait_for counts with i
    while [ $tries -lt 10 ]; do
        keys "$1" x
        wait_for "$1" "busbw" 10 && return 0
        keys "$1" Tab
        tries=$((tries + 1))
    done
    return 1
}
SCEN="--fresh --model llama-3.1-8b --gpu h100-sxm --mode train --gpus 8 --tp 8"
for size in 100x32 80x24 140x45; do
    w=${size%x*} h=${size#*x}
    n=s$w
    start $n $w $h "$FIX/fake-allreduce.sh" -- $SCEN
    wait_for $n "Roofline" || wait_for $n "Speed" || { fail "$size: no explorer"; continue; }
    if focus $n && wait_for $n "1.00 MiB"; then
        settle $n
        scr=$(cat "$TMP/settled")
        echo "$scr" | grep -q "4 ranks" && echo "$scr" | grep -qE "8 B +1.27 MB/s +2.40 MB/s" &&
            ok "$size: x draws measured and predicted busbw by size" ||
            { fail "$size: the chart"; echo "$scr"; }
    else
        fail "$size: x showed no all-reduce"
        capture $n
        continue
    fi
    keys $n a
    if wait_for $n "calibrated: intra-node"; then
        # the model moved onto the fit: the predicted busbw of 8 B is now the fit's
        capture $n | grep -qE "8 B +1.27 MB/s +2.40 MB/s" && fail "$size: the prediction did not move" ||
            ok "$size: a calibrates the links and latency; the prediction moves"
    else
        fail "$size: a"
        capture $n
    fi
    keys $n a
    wait_for $n "the scenario's link bandwidth and latency again" &&
        capture $n | grep -qE "8 B +1.27 MB/s +2.40 MB/s" && ok "$size: a again restores them" ||
        { fail "$size: a again"; capture $n; }
    keys $n v
    wait_for $n "busbw" 5 && fail "$size: v stayed on the all-reduce" || ok "$size: v leaves the all-reduce view"
    keys $n q
    [ "$(wait_exit $n)" = 0 ] || fail "$size: quit"
done

# The Speed pane's training time moves with a (100x32).
start days 100 32 "$FIX/fake-allreduce.sh" -- $SCEN
wait_for days "Roofline" || fail "days: no explorer"
before=$(capture days | sed -n 's/.*time *\([0-9,.]* days\).*/\1/p' | head -1)
focus days && keys days a && keys days Tab
after=$(capture days | sed -n 's/.*time *\([0-9,.]* days\).*/\1/p' | head -1)
[ -n "$before" ] && [ -n "$after" ] && [ "$before" != "$after" ] &&
    ok "the Speed pane's training time moves: $before -> $after" ||
    { fail "training time: '$before' -> '$after'"; capture days; }

# x with the real probe on a machine without GPU or launcher: explained.
if [ -x "$top_builddir/vramlab-probe" ] && ! command -v nvidia-smi >/dev/null 2>&1; then
    start real 100 32 "$(cd "$top_builddir" && pwd)/vramlab-probe" -- $SCEN
    wait_for real "Roofline" || fail "real: no explorer"
    tries=0
    while [ $tries -lt 10 ] && ! wait_for real "nothing to reduce" 20; do
        keys real Tab
        keys real x
        tries=$((tries + 1))
    done
    capture real | grep -q "one rank: nothing to reduce" && ok "x on one CPU: one rank, nothing to reduce" ||
        { fail "x with the real probe"; capture real; }
fi

[ $fails -eq 0 ]
