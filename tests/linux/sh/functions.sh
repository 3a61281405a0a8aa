# functions.sh -- functions that run commands: return codes, local
# variables (restored after the call, even across recursion), $@ and $#,
# a function as a pipeline stage (a subshell: its assignments are lost),
# and a function's output captured by $(...).
d=scratch/functions; rm -rf $d; mkdir -p $d; cd $d
v=global
setv() { local v=local; echo "inside: $v"; inner; }
inner() { echo "inner sees the caller's local: $v"; }
setv; echo "after: $v"
isdir() { [ -d "$1" ]; }
isdir . && echo ". is a directory"
isdir nosuch || echo "nosuch is not: $?"
status() { sh -c "exit $1"; return $(( $? + 1 )); }
status 4; echo "status 4 returned $?"
count() { local n=0; while read -r l; do n=$((n + 1)); done; echo "$n lines"; }
seq 1 17 | count
upper() { tr a-z A-Z; }
echo "piped through a function" | upper
total=0
add() { total=$((total + $1)); }
add 5; add 6; echo "total in the shell: $total"
seq 1 3 | while read x; do add $x; done; echo "total after a pipeline: $total"
args() { echo "$# args: $*"; shift 2; echo "after shift 2: $@"; }
args a "b c" d e
fact() { local n=$1; if [ $n -le 1 ]; then echo 1; else echo $(( n * $(fact $((n - 1))) )); fi; }
echo "10! = $(fact 10)"
f() { return 300; }; f; echo "return 300 wraps to $?"
cd ../..; rm -rf $d
