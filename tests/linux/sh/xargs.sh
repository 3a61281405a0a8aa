# xargs.sh -- xargs running commands from a pipe: -n batches, -I
# replacing a name, sh -c as the command, its status 123 when a command
# fails and 127 when none is found (busybox learns of a failed execve
# from a variable its vfork child sets), a command per line making files.
d=scratch/xargs; rm -rf $d; mkdir -p $d; cd $d
seq 1 10 | xargs -n 3 echo batch:
printf 'a\nb\nc\n' | xargs -I X echo "<X>"
seq 1 4 | xargs -n 1 sh -c 'echo "$1 squared is $(( $1 * $1 ))"' sh
printf 'x y\nz\n' | xargs echo all on one line:
seq 1 5 | xargs -n 2 sh -c 'exit 0'; echo "all succeeded: $?"
seq 1 5 | xargs -n 1 sh -c '[ $1 -ne 3 ]' sh; echo "one failed: $?"
echo x | xargs nosuchcommand 2>&1; echo "not found: $?"
printf 'f1\nf2\nf3\n' | xargs touch
ls -1
printf 'f1\nf2\nf3\n' | xargs -n 1 sh -c 'echo "in $1" > $1' sh
cat f1 f2 f3
seq 1 5000 | xargs echo | wc -w
echo | xargs echo "empty input still runs once:"
cd ../..; rm -rf $d
