# find_xargs.sh -- find | xargs over a tree the script makes: cat of
# every .txt (sorted first, as find's order is the file system's), wc -l
# of each, grep -l across them, find -exec, and a count by kind.
d=scratch/find_xargs; rm -rf $d; mkdir -p $d; cd $d
mkdir -p tree/a/b tree/c
for f in tree/one.txt tree/a/two.txt tree/a/b/three.txt tree/c/four.txt; do
  echo "this is $f" > $f
done
seq 1 7 > tree/a/b/seven.dat
find tree -name '*.txt' | sort | xargs cat
find tree -type f | sort | xargs wc -l
find tree -type f | xargs grep -l three | sort
find tree -name '*.dat' -exec wc -l {} \;
find tree -type d | sort
echo "$(find tree -type f | wc -l) files, $(find tree -type d | wc -l) directories"
find tree -type f | sort | xargs md5sum | md5sum
find tree -name '*.txt' | xargs rm
find tree -type f
cd ../..; rm -rf $d
