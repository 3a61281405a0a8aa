# pipefail.sh -- set -o pipefail: the rightmost failing stage's status;
# 0 when all succeed; switched off again with set +o pipefail.
d=scratch/pipefail; rm -rf $d; mkdir -p $d; cd $d
set -o pipefail
false | true; echo "false | true: $?"
(exit 3) | (exit 4) | true; echo "3 | 4 | true: $?"
(exit 3) | true | true; echo "3 | true | true: $?"
true | true; echo "true | true: $?"
seq 3 | grep -q 9 | cat; echo "grep -q 9 in the middle: $?"
! (exit 2) | true; echo "! 2 | true: $?"
set -o | grep pipefail
set +o pipefail
false | true; echo "off again: $?"
cd ../..; rm -rf $d
