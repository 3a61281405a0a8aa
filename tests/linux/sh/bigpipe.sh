# bigpipe.sh -- far more than a pipe holds (64 KiB) through pipes, so
# writers wait for readers: 1 MB through cat, 300 KB through three stages,
# a 170 KB file through cat | md5sum, the bytes counted at the end, and
# 170 KB captured by a command substitution.
d=scratch/bigpipe; rm -rf $d; mkdir -p $d; cd $d
seq 1 30000 > big
wc -c < big
md5sum < big
cat big | md5sum
cat big | cat | cat | md5sum
yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c 1000000 | cat | wc -c
seq 1 30000 | sed 's/$/ some more text to make the line longer/' | awk '{ n += length($0) + 1 } END { print n }'
dd if=/dev/zero bs=4096 count=100 2>/dev/null | tr '\0' 'z' | wc -c
head -c 300000 /dev/zero | tr '\0' '\n' | wc -l
cat big big big | sort -n | uniq -c | awk '$1 != 3' | wc -l
x=$(seq 1 30000)
echo "${#x} bytes captured"
echo "$x" | md5sum
cd ../..; rm -rf $d
