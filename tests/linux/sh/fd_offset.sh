# fd_offset.sh -- a descriptor shared by parent and children shares its
# offset: commands inside a loop reading the loop's own input take lines
# from it, children appending through one descriptor never overwrite each
# other, and a child's read moves the parent's place in the file.
d=scratch/fd_offset; rm -rf $d; mkdir -p $d; cd $d
seq 1 10 > ten
while read a; do
  b=$(head -n 1)
  echo "the loop read $a, head in the loop took $b"
done < ten
{ read x; sh -c 'read y; echo "child read $y"'; read z; echo "parent read $x then $z"; } < ten
{ echo one; sh -c 'echo two'; echo three; sh -c 'echo four'; } > shared
cat shared | tr '\n' ' '; echo
exec 3< ten
sh -c 'head -c 4' <&3 | tr '\n' ' '; echo
read -r rest <&3; echo "after the child's 4 bytes the shell reads: $rest"
exec 3<&-
cd ../..; rm -rf $d
