# trap_exit.sh -- trap ... EXIT runs as a shell ends: at its end, at
# `exit N` (keeping N), after set -e stops it, and after a trapped signal;
# the trap sees $? and may change the status with its own exit.
d=scratch/trap_exit; rm -rf $d; mkdir -p $d; cd $d
sh -c 'trap "echo exit trap ran" EXIT; echo body'; echo "status $?"
sh -c 'trap "echo trap sees \$?" EXIT; exit 7'; echo "exit 7 kept: $?"
sh -c 'trap "echo after set -e" EXIT; set -e; false; echo never'; echo "set -e: $?"
sh -c 'trap "echo trap exits 9; exit 9" EXIT; exit 2'; echo "the trap's own exit: $?"
sh -c 'trap "echo TERM caught; exit 4" TERM; trap "echo then EXIT" EXIT; kill -TERM $$; echo never'; echo "signal then exit: $?"
sh -c 'trap "echo cleaning up; rm -f tmpfile" EXIT; echo data > tmpfile; cat tmpfile'
[ -e tmpfile ] || echo "tmpfile removed by the trap"
sh -c 'trap "echo one" EXIT; trap "echo two" EXIT'; echo "the later trap replaced the first"
sh -c 'trap "echo never" EXIT; trap - EXIT; echo reset'
out=$(sh -c 'trap "echo in the substitution" EXIT'); echo "captured: $out"
trap 'echo "the script'"'"'s own EXIT trap, status $?"' EXIT
cd ../..; rm -rf $d
exit 3
