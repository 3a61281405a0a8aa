# pids.sh -- process ids compared, never printed: a subshell's $$ is the
# shell's, a child's $PPID is the shell's $$, a child's $$ is its own,
# a grandchild's $PPID is the child, $! is a job's pid, a background
# job's parent is the shell, and getppid in exec'd programs.
d=scratch/pids; rm -rf $d; mkdir -p $d; cd $d
me=$$
( [ $$ = $me ] && echo "a subshell's \$\$ is the shell's" )
[ "$(sh -c 'echo $PPID')" = $me ] && echo "a child's \$PPID is the shell"
[ "$(sh -c 'echo $$')" != $me ] && echo "a child's \$\$ is its own"
sh -c 'c=$$; [ "$(sh -c "echo \$PPID")" = "$c" ] && echo "a grandchild'"'"'s \$PPID is the child"'
sh -c 'echo $PPID > ppid.bg; echo $$ > pid.bg' &
p=$!
wait $p
[ "$(cat pid.bg)" = $p ] && echo "\$! is the job's pid"
[ "$(cat ppid.bg)" = $me ] && echo "the job's parent is the shell"
[ $p != $me ] && echo "and it is not the shell"
a=$(sh -c 'echo $$'); b=$(sh -c 'echo $$')
[ $a != $b ] && echo "two children, two pids"
sh -c 'echo $$ > self; exec sh -c "[ \$\$ = \$(cat self) ] && echo \"exec keeps the pid\""'
cd ../..; rm -rf $d
