#!/bin/sh
# `vramlab measure` on the CPU backend, driven by tests/fixtures/probe/fake-cpu.sh
# (issue 11): the CPU compared with itself, never with a GPU's data sheet; a
# VM or an unknown CPU says so instead of a ratio; a catalog CPU on bare metal
# gets its data sheet (EPYC 9654: 12 x DDR5-4800 = 460.8 GB/s) and the ratio;
# GEMV at batch > 1 against the roofline min(fma-peak, C x FLOP/byte); copy
# against the STREAM-style reference; the --json additions; an older probe
# without the new members; --help lists the tests and --tests "" is a usage
# error; the progress line on a terminal (tmux), and nothing on stderr when it
# is not one. No timing assertions.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
FIX=$(cd "$top_srcdir/tests/fixtures/probe" && pwd)
fail=0
t=$(mktemp -d) || exit 99
# a CPU run is saved for --device cpu: here, not in the user\'s state
XDG_STATE_HOME=$t/state
export XDG_STATE_HOME
SOCK=vramlab-mcpu-$$
# the tmux socket in the scratch directory: private to this run
[ ${#t} -gt 60 ] || export TMUX_TMPDIR="$t"
unset TMUX
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$t"' EXIT

. "${top_srcdir:-.}/tests/check_lib.sh"
run() { # NAME=VALUE... -- args... -> $t/out, $t/err, $rc (the variables for the fake)
    (
        while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
            export "$1"
            shift
        done
        [ "$#" -gt 0 ] && shift
        VRAMLAB_PROBE="${PROBE:-$FIX/fake-cpu.sh}" "$VRAMLAB" measure "$@" >"$t/raw" 2>"$t/err"
        echo $? >"$t/rc"
    )
    rc=$(cat "$t/rc")
    # a no-break space joins a number and its unit in UTF-8 (engine/format.h)
    sed "s/$NBSP/ /g" "$t/raw" >"$t/out"
}
NBSP=$(printf '\302\240')

[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }
VRAMLAB=$(cd "$(dirname "$VRAMLAB")" && pwd)/vramlab

# --- a VM that says "AMD EPYC": itself, no ratio ---------------------------
run -- --device cpu
check "cpu run exits 0" [ "$rc" -eq 0 ]
check "the VM is named: unknown CPU (virtual machine)" \
    grep -q "catalog: unknown CPU (virtual machine)" "$t/out"
check "compared with itself, rates as fractions of C" \
    grep -q "compared with: itself, unknown CPU (virtual machine)" "$t/out"
check "no GPU anywhere in the comparison" sh -c "! grep -qiE 'h100|nvidia|catalog: h' '$t/out'"
grep -E '^(copy|read|fma-peak|gemv-fp16|gemv-bf16|w8a16|w4a16) +[a-z]' "$t/out" | grep -v "^copy with" >"$t/rows"
check "no prediction and no ratio on any row" \
    sh -c "[ \$(wc -l <'$t/rows') -eq 10 ] && ! grep -vE ' yes +- +- ' '$t/rows'"
check "C is the all-threads copy" grep -q "C (measured copy, read + write) = 9.80 GB/s" "$t/out"
check "the FMA peak and the ridge" grep -q "FMA peak (fma-peak, all threads) = 180 GFLOP/s.*ridge 18.4 FLOP/B" "$t/out"
check "the isa and the VM" grep -q "cpu: runs avx2 (available: avx2,scalar), 2 threads, virtual machine" "$t/out"
# roofline at batch 16: min(180e9, 9.8e9 x 1073741824/67633152) = 155.6e9;
# 127.006e9 / 155.6e9 = 0.816
check "batch 16 against the roofline" sh -c "grep '^gemv-fp16 .* x16 ' '$t/out' | grep -q ' 0.82 *$'"
check "batch 1 has no roofline column figure" sh -c "grep '^gemv-fp16 .* x1 ' '$t/out' | grep -q ' - *$'"
check "copy against the STREAM-style reference" \
    grep -q "copy with 2 threads / a STREAM-style copy in the same run: 9.80 GB/s / 10.1 GB/s = 0.97" "$t/out"
check "the probe's notes are shown" grep -q "note, w4a16 .*bound by unpacking" "$t/out"
check "on this machine: a kernel per weight width" sh -c "grep -q '^  bf16 *gemv-bf16 *8.80 GB/s  0.90 of C' '$t/out' && grep -q '^  4-bit *w4a16' '$t/out'"
check "on this machine: the A8 kernels beside, labelled" sh -c "grep -q '^  8-bit, x 8-bit *w8a8 *9.30 GB/s  0.95 of C  (what CPU runtimes run)' '$t/out' && grep -q '^  4-bit, x 8-bit *w4a8' '$t/out'"
check "what the A8 and A16 rows mean is said" grep -q "^w8a8, w4a8: the w8a16, w4a16 weights with x quantized to 8 bits" "$t/out"
check "what plan does with these figures is said" grep -q "plan --measured-bw" "$t/out"
check "stderr is not a terminal: nothing on it" [ ! -s "$t/err" ]

if command -v python3 >/dev/null 2>&1; then
    run -- --json
    python3 - "$t/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dev = d["device"]
for k in ("name", "backend", "memory_bytes", "theoretical_bytes_per_s", "catalog_id", "catalog_cpu_id"):
    assert k in dev, k
assert dev["catalog_id"] is None and dev["catalog_cpu_id"] is None, dev
assert dev["isa"] == "avx2" and dev["virtual"] is True
assert d["complete"] is True and d["error"] is None
for r in d["results"]:
    for k in ("test", "bytes", "seconds", "bytes_per_s", "best_bytes_per_s", "flop_per_s",
              "spread", "samples", "verified", "ratio", "fraction_of_copy"):
        assert k in r, (r["test"], k)
    assert r["ratio"] is None, r  # a VM: no data-sheet ratio
g16 = [r for r in d["results"] if r["test"] == "gemv-fp16" and r["batch"] == 16][0]
roof = min(180e9, 9.8e9 * 1073741824 / 67633152)
assert abs(g16["roofline_flop_per_s"] - roof) < 1, g16
assert abs(g16["fraction_of_roofline"] - 127006000000 / roof) < 1e-9
copy = [r for r in d["results"] if r["test"] == "copy" and r["threads"] == 2][0]
assert abs(copy["fraction_of_reference"] - 9.8 / 10.1) < 1e-12
fma = [r for r in d["results"] if r["test"] == "fma-peak"][0]
assert fma["predicted_flop_per_s"] is None and fma["fraction_of_copy"] is None
h = d["on_this_machine"]
assert h["comparison"] == "unknown-cpu-virtual-machine" and h["ratio"] is None, h
assert h["message"].startswith("unknown CPU (virtual machine)")
assert h["ceiling_bytes_per_s"] == 9.8e9 and h["fma_peak_flop_per_s"] == 180e9
assert abs(h["ridge_flop_per_byte"] - 180 / 9.8) < 1e-9
assert [(k["weights"], k["test"], k["nearest"], k["activation_bits"]) for k in h["decode"]] == [
    ("fp16", "gemv-fp16", False, 16), ("bf16", "gemv-bf16", False, 16),
    ("8-bit", "w8a16", False, 16), ("4-bit", "w4a16", False, 16),
    ("8-bit", "w8a8", False, 8), ("4-bit", "w4a8", False, 8)], h["decode"]
# the probe's weight rates pass through to results (a later CPU-as-a-device reads them)
a8 = [r for r in d["results"] if r["test"] == "w8a8"][0]
assert a8["weights_per_s"] == 8745000000 and a8["activation_bits"] == 8, a8
PY
    check "json: the VM's keys, no ratio, roofline, reference, on_this_machine" [ $? -eq 0 ]

    # a catalog CPU on bare metal: its data sheet and the ratio
    run FAKE_PROBE_NAME="AMD EPYC 9654 96-Core Processor" FAKE_PROBE_VIRTUAL=false -- --json
    python3 - "$t/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["device"]["catalog_cpu_id"] == "epyc-9654" and d["device"]["catalog_id"] is None
h = d["on_this_machine"]
# AMD's data sheet: 12 channels x 8 bytes x 4800 MT/s = 460.8 GB/s
assert abs(h["data_sheet_bytes_per_s"] - 460.8e9) < 1, h
assert abs(h["ratio"] - 9.8e9 / 460.8e9) < 1e-12, h
assert h["comparison"] == "data-sheet"
read = [r for r in d["results"] if r["test"] == "read"][0]
assert abs(read["predicted_bytes_per_s"] - 460.8e9) < 1 and abs(read["ratio"] - 10.5 / 460.8) < 1e-12
PY
    check "json: EPYC 9654 bare metal, data sheet 460.8 GB/s and the ratio" [ $? -eq 0 ]

    # the same part in a VM: named, still no ratio
    run FAKE_PROBE_NAME="AMD EPYC 9654 96-Core Processor" -- --json
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); h = d['on_this_machine']
assert h['catalog_cpu_id'] == 'epyc-9654' and h['comparison'] == 'virtual-machine' and h['ratio'] is None
assert all(r['ratio'] is None for r in d['results'])" "$t/out"
    check "json: a known part in a VM gets no ratio" [ $? -eq 0 ]

    # an older probe: no isa, virtual, fma-peak, bf16, reference, note
    run FAKE_PROBE_OLD=1 -- --json
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); h = d['on_this_machine']
assert h['virtual'] is None and h['isa'] is None and h['fma_peak_flop_per_s'] is None, h
assert h['comparison'] == 'unknown-cpu'
bf = [k for k in h['decode'] if k['weights'] == 'bf16'][0]
assert bf['test'] == 'gemv-fp16' and bf['nearest'] is True, bf
assert not any('fraction_of_reference' in r for r in d['results'])" "$t/out"
    check "json: an older probe is unknown, never a crash; bf16 uses the nearest kernel" [ $? -eq 0 ]
fi
run FAKE_PROBE_OLD=1 --
check "text: an older probe runs" [ "$rc" -eq 0 ]
check "text: an older probe does not say VM or not" grep -q "virtual machine or not: not said" "$t/out"

# --- a GPU stays compared with its catalog GPU ------------------------------
VRAMLAB_PROBE=$FIX/fake-ok.sh "$VRAMLAB" measure --json >"$t/out" 2>"$t/err"
check "a GPU run has on_this_machine null and its catalog GPU" \
    sh -c "grep -q '\"on_this_machine\": *null' '$t/out' && grep -q '\"catalog_id\": *\"h100' '$t/out'"

# --- the report in the reader's language (issue: measure's text report) ------
# es_ES.UTF-8: Spanish words, decimal commas, the tables still aligned with
# accented headers; the calibrate flags stay as plan reads them ('.').
if ! locale -a 2>/dev/null | grep -qi '^es_ES\.utf-\?8$'; then
    echo "SKIP - the Spanish report (no es_ES.UTF-8 locale)"
else
    run LC_ALL=es_ES.UTF-8 LANGUAGE= -- --device cpu
    check "es_ES: exits 0" [ "$rc" -eq 0 ]
    check "es_ES: C in Spanish with a decimal comma" \
        grep -q "^C (copia medida, lectura + escritura) = 9,80 GB/s$" "$t/out"
    check "es_ES: the cpu line in Spanish" \
        grep -q "^cpu: ejecuta avx2 (disponibles: avx2,scalar), 2 hilos, máquina virtual$" "$t/out"
    check "es_ES: compared with itself, in Spanish" \
        grep -q "^comparado con: sí misma, CPU desconocida (máquina virtual): sin ficha técnica" "$t/out"
    check "es_ES: the copy against STREAM with commas" \
        grep -q "^copia con 2 hilos / .*: 9,80 GB/s / 10,1 GB/s = 0,97$" "$t/out"
    check "es_ES: on this machine, translated widths and fractions of C" \
        grep -q "^  8 bits, x 8 bits w8a8 *9,30 GB/s  0,95 de C  (lo que ejecutan los runtimes de CPU)$" "$t/out"
    check "es_ES: the cores' note said again in Spanish from its field" \
        grep -q "limitada por los núcleos: 7,85 GB/s desde la caché" "$t/out"
    check "es_ES: the error lab's figures" grep -q "^4 *32 *outliers *0,1003 *13,2% *12,8$" "$t/out"
    check "es_ES: no figure with a '.' decimal mark" sh -c "! grep -E '[0-9]\.[0-9]' '$t/out'"
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$t/out" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = [i for i, l in enumerate(lines) if l.startswith("prueba ")][0]
assert "dispersión" in lines[head] and "de techo" in lines[head], lines[head]
table = lines[head:head + 13]  # the header and the 12 rows
assert all(l.split()[0] in ("prueba", "copy", "read", "fma-peak", "gemv-fp16", "gemv-bf16",
                            "w8a16", "w4a16", "w8a8", "w4a8") for l in table), table
# every row as wide as the header, in characters (not bytes); each cell
# ends under its header's last letter
assert len({len(l) for l in table}) == 1, [len(l) for l in table]
for word in ("medido", "dispersión", "razón", "de C"):
    end = lines[head].index(word) + len(word)
    assert all(l[end - 1] != " " and (end == len(l) or l[end] == " ") for l in table[1:]), word
PY
        check "es_ES: the table's columns line up under accented headers" [ $? -eq 0 ]
    fi
    run -- --json
    cp "$t/raw" "$t/c.json"
    run LC_ALL=es_ES.UTF-8 LANGUAGE= -- --json
    check "es_ES: --json is the C locale's, byte for byte" cmp -s "$t/raw" "$t/c.json"
    # the all-reduce: Spanish table and fits, the flags as in C and read back
    run PROBE="$FIX/fake-allreduce.sh" LC_ALL=es_ES.UTF-8 LANGUAGE= -- --allreduce
    check "es_ES all-reduce: exits 0" [ "$rc" -eq 0 ]
    check "es_ES all-reduce: the header and a row with commas" sh -c \
        "grep -q '^all-reduce sobre 4 rangos en 1 anfitrión (mpi)' '$t/out' && grep -qE '^fp32 +1,00 MiB +1,21 ms .* 8,50 us ' '$t/out'"
    check "es_ES all-reduce: the fit in Spanish" grep -q "^ajuste fp32: t = 10,1 us + bytes / 726 MB/s (enlace 1,09 GB/s" "$t/out"
    esflags=$(sed -n 's/^calibrar (el ajuste fp32): vramlab plan \(--intra-node-bw [0-9.]*GB\/s --allreduce-latency [0-9.]*us\)$/\1/p' "$t/out")
    run PROBE="$FIX/fake-allreduce.sh" -- --allreduce
    cflags=$(sed -n 's/^calibrate (the fp32 fit): vramlab plan \(--intra-node-bw [^ ]* --allreduce-latency [^ ]*\)$/\1/p' "$t/out")
    check "es_ES all-reduce: the calibrate flags keep '.' ($esflags)" \
        sh -c "[ -n '$esflags' ] && [ '$esflags' = '$cflags' ]"
    P="--model llama-3.1-8b --gpu h100-sxm --mode train --gpus 8 --tp 8"
    # shellcheck disable=SC2086
    if LC_ALL=es_ES.UTF-8 LANGUAGE= "$VRAMLAB" plan $P --json $esflags >"$t/pes.json" 2>"$t/err" &&
        "$VRAMLAB" plan $P --json $cflags >"$t/pc.json" && "$VRAMLAB" plan $P --json >"$t/p0.json"; then
        check "es_ES: plan reads the flags back as in C" sh -c \
            "python3 -c \"
import json, sys
a, b, c = (json.load(open(f))['training']['tp_comm_seconds'] for f in sys.argv[1:4])
assert a == b and a > 10 * c, (a, b, c)\" '$t/pes.json' '$t/pc.json' '$t/p0.json'"
    else
        check "es_ES: plan takes the printed flags ($(cat "$t/err"))" false
    fi
fi

# --- --help and --tests ------------------------------------------------------
"$VRAMLAB" measure --help >"$t/out" 2>&1
for test in copy read fma-peak gemv-fp16 gemv-bf16 gemm quantize dequantize w8a16 w4a16 w8a8 w4a8 error; do
    grep -q "^  $test " "$t/out" || { echo "FAIL - --help lacks $test"; fail=1; }
done
echo "ok   - --help lists the test names"
for bad in "" "," "copy,,read" "copy,"; do
    VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" measure --tests "$bad" >"$t/out" 2>"$t/err"
    rc=$?
    check "--tests '$bad' is a usage error naming the flag" \
        sh -c "[ $rc -eq 2 ] && grep -q -- '--tests' '$t/err' && [ ! -s '$t/out' ]"
done
VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" measure --tests= >"$t/out" 2>"$t/err"
check "--tests= is a usage error" [ $? -eq 2 ]
VRAMLAB_PROBE=$FIX/fake-cpu.sh "$VRAMLAB" measure --tests >"$t/out" 2>"$t/err"
rc=$?
check "--tests without a value is a usage error" sh -c "[ $rc -eq 2 ] && grep -q 'needs a value' '$t/err'"

# --- the progress line on a terminal -----------------------------------------
if command -v tmux >/dev/null 2>&1; then
    # stdout to a file, stderr the terminal: the progress shows, then goes
    tmux -L "$SOCK" -f /dev/null new-session -d -s prog -x 100 -y 10 \
        "env LANG=C TERM=vt100 VRAMLAB_PROBE='$FIX/fake-cpu.sh' FAKE_PROBE_SLEEP=2 '$VRAMLAB' measure >'$t/prog.out'; echo \$? >'$t/prog.rc'; sleep 30"
    seen=no
    i=0
    while [ $i -lt 300 ]; do
        if tmux -L "$SOCK" capture-pane -p -t prog | grep -q "test [0-9] of 9, [a-z0-9-]*, *[0-9]*%, about [0-9.]* s left"; then
            seen=yes
            break
        fi
        sleep 0.1
        i=$((i + 1))
    done
    check "a terminal shows 'test i of N, name, time left'" [ $seen = yes ]
    i=0
    while [ $i -lt 300 ] && [ ! -s "$t/prog.rc" ]; do sleep 0.1; i=$((i + 1)); done
    check "the run ends 0" [ "$(cat "$t/prog.rc" 2>/dev/null)" = 0 ]
    check "the progress line is cleared at the end" \
        sh -c "! tmux -L '$SOCK' capture-pane -p -t prog | grep -q 'test [0-9] of'"
    check "the report went to stdout" grep -q "^C (measured copy" "$t/prog.out"
else
    echo "SKIP - the progress line (no tmux)"
fi
exit $fail
