# cli_lib.sh: helpers sourced by the end-to-end tests of the headless
# commands (tests/test_cli_*.sh). Plain POSIX sh and awk: no python or jq.
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
VRAMLAB="$top_builddir/vramlab"
GOLDEN="$top_srcdir/tests/golden"
TMP=${TMPDIR:-/tmp}/vramlab-cli.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0
# The catalog comes from the binary only: no user files.
XDG_CONFIG_HOME="$TMP/xdg"
HOME="$TMP/home"
export XDG_CONFIG_HOME HOME

# Report a failed check and count it.
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# Report a passed check.
pass() {
    checks=$((checks + 1))
}

# Flatten vramlab's pretty-printed JSON (one member per line) into
# path=value lines: {"memory":{"weights":1}} -> memory.weights=1.
json_flat() {
    awk '
    { line = $0; sub(/^[ \t]+/, "", line); sub(/,$/, "", line) }
    line ~ /^"[^"]*": [{[]$/ {
        k = line; sub(/^"/, "", k); sub(/": [{[]$/, "", k); stack[++d] = k; next
    }
    line == "{" || line == "[" { stack[++d] = "#"; next }
    line == "}" || line == "]" { if (d > 0) d--; next }
    line ~ /^"[^"]*": / {
        k = line; sub(/^"/, "", k); sub(/": .*/, "", k)
        v = line; sub(/^"[^"]*": /, "", v)
        p = ""
        for (i = 1; i <= d; i++) if (stack[i] != "#") p = p stack[i] "."
        print p k "=" v
    }'
}

# The value of one flattened path in a JSON file.
json_get() {
    json_flat < "$1" | awk -v k="$2" 'index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }'
}

# Check |actual - expected| <= tol * |expected| (tol 0 = exact).
check_near() {
    what=$1 actual=$2 expected=$3 tol=$4
    if [ -z "$actual" ]; then
        fail "$what: no value (expected $expected)"
        return
    fi
    if awk -v a="$actual" -v e="$expected" -v t="$tol" \
        'BEGIN { d = a - e; if (d < 0) d = -d; m = e < 0 ? -e : e; exit !(d <= t * m) }'; then
        pass
    else
        fail "$what: got $actual, expected $expected (tolerance $tol)"
    fi
}

# Check two strings are equal.
check_eq() {
    if [ "$2" = "$3" ]; then pass; else fail "$1: got '$2', expected '$3'"; fi
}

# The no-break space the text output puts between a number and its unit
# in a UTF-8 locale (engine/format.h); check_contains reads it as a space,
# the goldens keep it.
NBSP=$(printf '\302\240')

# Check a file contains a fixed string (a no-break space matching a space).
check_contains() {
    if sed "s/$NBSP/ /g" "$2" | grep -F -q -- "$3"; then pass; else fail "$1: '$3' not in output:"; sed 's/^/    /' "$2" >&2; fi
}

# Run vramlab with arguments; stdout to $TMP/out, stderr to $TMP/err, status in $rc.
run() {
    "$VRAMLAB" "$@" > "$TMP/out" 2> "$TMP/err"
    rc=$?
}

# Finish: print a summary and exit 1 on failures.
finish() {
    echo "$0: $checks checks passed, $failures failed"
    [ "$failures" -eq 0 ]
    exit $?
}

if [ ! -x "$VRAMLAB" ]; then
    echo "$VRAMLAB not built" >&2
    exit 99
fi
