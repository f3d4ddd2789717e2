#!/bin/sh
# test_tui_lessons.sh: every shipped lesson (share/lessons/*.yaml), in each
# of its languages, at 100x30 and 80x24, through a real terminal (tmux):
# every step draws with its number; a step that opens the explain overlay
# leaves the Memory pane (the bar) exactly as it is without the overlay
# (issue 17: beside or below the bar, never over it); F turns presentation
# on over whatever the step opened and back. Skips (77) without tmux.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the lessons' end-to-end tests"
tui_setup lessons
export LC_ALL=C.UTF-8
LESSONS=$(cd "$top_srcdir" && pwd)/share/lessons

# --- the index (issue 17, item 4) -------------------------------------------
# --lesson alone lists every shipped lesson with each language and title.
out=$(env -u LANGUAGE LANG=C.UTF-8 "$VRAMLAB" --lesson)
miss=0
for file in "$LESSONS"/*.yaml; do
    t=$(sed -n 's/^title: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$file")
    echo "$out" | grep -qF "$t" || { fail "--lesson: '$t' ($file) not listed"; miss=1; }
done
echo "$out" | grep -q "^  seed-000 .* en .*GPUs, memory and quantization" && [ $miss -eq 0 ] &&
    ok "--lesson alone lists the lessons, their languages and titles" || fail "--lesson index: $out"
# In the order of the file names (not the file system's): lessons by name,
# each lesson's languages en before es.
listed=$(echo "$out" | sed -n 's/^  \([^ ]*\) *\(e[ns]\) .*/\1.\2/p; s/^  *\(e[ns]\) .*/.\1/p' |
    awk -F. '$1 != "" { n = $1 } { print n "." $2 }')
[ -n "$listed" ] && [ "$listed" = "$(echo "$listed" | LC_ALL=C sort)" ] &&
    ok "--lesson lists lessons and languages by name" || fail "--lesson order: $listed"
"$VRAMLAB" --help | grep -q "^  seed-000 " && ok "--help names the lessons" || fail "--help: no lessons"
# --lang overrides the locale for the messages and the lesson a name picks.
env -u LANGUAGE LANG=C.UTF-8 "$VRAMLAB" --lang es --lesson | grep -q "^Lecciones .*ahora es" &&
    ok "--lang es: the index in Spanish under an English locale" || fail "--lang es"
env -u LANGUAGE LANG=es_ES.UTF-8 "$VRAMLAB" --lang en --lesson | grep -q "^Lessons .*now en" &&
    ok "--lang en under es_ES" || fail "--lang en"
"$VRAMLAB" --lang fr --lesson >/dev/null 2>"$TMP/lang.err"
[ $? -eq 2 ] && grep -q "expected es or en, found 'fr'" "$TMP/lang.err" && ok "--lang fr: exit 2" ||
    fail "--lang fr: $(cat "$TMP/lang.err")"

# The Memory pane: its title row and the three rows under it.
memory_pane() {
    capture "$1" | awk '/┌ (Memory per GPU|Memoria por GPU)/ { n = 4 } n > 0 { print; n-- }'
}

for file in "$LESSONS"/*.yaml; do
    base=$(basename "$file" .yaml)  # seed-000.es
    lang=${base##*.}
    name=${base%.*}
    case $lang in es) loc=es_ES.UTF-8 ex="explicación: " ;; *) loc=C.UTF-8 ex="explain: " ;; esac
    n=$(grep -c '^  - ' "$file")
    for size in 100x30 80x24; do
        w=${size%x*} h=${size#*x}
        s=$(echo "l_${name}_${lang}_$size" | tr -c 'a-zA-Z0-9_\n' _)
        tmux -L "$SOCK" -f /dev/null new-session -d -s "$s" -x "$w" -y "$h" \
            "env -u LC_ALL -u LANGUAGE TERM=screen-256color LANG=C.UTF-8 '$VRAMLAB' --lang $lang --lesson $name; sleep 60"
        bad=0
        k=1
        while [ $k -le "$n" ]; do
            if ! wait_for "$s" " $k/$n "; then
                fail "$base at $size: step $k/$n did not draw"
                capture "$s"
                bad=1
                break
            fi
            sleep 0.2
            if capture "$s" | grep -qF "$ex"; then
                with=$(memory_pane "$s")
                tmux -L "$SOCK" send-keys -t "$s" e
                wait_gone "$s" "$ex" || { fail "$base $size step $k: e did not close"; bad=1; }
                sleep 0.2
                without=$(memory_pane "$s")
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
            while [ $j -lt 50 ] && [ "$(capture "$s" | grep -c '██')" -lt 5 ]; do
                sleep 0.1
                j=$((j + 1))
            done
            if [ $j -ge 50 ] || capture "$s" | grep -qF "$ex" || ! capture "$s" | grep -qF " $k/$n "; then
                fail "$base at $size, step $k: F did not show the headline"
                capture "$s"
                bad=1
            fi
            tmux -L "$SOCK" send-keys -t "$s" F
            wait_for "$s" "┌ " || { fail "$base at $size, step $k: F did not return to the panes"; bad=1; }
            [ $bad -eq 0 ] || break
            # n pages a long caption before it steps.
            k=$((k + 1))
            t=0
            while [ $k -le "$n" ] && [ $t -lt 6 ]; do
                tmux -L "$SOCK" send-keys -t "$s" n
                wait_for "$s" " $k/$n " 10 && break
                t=$((t + 1))
            done
        done
        [ $bad -eq 0 ] && ok "$base at $size: $n steps draw, the bar stays visible, F works on each"
        tmux -L "$SOCK" kill-session -t "$s" 2>/dev/null
    done
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "every shipped lesson steps through at 100x30 and 80x24"
exit 0
