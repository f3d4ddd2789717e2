#!/bin/sh
# Serving figures measured by others (tests/golden/measured_serving.txt:
# each row's quote, source and conditions) against `vramlab plan --json`
# for the same conditions, within the measurement's own tolerance (issue
# 25): memory 3%, a KV cache 2.1 GiB, speeds 0.7 to 1.3x, a measured
# throughput at or below vramlab's ceiling. VERBOSE=1 prints every row.
. "${top_srcdir:-.}/tests/cli_lib.sh"

TABLE="$GOLDEN/measured_serving.txt"
[ -r "$TABLE" ] || { echo "$TABLE missing" >&2; exit 99; }

# check WHAT CHECK ACTUAL MEASURED: apply one tolerance (values in base units).
check_measured() {
    what=$1 kind=$2 actual=$3 measured=$4
    if [ -z "$actual" ] || [ "$actual" = null ]; then
        fail "$what: vramlab gives no value"
        return
    fi
    if awk -v k="$kind" -v a="$actual" -v m="$measured" 'BEGIN {
        d = a - m; if (d < 0) d = -d; am = m < 0 ? -m : m
        if (k == "kv") exit !(d <= 2.1 * 1073741824)
        if (k == "mem3") exit !(d <= 0.03 * am)
        if (k == "speed") exit !(a >= 0.7 * m && a <= 1.3 * m)
        if (k == "ceiling") exit !(m <= a)
        if (k == "eq") exit !(a == m)
        exit 1 }'; then
        pass
    else
        fail "$what: vramlab $actual, measured $measured ($kind)"
    fi
}

rows=0
# Strip comments and blank lines; split on " | ".
grep -v '^[[:space:]]*#' "$TABLE" | grep -v '^[[:space:]]*$' > "$TMP/rows"
while IFS= read -r line; do
    kind=$(printf '%s' "$line" | awk -F' [|] ' '{ gsub(/ /, "", $1); print $1 }')
    key=$(printf '%s' "$line" | awk -F' [|] ' '{ gsub(/ /, "", $2); print $2 }')
    value=$(printf '%s' "$line" | awk -F' [|] ' '{ gsub(/ /, "", $3); print $3 }')
    unit=$(printf '%s' "$line" | awk -F' [|] ' '{ gsub(/ /, "", $4); print $4 }')
    args=$(printf '%s' "$line" | awk -F' [|] ' '{ print $5 }')
    what=$(printf '%s' "$line" | awk -F' [|] ' '{ print $6 }')
    case $unit in
    GiB) measured=$(awk -v v="$value" 'BEGIN { printf "%.17g", v * 1073741824 }') ;;
    *) measured=$value ;;
    esac
    # shellcheck disable=SC2086 # the arguments are words of the table
    run plan $args --json
    if [ "$rc" -ne 0 ]; then
        fail "$what: vramlab plan $args exited $rc: $(cat "$TMP/err")"
        continue
    fi
    actual=$(json_get "$TMP/out" "$key")
    check_measured "$what ($key)" "$kind" "$actual" "$measured"
    if [ -n "$VERBOSE" ]; then
        awk -v w="$what" -v u="$unit" -v a="$actual" -v m="$measured" 'BEGIN {
            s = u == "GiB" ? 1073741824 : 1
            printf "%-60s measured %10.4g  vramlab %10.4g %s\n", w, m / s, a / s, u }'
    fi
    rows=$((rows + 1))
done < "$TMP/rows"
# The table is read whole: a parse slip that drops rows must fail.
check_eq "rows read" "$rows" "$(wc -l < "$TMP/rows" | tr -d ' ')"
[ "$rows" -ge 40 ] || fail "only $rows rows in $TABLE"
finish
