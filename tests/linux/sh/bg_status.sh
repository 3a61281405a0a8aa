# bg_status.sh -- `wait PID` gives each background job's own status:
# exits 0, 3 and 42, a job killed by TERM (143) and by KILL (137), and a
# job that was reaped before it was asked about; `wait` alone gives 0.
d=scratch/bg_status; rm -rf $d; mkdir -p $d; cd $d
true & a=$!
( exit 3 ) & b=$!
sh -c 'exit 42' & c=$!
wait $c; echo "exit 42: $?"
wait $b; echo "exit 3: $?"
wait $a; echo "true: $?"
sleep 30 & p=$!
kill $p
wait $p 2>&1; echo "killed by TERM: $?"
sleep 30 & p=$!
kill -9 $p
wait $p 2>&1; echo "killed by KILL: $?"
( exit 5 ) & q=$!
( exit 6 ) & r=$!
wait
echo "wait alone: $?"
wait $q; echo "asked after a plain wait: $?"
wait $r; echo "and the other: $?"
false & wait $!; echo "false in the background: $?"
cd ../..; rm -rf $d
