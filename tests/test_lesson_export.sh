#!/bin/sh
# test_lesson_export.sh: vramlab lesson export (issue 24 item 5): every
# shipped lesson, in both languages, as Markdown: lesson.md names each
# step's scenario and links its picture; one stepNN.yaml and one stepNN.svg
# per step (and stepNN-answer.svg per question step); each stepNN.yaml
# loads with `vramlab plan --scenario`, and every figure the step's texts
# cite (figures.tsv, as the screen writes it) appears in that plan's
# output, in the same language and units. Then html and svg once, a
# directory that is not an export refused with nothing written, and a bad
# --format. No terminal needed.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
VRAMLAB=$top_builddir/vramlab
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-export.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
fails=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export LC_ALL=C.UTF-8
unset LANGUAGE

for file in "$top_srcdir"/share/lessons/*.yaml; do
    base=$(basename "$file" .yaml) # seed-000.es
    lang=${base##*.}
    name=${base%.*}
    for units in gb gib; do
        out=$TMP/$base.$units
        if ! "$VRAMLAB" --lang "$lang" lesson export "$name" --format md --units $units -o "$out" \
            2>"$TMP/err"; then
            fail "$base --units $units: export failed: $(cat "$TMP/err")"
            continue
        fi
        n=$(grep -c '^  - ' "$file")
        q=$(grep -c '^    question:' "$file")
        bad=0
        [ "$(ls "$out"/step*.yaml | wc -l)" -eq "$n" ] || { fail "$base: not $n scenarios"; bad=1; }
        [ "$(ls "$out"/step[0-9][0-9].svg | wc -l)" -eq "$n" ] || { fail "$base: not $n pictures"; bad=1; }
        [ "$(ls "$out" | grep -c 'answer\.svg$')" -eq "$q" ] || { fail "$base: not $q answers"; bad=1; }
        for svg in "$out"/*.svg; do
            head -c 5 "$svg" | grep -q '^<svg' && tail -1 "$svg" | grep -q '^</svg>$' ||
                { fail "$base: $(basename "$svg") is not a whole SVG"; bad=1; }
        done
        k=1
        while [ $k -le "$n" ]; do
            nn=$(printf '%02d' $k)
            grep -qF "(step$nn.svg)" "$out/lesson.md" && grep -qF "vramlab plan --scenario step$nn.yaml" "$out/lesson.md" ||
                { fail "$base: lesson.md does not link step $nn"; bad=1; }
            if ! "$VRAMLAB" --lang "$lang" plan --scenario "$out/step$nn.yaml" >"$TMP/plan" 2>"$TMP/err"; then
                fail "$base step $k: plan --scenario step$nn.yaml: $(head -2 "$TMP/err")"
                bad=1
            fi
            awk -F'\t' -v k=$k '$1 == k { print $2 "\t" $3 }' "$out/figures.tsv" >"$TMP/cited"
            while IFS='	' read -r key value; do
                # plan's tables pad with spaces; the screen keeps the no-break one.
                v=$(printf '%s' "$value" | sed 's/\xc2\xa0/ /g')
                # The whole figure: not a part of a longer number.
                sed 's/\xc2\xa0/ /g' "$TMP/plan" | awk -v v="$v" '
                    { s = $0; while ((i = index(s, v)) > 0) {
                        b = i > 1 ? substr(s, i - 1, 1) : " "; a = substr(s, i + length(v), 1)
                        if (b !~ /[0-9.,]/ && (a !~ /[0-9]/) && !(a ~ /[.,]/ && substr(s, i + length(v) + 1, 1) ~ /[0-9]/)) { found = 1; exit }
                        s = substr(s, i + 1) } }
                    END { exit !found }' || {
                    fail "$base --units $units step $k: {$key} = '$value' is not in plan --scenario step$nn.yaml"
                    bad=1
                }
            done <"$TMP/cited"
            k=$((k + 1))
        done
        [ $bad -eq 0 ] && ok "$base --units $units: $n steps exported, each scenario loads and shows the $(wc -l <"$out/figures.tsv") figures its texts cite"
    done
done

# html and svg.
"$VRAMLAB" --lang es lesson export seed-000 --format html -o "$TMP/html" &&
    grep -q '<html lang="es">' "$TMP/html/index.html" && grep -q 'src="step01.svg"' "$TMP/html/index.html" &&
    [ "$(ls "$TMP/html"/step[0-9][0-9].svg | wc -l)" -eq 27 ] && ok "html: index.html in Spanish with the pictures" ||
    fail "html export"
"$VRAMLAB" lesson export seed-001 --format svg -o "$TMP/svg" && [ ! -e "$TMP/svg/lesson.md" ] &&
    [ "$(ls "$TMP/svg"/step[0-9][0-9].svg | wc -l)" -eq "$(grep -c '^  - ' "$top_srcdir/share/lessons/seed-001.en.yaml")" ] &&
    ok "svg: one picture per step" || fail "svg export"
# The picture is the screen: the step's counter, its title and its first figure.
grep -q '1/27' "$TMP/html/step01.svg" && grep -q 'Bytes por par' "$TMP/html/step01.svg" &&
    grep -q '140.0' "$TMP/html/step01.svg" && ok "the picture shows the step as the explorer does" ||
    fail "step01.svg does not show step 1"
# Again into the same export: fine. Into a directory with other files: refused, untouched.
"$VRAMLAB" lesson export seed-001 --format svg -o "$TMP/svg" && ok "export again over an earlier export" ||
    fail "export over an earlier export"
mkdir "$TMP/mine" && echo keep >"$TMP/mine/notes.txt"
"$VRAMLAB" lesson export seed-000 --format md -o "$TMP/mine" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "not empty" "$TMP/err" && [ "$(ls -A "$TMP/mine")" = notes.txt ] &&
    ok "a directory that is not an export: refused, nothing written" || fail "mine: $(cat "$TMP/err"; ls -A "$TMP/mine")"
"$VRAMLAB" lesson export seed-000 --format pdf -o "$TMP/x" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "expected md, html or svg, found 'pdf'" "$TMP/err" && ok "--format pdf: exit 2" ||
    fail "--format pdf: $(cat "$TMP/err")"
"$VRAMLAB" lesson export seed-999 --format md -o "$TMP/y" 2>"$TMP/err"
[ $? -eq 2 ] && [ ! -e "$TMP/y" ] && ok "an unknown lesson: exit 2, nothing made" || fail "seed-999: $(cat "$TMP/err")"
[ $fails -eq 0 ]
