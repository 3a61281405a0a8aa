# case.sh -- case on words from pipes and substitutions: globs, classes,
# alternatives, a default, quoted patterns, in a loop reading a pipe and
# in a function whose output a pipeline counts.
d=scratch/case; rm -rf $d; mkdir -p $d; cd $d
kind() {
  case $1 in
    [0-9]|[0-9][0-9]) echo "$1: small number" ;;
    *[!0-9]*) case $1 in
                *.txt|*.md) echo "$1: text file" ;;
                [A-Z]*) echo "$1: capitalised" ;;
                '*') echo "$1: a star" ;;
                *) echo "$1: word" ;;
              esac ;;
    *) echo "$1: big number" ;;
  esac
}
printf '7\n42\n1234\nnotes.txt\nREADME.md\nHello\n*\nplain\n' | while read -r w; do kind "$w"; done
case $(seq 1 3 | wc -l) in 3) echo "three lines" ;; *) echo "other" ;; esac
for f in a.c b.h c.o d.c; do case $f in *.c) echo "$f" ;; esac; done | wc -l
x=hello
case $x in h*o) echo "h*o matches" ;; esac
case "a|b" in a\|b) echo "escaped bar" ;; esac
case "" in "") echo "empty matches empty" ;; esac
case x in y) echo never ;; esac; echo "no match: $?"
case $(sh -c 'exit 3'; echo $?) in 3) echo "status 3 seen by case" ;; esac
cd ../..; rm -rf $d
