#!/bin/sh
# bench_allreduce.sh (make bench): the all-reduce on this machine's CPU
# with a real MPI, the qualities tests do not assert (a loaded machine
# gives any times; tests/test_allreduce_mpi.sh checks the form):
#   - the wall time of `vramlab measure --allreduce` with its default sweep
#     at -n 2 and -n 4 (goal, issue 28: at most 60 s on the 2-core machine),
#     the sizes it measured and left out;
#   - whether each latency-bandwidth fit found a bandwidth, and its residual,
#     on the sweep test_allreduce_mpi.sh runs (8 B to 256 KiB, 20 samples).
# BENCH_ALLREDUCE_FULL=1 also times --full (minutes). Says why and exits 0
# where the probe has no MPI or there is no mpirun; exits 1 only when a run
# fails. Results with the machine and date: docs/measurements.md.
set -u
top_builddir=${top_builddir:-.}
B=$(cd "$top_builddir" && pwd)
PROBE=$B/vramlab-probe
VRAMLAB=$B/vramlab
if ! "$PROBE" --build-info 2>/dev/null | grep -q '"mpi":true'; then
    echo "bench_allreduce: skipped: vramlab-probe was built without MPI (configure --with-mpi)"
    exit 0
fi
MPIRUN=${MPIRUN:-$(command -v mpirun || command -v mpiexec || true)}
[ -n "$MPIRUN" ] || { echo "bench_allreduce: skipped: no mpirun"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "bench_allreduce: skipped: no python3"; exit 0; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-bench-ar.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ROOT=""
[ "$(id -u)" = 0 ] && ROOT="--allow-run-as-root"
MPI="$MPIRUN --oversubscribe $ROOT"
echo "machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/'), $(date -u +%Y-%m-%d)"
status=0

# now: monotonic-enough seconds with a fraction
now() { date +%s.%N; }

# sweep NAME ARGS...: one `vramlab measure --allreduce` run, timed.
sweep() {
    name=$1
    shift
    t0=$(now)
    if ! "$VRAMLAB" measure --allreduce --device cpu --json "$@" >"$TMP/$name.json" \
        2>"$TMP/$name.err"; then
        echo "$name: FAILED: $(tail -3 "$TMP/$name.err")"
        status=1
        return
    fi
    t1=$(now)
    python3 - "$TMP/$name.json" "$name" "$t0" "$t1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
name, wall = sys.argv[2], float(sys.argv[4]) - float(sys.argv[3])
goal = "  (goal <= 60 s: %s)" % ("met" if wall <= 60 else "MISSED") if "default" in name else ""
print("%-18s %6.1f s wall%s" % (name, wall, goal))
for d in ("fp32", "bf16"):
    rows = [r for r in m["allreduce"] if r["dtype"] == d]
    if not rows:
        continue
    left = [r["note"] for r in rows if "left out" in r.get("note", "")]
    print("  %s: %d sizes, %s to %s bytes, samples %d..%d%s" % (
        d, len(rows), int(rows[0]["bytes"]), int(rows[-1]["bytes"]),
        min(r["samples"] for r in rows), max(r["samples"] for r in rows),
        "; larger sizes left out" if left else ""))
for f in m["allreduce_fit"]:
    if f["ok"]:
        print("  fit %s: ok, alpha %.3g s, beta %.3g B/s, residual %.2f over %d sizes" % (
            f["dtype"], f["alpha_s"], f["beta_bytes_per_s"], f["residual"], f["points"]))
    else:
        print("  fit %s: NOT ok (the times did not grow with the size over %d sizes)" % (
            f["dtype"], f["points"]))
PY
}

for n in 2 4; do
    sweep "default -n $n" --mpirun "$MPI -n $n"
done
for n in 2 4; do
    sweep "8-256K -n $n" --sizes 8-256K --budget 0 --mpirun "$MPI -n $n"
done
if [ "${BENCH_ALLREDUCE_FULL:-0}" = 1 ]; then
    sweep "full -n 2" --full --mpirun "$MPI -n 2"
fi
exit $status
