# pgroup.sh -- signals to process groups: setsid starts a shell leading a
# new session and group, whose background jobs share its group; kill 0
# and kill -PGID end them all while the shell, ignoring TERM, goes on
# to collect their statuses. (The group is the new session's, so nothing
# outside it is touched.)
d=scratch/pgroup; rm -rf $d; mkdir -p $d; cd $d
setsid sh -c '
  sleep 30 & a=$!
  sleep 30 & b=$!
  trap "" TERM
  kill -TERM 0
  wait $a 2>/dev/null; echo "kill 0 ended the first: $?"
  wait $b 2>/dev/null; echo "and the second: $?"
' 2>&1
setsid sh -c '
  sh -c "sleep 30" & a=$!
  sleep 30 & b=$!
  trap "" TERM
  kill -TERM -$$
  wait $a 2>/dev/null; echo "kill -PGID: $?"
  wait $b 2>/dev/null; echo "and the other: $?"
' 2>&1
setsid sh -c '[ "$(sh -c "echo \$PPID")" = $$ ] && echo "a child of the new session leader"'
cd ../..; rm -rf $d
