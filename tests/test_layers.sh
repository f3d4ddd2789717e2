#!/bin/sh
# test_layers.sh: no two files of the program use each other, directly or
# through others (docs/architecture.md "Who may include whom": every file
# uses only files below it). Reads the built objects of ./vramlab with nm:
# file A uses file B when A's object has an undefined symbol that B's
# object defines. Prints every edge that lies on a circle, with the symbol
# that makes it, and fails when there is one. A control graph with a known
# circle checks that the detector finds circles at all.
set -u

top_builddir=${top_builddir:-.}
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

if ! command -v nm >/dev/null 2>&1; then
    echo "SKIP: nm not found (binutils)"
    exit 77
fi

# edges: "FILE DEFINER SYMBOL" lines from objects given as arguments.
edges() {
    for o in "$@"; do
        f=$(basename "$o" .o)
        f=${f#vramlab-}
        nm "$o" | awk -v f="$f" '
            $2 ~ /^[TDBRCGSVW]$/ && NF == 3 { print "D", f, $3 }
            $1 == "U" || $1 == "w" { print "U", f, $2 }'
    done | awk '
        $1 == "D" { def[$3] = $2; next }
        $1 == "U" { n++; uf[n] = $2; us[n] = $3; next }
        END {
            for (i = 1; i <= n; i++)
                if ((us[i] in def) && def[us[i]] != uf[i])
                    print uf[i], def[us[i]], us[i]
        }' | sort -u -k1,2
}

# circles: read "A B SYMBOL" edges; print the edges on a circle.
circles() {
    awk '
        { k = $1 SUBSEP $2; if (!(k in sym)) { sym[k] = $3; adj[$1] = adj[$1] " " $2; node[$1]; node[$2] } }
        END {
            for (s in node) {
                delete seen
                q[1] = s; h = 1; t = 1
                while (h <= t) {
                    u = q[h++]
                    m = split(adj[u], nb, " ")
                    for (j = 1; j <= m; j++)
                        if (!(nb[j] in seen)) { seen[nb[j]] = 1; q[++t] = nb[j] }
                }
                for (x in seen) reach[s, x] = 1
            }
            for (k in sym) {
                split(k, p, SUBSEP)
                if (reach[p[2], p[1]]) print p[1] " -> " p[2] " (" sym[k] ")"
            }
        }' | sort
}

# Control: a -> b -> c -> a is a circle, d -> a is not on it.
got=$(printf 'a b f1\nb c f2\nc a f3\nd a f4\n' | circles | tr '\n' ';')
[ "$got" = "a -> b (f1);b -> c (f2);c -> a (f3);" ] ||
    fail "the detector misses a known circle: $got"

for dir in tui catalog engine; do
    set -- "$top_builddir"/$dir/*.o
    if [ ! -f "$1" ]; then
        fail "no objects in $top_builddir/$dir (build first)"
        continue
    fi
    # The program's objects only (tests compile some sources again).
    objs=""
    for o in "$@"; do
        case $(basename "$o") in
        tests_* | *test* | *bench*) ;;
        *) objs="$objs $o" ;;
        esac
    done
    # shellcheck disable=SC2086
    found=$(edges $objs | circles)
    if [ -n "$found" ]; then
        fail "$dir/: files that use each other:"
        echo "$found" | sed 's/^/    /'
    else
        echo "ok: $dir/: every file uses only files below it"
    fi
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all layering checks passed"
