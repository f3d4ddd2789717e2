#!/bin/sh
# Training figures measured by others (issue 25): every row of
# tests/golden/measured_training.tsv runs 'vramlab plan ... --json' and
# checks its figure against the measurement within the row's tolerance:
# memory within 3%, speed within 0.7x to 1.3x. A row marked miss is a
# known miss (docs/training.md says why): it must stay outside, so the day
# a change brings it inside the row is turned into a match.
. "${top_srcdir:-.}/tests/cli_lib.sh"

TABLE="$GOLDEN/measured_training.tsv"
tab=$(printf '\t')
grep -v '^#' "$TABLE" | grep -v '^$' > "$TMP/rows"
n=0
while IFS="$tab" read -r id status path measured unit tol args source quote; do
    n=$((n + 1))
    # shellcheck disable=SC2086 # the arguments are words
    run plan $args --json
    if [ "$rc" -ne 0 ]; then
        fail "$id: vramlab plan exited $rc: $(cat "$TMP/err")"
        continue
    fi
    got=$(json_get "$TMP/out" "$path")
    case $unit in
    gib) want=$(awk -v m="$measured" 'BEGIN { printf "%.0f", m * 1073741824 }') ;;
    *) want=$measured ;;
    esac
    case $tol in
    mem3) lo=0.97 hi=1.03 ;;
    speed) lo=0.7 hi=1.3 ;;
    *) fail "$id: unknown tolerance $tol"; continue ;;
    esac
    ratio=$(awk -v a="$got" -v e="$want" 'BEGIN { if (e + 0 == 0 || a == "") print "nan"; else printf "%.4f", a / e }')
    inside=$(awk -v r="$ratio" -v lo="$lo" -v hi="$hi" 'BEGIN { print (r != "nan" && r >= lo && r <= hi) ? 1 : 0 }')
    echo "$id: measured $measured $unit, vramlab $(awk -v a="$got" -v u="$unit" 'BEGIN { if (u == "gib") printf "%.2f", a / 1073741824; else printf "%.0f", a }') ($ratio x) [$source]"
    if [ "$status" = match ] && [ "$inside" -eq 1 ]; then
        pass
    elif [ "$status" = miss ] && [ "$inside" -eq 0 ] && [ "$ratio" != nan ]; then
        pass
    elif [ "$status" = miss ]; then
        fail "$id: a known miss is now inside $lo..$hi ($ratio x): mark it match in $TABLE and docs/training.md"
    else
        fail "$id: $ratio x the measured $measured $unit, outside $lo..$hi ($quote)"
    fi
done < "$TMP/rows"
check_eq "rows read" "$([ "$n" -ge 20 ] && echo yes)" yes
finish
