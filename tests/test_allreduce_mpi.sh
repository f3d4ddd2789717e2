#!/bin/sh
# test_allreduce_mpi.sh: the all-reduce across processes with a real MPI
# (issue 15), on one machine: `mpirun -n 2` and `-n 4` with --device cpu
# (MPI_Allreduce on host buffers): correct sums (verified on every rank),
# well-formed JSON with the names of the issue, busbw = algbw x 2(n-1)/n,
# the fit positive and finite, the text report of `vramlab measure
# --allreduce --mpirun`, its --json read back by `plan --measured-allreduce`;
# a rank killed mid-run and a rank stopped mid-run each end the job with a
# clear error, bounded by the deadline (no hang); bad input refused or
# explained (one rank, --sizes 0, a size above memory, an unknown dtype).
# As root Open MPI needs --allow-run-as-root; --oversubscribe lets 4 ranks
# share 2 cores. Skips (77) when the probe was built without MPI
# (configure --with-mpi) or no mpirun is found. No timing is asserted
# except that a failing job ends within its deadline's bound.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
PROBE=$(cd "$top_builddir" && pwd)/vramlab-probe
VRAMLAB=$(cd "$top_builddir" && pwd)/vramlab
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

[ -x "$PROBE" ] || { echo "FAIL: $PROBE not built"; exit 1; }
if ! "$PROBE" --build-info | grep -q '"mpi":true'; then
    echo "SKIP: vramlab-probe was built without MPI (configure --with-mpi)"
    exit 77
fi
MPIRUN=${MPIRUN:-$(command -v mpirun || command -v mpiexec || true)}
[ -n "$MPIRUN" ] || { echo "SKIP: no mpirun"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 checks the JSON"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-armpi.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
# Open MPI's own allocations are not ours to check (an ASan build)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
ROOT=""
[ "$(id -u)" = 0 ] && ROOT="--allow-run-as-root"
MPI="$MPIRUN --oversubscribe $ROOT"
# a job that hangs fails here instead of holding the suite
LIMIT="timeout -k 5 120"

# --- -n 2 and -n 4: sums, JSON, formulas, fit ---------------------------------
for n in 2 4; do
    $LIMIT $MPI -n $n "$PROBE" --allreduce --device cpu --sizes 8-256K >"$TMP/n$n.jsonl" \
        2>"$TMP/n$n.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "-n $n: exit $rc: $(tail -3 "$TMP/n$n.err")"
        continue
    fi
    if python3 - "$TMP/n$n.jsonl" $n <<'PY'; then
import json, math, sys
path, n = sys.argv[1], int(sys.argv[2])
ev = [json.loads(l) for l in open(path)]
res = [e for e in ev if e["event"] == "result"]
fits = [e for e in ev if e["event"] == "fit"]
assert sum(e["event"] == "device" for e in ev) == 1, "one device event (rank 0 writes)"
assert not [e for e in ev if e["event"] == "error"], "no error"
# 8 B to 256 KiB by 4 (then 256 KiB itself): 9 sizes, FP32 and BF16
assert len(res) == 18, len(res)
assert sorted({e["dtype"] for e in res}) == ["bf16", "fp32"]
for e in res:
    for k in ("test", "bytes", "ranks", "seconds", "algbw_bytes_per_s", "busbw_bytes_per_s",
              "transport"):
        assert k in e, k
    assert e["test"] == "allreduce" and e["transport"] == "mpi" and e["ranks"] == n
    assert e["verified"] is True and e["max_error"] == 0
    assert e["samples"] >= 20, e["samples"]
    alg, bus, t = e["algbw_bytes_per_s"], e["busbw_bytes_per_s"], e["seconds"]
    assert t > 0 and math.isfinite(t)
    assert abs(alg - e["bytes"] / t) <= 1e-6 * alg, (alg, e["bytes"] / t)
    assert abs(bus - alg * 2 * (n - 1) / n) <= 1e-6 * bus, (bus, alg)
    assert e["count"] * (4 if e["dtype"] == "fp32" else 2) == e["bytes"]
assert len(fits) == 2, fits
for f in fits:
    assert f["ok"] and f["ranks"] == n and f["points"] == 9
    for k in ("alpha_s", "beta_bytes_per_s", "residual"):
        assert math.isfinite(f[k]) and f[k] >= 0, (k, f[k])
    assert f["beta_bytes_per_s"] > 0
    assert abs(f["bus_beta_bytes_per_s"] - f["beta_bytes_per_s"] * 2 * (n - 1) / n) <= \
        1e-6 * f["bus_beta_bytes_per_s"]
PY
        ok "-n $n --device cpu: 18 verified sizes, busbw = algbw x 2(n-1)/n, two fits"
    else
        fail "-n $n: the JSON lines"
        head -3 "$TMP/n$n.jsonl"
    fi
done

# --- vramlab measure --allreduce --mpirun: the text report and --json ---------
M="$VRAMLAB measure --allreduce --device cpu --sizes 8-64K --mpirun"
if $LIMIT $M "$MPI -n 2" >"$TMP/m.txt" 2>"$TMP/m.err"; then
    for want in "all-reduce over 2 ranks on 1 host (mpi)" "predicted: the engine's ring model" \
        "fit fp32: t = " "fit bf16: t = " "calibrate (the fp32 fit): vramlab plan --intra-node-bw" \
        "busbw = algbw x 2(n-1)/n"; do
        grep -qF -- "$want" "$TMP/m.txt" || fail "measure text: '$want' missing"
    done
    [ "$(grep -c '^fp32 .* yes ' "$TMP/m.txt")" = 8 ] && ok "measure --allreduce: the text report" ||
        { fail "measure text rows"; cat "$TMP/m.txt"; }
    flags=$(sed -n 's/.*vramlab plan \(--intra-node-bw [^ ]* --allreduce-latency [^ ]*\).*/\1/p' \
        "$TMP/m.txt")
else
    fail "measure --allreduce --mpirun: $(cat "$TMP/m.err")"
    flags=""
fi
if $LIMIT $M "$MPI -n 2" --json >"$TMP/m.json" 2>"$TMP/mj.err"; then
    P="--model llama-3.1-8b --gpu h100-sxm --mode train --gpus 8 --tp 8"
    "$VRAMLAB" plan $P --json >"$TMP/p0.json" &&
        "$VRAMLAB" plan $P --json --measured-allreduce "$TMP/m.json" >"$TMP/p1.json" ||
        fail "plan --measured-allreduce: $(cat "$TMP/mj.err")"
    python3 - "$TMP/m.json" "$TMP/p0.json" "$TMP/p1.json" <<'PY' &&
import json, sys
m, p0, p1 = (json.load(open(f)) for f in sys.argv[1:4])
assert m["complete"] and len(m["allreduce"]) == 16 and len(m["allreduce_fit"]) == 2
for r in m["allreduce"]:
    assert r["predicted_seconds"] > 0 and r["ratio"] > 0
t0, t1 = p0["training"]["tp_comm_seconds"], p1["training"]["tp_comm_seconds"]
assert t1 > t0, (t0, t1)  # host shared memory is slower than NVLink
assert p1["training"]["days"] > p0["training"]["days"]
PY
        ok "measure --json; plan --measured-allreduce moves TP communication and training time" ||
        fail "measure --json / plan --measured-allreduce"
    if "$VRAMLAB" plan $P --measured-allreduce "$TMP/m.json" --allreduce-latency 5us \
        >/dev/null 2>"$TMP/clash.err"; then
        fail "--measured-allreduce with --allreduce-latency accepted"
    else
        grep -q "give either the file or those flags" "$TMP/clash.err" &&
            ok "--measured-allreduce and the flags it sets: refused" || fail "$(cat "$TMP/clash.err")"
    fi
else
    fail "measure --json: $(cat "$TMP/mj.err")"
fi

# --- the flags the text report prints calibrate as its --json does ------------------
# (one recorded run, the -n 2 lines above, replayed as a fake probe)
printf '#!/bin/sh\ncat "%s"\n' "$TMP/n2.jsonl" >"$TMP/replay.sh"
chmod +x "$TMP/replay.sh"
P="--model llama-3.1-8b --gpu h100-sxm --mode train --gpus 8 --tp 8"
VRAMLAB_PROBE="$TMP/replay.sh" "$VRAMLAB" measure --allreduce >"$TMP/r.txt" &&
    VRAMLAB_PROBE="$TMP/replay.sh" "$VRAMLAB" measure --allreduce --json >"$TMP/r.json" ||
    fail "replayed measure"
flags=$(sed -n 's/.*vramlab plan \(--intra-node-bw [^ ]* --allreduce-latency [^ ]*\).*/\1/p' "$TMP/r.txt")
if [ -n "$flags" ] && "$VRAMLAB" plan $P --json $flags >"$TMP/q1.json" &&
    "$VRAMLAB" plan $P --json --measured-allreduce "$TMP/r.json" >"$TMP/q2.json" &&
    python3 - "$TMP/q1.json" "$TMP/q2.json" <<'PY'; then
import json, sys
a, b = (json.load(open(f))["training"]["tp_comm_seconds"] for f in sys.argv[1:3])
assert abs(a - b) <= 2e-3 * a, (a, b)  # the flags keep 4 significant digits (0.05% each)
PY
    ok "the printed flags ($flags) calibrate as the --json file does"
else
    fail "flags vs file: '$flags'"
fi

# --- a rank killed or stopped mid-run: a clear error, no hang ----------------------
# run_fault SIGNAL: start 4 ranks on sizes that last a while, wait for the
# first result, signal rank 1, and return when the job ends.
run_fault() {
    rm -f "$TMP/f.jsonl"
    $LIMIT $MPI -n 4 "$PROBE" --allreduce --device cpu --sizes 8-64M --deadline 3 \
        >"$TMP/f.jsonl" 2>"$TMP/f.err" &
    job=$!
    i=0
    while [ $i -lt 300 ] && ! grep -q '"result"' "$TMP/f.jsonl" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    # rank 1: among the launcher's children, the probe whose environment
    # names it (Open MPI's OMPI_COMM_WORLD_RANK, else PMI_RANK)
    victim=""
    for l in $(pgrep -P $job); do
        for p in $(pgrep -P "$l" -x vramlab-probe); do
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
                grep -qxE "(OMPI_COMM_WORLD_RANK|PMI_RANK)=1" && victim=$p
        done
    done
    start=$(date +%s)
    [ -n "$victim" ] && kill -"$1" "$victim"
    wait $job
    rc=$?
    took=$(($(date +%s) - start))
    [ -n "$victim" ] || rc=-1
}
run_fault KILL
if [ $rc -gt 0 ] && [ $rc -ne 124 ] && [ $took -lt 60 ] &&
    grep -q '"event":"error"' "$TMP/f.jsonl" &&
    grep -q 'another rank failed or the job was cancelled' "$TMP/f.jsonl"; then
    ok "a rank killed mid-run: the job ends (exit $rc, ${took}s) and the others say why"
else
    fail "killed rank: rc $rc after ${took}s: $(grep error "$TMP/f.jsonl" | head -2) $(tail -3 "$TMP/f.err")"
fi
run_fault STOP
if [ $rc -gt 0 ] && [ $rc -ne 124 ] && [ $took -lt 60 ] &&
    grep -q '"code":"deadline"' "$TMP/f.jsonl" && grep -q 'did not finish within 3 s' "$TMP/f.jsonl"; then
    ok "a rank stopped mid-run: the deadline ends the job (exit $rc, ${took}s)"
else
    fail "stopped rank: rc $rc after ${took}s: $(grep error "$TMP/f.jsonl" | head -2)"
fi

# --- bad input --------------------------------------------------------------------
$LIMIT $MPI -n 1 "$PROBE" --allreduce --device cpu >"$TMP/one.jsonl" 2>/dev/null
rc=$?
[ $rc -ne 0 ] && grep -q "one rank: nothing to reduce" "$TMP/one.jsonl" &&
    ok "-n 1: one rank: nothing to reduce (exit $rc)" || fail "-n 1: $(cat "$TMP/one.jsonl")"
"$PROBE" --allreduce --device cpu >"$TMP/alone.jsonl"
rc=$?
[ $rc -eq 2 ] && grep -q "one rank: nothing to reduce.*mpirun -n 2" "$TMP/alone.jsonl" &&
    ok "no launcher: one rank, and how to run it" || fail "alone: rc $rc $(cat "$TMP/alone.jsonl")"
$LIMIT $MPI -n 2 "$PROBE" --allreduce --device cpu --sizes 0 >"$TMP/zero.jsonl" 2>/dev/null
grep -q '"code":"usage"' "$TMP/zero.jsonl" && grep -q "0 bytes: nothing to reduce" "$TMP/zero.jsonl" &&
    ok "--sizes 0 refused" || fail "--sizes 0: $(cat "$TMP/zero.jsonl")"
$LIMIT $MPI -n 2 "$PROBE" --allreduce --device cpu --sizes 64G >"$TMP/big.jsonl" 2>/dev/null
rc=$?
[ $rc -eq 4 ] && grep -q '"code":"out-of-memory"' "$TMP/big.jsonl" &&
    grep -q "64 GiB needs 128 GiB per rank" "$TMP/big.jsonl" &&
    ok "a size above memory: refused before allocating" || fail "64G: rc $rc $(cat "$TMP/big.jsonl")"
"$PROBE" --allreduce --dtypes fp8 >"$TMP/dt.jsonl"
[ $? -eq 2 ] && grep -q "expected fp32 or bf16, found 'fp8'" "$TMP/dt.jsonl" &&
    ok "--dtypes fp8 refused" || fail "--dtypes: $(cat "$TMP/dt.jsonl")"
$LIMIT $MPI -n 2 "$PROBE" --tests copy >"$TMP/copy.jsonl" 2>/dev/null
grep -q "under an MPI launcher the probe runs only the all-reduce" "$TMP/copy.jsonl" &&
    ok "other tests under mpirun: refused" || fail "--tests copy under mpirun: $(cat "$TMP/copy.jsonl")"

[ $fails -eq 0 ] && echo "all-reduce over MPI: all checks passed"
[ $fails -eq 0 ]
