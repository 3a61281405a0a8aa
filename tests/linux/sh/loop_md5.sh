# loop_md5.sh -- an arithmetic loop forking a pipeline per iteration: 200
# times `echo $i | md5sum` (a subshell and md5sum each time), every sum
# kept in a file whose own sum is printed, with a few of them shown.
d=scratch/loop_md5; rm -rf $d; mkdir -p $d; cd $d
i=1
while [ $i -le 200 ]; do
  echo $i | md5sum >> sums
  i=$((i + 1))
done
wc -l < sums
sed -n '1p;50p;200p' sums
md5sum < sums
i=0; n=0
while [ $i -lt 50 ]; do
  s=$(printf '%03d' $i | md5sum | cut -c1-2)
  case $s in [0-7]*) n=$((n + 1)) ;; esac
  i=$((i + 1))
done
echo "$n of 50 sums start with 0-7"
cd ../..; rm -rf $d
