# inherit.sh -- what a child process inherits: the current directory,
# the umask (modes of the files it makes), exported variables and not
# unexported ones, open descriptors, ignored signals; and what the
# parent keeps when the child changes its own.
d=scratch/inherit; rm -rf $d; mkdir -p $d/sub; cd $d
cd sub
sh -c 'pwd' | sed 's|.*/||'
sh -c 'cd ..; pwd' | sed 's|.*/||'
pwd | sed 's|.*/||'
cd ..
umask 027
sh -c 'echo x > by-child; umask'
stat -c '%a %n' by-child
umask 022
sh -c 'umask'
EXPORTED=yes; export EXPORTED; PLAIN=no
sh -c 'echo "exported: ${EXPORTED:-missing}, plain: ${PLAIN:-missing}"'
ONCE=for-one-command sh -c 'echo "prefix assignment: $ONCE"'
echo "after it: ${ONCE:-gone}"
sh -c 'EXPORTED=changed; echo "child changed it to $EXPORTED"'
echo "parent still has $EXPORTED"
exec 5> five
sh -c 'echo "through an inherited fd 5" >&5'
exec 5>&-
cat five
trap '' INT
sh -c 'kill -INT $$; echo "INT ignored by inheritance"'
trap - INT
sh -c 'kill -INT $$; echo never'; echo "INT default again: $?"
cd ../..; rm -rf $d
