# timeout_vfork.sh -- busybox timeout, which vforks a watcher that forks
# again and outlives its parent: a command ending in time keeps its
# status, one running too long is ended by TERM (143) or by -s KILL (137).
d=scratch/timeout_vfork; rm -rf $d; mkdir -p $d; cd $d
timeout 20 sh -c 'echo "in time"; exit 3'; echo "status kept: $?"
timeout 20 true; echo "true: $?"
timeout 1 sleep 20; echo "too long, ended by TERM: $?"
timeout -s KILL 1 sleep 20; echo "too long, ended by KILL: $?"
timeout 20 seq 1 3 | timeout 20 wc -l
cd ../..; rm -rf $d
