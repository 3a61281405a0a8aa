# kill_between.sh -- signals between processes: a background shell traps
# USR1 and TERM; the script waits (by a file, not by time) until the trap
# is set, signals it, and `wait` gives the status its handler exits with.
# A signal while the child waits for its own foreground child runs the
# handler once that child ends.
d=scratch/kill_between; rm -rf $d; mkdir -p $d; cd $d
sh -c 'trap "echo usr1 > got.usr1" USR1
       trap "echo term > got.term; exit 5" TERM
       echo > ready
       while :; do sleep 0.05; done' &
p=$!
while [ ! -e ready ]; do sleep 0.05; done
kill -USR1 $p
while [ ! -e got.usr1 ]; do sleep 0.05; done
echo "the child handled USR1: $(cat got.usr1)"
kill -TERM $p
wait $p; echo "its TERM handler exited with $?"
cat got.term
sh -c 'trap "echo hup >> log; exit 7" HUP; echo > ready2; sleep 0.05; while :; do sleep 0.05; done' &
p=$!
while [ ! -e ready2 ]; do sleep 0.05; done
kill -HUP $p
wait $p; echo "HUP: $?, $(cat log)"
sleep 30 &
s=$!
sh -c "kill -TERM $s"
wait $s 2>/dev/null; echo "one child killed another: $?"
cd ../..; rm -rf $d
