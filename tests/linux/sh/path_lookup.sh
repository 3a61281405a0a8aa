# path_lookup.sh -- commands found through PATH: a script made in a
# directory put in front of PATH, the first of two with one name winning,
# a name found nowhere (127, "not found"), a name with a slash not looked
# up, busybox's applets found before PATH is searched, and env running a
# command with a changed environment.
d=scratch/path_lookup; rm -rf $d; mkdir -p $d/bin $d/bin2; cd $d
printf '#!/bin/busybox sh\necho "greet from bin: $*"\n' > bin/greet
printf '#!/bin/busybox sh\necho "greet from bin2"\n' > bin2/greet
printf '#!/bin/busybox sh\necho "only in bin2"\n' > bin2/other
chmod +x bin/greet bin2/greet bin2/other
PATH=$PWD/bin:$PWD/bin2:$PATH
greet world
other
PATH=$PWD/bin2:$PWD/bin:/bin
greet
command -v greet | sed "s|^$PWD/||"
nosuchcmd 2>&1 | sed 's/^[^:]*: [^:]*: //'
nosuchcmd 2>/dev/null; echo "not found: $?"
bin/greet "by its path"
PATH=/nonexistent
echo "applets without PATH: $(seq 3 | sort -r | tr '\n' ' ')"
greet 2>/dev/null; echo "greet without PATH: $?"
PATH=$PWD/bin
env NAME=value sh -c 'echo "env set NAME=$NAME"'
env -i sh -c 'echo "env -i left ${PATH:-no PATH}"'
env greet through env
cd ../..; rm -rf $d
