#!/bin/sh
# test_allreduce_mpi.sh: the all-reduce across processes with a real MPI
# (issue 15), on one machine: `mpirun -n 2` and `-n 4` with --device cpu
# (MPI_Allreduce on host buffers): correct sums (verified on every rank),
# well-formed JSON with the names of the issue, busbw = algbw x 2(n-1)/n,
# one fit per type reported whether it succeeded or not (its numbers when
# it did, nulls when not: the form, never the quality), the default time
# budget's form (5..20 samples, the sizes above one that outruns it left
# out and said so), the text report of `vramlab measure --allreduce
# --mpirun`, its --json read back by `plan --measured-allreduce` (or
# refused, naming why, when the fit found no bandwidth); a rank killed
# mid-run and a rank stopped mid-run each end the job with a clear error
# (no hang: the job ends by itself, before the guard's timeout); bad input
# refused or explained (one rank, --sizes 0, a size above memory, an
# unknown dtype, a bad --budget).
# As root Open MPI needs --allow-run-as-root; --oversubscribe lets 4 ranks
# share 2 cores. Skips (77) when the probe was built without MPI
# (configure --with-mpi) or no mpirun is found. No timing and no quality
# of a measurement is asserted here (a loaded machine gives any times):
# tests/bench_allreduce.sh (make bench) reports the fits and the default
# sweep's wall time (docs/measurements.md).
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
# a job that hangs fails here instead of holding the suite (a guard, not a
# pace: the probe's own --deadline stops a stuck collective first; with two
# builds' suites on two cores, four ranks can take minutes)
LIMIT="timeout -k 5 600"

# --- -n 2 and -n 4: sums, JSON, formulas, fit ---------------------------------
# --budget 0: every size with 20 samples (the form of the full sweep; the
# default's budget is checked below); 6 sizes, 8 B to 256 KiB by 8.
for n in 2 4; do
    $LIMIT $MPI -n $n "$PROBE" --allreduce --device cpu --sizes 8-256Kx8 --budget 0 \
        >"$TMP/n$n.jsonl" 2>"$TMP/n$n.err"
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
# 8 B to 256 KiB by 8: 6 sizes, FP32 and BF16
assert len(res) == 12, len(res)
assert sorted({e["dtype"] for e in res}) == ["bf16", "fp32"]
for e in res:
    for k in ("test", "bytes", "ranks", "seconds", "algbw_bytes_per_s", "busbw_bytes_per_s",
              "transport"):
        assert k in e, k
    assert e["test"] == "allreduce" and e["transport"] == "mpi" and e["ranks"] == n
    assert e["verified"] is True and e["max_error"] == 0
    assert e["samples"] == 20, e["samples"]  # no budget: --iters' default
    assert "note" not in e, e  # nothing left out
    alg, bus, t = e["algbw_bytes_per_s"], e["busbw_bytes_per_s"], e["seconds"]
    assert t > 0 and math.isfinite(t)
    assert abs(alg - e["bytes"] / t) <= 1e-6 * alg, (alg, e["bytes"] / t)
    assert abs(bus - alg * 2 * (n - 1) / n) <= 1e-6 * bus, (bus, alg)
    assert e["count"] * (4 if e["dtype"] == "fp32" else 2) == e["bytes"]
# one fit per type, reported whether it succeeded or not: its figures when
# it did, nulls when the times did not grow with the size (a loaded machine)
assert len(fits) == 2 and sorted(f["dtype"] for f in fits) == ["bf16", "fp32"], fits
for f in fits:
    assert isinstance(f["ok"], bool) and f["ranks"] == n and f["points"] == 6, f
    keys = ("alpha_s", "beta_bytes_per_s", "bus_beta_bytes_per_s", "residual")
    if f["ok"]:
        for k in keys:
            assert math.isfinite(f[k]) and f[k] >= 0, (k, f[k])
        assert f["beta_bytes_per_s"] > 0
        assert abs(f["bus_beta_bytes_per_s"] - f["beta_bytes_per_s"] * 2 * (n - 1) / n) <= \
            1e-6 * f["bus_beta_bytes_per_s"]
    else:
        assert all(f[k] is None for k in keys), f
    print("# -n %d %s fit: %s" % (n, f["dtype"], "ok, residual %.2f" % f["residual"] if f["ok"]
                                  else "no bandwidth (the times did not grow with the size)"))
PY
        ok "-n $n --device cpu: 12 verified sizes, busbw = algbw x 2(n-1)/n, two fits reported"
    else
        fail "-n $n: the JSON lines"
        head -3 "$TMP/n$n.jsonl"
    fi
done

# --- the default's time budget: its form ----------------------------------------
# A budget of 10 ms: 5..20 samples per size; a 64 MiB all-reduce on a host
# takes more than 2 ms (10 ms / 5 samples), so 256 MiB is left out at the
# latest, and the last size measured says why in its note; the fit covers
# the sizes measured. Which sizes run depends on this machine's speed: not
# asserted, only that they are the first ones, in order.
$LIMIT $MPI -n 2 "$PROBE" --allreduce --device cpu --dtypes fp32 --sizes 8,64K,64M,256M \
    --budget 0.01 >"$TMP/b.jsonl" 2>"$TMP/b.err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$TMP/b.jsonl" <<'PY'; then
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
res = [e for e in ev if e["event"] == "result"]
fits = [e for e in ev if e["event"] == "fit"]
sizes = [8, 65536, 64 << 20, 256 << 20]
assert 1 <= len(res) <= 3 and [e["bytes"] for e in res] == sizes[:len(res)], res
assert all(5 <= e["samples"] <= 20 and e["verified"] for e in res), res
last = res[-1]
assert "the fp32 sizes above" in last["note"] and "were left out" in last["note"], last
assert "budget of 0.01 s per size" in last["note"] and "--full" in last["note"], last
assert all("note" not in e for e in res[:-1]), res
assert len(fits) == 1 and fits[0]["points"] == len(res), fits
prog = [e for e in ev if e["event"] == "progress"]
assert prog and all(e["count"] == 4 and 1 <= e["index"] <= 4 for e in prog), prog
assert [e["index"] for e in prog] == sorted(e["index"] for e in prog), prog
assert prog[-1]["fraction"] == 1 and prog[-1]["eta_seconds"] == 0, prog[-1]
print("# --budget 0.01: %d of 4 sizes measured" % len(res))
PY
    ok "the time budget: 5..20 samples, larger sizes left out and said so, progress i of N"
else
    fail "--budget 0.01: rc $rc: $(head -c 600 "$TMP/b.jsonl") $(tail -3 "$TMP/b.err")"
fi

# --- vramlab measure --allreduce --mpirun: the text report and --json ---------
# --full --sizes 8-64Kx8: those 6 sizes, every one (no budget to leave any out)
M="$VRAMLAB measure --allreduce --device cpu --full --sizes 8-64Kx8 --mpirun"
if $LIMIT $M "$MPI -n 2" >"$TMP/m.txt" 2>"$TMP/m.err"; then
    for want in "all-reduce over 2 ranks on 1 host (mpi)" "predicted: the engine's ring model" \
        "busbw = algbw x 2(n-1)/n"; do
        grep -qF -- "$want" "$TMP/m.txt" || fail "measure text: '$want' missing"
    done
    # each type's fit: its line, or why there is none; the calibration
    # line exactly when the FP32 fit found a bandwidth
    for d in fp32 bf16; do
        grep -qE "^fit $d: (t = .* over 6 sizes|no bandwidth \(the times did not grow with the size over 6 sizes\))$" \
            "$TMP/m.txt" || fail "measure text: no fit line for $d"
    done
    if grep -q "^fit fp32: t = " "$TMP/m.txt"; then
        grep -qF "calibrate (the fp32 fit): vramlab plan --intra-node-bw " "$TMP/m.txt" ||
            fail "measure text: a fit and no calibration line"
    else
        grep -q "^calibrate" "$TMP/m.txt" && fail "measure text: a calibration without a fit"
    fi
    [ "$(grep -c '^fp32 .* yes ' "$TMP/m.txt")" = 6 ] && [ "$(grep -c '^bf16 .* yes ' "$TMP/m.txt")" = 6 ] &&
        ok "measure --allreduce --full: the text report (6 sizes of each type, the fits)" ||
        { fail "measure text rows"; cat "$TMP/m.txt"; }
else
    fail "measure --allreduce --mpirun: $(cat "$TMP/m.err")"
fi
if $LIMIT $M "$MPI -n 2" --json >"$TMP/m.json" 2>"$TMP/mj.err"; then
    P="--model llama-3.1-8b --gpu h100-sxm --mode train --gpus 8 --tp 8"
    "$VRAMLAB" plan $P --json >"$TMP/p0.json" || fail "plan"
    "$VRAMLAB" plan $P --json --measured-allreduce "$TMP/m.json" >"$TMP/p1.json" 2>"$TMP/p1.err"
    prc=$?
    python3 - "$TMP/m.json" "$TMP/p0.json" "$TMP/p1.json" $prc "$TMP/p1.err" <<'PY' &&
import json, sys
m, p0 = (json.load(open(f)) for f in sys.argv[1:3])
rc, err = int(sys.argv[4]), open(sys.argv[5]).read()
assert m["complete"] and len(m["allreduce"]) == 12 and len(m["allreduce_fit"]) == 2
for r in m["allreduce"]:
    assert r["predicted_seconds"] > 0 and r["ratio"] > 0
fp32 = [f for f in m["allreduce_fit"] if f["dtype"] == "fp32"][0]
if fp32["ok"]:
    assert rc == 0, err
    p1 = json.load(open(sys.argv[3]))
    t0, t1 = p0["training"]["tp_comm_seconds"], p1["training"]["tp_comm_seconds"]
    assert t1 > t0, (t0, t1)  # host shared memory is slower than NVLink
    assert p1["training"]["days"] > p0["training"]["days"]
else:  # the fit found no bandwidth: refused, saying so
    assert rc == 2 and "fit of 2 ranks has no bandwidth" in err, (rc, err)
PY
        ok "measure --json; plan --measured-allreduce moves TP communication (or says the fit has none)" ||
        fail "measure --json / plan --measured-allreduce"
    if "$VRAMLAB" plan $P --measured-allreduce "$TMP/m.json" --allreduce-latency 5us \
        >/dev/null 2>"$TMP/clash.err"; then
        fail "--measured-allreduce with --allreduce-latency accepted"
    else
        grep -q "give either the file or those flags\|has no bandwidth" "$TMP/clash.err" &&
            ok "--measured-allreduce and the flags it sets: refused" || fail "$(cat "$TMP/clash.err")"
    fi
else
    fail "measure --json: $(cat "$TMP/mj.err")"
fi

# --- a rank killed or stopped mid-run: a clear error, no hang ----------------------
# run_fault SIGNAL DEADLINE: start 4 ranks on sizes that last a while, wait
# for the first result, signal rank 1, and return when the job ends. (A
# killed rank ends the job through the launcher: the deadline stays long, so
# that a loaded machine's slow collective is not mistaken for it; a stopped
# rank needs the deadline: 3 s.)
run_fault() {
    rm -f "$TMP/f.jsonl"
    $LIMIT $MPI -n 4 "$PROBE" --allreduce --device cpu --sizes 8-64M --budget 0 --deadline $2 \
        >"$TMP/f.jsonl" 2>"$TMP/f.err" &
    job=$!
    i=0
    while [ $i -lt 3000 ] && ! grep -q '"result"' "$TMP/f.jsonl" 2>/dev/null; do
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
run_fault KILL 30
# (the job ends by itself, not by the guard's timeout: not 124, and sooner
# than the guard's 600 s; the time is printed)
if [ $rc -gt 0 ] && [ $rc -ne 124 ] && [ $took -lt 600 ] &&
    grep -q '"event":"error"' "$TMP/f.jsonl" &&
    grep -q 'another rank failed or the job was cancelled' "$TMP/f.jsonl"; then
    ok "a rank killed mid-run: the job ends (exit $rc, ${took}s) and the others say why"
else
    fail "killed rank: rc $rc after ${took}s: $(grep error "$TMP/f.jsonl" | head -2) $(tail -3 "$TMP/f.err")"
fi
run_fault STOP 3
if [ $rc -gt 0 ] && [ $rc -ne 124 ] && [ $took -lt 600 ] &&
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
for b in -1 0.001 1e9 x; do
    "$PROBE" --allreduce --budget $b >"$TMP/bud.jsonl"
    [ $? -eq 2 ] && grep -q "\-\-budget: expected 0 (none) or 0.01..3600 seconds per size, found '$b'" \
        "$TMP/bud.jsonl" || fail "--budget $b: $(cat "$TMP/bud.jsonl")"
done
ok "--budget out of range refused, naming the range"
"$PROBE" --allreduce --dtypes fp8 >"$TMP/dt.jsonl"
[ $? -eq 2 ] && grep -q "expected fp32 or bf16, found 'fp8'" "$TMP/dt.jsonl" &&
    ok "--dtypes fp8 refused" || fail "--dtypes: $(cat "$TMP/dt.jsonl")"
$LIMIT $MPI -n 2 "$PROBE" --tests copy >"$TMP/copy.jsonl" 2>/dev/null
grep -q "under an MPI launcher the probe runs only the all-reduce" "$TMP/copy.jsonl" &&
    ok "other tests under mpirun: refused" || fail "--tests copy under mpirun: $(cat "$TMP/copy.jsonl")"

[ $fails -eq 0 ] && echo "all-reduce over MPI: all checks passed"
[ $fails -eq 0 ]
