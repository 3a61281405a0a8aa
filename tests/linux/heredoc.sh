# heredoc.sh -- here-documents in busybox sh, which makes each with a pipe:
# read loops, variables, functions, quoting, <<-, one on descriptor 3.
# tests/system/test_linux.py runs it in Ferrite and on the host.
total=0
count() {
  n=0
  while read -r w rest; do
    n=$((n + 1)); total=$((total + ${#w}))
  done
  echo "$1: $n lines"
}
count first <<EOF
alpha beta
gamma
delta epsilon zeta
EOF
echo "total word length $total"
name=world
while read a b c; do
  printf '<%s|%s|%s>\n' "$a" "$b" "$c"
done <<EOF
hello $name and more
  leading   spaces here
$((6 * 7)) is the answer
EOF
i=0
while [ $i -lt 3 ]; do
  read -r line <<EOF
iteration $i of 3
EOF
  case $line in
    *1*) echo "one: $line" ;;
    *) echo "$line" ;;
  esac
  i=$((i + 1))
done
show() { while IFS= read -r l; do echo "[$l]"; done; }
show <<'EOF'
$name is not expanded
  \t kept as it is
EOF
	show <<-EOF
	tabs stripped for $name
	EOF
IFS=: read -r user pass uid <<EOF
root:x:0
EOF
echo "user=$user uid=$uid"
exec 3<<EOF
from fd three
and a second line
EOF
read -r x <&3
read -r y <&3
read -r z <&3
echo "3: $x / $y / [$z] $?"
exec 3<&-
