# subshell.sh -- ( ... ) runs in a child: its variables, cd, umask and
# set options do not come back; its exit status does, through exit,
# nesting, and a failing last command.
d=scratch/subshell; rm -rf $d; mkdir -p $d/inner; cd $d
umask 022
x=outer
( x=inner; echo "in the subshell x=$x" )
echo "after it x=$x"
( cd inner; pwd | sed 's|.*/||' )
pwd | sed 's|.*/||'
( exit 3 ); echo "( exit 3 ): $?"
( false ); echo "( false ): $?"
( true; false; true ); echo "last command true: $?"
( ( ( exit 7 ) ); echo "innermost said $?"; exit 8 ); echo "outer said $?"
( set -e; false; echo "not reached" ); echo "set -e in the subshell: $?"
case $- in *e*) echo "-e came back" ;; *) echo "-e stayed in the subshell" ;; esac
( echo out; exit 2 ) > captured; echo "redirected subshell: $? $(cat captured)"
r=$( ( echo from a subshell in a substitution; exit 6 ) ); echo "$r: $?"
( umask 077; umask ); umask
cd ../..; rm -rf $d
