# trap_subshell.sh -- traps in subshells: a handler set in the parent is
# not run by a subshell's signal (the subshell takes the default), an
# ignored signal stays ignored in subshells and in exec'd children, and
# a subshell's own EXIT trap runs when the subshell ends.
d=scratch/trap_subshell; rm -rf $d; mkdir -p $d; cd $d
trap 'echo parent EXIT' EXIT
( echo "subshell body" ); echo "no EXIT trap in the subshell above"
( trap 'echo subshell EXIT' EXIT; echo "subshell with its own trap" )
trap 'echo "parent caught TERM"' TERM
( sh -c 'kill -TERM $PPID'; echo "subshell: not reached" ) 2>&1
echo "the subshell was ended by TERM: $?"
trap '' USR1
( kill -USR1 $$ ; echo "parent ignores USR1 (sent from a subshell)" )
sh -c 'kill -USR1 $$; echo "the ignored USR1 is ignored in an exec'"'"'d child too"'
( trap 'echo "subshell caught USR2"; exit 5' USR2; sh -c 'kill -USR2 $PPID'; sleep 1; echo never ); echo "subshell's handler exit: $?"
x=$(trap 'echo trap in a substitution' EXIT; echo body); echo "$x" | tr '\n' '/'; echo
trap - TERM USR1
cd ../..; rm -rf $d
