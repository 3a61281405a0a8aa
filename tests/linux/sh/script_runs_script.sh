# script_runs_script.sh -- a script running another: sh other.sh with
# arguments ($0, $#, "$@" keeping spaces), the other's exit status, its
# output through a pipe, a script sourced with . (same process, its
# variables stay), and sh -c with $0 and arguments.
d=scratch/script_runs_script; rm -rf $d; mkdir -p $d; cd $d
cat > other.sh <<'EOF'
echo "other.sh as $0 with $# args"
for a in "$@"; do echo "  [$a]"; done
exit $#
EOF
sh other.sh one "two words" '' "four"
echo "its status: $?"
sh other.sh a b c | sed 's/^/piped: /'
cat > lib.sh <<'EOF'
greeting="hello from lib.sh"
double() { echo $(( $1 * 2 )); }
EOF
. ./lib.sh
echo "$greeting, double 21 is $(double 21)"
sh -c 'echo "sh -c: \$0=$0 \$1=$1 \$#=$#"' name first second
printf 'echo "from stdin with $# args"\n' | sh
printf 'echo "sh -s: $1 $2"\n' | sh -s x y
cat > outer.sh <<'EOF'
echo "outer runs inner"
sh inner.sh "$@"
echo "inner said $?"
EOF
echo 'echo "inner got $*"; exit 11' > inner.sh
sh outer.sh p q
cd ../..; rm -rf $d
