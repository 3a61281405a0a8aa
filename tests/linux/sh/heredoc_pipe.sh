# heredoc_pipe.sh -- here-documents feeding pipelines: a here-document as
# the first stage's input, one read by a loop at a pipeline's end, one
# holding $(...) that forks, quoted ones kept as they are, one given to
# sh as its script, and one of 108 KB (more than a pipe holds: ash forks
# a child to write it).
d=scratch/heredoc_pipe; rm -rf $d; mkdir -p $d; cd $d
sort <<EOF | uniq -c | sort -rn
pear
apple
pear
fig
pear
apple
EOF
cat <<EOF | tr a-z A-Z | sed 's/^/| /'
made on $(echo the fly) with $(seq 1 3 | wc -l) lines
second line
EOF
awk '{ s += $2 } END { print "total", s }' <<EOF
a 10
b 20
c $(( 6 * 5 ))
EOF
cat <<'EOF' | wc -c
$(not run) `nor this` $HOME
EOF
sh <<'EOF'
echo "sh read its script from a here-document"
seq 1 3 | tr '\n' ' '; echo
exit 4
EOF
echo "its status: $?"
while read -r name n; do
  printf '%s=%s\n' "$name" "$(seq 1 $n | tr -d '\n')"
done <<EOF | sort -r
one 1
three 3
five 5
EOF
md5sum <<EOF
$(seq 1 100)
EOF
cat <<EOF | wc -c
$(seq 1 20000)
EOF
md5sum <<EOF
$(seq 1 20000)
EOF
cd ../..; rm -rf $d
