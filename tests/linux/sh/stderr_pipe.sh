# stderr_pipe.sh -- standard error into a pipe with 2>&1 |, the order of
# redirections (2>&1 >file sends only stderr on), stderr alone through a
# pipe, and applets' own error messages carried through.
d=scratch/stderr_pipe; rm -rf $d; mkdir -p $d; cd $d
{ echo out; echo err >&2; } 2>&1 | sort
{ echo out; echo err >&2; } 2>/dev/null | wc -l
{ echo out; echo err >&2; } 2>&1 >/dev/null | sed 's/^/stderr only: /'
cat nosuch 2>&1 | sed 's/^/piped: /'
ls nosuch 2>&1 | wc -l
cat 2>&1 < nosuch | sed 's/^[^:]*: [^:]*: //'
sh -c 'echo to-stderr >&2; exit 3' 2>&1 | tr a-z A-Z
echo "status of tr: $?"
sh -c 'echo e1 >&2; echo o1; echo e2 >&2' 2>&1 >/dev/null | cat
grep pattern nosuchfile 2>&1 | cut -d: -f2-
{ sh -c 'nosuchcommand'; } 2>&1 | sed 's/^sh: //'
sh -c 'exec 2>&1; echo "exec 2>&1 inside" >&2' | cat
cd ../..; rm -rf $d
