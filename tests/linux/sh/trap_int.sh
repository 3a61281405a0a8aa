# trap_int.sh -- signals sent to the shell itself with kill $$: a trapped
# INT, TERM, HUP and USR1 run their handlers and the script goes on; an
# ignored one ('') does nothing; trap - puts the default back, shown in a
# child shell whose default INT ends it with 130.
d=scratch/trap_int; rm -rf $d; mkdir -p $d; cd $d
trap 'echo "got INT"' INT
kill -INT $$
echo "after INT"
trap 'echo "got TERM"; n=$((n + 1))' TERM
n=0
kill -TERM $$; kill -TERM $$; kill -s TERM $$
echo "TERM handled $n times"
trap 'echo "USR1 handler, \$? inside is $?"' USR1
false; kill -USR1 $$; echo "status after the handler: $?"
trap '' HUP
kill -HUP $$
echo "HUP ignored"
trap - INT
trap > traps; sed 's/^/trap: /' traps
sh -c 'trap "echo child got INT" INT; kill -INT $$; echo "child goes on"; trap - INT; kill -INT $$; echo never'
echo "the child ended with $?"
sh -c 'trap "" TERM; kill -TERM $$; echo "ignored TERM in the child"'
cd ../..; rm -rf $d
