# cmdsubst.sh -- $(...) and backquotes: output captured with its trailing
# newlines cut, word splitting and quoting, the status of an assignment
# from $(...), substitutions in arithmetic, loops, here-documents and case.
d=scratch/cmdsubst; rm -rf $d; mkdir -p $d; cd $d
n=$(seq 1 10 | wc -l)
echo "n is $n"
now=`echo backquoted`
echo "$now"
x=$(printf 'a\n\n\n')
echo "[$x] trailing newlines cut"
y="$(printf 'one  two\nthree')"
echo "$y"
set -- $(printf 'w1 w2\tw3\nw4')
echo "$# words unquoted"
echo "sum $(( $(seq 1 4 | tr '\n' '+') 0 ))"
v=$(exit 5); echo "assignment from \$(exit 5): $?"
v=$(false) || echo "assignment from \$(false) failed"
for f in $(printf 'c b a' | tr ' ' '\n' | sort); do printf '%s.' "$f"; done; echo
case $(echo HELLO | tr A-Z a-z) in hello) echo "case on \$(...): hello" ;; esac
cat <<TEXT
in a here-document: $(echo from a substitution) and `echo backquotes`
TEXT
printf '%s\n' "$(echo 'quotes "inside"' ; echo "and \$dollars")"
empty=$(true); echo "empty [${empty}] ${#empty}"
lines=$(printf 'l1\nl2\nl3\n'); echo "$lines" | wc -l
cd ../..; rm -rf $d
