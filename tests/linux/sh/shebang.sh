# shebang.sh -- ./x.sh after chmod +x: a #!/bin/busybox sh line with its
# argument (all the rest of the line is one argument, as on Linux),
# #!/bin/sh, arguments passed on, a script without a #! line
# (execve says ENOEXEC and the shell runs it itself), a file without
# execute permission (126) and a missing one (127).
d=scratch/shebang; rm -rf $d; mkdir -p $d; cd $d
printf '#!/bin/busybox sh\necho "busybox sh ran me with $# args: $*"\nexit 3\n' > x.sh
chmod +x x.sh
./x.sh a b
echo "status $?"
printf '#!/bin/sh\necho "sh ran me: $1"\n' > y.sh
chmod 755 y.sh
./y.sh yes
printf 'echo "no #! line, run by the shell: $1"\n' > plain.sh
chmod +x plain.sh
./plain.sh z
printf '#!/bin/busybox sh\necho "never"\n' > noexec.sh
./noexec.sh 2>&1 | sed 's/^[^:]*: [^:]*: //'
./noexec.sh 2>/dev/null; echo "not executable: $?"
./missing.sh 2>/dev/null; echo "missing: $?"
printf '#!/bin/busybox awk -f\nBEGIN { print "awk ran me" }\n' > a.awk
chmod +x a.awk
./a.awk 2>&1; echo "the rest of a #! line is one argument: $?"
out=$(./x.sh in a substitution); echo "captured: $out"
./x.sh | tr a-z A-Z
cd ../..; rm -rf $d
