#!/bin/sh
# `vramlab measure` driven by fake probes (tests/fixtures/probe/*.sh through
# VRAMLAB_PROBE): the table, the --json contract, errors, a truncated stream,
# a malformed line, a probe killed by a signal. No GPU and no timing.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
VRAMLAB=$top_builddir/vramlab
FIX=$top_srcdir/tests/fixtures/probe
fail=0
t=$(mktemp -d) || exit 99
# a CPU run is saved for --device cpu: here, not in the user\'s state
XDG_STATE_HOME=$t/state
export XDG_STATE_HOME
trap 'rm -rf "$t"' EXIT

. "${top_srcdir:-.}/tests/check_lib.sh"

run() { # fixture args... -> $t/out, $t/err, $rc
    fx=$1
    shift
    VRAMLAB_PROBE=$FIX/$fx "$VRAMLAB" measure "$@" >"$t/out" 2>"$t/err"
    rc=$?
}

[ -x "$VRAMLAB" ] || { echo "SKIP: $VRAMLAB not built"; exit 77; }

run fake-ok.sh
check "ok run exits 0" [ "$rc" -eq 0 ]
check "table names the device" grep -q "NVIDIA H100 80GB HBM3" "$t/out"
check "device matched to the catalog" grep -q "catalog: h100" "$t/out"
check "table has the GEMV row" grep -q "^gemv-fp16" "$t/out"
check "a spread over 5% is flagged" grep -q "%!" "$t/out"
check "the skip is shown" grep -q "skipped gemm-extra" "$t/out"
check "error lab rows" grep -q "matrix  outliers" "$t/out"
check "a working set under 4x L2 is labelled" sh -c "grep '^w4a16' '$t/out' | grep -q 'in cache'"
check "the copy (2 GiB) is not" sh -c "! grep '^copy' '$t/out' | grep -q 'in cache'"

run fake-ok.sh --json
check "json run exits 0" [ "$rc" -eq 0 ]
if command -v python3 >/dev/null 2>&1; then
    python3 - "$t/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dev = d["device"]
for k in ("name", "memory_bytes", "theoretical_bytes_per_s", "catalog_id"):
    assert k in dev, k
assert dev["catalog_id"] is not None and dev["catalog_id"].startswith("h100"), dev["catalog_id"]
assert d["complete"] is True and d["error"] is None
res = d["results"]
assert len(res) == 5, len(res)
for r in res:
    for k in ("test", "bytes", "seconds", "bytes_per_s", "best_bytes_per_s", "flop_per_s",
              "spread", "samples", "verified"):
        assert k in r, (r["test"], k)
gemm = [r for r in res if r["test"] == "gemm"][0]
assert gemm["flop_per_s"] > 7e14 and 0.5 < gemm["ratio"] < 1.0, gemm
copy = [r for r in res if r["test"] == "copy"][0]
assert abs(copy["fraction_of_copy"] - 1.0) < 1e-12
assert abs(d["copy_bytes_per_s"] - copy["bytes_per_s"]) < 1
assert len(d["error_lab"]) == 2 and d["error_lab"][0]["group"] == "matrix"
assert d["skipped"][0]["test"] == "gemm-extra"
PY
    check "json contract" [ $? -eq 0 ]
else
    echo "SKIP - json contract (no python3)"
fi

run fake-error.sh
check "error event exits 4" [ "$rc" -eq 4 ]
check "error message on stderr" grep -q "out of memory" "$t/err"
check "error code on stderr" grep -q "out-of-memory" "$t/err"
run fake-error.sh --json
check "error json exits 4" [ "$rc" -eq 4 ]
check "error json has the code" grep -q '"code": *"out-of-memory"' "$t/out"
check "error json is incomplete" grep -q '"complete": *false' "$t/out"

run fake-truncated.sh --json
check "truncated stream exits 4" [ "$rc" -eq 4 ]
check "truncated stream keeps the complete result" grep -q '"test": *"copy"' "$t/out"
check "truncated stream is reported" grep -q "middle of a line" "$t/err"

run fake-garbage.sh
check "malformed line does not fail the run" [ "$rc" -eq 0 ]
check "malformed line is reported" grep -q "malformed" "$t/err"

run fake-crash.sh
check "probe killed by a signal exits 4" [ "$rc" -eq 4 ]
check "the death is reported" grep -q "status 139" "$t/err"
# in Spanish on stderr, in English in the --json (its "message" is a contract)
if locale -a 2>/dev/null | grep -qi '^es_ES\.utf-\?8$'; then
    (LC_ALL=es_ES.UTF-8 LANGUAGE= && export LC_ALL LANGUAGE && run fake-crash.sh)
    check "es_ES: the death is reported in Spanish" \
        grep -q "^vramlab measure: la sonda terminó con el estado 139 \[exit\]$" "$t/err"
    (LC_ALL=es_ES.UTF-8 LANGUAGE= && export LC_ALL LANGUAGE && run fake-crash.sh --json)
    check "es_ES: the --json message stays English" \
        grep -q '"message": *"the probe exited with status 139"' "$t/out"
    # the probe client's own messages and a --measured-allreduce file's
    (LC_ALL=es_ES.UTF-8 LANGUAGE= && export LC_ALL LANGUAGE && run fake-garbage.sh)
    check "es_ES: a malformed line, its column, in Spanish" \
        grep -q "^vramlab measure: se ignora una línea mal formada de la sonda: .* en la columna [0-9]" "$t/err"
    LC_ALL=es_ES.UTF-8 LANGUAGE= VRAMLAB_PROBE=/nonexistent/probe "$VRAMLAB" measure >"$t/out" 2>"$t/err"
    check "es_ES: a missing probe in Spanish" \
        grep -qF "VRAMLAB_PROBE=/nonexistent/probe no es un archivo ejecutable" "$t/err"
    echo hello >"$t/ar.json"
    LC_ALL=es_ES.UTF-8 LANGUAGE= "$VRAMLAB" plan --model llama-3.1-8b --gpu h100-sxm \
        --measured-allreduce "$t/ar.json" >"$t/out" 2>"$t/err"
    check "es_ES: --measured-allreduce names the file, in Spanish" \
        grep -qF -- "--measured-allreduce: $t/ar.json: no es una medición" "$t/err"
else
    echo "SKIP - the Spanish error (no es_ES.UTF-8 locale)"
fi

VRAMLAB_PROBE=/nonexistent/probe "$VRAMLAB" measure >"$t/out" 2>"$t/err"
check "missing probe exits 4" [ $? -eq 4 ]
"$VRAMLAB" measure --bogus >"$t/out" 2>"$t/err"
check "unknown option exits 2" [ $? -eq 2 ]
# The probe refusing its arguments is a usage error (exit 2), not a device one.
if [ -x "$top_builddir/vramlab-probe" ]; then
    "$VRAMLAB" measure --device tpu >"$t/out" 2>"$t/err"
    check "measure --device tpu exits 2" [ $? -eq 2 ]
    check "measure --device tpu names the device" grep -q "tpu" "$t/err"
fi
exit $fail
