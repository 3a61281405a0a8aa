# pipe5.sh -- four- and five-stage pipelines: each stage a process reading
# the one before; tr, sort, uniq -c, sort -rn, head, sed, awk, md5sum, grep.
d=scratch/pipe5; rm -rf $d; mkdir -p $d; cd $d
cat > text <<'TEXT'
It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was
the epoch of incredulity, it was the season of Light, it was the season of
Darkness, it was the spring of hope, it was the winter of despair.
TEXT
tr 'A-Z' 'a-z' < text | tr -cs 'a-z' '\n' | sort | uniq -c | sort -k1,1nr -k2 | head -n 6
cat text | tr -cs 'A-Za-z' '\n' | grep -v '^$' | awk '{ print length($0) }' | sort -n | uniq -c
seq 1 500 | sed 's/$/ item/' | awk '$1 % 7 == 0' | tr ' ' ':' | md5sum
seq 1 50 | grep 5 | sort -rn | head -n 3 | tr '\n' ' '; echo
printf 'b,2\na,1\nc,3\na,4\n' | sort -t, -k1,1 -k2,2n | awk -F, '{ s[$1] = s[$1] $2 } END { for (k in s) print k, s[k] }' | sort | sed 's/^/> /' | cat -n
cd ../..; rm -rf $d
