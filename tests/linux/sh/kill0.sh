# kill0.sh -- kill -0 asks whether a process is there: the shell itself,
# a running background job (yes), the same job once killed and reaped
# (no, with kill's message), a job that exited and was reaped (no).
d=scratch/kill0; rm -rf $d; mkdir -p $d; cd $d
kill -0 $$ && echo "the shell is there"
sleep 30 & p=$!
kill -0 $p && echo "a running job is there"
kill $p; wait $p 2>/dev/null; echo "killed: $?"
kill -0 $p 2>/dev/null; echo "kill -0 after it was reaped: $?"
kill -0 $p 2>&1 | sed 's/[0-9][0-9]*/PID/'
true & q=$!
wait $q
kill -0 $q 2>/dev/null || echo "a reaped job is gone"
sh -c 'kill -0 $PPID && echo "a child sees its parent"'
kill -0 2>/dev/null; echo "kill -0 without a pid: $?"
cd ../..; rm -rf $d
