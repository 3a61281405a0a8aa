# cmdsubst_nested.sh -- substitutions inside substitutions, three deep:
# $( $( $( ) ) ), backquotes within $( ), escaped backquotes within
# backquotes, and a substitution running a pipeline inside a pipeline.
d=scratch/nested; rm -rf $d; mkdir -p $d; cd $d
echo "depth 3: $(echo "a $(echo "b $(echo c)")")"
echo "mixed: $(echo `echo inner` outer)"
echo "escaped: `echo \`echo deep\` back`"
n=$(echo $(( $(echo 6) * $(echo $(echo 7)) )))
echo "6 * 7 = $n"
echo "$(seq 1 5 | sort -rn | tr '\n' ' ')| $(echo piped | tr a-z A-Z)"
count=$(echo "$(seq 1 20)" | grep 1 | wc -l)
echo "numbers with a 1 up to 20: $count"
x=$(y=$(echo inner); echo "outer saw $y")
echo "$x"
echo "$(echo "$(echo "$(echo "$(echo four levels)")")")"
f() { echo "f($1)=$(( $1 * 2 ))"; }
echo "$(f 3) $(f $(f 2 | tr -dc 0-9))"
echo "status inside: $(sh -c 'exit 4'; echo $?)"
cd ../..; rm -rf $d
