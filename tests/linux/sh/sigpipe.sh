# sigpipe.sh -- SIGPIPE ends a writer whose reader is gone: yes | head
# (yes would write for ever), seq and cat of long streams cut short by
# head, pipefail showing the writer's 141, a shell loop writing to a
# closed pipe, a piped read loop leaving early, and with SIGPIPE ignored
# (inherited) the writers see EPIPE.
d=scratch/sigpipe; rm -rf $d; mkdir -p $d; cd $d
yes | head -n 1000 | wc -l
yes "a line" | head -n 3
seq 1 1000000 | head -n 2
seq 1 100000 | while read n; do [ $n -ge 3 ] && break; echo "read $n"; done
set -o pipefail
yes | head -n 1 > /dev/null; echo "yes ended by SIGPIPE: $?"
seq 1 1000000 | head -c 10 > /dev/null; echo "seq ended by SIGPIPE: $?"
set +o pipefail
sh -c 'while :; do echo loop; done' | head -n 2
sh -c 'yes | head -n 1; echo "inner yes | head ended"'
sh -c 'trap "" PIPE; set -o pipefail
       seq 1 100000 | head -n 1; echo "seq with SIGPIPE ignored: $?"
       yes | head -n 1; echo "yes with SIGPIPE ignored: $?"' 2>&1
cd ../..; rm -rf $d
