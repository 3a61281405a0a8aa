# exec_args.sh -- execve carrying what Linux carries: 5000 arguments
# (more strings than 4096), 300 KB of arguments (more than 128 KiB; Linux
# takes up to a quarter of the 8 MiB stack), an 11 KB environment
# variable and 1000 exported variables, each seen whole by the new program.
d=scratch/exec_args; rm -rf $d; mkdir -p $d; cd $d
sh -c 'echo "$# arguments, the last ${5000}"' x $(seq 1 5000)
pad=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890
sh -c 'echo "$# arguments of ${#1} bytes"' x $(seq 1000 3999 | sed "s/\$/$pad/")
BIG=$(seq 1 3000 | tr -d '\n')
export BIG
sh -c 'echo "the child saw ${#BIG} bytes of BIG"'
env | grep -c '^BIG='
i=0
while [ $i -lt 1000 ]; do export "V$i=value$i"; i=$((i + 1)); done
sh -c 'echo "V0=$V0 V999=$V999"; env | grep -c "^V[0-9]*="'
cd ../..; rm -rf $d
