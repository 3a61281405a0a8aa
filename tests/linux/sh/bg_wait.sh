# bg_wait.sh -- background jobs: five at once, each writing its own file,
# `wait` for all of them, then their files in order; $! names the last
# one, and `wait $!` waits for it alone.
d=scratch/bg_wait; rm -rf $d; mkdir -p $d; cd $d
for i in 1 2 3 4 5; do
  ( n=0; j=0
    while [ $j -lt $((i * 20)) ]; do j=$((j + 1)); n=$((n + j)); done
    echo "job $i: sum 1..$((i * 20)) = $n" > out.$i ) &
done
wait
echo "wait with no operand: $?"
cat out.1 out.2 out.3 out.4 out.5
seq 1 1000 | md5sum > sum.bg &
p=$!
wait $p
echo "wait \$!: $? -> $(cat sum.bg)"
[ "$p" = "$!" ] && echo "\$! still names it"
sh -c 'echo from a background sh' > bg.out &
wait $!
cat bg.out
sort -r > sorted <<TEXT &
a
c
b
TEXT
wait
cat sorted
cd ../..; rm -rf $d
