# set_e.sh -- set -e ends a shell at a failing command, but not in an if,
# a while test, an && or || list's left side, or under !; the status it
# ends with comes back to the parent.
d=scratch/set_e; rm -rf $d; mkdir -p $d; cd $d
sh -c 'set -e; echo one; false; echo never'; echo "set -e after false: $?"
sh -c 'set -e; echo two; sh -c "exit 6"; echo never'; echo "set -e after exit 6: $?"
sh -c 'set -e; if false; then :; fi; echo "if: survived"'
sh -c 'set -e; false || echo "||: survived"'
sh -c 'set -e; false && echo never; echo "&&: survived"'
sh -c 'set -e; ! true; echo "!: survived"'
sh -c 'set -e; while false; do :; done; echo "while: survived"'
sh -c 'set -e; x=$(false); echo never'; echo "assignment from a failing \$(...): $?"
sh -c 'set -e; f() { false; echo never; }; f; echo never'; echo "in a function: $?"
sh -c 'set -e; (exit 9); echo never'; echo "a failing subshell: $?"
sh -c 'set -e; echo x | grep -q y; echo never'; echo "a failing pipeline: $?"
sh -c 'set -e; false | true; echo "only the last stage counts"'
set -e
true
echo "this script under -e"
set +e
false
echo "set +e: goes on"
cd ../..; rm -rf $d
