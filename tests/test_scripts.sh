#!/bin/sh
# test_scripts.sh: the README's second command (scripts/test) installs what
# it needs before it bootstraps (issue 16: run first on a fresh machine it
# failed with "autoreconf: not found"). A copy of scripts/test runs in a
# scratch tree whose scripts/deps is a stand-in that records the call and
# fails, with a PATH without autoreconf: the stand-in must be called, and
# first. scripts/deps itself must accept --if-missing.
set -u
top_srcdir=${top_srcdir:-.}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-scripts.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

mkdir -p "$TMP/repo/scripts" "$TMP/bin"
cp "$top_srcdir/scripts/test" "$TMP/repo/scripts/test"
cat >"$TMP/repo/scripts/deps" <<STUB
#!/bin/sh
echo "\$*" >"$TMP/deps.called"
exit 1
STUB
# A PATH with the shell tools scripts/test needs, but no autotools.
for t in sh dirname nproc cat echo; do
    p=$(command -v "$t") && ln -s "$p" "$TMP/bin/$t"
done
PATH="$TMP/bin" sh "$TMP/repo/scripts/test" >"$TMP/out" 2>&1
rc=$?
if [ -f "$TMP/deps.called" ]; then
    echo "ok: scripts/test runs scripts/deps first ($(cat "$TMP/deps.called"))"
    grep -q -- "--if-missing" "$TMP/deps.called" || fail "scripts/deps not asked for --if-missing"
else
    fail "scripts/test did not run scripts/deps: $(cat "$TMP/out")"
fi
[ "$rc" -ne 0 ] && echo "ok: a failed install stops scripts/test (exit $rc)" ||
    fail "scripts/test went on after scripts/deps failed"
grep -q "autoreconf" "$TMP/out" && fail "scripts/test reached autoreconf before installing: $(cat "$TMP/out")"
grep -q -- "--if-missing" "$top_srcdir/scripts/deps" || fail "scripts/deps has no --if-missing"
[ "$fails" -eq 0 ] || exit 1
echo "all scripts checks passed"
