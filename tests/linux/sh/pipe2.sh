# pipe2.sh -- two-stage pipelines: a builtin or an applet feeding an applet
# (sort, tr, wc, head, grep, md5sum), the reader seeing the writer's end.
d=scratch/pipe2; rm -rf $d; mkdir -p $d; cd $d
printf 'pear\napple\nfig\nbanana\n' | sort
echo "Hello, Pipe" | tr 'a-z' 'A-Z'
seq 1 100 | wc -l
seq 10 20 | head -n 3
printf 'one\ntwo\nthree\n' | grep -n t
printf 'abc' | md5sum
echo 'no newline at the end' | tr -d '\n' | wc -c
seq 5 | tail -n 2
printf '3 1 2\n' | tr ' ' '\n' | sort -n > sorted
cat sorted
cd ../..; rm -rf $d
