# exec_builtin.sh -- exec replaces the shell with a command (what follows
# never runs, the status is the command's), exec in a subshell and in a
# pipeline stage, exec of a missing command, exec with only redirections.
d=scratch/exec_builtin; rm -rf $d; mkdir -p $d; cd $d
sh -c 'exec echo "replaced by echo"; echo never'
sh -c 'exec sh -c "exit 4"; echo never'; echo "exec'd status: $?"
( exec sh -c 'echo "exec in a subshell"; exit 6' ); echo "subshell: $?"
echo "through a pipe" | ( exec tr a-z A-Z )
seq 1 3 | sh -c 'exec wc -l'
sh -c 'exec nosuchcommand' 2>/dev/null; echo "exec of a missing command: $?"
sh -c 'exec 3>three; echo "exec with only redirections keeps the shell" >&3; cat three'
cd ../..; rm -rf $d
