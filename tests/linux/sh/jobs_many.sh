# jobs_many.sh -- many processes at once: 20 background jobs, each a
# pipeline of three, all alive together until `wait`; each writes its own
# file, read back in order; then each job's status by `wait PID`.
d=scratch/jobs_many; rm -rf $d; mkdir -p $d; cd $d
i=1
while [ $i -le 20 ]; do
  seq 1 $((i * 50)) | sort -rn | head -n 1 > out.$i &
  eval "pid$i=\$!"
  i=$((i + 1))
done
wait
i=1
while [ $i -le 20 ]; do printf '%s ' $(cat out.$i); i=$((i + 1)); done; echo
i=1
while [ $i -le 10 ]; do sh -c "exit $i" & eval "st$i=\$!"; i=$((i + 1)); done
i=1; all=
while [ $i -le 10 ]; do eval "wait \$st$i"; all="$all $?"; i=$((i + 1)); done
echo "statuses:$all"
cd ../..; rm -rf $d
