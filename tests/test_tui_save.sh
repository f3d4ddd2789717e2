#!/bin/sh
# test_tui_save.sh: saving never destroys (issue 27 item 3), in the explorer
# through a real terminal (tmux): `s` over a FIFO is refused, named, and the
# FIFO stays a FIFO; `s` over a symbolic link asks, then writes the link's
# target and the link stays a link; last.yaml as a link is followed on quit,
# as a FIFO it is neither read (no hang) nor replaced. The prompt: Ctrl-U
# then a path saves there, a name typed over the offered one replaces it,
# End keeps it, ~ is HOME and without HOME it says so. The same rules
# without the explorer are tests/test_scenario_file.c's,
# tests/test_measure_model.c's, tests/test_lesson_ui.c's and
# tests/test_state.c's. Skips (77) when tmux is missing.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tui_lib.sh"
tui_need_tmux "the explorer's save tests"
tui_setup save
export LC_ALL=C.UTF-8
mkdir -p "$TMP/work" "$XDG_STATE_HOME/vramlab"

# start NAME -- ARGS: vramlab at 100x30 from $TMP/work.
start() {
    name=$1
    shift
    [ "${1:-}" = "--" ] && shift
    rm -f "$TMP/$name.rc"
    tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x 100 -y 30 -c "$TMP/work" \
        "env -u LC_ALL -u LANGUAGE ${START_ENV:-} TERM=screen-256color LANG=C.UTF-8 '$VRAMLAB' $*; echo \$? > '$TMP/$name.rc'; sleep 60"
}
# save_as NAME FILE: s, Ctrl-U (erase the offered name), type FILE, Enter.
save_as() {
    keys "$1" s
    wait_for "$1" "save scenario to:" || fail "$1: no save prompt"
    keys "$1" C-u
    keys "$1" -l "$2"
    keys "$1" Enter
}
is_fifo() { [ -p "$1" ] && [ ! -L "$1" ]; }

SCEN="--model llama-3.1-70b --gpu h100-sxm --gpus 2 --format int4-g32"

# --- s over a FIFO and over a link -------------------------------------------
mkfifo "$TMP/work/pipe.yaml"
printf '# mine\nmodel: llama-3.1-8b\n' >"$TMP/work/real.yaml"
ln -s real.yaml "$TMP/work/link.yaml"
start files -- $SCEN
wait_for files "Roofline" || fail "files: no screen"
save_as files pipe.yaml
if wait_for files "FIFO (named pipe), not a regular file" && is_fifo "$TMP/work/pipe.yaml"; then
    ok "s over a FIFO: refused, named, still a FIFO"
else
    fail "s over a FIFO"
    capture files | tail -3
fi
save_as files link.yaml
wait_for files "exists; overwrite? y/n" && ok "s over a link to a file asks first" ||
    fail "s over a link: no question"
keys files y
if wait_for files "saved link.yaml" && [ -L "$TMP/work/link.yaml" ] &&
    [ "$(readlink "$TMP/work/link.yaml")" = real.yaml ] &&
    grep -q "^model: llama-3.1-70b" "$TMP/work/real.yaml"; then
    ok "y: the link's target is written, the link is still a link"
else
    fail "s over a link replaced the link or missed its target"
    ls -l "$TMP/work"
fi
ls -A "$TMP/work" | grep -q '^\.' && fail "a temporary file was left: $(ls -A "$TMP/work")"
quit files >/dev/null
is_fifo "$TMP/work/pipe.yaml" && ok "the FIFO is still a FIFO after quitting" ||
    fail "the FIFO was replaced"

# --- the prompt: Ctrl-U, typing over the offered name, End, ~ ---------------
mkdir -p "$TMP/work/sub" "$TMP/home"
START_ENV="HOME='$TMP/home'" start prompt -- $SCEN
wait_for prompt "Roofline" || fail "prompt: no screen"
# Right then Ctrl-U: the offered name kept, then erased all the same.
keys prompt s
wait_for prompt "save scenario to: scenario.yaml" || fail "prompt: no name offered"
keys prompt Right C-u
keys prompt -l "sub/x.yaml"
keys prompt Enter
if wait_for prompt "saved sub/x.yaml" && grep -q "^model: llama-3.1-70b" "$TMP/work/sub/x.yaml"; then
    ok "Ctrl-U then a path: saved there"
else
    fail "Ctrl-U then a path"
    capture prompt | tail -2
    ls -lR "$TMP/work"
fi
keys prompt s
wait_for prompt "save scenario to: sub/x.yaml" || fail "prompt: the last name not offered"
keys prompt -l "typed.yaml"
keys prompt Enter
if wait_for prompt "saved typed.yaml" && [ -f "$TMP/work/typed.yaml" ] &&
    [ -z "$(find "$TMP/work" -name '*yamltyped*')" ]; then
    ok "a name typed over the offered one replaces it"
else
    fail "typing over the offered name"
    ls -lR "$TMP/work"
fi
keys prompt s
wait_for prompt "save scenario to: typed.yaml" || fail "prompt: typed.yaml not offered"
keys prompt End
keys prompt -l ".2"
keys prompt Enter
wait_for prompt "saved typed.yaml.2" && [ -f "$TMP/work/typed.yaml.2" ] &&
    ok "End keeps the offered name: typing appends" || fail "End then typing"
save_as prompt "~/t.yaml"
if wait_for prompt "saved ~/t.yaml" && [ -f "$TMP/home/t.yaml" ] && [ ! -e "$TMP/work/~" ]; then
    ok "~/ is HOME"
else
    fail "~ expansion"
    ls -lR "$TMP/work" "$TMP/home"
fi
quit prompt >/dev/null
START_ENV="-u HOME" start nohome -- $SCEN
wait_for nohome "Roofline" || fail "nohome: no screen"
save_as nohome "~/t.yaml"
if wait_for nohome "HOME is not set" && [ ! -e "$TMP/work/~" ] && [ ! -e "$TMP/work/t.yaml" ]; then
    ok "~ without HOME: said so, nothing saved, nothing guessed"
else
    fail "~ without HOME"
    capture nohome | tail -2
fi
quit nohome >/dev/null

# --- last.yaml as a link, then as a FIFO --------------------------------------
printf 'model: llama-3.1-8b\n' >"$TMP/kept.yaml"
rm -f "$XDG_STATE_HOME/vramlab/last.yaml"
ln -s "$TMP/kept.yaml" "$XDG_STATE_HOME/vramlab/last.yaml"
start last1 -- $SCEN
wait_for last1 "Roofline" || fail "last1: no screen"
rc=$(quit last1)
if [ "$rc" = 0 ] && [ -L "$XDG_STATE_HOME/vramlab/last.yaml" ] &&
    grep -q "^model: llama-3.1-70b" "$TMP/kept.yaml"; then
    ok "q with last.yaml a link: the target is written, the link kept"
else
    fail "last.yaml as a link (exit $rc)"
    ls -l "$XDG_STATE_HOME/vramlab"
fi
rm -f "$XDG_STATE_HOME/vramlab/last.yaml"
mkfifo "$XDG_STATE_HOME/vramlab/last.yaml"
start last2 --
if wait_for last2 "Roofline" && wait_for last2 "last scenario not restored"; then
    ok "last.yaml a FIFO: not read, no hang, said so"
else
    fail "last.yaml a FIFO at start"
    capture last2 | tail -3
fi
rc=$(quit last2)
[ "$rc" = 0 ] && is_fifo "$XDG_STATE_HOME/vramlab/last.yaml" &&
    ok "q leaves the FIFO last.yaml a FIFO" || fail "last.yaml FIFO replaced or no exit ($rc)"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all explorer save checks passed"
exit 0
