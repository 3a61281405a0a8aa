# redirect_noclobber.sh -- redirections on commands that fork: > and >>
# from children, set -C refusing to overwrite and >| overriding it, <>
# opening for both, a loop's output redirected once, 2>&- and <&-
# closing a descriptor for a child.
d=scratch/redirect_noclobber; rm -rf $d; mkdir -p $d; cd $d
seq 1 3 > f
seq 4 5 >> f
sh -c 'echo six' >> f
cat f | tr '\n' ' '; echo
set -C
echo again > f 2>/dev/null || echo "noclobber refused: $?"
sh -c 'echo never' > f 2>&1 | cat
echo forced >| f
cat f
set +C
for i in 1 2 3; do echo "line $i"; done > loop.out
wc -l < loop.out
echo 12345 > rw
sh -c 'read x; echo "read $x"' <> rw
sh -c 'echo "fd 2 closed" >&2' 2>&- ; echo "writing to a closed stderr: $?"
sh -c 'read x 2>/dev/null; echo "read with stdin closed: $?"' <&-
cat < f > copy; cmp f copy && echo "< and > on one command"
: > emptied; wc -c < emptied
cd ../..; rm -rf $d
