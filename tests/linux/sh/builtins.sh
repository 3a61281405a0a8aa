# builtins.sh -- nothing but ash's builtins, so no process is made: variables,
# arithmetic, loops, case, functions, parameter expansion, set --, getopts,
# printf, test. It proves the harness itself, and runs before fork exists.
x=5 total=0
while [ $x -gt 0 ]; do
  total=$((total + x * x))
  x=$((x - 1))
done
echo "sum of squares 1..5: $total"
for w in alpha beta gamma; do
  case $w in
    a*) echo "$w starts with a" ;;
    *m*) echo "$w holds an m" ;;
    *) echo "$w: other" ;;
  esac
done
path=/usr/local/lib/libfoo.so.1
echo "${path##*/} ${path%/*} ${path#/usr/} ${#path}"
unset nothing
echo "[${nothing:-default}] [${nothing:+alt}] [${path:+set}]"
set -- one "two words" three
echo "$# args, second: $2"
shift
for a in "$@"; do printf '<%s>' "$a"; done; echo
sq() { return $(( $1 * $1 )); }
sq 7; echo "sq 7 returned $?"
OPTIND=1
while getopts ab:c opt -a -b value -c rest; do
  echo "opt $opt ${OPTARG:-}"
  OPTARG=
done
printf '%5s|%-5s|%05d|%x|%o|%c\n' right left 42 255 8 z
[ 3 -lt 10 ] && [ abc != abd ] && [ -n "x" ] && [ -z "" ] && echo "tests hold"
i=0; s=
until [ $i -ge 4 ]; do s="$s$i"; i=$((i + 1)); done
echo "until: $s"
echo "$(( 17 % 5 )) $(( 1 << 10 )) $(( (3 + 4) * 2 )) $(( 10 > 3 ))"
readonly ro=1
echo "readonly $ro"
v=a:b:c; IFS=:; set -- $v; unset IFS
echo "split on colons: $# fields, last $3"
true; echo "true $?"; false; echo "false $?"
exit 0
