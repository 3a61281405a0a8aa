# loop_pipes.sh -- pipelines and substitutions inside loops: 100
# iterations each running a three-stage pipeline into a substitution,
# break and continue in a loop fed by a pipe, and nested loops forking.
d=scratch/loop_pipes; rm -rf $d; mkdir -p $d; cd $d
i=0; total=0
while [ $i -lt 100 ]; do
  n=$(echo "$i $i $i" | tr ' ' '\n' | wc -l)
  total=$((total + n))
  i=$((i + 1))
done
echo "100 pipelines, $total lines counted"
seq 1 20 | while read n; do
  [ $((n % 3)) -eq 0 ] && continue
  [ $n -gt 14 ] && break
  printf '%s ' $n
done; echo
for a in 1 2 3; do
  for b in x y; do
    echo "$a$b" | tr xy XY
  done | tr '\n' ' '
  echo
done
for w in $(seq 1 5); do echo $w; done | sort -rn | head -n 2 | tr '\n' ' '; echo
n=0
for f in $(seq 1 30); do
  case $(echo $f | md5sum) in *a*) n=$((n + 1)) ;; esac
done
echo "$n of 30 sums hold an a"
cd ../..; rm -rf $d
