#!/bin/sh
# test_measure_pane.sh: the explorer's Measure pane end to end (tmux),
# driven by fake probes (tests/fixtures/probe through VRAMLAB_PROBE):
# progress bars while the UI stays live, the table and the scenario line
# (checked against `vramlab plan --measured-bw`), the error lab with the
# seed's claims, the Format pane's evidence, calibration (a) shown as such,
# saving (w) the `vramlab measure --json` object without overwriting, Esc
# mid-run (the probe is gone), an error event, a truncated stream, a probe
# killed by a signal, and a resize keeping the results. The calibration
# flag through `vramlab plan` (text and JSON). Skips (77) without tmux.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)

. "$top_srcdir/tests/tui_lib.sh"
tui_setup mpane

# --- the calibration flag through plan (no terminal needed) ----------------
SCEN="--model llama-3.1-8b --gpu h100-sxm --fresh"
PLAN="--model llama-3.1-8b --gpu h100-sxm"
"$VRAMLAB" plan $PLAN --measured-bw 3.0TB/s 2>&1 | sed "s/$TUI_NBSP/ /g" >"$TMP/plan.txt" ||
    fail "plan --measured-bw"
grep -q "calibrated: measured 3.00 TB/s replaces the data-sheet bandwidth" "$TMP/plan.txt" &&
    grep -q "bandwidth used *3.00 TB/s" "$TMP/plan.txt" && ok "plan text: calibrated, 3.00 TB/s" ||
    fail "plan text: $(cat "$TMP/plan.txt")"
if command -v python3 >/dev/null 2>&1; then
    "$VRAMLAB" plan $PLAN --json >"$TMP/p0.json" &&
        "$VRAMLAB" plan $PLAN --json --measured-bw 3.0TB/s --measured-flops 700T >"$TMP/p1.json" &&
        python3 - "$TMP/p0.json" "$TMP/p1.json" <<'PY' && ok "plan --json: the decode ceiling uses the measured rate; the warning" || fail "plan --json calibration"
import json, sys
p0, p1 = (json.load(open(f)) for f in sys.argv[1:3])
d0, d1 = p0["decode"], p1["decode"]
assert d1["bandwidth_bytes_per_s"] == 3e12, d1
r = d1["tokens_per_s_memory_bound"] / d0["tokens_per_s_memory_bound"]
assert abs(r - 3.0 / 3.35) < 1e-9, r
assert any(w.startswith("calibrated: measured 3.00 TB/s and 700 TFLOP/s") for w in p1["warnings"]), p1["warnings"]
assert not any(w.startswith("calibrated") for w in p0["warnings"])
PY
fi
for bad in 0 3TB -1GB/s; do
    if "$VRAMLAB" plan $PLAN --measured-bw "$bad" >/dev/null 2>"$TMP/bad.err"; then
        fail "--measured-bw $bad accepted"
    else
        grep -q "measured-bw" "$TMP/bad.err" || fail "--measured-bw $bad: $(cat "$TMP/bad.err")"
    fi
done
ok "--measured-bw refuses 0, a missing rate unit and a negative rate"

if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux not found; the Measure pane's end-to-end tests need it"
    [ $fails -eq 0 ] && exit 77 || exit 1
fi

# start NAME W H PROBE [ENV...] -- ARGS: run vramlab in $TMP/NAME (its
# working directory, where w saves) with VRAMLAB_PROBE=PROBE.
start() {
    name=$1 w=$2 h=$3 probe=$4
    shift 4
    envs=""
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        envs="$envs $1"
        shift
    done
    [ "$#" -gt 0 ] && shift
    mkdir -p "$TMP/$name"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x "$w" -y "$h" \
        "cd '$TMP/$name' && env TERM=screen-256color VRAMLAB_PROBE='$probe' $envs '$VRAMLAB' $*; echo \$? > '$TMP/$name.rc'; sleep 60"
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

# --- progress, a live UI, the table, the scenario line ------------------------
start run 100 30 "$FIX/fake-pane.sh" FAKE_PROBE_SLEEP=1 -- $SCEN
wait_for run "Roofline" || fail "run: no explorer"
keys run m
if wait_for run "measuring on NVIDIA H100 80GB HBM3" && wait_for run "copy (C)" &&
    capture run | grep -q "%"; then
    ok "m: progress bars per test"
else
    fail "m: no progress"
    capture run
fi
keys run u # GB -> GiB while the probe runs: the rest stays live
if capture run | grep -q "GiB" && capture run | grep -q "measuring on"; then
    ok "the explorer answers keys while measuring"
else
    fail "keys while measuring"
fi
keys run u
if wait_for run "ratio" 80; then
    settle run
    scr=$(cat "$TMP/settled")
    for want in "FP16 GEMV" "GEMM sweep" "W4A16 GEMV" "predicted: H100 SXM data sheet" \
        "FP16: predicted"; do
        echo "$scr" | grep -qF -- "$want" || fail "table: '$want' missing"
    done
    ok "the table: test, measured, predicted, ratio, of C"
else
    fail "no table"
    capture run
fi
# The scenario line equals plan with and without the measured GEMV rate.
if command -v python3 >/dev/null 2>&1; then
    "$VRAMLAB" plan $PLAN --json >"$TMP/a.json"
    "$VRAMLAB" plan $PLAN --json --measured-bw 2902359178378B/s >"$TMP/b.json"
    want=$(python3 -c "
import json, sys
a, b = (json.load(open(f))['decode']['tokens_per_s'] for f in sys.argv[1:3])
print('predicted ≤ %.0f tok/s, measured FP16 GEMV 2.90 TB/s gives ≤ %.0f tok/s' % (a, b))" "$TMP/a.json" "$TMP/b.json")
    capture run | grep -qF -- "$want" && ok "scenario line: $want" ||
        { fail "scenario line: want '$want'"; capture run | grep predicted; }
fi

# --- the error lab (v) --------------------------------------------------------
keys run v
if wait_for run "Pythia loss"; then
    settle run
    scr=$(cat "$TMP/settled")
    # seed 000: at 4 bits one scale per matrix puts ~2/3 of the outlier
    # weights on zero (error 0.53); groups of 32 hold (13%, 0.10)
    echo "$scr" | grep -E "^│4 " | grep -qF "0.100  13% 0.528  64% 2.66/10.7" &&
        echo "$scr" | grep -qF "one scale per matrix puts 64% on the zero mark" &&
        ok "error lab: per matrix breaks at 4 bits, per group holds" ||
        { fail "error lab rows"; echo "$scr"; }
else
    fail "v: no error lab"
fi
keys run v

# --- save (w): the measure --json object, never overwritten without y ------
keys run w
if wait_for run "saved vramlab-measure.json" && [ -s "$TMP/run/vramlab-measure.json" ]; then
    ok "w saves vramlab-measure.json"
    if command -v python3 >/dev/null 2>&1; then
        VRAMLAB_PROBE=$FIX/fake-pane.sh "$VRAMLAB" measure --json >"$TMP/measure.json"
        python3 - "$TMP/run/vramlab-measure.json" "$TMP/measure.json" <<'PY' && ok "the saved file is the measure --json object" || fail "saved JSON differs from measure --json"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a == b, (a.keys(), b.keys())
assert len(a["error_lab"]) == 28 and a["device"]["catalog_id"] is not None
PY
    fi
    echo mine >"$TMP/run/vramlab-measure.json"
    keys run w
    wait_for run "exists: y replaces it" && keys run n && wait_for run "kept vramlab-measure.json" &&
        [ "$(cat "$TMP/run/vramlab-measure.json")" = mine ] && ok "an existing file is kept unless y" ||
        fail "overwrite question"
    keys run w
    keys run y
    wait_for run "saved vramlab-measure.json" && grep -q '"results"' "$TMP/run/vramlab-measure.json" &&
        ok "y replaces it" || fail "y did not replace"
    ls -A "$TMP/run" | grep -q '^\.vramlab-measure' && fail "a temporary file was left"
else
    fail "w: not saved"
    capture run | tail -3
fi

# --- calibration (a): shown as such ------------------------------------------
keys run a
wait_for run "calibrated: 2.90 TB/s (gemv-fp16) and 709 TFLOP/s (gemm)" &&
    ok "a calibrates with the measured GEMV and GEMM" || fail "a: no note"
keys run Tab # focus leaves Measure: Speed and Roofline come back
# The GPU pane: the measured rate is the one used, the data sheet a note.
if wait_for run "memory, meas." && capture run | grep -qF "· 2.90 TB/s" &&
    capture run | grep -qE "(measured; data sheet|meas.; sheet|sheet) 3.35 TB/s" &&
    capture run | grep -qF "calibrated: measured 2.90 TB/s and 709 TFLOP/s"; then
    ok "calibrated figures shown as such (GPU pane, Speed, warning)"
else
    fail "calibration not shown"
    capture run
fi
# --- a resize keeps the session's results -------------------------------------
tmux -L "$SOCK" resize-window -t run -x 120 -y 40 2>/dev/null
sleep 0.3
wait_for run "FP16 GEMV" && ok "results kept across a resize" || fail "resize lost the results"
# Another GPU: the pane's calibration no longer applies (Model -> Format -> GPU).
keys run Tab
keys run Tab
keys run l
wait_for run "the measured figures no longer apply" && ! capture run | grep -qF "(measured)" &&
    ok "changing the GPU drops the pane's calibration" || fail "calibration kept for another GPU"
keys run q
[ "$(wait_exit run)" = 0 ] && ok "q exits 0" || fail "q after measuring"

# --- the Format pane: the seed's loss, then the kernels' error ----------------
start fmt 140 40 "$FIX/fake-pane.sh" -- $SCEN --format int4-g32
if wait_for fmt "2.66 g32|10.7 mat"; then
    ok "Format pane: the seed's Pythia-1.4B loss at 4 bits"
    keys fmt m
    wait_for fmt "err g32 0.10 mat 0.53" && ok "Format pane: the error lab's error at 4 bits" ||
        { fail "Format pane: no measured error"; capture fmt | head -10; }
    capture fmt | grep -qF "measured W4A16 GEMV 2.48 TB/s" &&
        ok "INT4 weights: the scenario uses the W4A16 GEMV" || fail "INT4: not the W4A16 rate"
else
    fail "Format pane: no evidence line"
    capture fmt | head -10
fi
keys fmt q

# --- Esc mid-run: cancelled, the probe gone, the explorer still there ---------
cp "$FIX/fake-pane.sh" "$TMP/slow-probe-$$.sh"
start esc 100 30 "$TMP/slow-probe-$$.sh" FAKE_PROBE_SLEEP=20 -- $SCEN
wait_for esc "Roofline"
keys esc m
if wait_for esc "measuring on"; then
    keys esc Escape
    sleep 0.3
    if wait_for esc "cancelled (m measures again)"; then
        ok "Esc cancels the run"
    else
        fail "Esc: not cancelled"
        capture esc | tail -16
    fi
    i=0
    while [ $i -lt 300 ] && pgrep -f "slow-probe-$$.sh --device" >/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    pgrep -f "slow-probe-$$.sh --device" >/dev/null && fail "the probe still runs after Esc" ||
        ok "no probe left after Esc"
    capture esc | grep -q "Memory per GPU" && ok "the explorer is still running" ||
        fail "Esc quit the explorer"
else
    fail "esc: never measuring"
fi
keys esc q

# --- Spanish: the pane's figures in the reader's marks -------------------------
# LC_ALL=es_ES.UTF-8: the table's ratios and fractions of C, the error lab's
# errors and losses, the calibration note and the Format pane's evidence
# with a decimal comma, and no '.'-marked decimal in the table's rows.
if locale -a 2>/dev/null | grep -qi '^es_ES\.utf-\?8$'; then
    start es 100 30 "$FIX/fake-pane.sh" LC_ALL=es_ES.UTF-8 LANGUAGE= -- $SCEN
    wait_for es "Medición" || fail "es: no Spanish explorer"
    keys es m
    if wait_for es "razón" 80 && wait_for es "GEMV W4A16"; then
        settle es
        # the rows from the header (prueba ... razón  de C) to the legend
        sed -n '/prueba .*razón/,/razón:/p' "$TMP/settled" | sed '1d;$d' >"$TMP/es-rows"
        # copy: 3.07 of the sheet's 3.35 TB/s (0.92), 1.00 of C
        grep -qE "^│copia \(C\) +3,07 TB/s +3,35 TB/s +0,92 +1,00" "$TMP/es-rows" &&
            grep -qE "^│GEMV W4A16 +2,48 TB/s +3,35 TB/s +0,74 +0,81" "$TMP/es-rows" &&
            ok "es: ratios and fractions of C with a decimal comma" ||
            { fail "es: the table's ratios"; cat "$TMP/settled"; }
        [ "$(wc -l <"$TMP/es-rows")" -ge 6 ] && ! grep -qE "[0-9]\.[0-9]" "$TMP/es-rows" &&
            ok "es: no '.'-marked decimal in the table's rows" ||
            { fail "es: a '.' decimal or too few rows"; cat "$TMP/es-rows"; }
    else
        fail "es: no table"
        capture es
    fi
    keys es v
    if wait_for es "pérd. Pythia"; then
        settle es
        grep -E "^│4 " "$TMP/settled" | grep -qF "0,100  13% 0,528  64% 2,66/10,7" &&
            grep -qF "pone el 64% en la marca del cero (error 0,53)" "$TMP/settled" &&
            ! grep -E "^│[2-8] " "$TMP/settled" | grep -qE "[0-9]\.[0-9]" &&
            ok "es: the error lab's errors and losses with a decimal comma" ||
            { fail "es: error lab"; cat "$TMP/settled"; }
        # the header's last word never runs into the chart's legend
        grep -qE "pérd\. Pythia +ceros " "$TMP/settled" || fail "es: the lab's header runs into its legend"
    else
        fail "es: v: no error lab"
    fi
    keys es v
    keys es a
    wait_for es "calibrado: 2,90 TB/s (gemv-fp16) y 709 TFLOP/s (gemm)" &&
        ok "es: the calibration note's rates through the formatter" ||
        { fail "es: calibration note"; capture es | tail -4; }
    keys es q
    start esf 140 40 "$FIX/fake-pane.sh" LC_ALL=es_ES.UTF-8 LANGUAGE= -- $SCEN --format int4-g32
    if wait_for esf "2,66 g32|10,7 mat"; then
        keys esf m
        wait_for esf "err g32 0,10 mat 0,53" && ok "es: the Format pane's loss and error with a comma" ||
            { fail "es: Format pane: no measured error"; capture esf | head -10; }
    else
        fail "es: Format pane: no evidence line"
        capture esf | head -10
    fi
    keys esf q
else
    echo "SKIP: the Spanish pane (no es_ES.UTF-8 locale)"
fi

# --- an error event, a truncated stream, a probe killed by a signal ---------
for case in "fake-error.sh:out of memory (cudaErrorMemoryAllocation)" \
    "fake-truncated.sh:ended in the middle of a line" \
    "fake-crash.sh:the probe exited with status 139" \
    "fake-garbage.sh:malformed probe line"; do
    fx=${case%%:*} msg=${case#*:}
    n=$(echo "$fx" | tr -c 'a-z\n' _)
    start "$n" 100 30 "$FIX/$fx" -- $SCEN
    wait_for "$n" "Roofline"
    keys "$n" m
    if wait_for "$n" "$msg"; then
        ok "$fx: '$msg' in the pane"
    else
        fail "$fx: no readable message"
        capture "$n" | tail -16
    fi
    keys "$n" q
    [ "$(wait_exit "$n")" = 0 ] || fail "$fx: the explorer did not exit 0"
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
