# seq_sort.sh -- seq 1 2000 | sort -rn | head: sort must read all 2000
# lines (about 8.9 KB) before it writes; head ending early; sort -n of a
# shuffled order; awk summing the whole stream.
d=scratch/seq_sort; rm -rf $d; mkdir -p $d; cd $d
seq 1 2000 | sort -rn | head
seq 1 2000 | sort -rn | tail -n 3
seq 1 2000 | awk '{ s += $1 } END { print "sum", s, "lines", NR }'
seq 1 2000 | awk '{ print ($1 * 7919) % 2000 }' | sort -n | uniq | wc -l
seq 1 2000 | sort | head -n 5 | tr '\n' ' '; echo
seq 2000 -1 1 | sort -n | md5sum
seq 1 2000 | md5sum
seq -w 1 2000 | sort -r | sed -n '1p;1000p;2000p'
cd ../..; rm -rf $d
