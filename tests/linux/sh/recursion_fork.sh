# recursion_fork.sh -- recursion where each level is a new process:
# fib through nested $(...) (177 forks), a script that runs itself with
# sh at each level, and a recursive subshell tree counting its leaves.
d=scratch/recursion_fork; rm -rf $d; mkdir -p $d; cd $d
fib() { if [ $1 -lt 2 ]; then echo $1; else echo $(( $(fib $(($1 - 1))) + $(fib $(($1 - 2))) )); fi; }
echo "fib 10 = $(fib 10)"
cat > down.sh <<'SCRIPT'
n=$1
if [ $n -eq 0 ]; then echo "bottom"; exit 0; fi
echo "level $n"
sh down.sh $((n - 1))
s=$?
exit $((s + 1))
SCRIPT
sh down.sh 6; echo "six levels deep, status $?"
tree() { if [ $1 -eq 0 ]; then echo leaf; else ( tree $(($1 - 1)) ); ( tree $(($1 - 1)) ); fi; }
tree 5 | wc -l
cd ../..; rm -rf $d
