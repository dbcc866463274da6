# report.png: GB/s against N, one panel per op, dtype and direction.
# bench/report_plot.py sets, with gnuplot -e: datadir, out, heading, panels (data
# file stems), titles (one double-quoted title per panel), layout_rows,
# layout_cols. Each data file: a header line naming the series, then
# N and one GB/s column per series (NaN where a peer did not run).

set terminal pngcairo size 1600,1000 font "sans,10" noenhanced
set output out
set multiplot layout layout_rows, layout_cols title "GB/s (logical) against N, ".heading font "sans,13"

set logscale x 2
set xlabel "N (row length)"
set ylabel "GB/s"
set yrange [0:*]
set offsets 0, 0, graph 0.3, 0  # headroom above the lines for the key
set grid
set key top left Left reverse font "sans,8" samplen 2 maxrows 3

# One style per series, the same in every panel; the reference dashed.
set linetype 1 lc rgb "#d62728" lw 2.5 pt 7 ps 0.8   # halnorm
set linetype 2 lc rgb "#1f77b4" lw 1.5 pt 5 ps 0.7   # oneDNN
set linetype 3 lc rgb "#ff7f0e" lw 1.5 pt 9 ps 0.8   # PyTorch
set linetype 4 lc rgb "#7f7f7f" lw 1.5 pt 13 ps 0.8  # naive
set linetype 5 lc rgb "black" lw 1.5 dt 2 pt 0       # DRAM STREAM

do for [i = 1:words(panels)] {
    set title word(titles, i)
    plot for [c = 2:6] datadir."/".word(panels, i).".dat" using 1:c \
        with linespoints linetype (c - 1) title columnheader(c)
}
unset multiplot
