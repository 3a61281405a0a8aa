# exit_layers.sh -- exit statuses carried up through layers of processes:
# sh -c in sh -c in sh -c, subshells in subshells, a function returning a
# child's status, exit with a status over 255 (taken mod 256), and the
# script's own status (it ends with exit 3).
d=scratch/exit_layers; rm -rf $d; mkdir -p $d; cd $d
sh -c 'sh -c "sh -c \"exit 5\"; exit \$((\$? + 1))"; exit $(( $? + 1 ))'; echo "three layers: $?"
( ( ( exit 9 ); exit $(( $? * 2 )) ); exit $(( $? + 1 )) ); echo "subshells: $?"
f() { sh -c 'exit 12'; }; f; echo "a function returns its last command's status: $?"
sh -c 'exit 256'; echo "exit 256: $?"
sh -c 'exit 300'; echo "exit 300: $?"
sh -c 'exit -1' 2>&1; echo "exit -1: $?"
sh -c 'false'; echo "sh -c false: $?"
sh -c ''; echo "empty sh -c: $?"
sh -c 'exit'; echo "bare exit after true: $?"
sh -c 'false; exit'; echo "bare exit after false: $?"
s=$(sh -c 'echo out; exit 17'); echo "captured $s, status $?"
sh -c 'sh -c "kill -TERM \$\$"; exit $?' 2>/dev/null; echo "143 passed on: $?"
for n in 0 1 2 127 128 255; do sh -c "exit $n"; printf '%s ' $?; done; echo
cd ../..; rm -rf $d
exit 3
