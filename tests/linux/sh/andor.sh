# andor.sh -- && and || chains with commands that fork, ! and the status
# each leaves in $?; && binds no tighter than ||, left to right.
d=scratch/andor; rm -rf $d; mkdir -p $d; cd $d
true && echo "true &&"
false && echo never
false || echo "false ||"
true || echo never
grep -q x /dev/null && echo never || echo "grep failed, || ran: $?"
sh -c 'exit 3' || echo "sh exited $?"
sh -c 'exit 0' && sh -c 'exit 4' || echo "second failed: $?"
false || false || echo "third after two failures"
true && false || echo "false in the middle caught"
! sh -c 'exit 5'; echo "! of exit 5: $?"
! true; echo "! true: $?"
test -d . && test ! -f nosuch && echo "directory yes, file no"
mkdir sub && cd sub && pwd | sed 's|.*/||'
cd ..
[ -e nothing ] || touch made && ls -1
false; echo "\$? after false: $?"; echo "\$? after echo: $?"
cd ../..; rm -rf $d
