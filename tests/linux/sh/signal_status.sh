# signal_status.sh -- a child ended by a signal: $? is 128 + the signal's
# number (TERM 143, INT 130, KILL 137, HUP 129, USR1 138, ALRM 142), and
# the shell names the signal as it names it on Linux; kill -l maps back;
# QUIT, which ash catches and ignores (as bash does), leaves the child running.
d=scratch/signal_status; rm -rf $d; mkdir -p $d; cd $d
for sig in TERM INT KILL HUP USR1 USR2 ALRM QUIT; do
  sh -c "kill -$sig \$\$; echo not reached" 2>&1
  s=$?
  echo "$sig: $s, kill -l says $(kill -l $s)"
done 2>&1
sh -c 'kill -9 $$' 2>&1; echo "by number: $?"
sh -c 'kill -s TERM $$' 2>&1; echo "kill -s: $?"
sh -c 'sh -c "kill \$\$"; echo "inner ended with $?"; exit 3'; echo "outer: $?"
r=$(sh -c 'kill -TERM $$'); echo "in a substitution: $?"
sh -c 'kill -TERM $$' | cat; echo "first stage killed, last stage's status: $?"
cd ../..; rm -rf $d
