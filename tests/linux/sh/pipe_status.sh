# pipe_status.sh -- a pipeline's status is its last command's; ! negates it;
# each stage's own exit status does not leak (without pipefail).
d=scratch/pipe_status; rm -rf $d; mkdir -p $d; cd $d
true | false; echo "true | false: $?"
false | true; echo "false | true: $?"
(exit 3) | (exit 4); echo "(exit 3) | (exit 4): $?"
(exit 3) | (exit 0); echo "(exit 3) | (exit 0): $?"
echo x | grep -q y; echo "grep -q y: $?"
echo x | grep -q x; echo "grep -q x: $?"
! echo x | grep -q y; echo "! no match: $?"
! true | true; echo "! true | true: $?"
seq 3 | sh -c 'cat > /dev/null; exit 9'; echo "sh -c exit 9 at the end: $?"
echo a | nosuchcommand 2>/dev/null; echo "not found at the end: $?"
if printf 'a\nb\n' | grep -q b; then echo "if on a pipeline: taken"; fi
while echo once | grep -q twice; do echo never; done; echo "while on a failing pipeline: $?"
cd ../..; rm -rf $d
