# SPDX-License-Identifier: GPL-2.0
# The plot of scripts/bench.sh: per-operation mkdir time against the number
# of siblings already in the group, for the three systems.
#   gnuplot -e "dir='build/bench'" bench/mkdir.gp
set terminal png size 900,600
set output dir.'/mkdir.png'
set title 'mkdir in one group: time per operation against siblings (median over rounds, QEMU TCG)'
set xlabel 'siblings in the group'
set ylabel 'time per mkdir (us)'
set logscale xy
set key top left
set grid
plot dir.'/mkdir-stock.dat' using 1:2 with linespoints title 'stock configfs', \
     dir.'/mkdir-ours.dat' using 1:2 with linespoints title 'ours (configfs-ng)', \
     dir.'/mkdir-tmpfs.dat' using 1:2 with linespoints title 'tmpfs (bare directory)'
