# read_pipe.sh -- `read` at the end of pipes: a while-read loop over seq,
# fields split by IFS, read -r keeping backslashes, several reads taking
# successive lines of one pipe, and the loop's variables lost after it
# (it runs in a subshell) but kept when it reads a file.
d=scratch/read_pipe; rm -rf $d; mkdir -p $d; cd $d
seq 1 5 | while read n; do echo "square of $n is $((n * n))"; done
printf 'root:x:0:0\nbin:x:1:1\nuser:x:1000:1000\n' | while IFS=: read name pw uid gid; do
  echo "$name has uid $uid"
done
printf 'a\\tb c\\d\n' | { read -r raw; echo "raw: $raw"; }
printf 'a\\tb c\\d\n' | { read cooked; echo "cooked: $cooked"; }
seq 10 12 | { read a; read b; read c; echo "$c $b $a"; }
last=none
seq 1 3 | while read last; do :; done
echo "after the piped loop: $last"
seq 1 3 > nums
while read last; do :; done < nums
echo "after the loop on a file: ${last:-empty}"
while read x; do n=$((${n:-0} + x)); done < nums; echo "sum from the file: $n"
seq 1 300 | while read i; do [ $((i % 100)) -eq 0 ] && echo "at $i"; done
printf 'no newline at the end' | { read line; echo "read said $?: $line"; }
echo "x y z" | { read first rest; echo "first=$first rest=$rest"; }
cd ../..; rm -rf $d
