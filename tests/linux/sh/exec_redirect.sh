# exec_redirect.sh -- exec redirections: exec 3>file then >&3 (from the
# shell and from children that inherit descriptor 3), exec 3>&- closing
# it, exec 4<file read in turns, stdout saved, sent to a file and restored,
# and an appending descriptor shared by several children.
d=scratch/exec_redirect; rm -rf $d; mkdir -p $d; cd $d
exec 3> three
echo "from the shell" >&3
sh -c 'echo "from a child, inheriting fd 3" >&3'
( echo "from a subshell" >&3 )
seq 1 2 >&3
exec 3>&-
cat three
echo "closed" >&3 2>/dev/null || echo "fd 3 is closed: writing failed"
exec 4< three
read -r l1 <&4
read -r l2 <&4
sh -c 'read -r l3; echo "a child read: $l3"' <&4
read -r l4 <&4
echo "the shell read: $l1 / $l2 / $l4"
exec 4<&-
exec 5>&1
exec > captured
echo "this went to the file"
seq 1 3
exec 1>&5 5>&-
echo "stdout is back; the file holds $(wc -l < captured) lines"
cat captured
exec 6>> log
for i in 1 2 3; do sh -c "echo line $i >&6"; done
exec 6>&-
cat log
exec 7>&1
sh -c 'echo "a child wrote to the copy of stdout" >&7'
exec 7>&-
cd ../..; rm -rf $d
