# groups.sh -- { ...; } groups run in the shell itself (their variables
# stay), yet take redirections as a whole: output to a file, appends,
# input from a file, stderr joined, and a group as a pipeline stage.
d=scratch/groups; rm -rf $d; mkdir -p $d; cd $d
{ echo first; echo second; } > two
cat two
{ echo third; } >> two
wc -l < two
{ read a; read b; } < two
echo "read from a group: $a, $b"
{ v=set-in-group; }
echo "the group's variable: $v"
{ echo to-out; echo to-err >&2; } > out 2> err
echo "out: $(cat out), err: $(cat err)"
{ echo visible; echo hidden >&2; } 2>/dev/null
{ echo b; echo a; echo c; } | sort
{ w=in-pipeline; echo "$w"; } | cat
echo "a group in a pipeline is a subshell: [${w-unset}]"
{ echo x; false; }; echo "group status: $?"
{ cat nosuchfile; } 2>&1 | sed 's/^[^:]*: //'
{ printf '%s\n' 3 1 2 | sort -n; echo end; } | tr '\n' ' '; echo
cd ../..; rm -rf $d
