# pipe3.sh -- three-stage pipelines: the classic word count
# (tr | sort | uniq -c), sort | uniq | wc, sed | awk | sort, tee in the middle.
d=scratch/pipe3; rm -rf $d; mkdir -p $d; cd $d
cat > words <<'TEXT'
the cat sat on the mat
the dog sat on the log
a cat and a dog
TEXT
tr ' ' '\n' < words | sort | uniq -c
tr -s ' ' '\n' < words | sort -u | wc -l
sed 's/the/THE/g' words | awk '{ print NF, $1 }' | sort -r
seq 1 10 | tee copy | awk '{ s += $1 } END { print "sum", s }'
wc -l < copy
grep -v dog words | tr a-z A-Z | sort
cd ../..; rm -rf $d
