#!/bin/sh
# test_tui_lessons.sh: every shipped lesson (share/lessons/*.yaml), in each
# of its languages, at 100x30 and 80x24, through a real terminal (tmux):
# every step draws with its number; nothing of a step's title, caption or
# question is cut without an ellipsis (every word of the file's text is on
# the screen, page after page, and a page that goes on ends with one); a
# question step asks until n reveals the answer on the same step; a step
# that opens the explain overlay leaves the Memory pane (the bar) exactly as
# it is without the overlay (issue 17: beside or below the bar, never over
# it); F turns presentation on over whatever the step opened (on a question
# step: the question large, every word) and back. Long (one walk per file
# and size): the plain build runs it (PLAIN_ONLY_TESTS); its C paths run
# under the sanitizers in test_tui_lecture.sh, test_tui_question.sh (the
# index, a question step in detail) and the lesson tests without a screen
# (docs/tests.md). Skips (77) without tmux.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the lessons' end-to-end tests"
tui_setup lessons
export LC_ALL=C.UTF-8
# One idle session for the whole script: the server outlives the cases'
# sessions (a server exiting as the next case starts fails that case).
tmux -L "$SOCK" -f /dev/null new-session -d -s keep "sleep 3600"
LESSONS=$(cd "$top_srcdir" && pwd)/share/lessons

# The Memory pane: its title row and the three rows under it (of the
# screen captured in FILE, or captured now).
memory_pane() {
    { if [ -n "${2:-}" ]; then cat "$2"; else capture "$1"; fi; } |
        awk -v tl="$TL" 'index($0, tl " Memory per GPU") || index($0, tl " Memoria por GPU") { n = 4 }
        n > 0 { print; n-- }'
}

# texts FILE LOCALE LANG: each step's title, question and caption as the
# screen shows them (each {figure} written out for the step's scenario, in
# that locale), one per line: "K<TAB>T|Q|C<TAB>text" (vramlab lesson show
# --tsv; its N lines, the presenter notes, are not on the screen).
texts() {
    env -u LC_ALL -u LANGUAGE LANG=$2 "$VRAMLAB" --lang "$3" lesson show --tsv "$1"
}

# bar_rows NAME K N: the caption bar of step K (its heading " K/N ", or
# " K/N (p/P) ", and the rows under it), from the last capture.
bar_rows() {
    awk -v h=" $2/$3 " 'index($0, h) == 1 { on = 1 } on' "$TMP/screen"
}

# caption_words NAME K N LABEL: the words of step K's caption bar, every
# page of it (n pages a long one; the last page stays shown), one per line
# into $TMP/words: the ellipsis that ends a page that goes on is dropped,
# and so is the question's LABEL ("Question:"). Returns non-zero when a
# page that goes on does not end with the ellipsis.
caption_words() {
    _s=$1 _k=$2 _n=$3 _label=$4 _bad=0 _p=0
    : >"$TMP/words"
    while [ $_p -lt 12 ]; do
        capture "$_s" >"$TMP/screen"
        bar_rows "$_s" "$_k" "$_n" >"$TMP/bar"
        tail -n +2 "$TMP/bar" >"$TMP/rows"
        more=0
        head -1 "$TMP/bar" | grep -qE "n: (more of the caption|m.s del texto)" && more=1
        if [ $more -eq 1 ]; then
            case $(grep . "$TMP/rows" | tail -1) in
            *"$ELL") ;;
            *) _bad=1 ;;
            esac
        fi
        tr -s ' ' '\n' <"$TMP/rows" | grep . | sed "s/$ELLRE\$//" |
            awk -v l="$_label" 'NR == 1 && $0 == l { next } { print }' >>"$TMP/words"
        _label=-
        [ $more -eq 1 ] || break
        # The next page: wait until the rows change (30 s: a bound), and
        # for its frame to be whole.
        tmux -L "$SOCK" send-keys -t "$_s" n
        _i=0
        while [ $_i -lt 300 ]; do
            capture "$_s" >"$TMP/screen"
            bar_rows "$_s" "$_k" "$_n" | tail -n +2 | cmp -s - "$TMP/rows" || break
            sleep 0.1
            _i=$((_i + 1))
        done
        settle "$_s"
        _p=$((_p + 1))
    done
    return $_bad
}

# same_words TEXT: whether $TMP/words holds exactly the words of TEXT (as
# an ASCII screen shows them: a '?' for each other character).
same_words() {
    printf '%s\n' "$1" | sed 's/\xc2\xa0/ /g' | tr -s ' ' '\n' | grep . | ascii >"$TMP/want"
    sed 's/\xc2\xa0/ /g' "$TMP/words" | tr -s ' ' '\n' | grep . >"$TMP/words.nb"
    cmp -s "$TMP/want" "$TMP/words.nb"
}

# ascii: with ASCII=1, every character that is not ASCII as one '?'.
ascii() {
    if [ "$ASCII" = 1 ]; then LC_ALL=C sed 's/[\xc0-\xff][\x80-\xbf]*/?/g'; else cat; fi
}

# present_question_words NAME: the words of the question presentation
# mode shows large (between its heading and the Memory block) into
# $TMP/words; returns non-zero when it is cut (fewer words than the
# question) without an ellipsis at its end.
present_question_words() {
    capture "$1" | awk '
        /^  (Question|Pregunta)$/ { on = 1; next }
        /^  (Memory per GPU|Memoria por GPU)/ { on = 0 }
        on' | tr -s ' ' '\n' | grep . >"$TMP/words.raw"
    sed "s/$ELLRE\$//" "$TMP/words.raw" >"$TMP/words"
    same_words "$2" && return 0
    # Cut: a prefix of the question's words, and the last one marked.
    tail -1 "$TMP/words.raw" | grep -q "$ELLRE\$" &&
        head -n "$(wc -l <"$TMP/words")" "$TMP/want" | cmp -s - "$TMP/words"
}

# Each lesson at 100x30 and 80x24 in UTF-8, and at 80x24 with LANG=C (ASCII:
# '...' for the ellipsis, '?' for every other character, '#' digits).
# walk_file FILE: the walk of one lesson file at every size (run in a
# subshell with its own $TMP, several at once: the walk mostly waits on
# the terminal, so the files go side by side and CI takes a third of the time).
walk_file() {
    file=$1
    base=$(basename "$file" .yaml)  # seed-000.es
    lang=${base##*.}
    name=${base%.*}
    n=$(grep -c '^  - ' "$file")
    for size in 100x30 80x24 80x24-ascii; do
        case $size in
        *-ascii) ASCII=1 ELL="..." ELLRE='\.\.\.' TL="+" BIG="##" loc=C ;;
        *) ASCII=0 ELL="…" ELLRE="…" TL="┌" BIG="██" loc=C.UTF-8 ;;
        esac
        # The messages: Spanish needs a UTF-8 locale (LANG=C shows English).
        case $lang$ASCII in
        es0) ex="explicación: " qlabel="Pregunta:" reveal="n muestra la respuesta" ;;
        *) ex="explain: " qlabel="Question:" reveal="n reveals the answer" ;;
        esac
        texts "$file" $loc $lang >"$TMP/texts"
        wh=${size%-ascii}
        w=${wh%x*} h=${wh#*x}
        s=$(echo "l_${name}_${lang}_$size" | tr -c 'a-zA-Z0-9_\n' _)
        tmux -L "$SOCK" -f /dev/null new-session -d -s "$s" -x "$w" -y "$h" \
            "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=$loc '$VRAMLAB' --lang $lang --fresh --lesson $name; sleep 60"
        bad=0
        questions=0
        k=1
        while [ $k -le "$n" ]; do
            if ! wait_for "$s" " $k/$n "; then
                fail "$base at $size: step $k/$n did not draw"
                capture "$s"
                bad=1
                break
            fi
            # the step's frame whole, read once for the checks below
            settle "$s"
            cp "$TMP/settled" "$TMP/step"
            title=$(awk -F'\t' -v k=$k '$1 == k && $2 == "T" { print $3 }' "$TMP/texts" | ascii)
            question=$(awk -F'\t' -v k=$k '$1 == k && $2 == "Q" { print $3 }' "$TMP/texts")
            caption=$(awk -F'\t' -v k=$k '$1 == k && $2 == "C" { print $3 }' "$TMP/texts")
            # The step's title: whole, or cut with an ellipsis.
            heading=$(grep -F " $k/$n " "$TMP/step" | tail -1)
            if [ -n "$title" ] && ! printf '%s' "$heading" | grep -qF "$title" &&
                ! printf '%s' "$heading" | grep -qF "$ELL"; then
                fail "$base at $size, step $k: the title is cut without an ellipsis: $heading"
                bad=1
            fi
            if [ -n "$question" ]; then
                questions=$((questions + 1))
                # The question first, every word of it, and what n does.
                if ! grep -qF "$reveal" "$TMP/step"; then
                    fail "$base at $size, step $k: a question step that does not ask"
                    capture "$s"
                    bad=1
                    break
                fi
                if ! caption_words "$s" $k "$n" "$qlabel"; then
                    fail "$base at $size, step $k: the question is cut without an ellipsis"
                    bad=1
                fi
                same_words "$question" || {
                    fail "$base at $size, step $k: the question's words are not all shown"
                    diff "$TMP/want" "$TMP/words.nb" | head -6
                    bad=1
                }
                # F: the question large, every word, nothing cut silently.
                tmux -L "$SOCK" send-keys -t "$s" F
                wait_for "$s" "  ${qlabel%:}" 30 || true
                settle "$s"
                if ! present_question_words "$s" "$question"; then
                    fail "$base at $size, step $k: F does not show the question large (or cuts it)"
                    capture "$s"
                    bad=1
                fi
                tmux -L "$SOCK" send-keys -t "$s" F
                wait_for "$s" "$TL " || { fail "$base $size step $k: F did not return"; bad=1; }
                # n reveals the answer, on the same step.
                tmux -L "$SOCK" send-keys -t "$s" n
                if ! wait_gone "$s" "$reveal" || ! capture "$s" | grep -qF " $k/$n "; then
                    fail "$base at $size, step $k: n did not reveal the answer on the step"
                    capture "$s"
                    bad=1
                    break
                fi
                settle "$s"
            fi
            # The caption (a question's answer): every word, page by page.
            if ! caption_words "$s" $k "$n" -; then
                fail "$base at $size, step $k: a caption page that goes on has no ellipsis"
                bad=1
            fi
            same_words "$caption" || {
                fail "$base at $size, step $k: the caption's words are not all shown (cut?)"
                diff "$TMP/want" "$TMP/words.nb" | head -6
                capture "$s" | tail -6
                bad=1
            }
            # (caption_words left the screen it read last in $TMP/screen)
            if grep -qF "$ex" "$TMP/screen"; then
                with=$(memory_pane "$s" "$TMP/screen")
                tmux -L "$SOCK" send-keys -t "$s" e
                wait_gone "$s" "$ex" || { fail "$base $size step $k: e did not close"; bad=1; }
                settle "$s"
                without=$(memory_pane "$s" "$TMP/settled")
                if [ -z "$with" ] || [ "$with" != "$without" ]; then
                    fail "$base at $size, step $k: the explain overlay covers the Memory pane"
                    echo "$with"
                    bad=1
                fi
                tmux -L "$SOCK" send-keys -t "$s" e
                wait_for "$s" "$ex" || { fail "$base $size step $k: e did not reopen"; bad=1; }
            fi
            # F over whatever is open: the headline (block digits), the step
            # number still shown; F again: the panes.
            tmux -L "$SOCK" send-keys -t "$s" F
            j=0
            capture "$s" >"$TMP/f"
            while [ $j -lt 300 ] && [ "$(grep -cF "$BIG" "$TMP/f")" -lt 5 ]; do
                sleep 0.1
                capture "$s" >"$TMP/f"
                j=$((j + 1))
            done
            # the frame whole: a capture can catch the terminal mid-redraw
            # (the headline's rows new, the closing overlay's rows not yet)
            settle "$s" && cp "$TMP/settled" "$TMP/f"
            if [ $j -ge 300 ] || grep -qF "$ex" "$TMP/f" || ! grep -qF " $k/$n " "$TMP/f"; then
                fail "$base at $size, step $k: F did not show the headline"
                cat "$TMP/f"
                bad=1
            fi
            tmux -L "$SOCK" send-keys -t "$s" F
            wait_for "$s" "$TL " || { fail "$base at $size, step $k: F did not return to the panes"; bad=1; }
            [ $bad -eq 0 ] || break
            # The caption is on its last page: n steps on.
            # (one n, then the wait at the loop's top: a second n sent
            # while a loaded machine draws would skip a step)
            k=$((k + 1))
            [ $k -le "$n" ] && tmux -L "$SOCK" send-keys -t "$s" n
        done
        [ $bad -eq 0 ] &&
            ok "$base at $size: $n steps ($questions questions) draw, nothing cut without an ellipsis, the bar stays visible, F works on each"
        tmux -L "$SOCK" kill-session -t "$s" 2>/dev/null
    done
}

nwalk=0
for file in "$LESSONS"/*.yaml; do
    nwalk=$((nwalk + 1))
    (
        TMP=$TMP/walk$nwalk
        mkdir -p "$TMP"
        walk_file "$file"
    ) >"$TMP/walk$nwalk.log" 2>&1 &
    [ $((nwalk % ${VRAMLAB_TEST_JOBS:-4})) -ne 0 ] || wait
done
wait
i=1
while [ $i -le $nwalk ]; do
    cat "$TMP/walk$i.log"
    fails=$((fails + $(grep -c '^FAIL' "$TMP/walk$i.log")))
    i=$((i + 1))
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "every shipped lesson steps through at 100x30 and 80x24"
exit 0
