#!/bin/sh
# test_po.sh: po/es.po translates every message of the sources (the files
# in po/POTFILES.in, keywords as in po/Makevars) and compiles cleanly
# (msgfmt -c: format strings agree). Skips (77) without gettext's tools.
# To fix a failure: `make -C po update-po` in a build directory, translate
# the new entries of po/es.po, and check with `msgfmt -c --statistics`.
set -u
top_srcdir=${top_srcdir:-.}
for t in xgettext msgcmp msgfmt; do
    command -v $t >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-po.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
keywords=$(sed -n 's/^XGETTEXT_OPTIONS *= *//p' "$top_srcdir/po/Makevars")
grep -v '^#' "$top_srcdir/po/POTFILES.in" | grep . >"$TMP/files"
# shellcheck disable=SC2086
xgettext $keywords --directory="$top_srcdir" --files-from="$TMP/files" -o "$TMP/vramlab.pot" ||
    { echo "FAIL: xgettext"; exit 1; }
fails=0
if msgcmp "$top_srcdir/po/es.po" "$TMP/vramlab.pot" 2>"$TMP/cmp.err"; then
    echo "ok: po/es.po translates every message ($(grep -c '^msgid' "$TMP/vramlab.pot") in the sources)"
else
    echo "FAIL: po/es.po lacks translations:"
    grep -E 'this message|msgid' "$TMP/cmp.err" | head -20
    fails=$((fails + 1))
fi
if msgfmt -c -o /dev/null "$top_srcdir/po/es.po" 2>"$TMP/fmt.err"; then
    echo "ok: msgfmt -c accepts po/es.po"
else
    echo "FAIL: msgfmt -c po/es.po:"
    cat "$TMP/fmt.err"
    fails=$((fails + 1))
fi
# Coverage (issue 24 item 6: at least 90%): po/es.po merged with the
# sources' messages, as msgfmt --statistics counts it; fuzzy and
# untranslated entries do not count.
if command -v msgmerge >/dev/null 2>&1; then
    msgmerge -q --no-fuzzy-matching -o "$TMP/merged.po" "$top_srcdir/po/es.po" "$TMP/vramlab.pot" 2>/dev/null
    stats=$(LC_ALL=C msgfmt --statistics -o /dev/null "$TMP/merged.po" 2>&1)
    tr=$(echo "$stats" | sed -n 's/^\([0-9]*\) translated.*/\1/p')
    all=$(grep -c '^msgid ' "$TMP/vramlab.pot")
    all=$((all - 1)) # the header
    if [ -n "$tr" ] && [ "$all" -gt 0 ] && [ $((tr * 100)) -ge $((all * 90)) ]; then
        echo "ok: Spanish covers $tr of $all messages ($((tr * 100 / all))%, at least 90%)"
    else
        echo "FAIL: Spanish covers ${tr:-?} of $all messages (less than 90%): $stats"
        fails=$((fails + 1))
    fi
fi
[ $fails -eq 0 ]
