# wait_trap.sh -- a trapped signal arriving while the shell waits in
# `wait`: the wait ends with a status above 128, the handler runs, and a
# second wait then collects the job's real status. The signal comes from
# another background process, once the trap is set.
d=scratch/wait_trap; rm -rf $d; mkdir -p $d; cd $d
trap 'echo "USR1 arrived"; kill $long' USR1
sleep 30 &
long=$!
sh -c "sleep 0.3; kill -USR1 $$" &
sender=$!
wait $long 2>/dev/null
s=$?
[ $s -gt 128 ] && echo "wait was cut short: status above 128"
wait $long 2>/dev/null; echo "the job itself, killed by the handler: $?"
wait $sender; echo "the sender: $?"
trap 'echo "USR2 arrived"' USR2
sh -c "kill -USR2 $$; exit 4" &
wait $!
s=$?
[ $s = 4 ] || [ $s -gt 128 ] && echo "wait after USR2: 4 or cut short"
wait; echo "all done: $?"
cd ../..; rm -rf $d
