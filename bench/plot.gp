# bench/plot.gp: the charts of bench/run, from the CSV files it wrote.
# Run in bench/results: gnuplot -e "mode='full'" ../plot.gp
# charts.gp (written by report-charts.awk) gives each CSV's column count and
# tool names.

load 'charts.gp'
if (!exists("mode")) mode = "quick"
if (!exists("gnu_newest")) gnu_newest = ""
set datafile separator ","
set datafile missing "NaN"
set terminal pngcairo size 1400,640 font "sans,11" noenhanced
set grid ytics mytics lc rgb "#dddddd"
set key outside right top

# One colour and point per tool, in every chart; the newest GNU in red,
# older ones in a paler red.
isgnu(t) = strstrt(t, "gnu-") == 1
col(t) = t eq gnu_newest ? "#cc3311" : isgnu(t) ? "#ee9977" : \
    t eq "spate" ? "#0077bb" : \
    t eq "busybox" ? "#009988" : t eq "toybox" ? "#ee7733" : \
    t eq "uutils" ? "#aa3377" : t eq "pv" ? "#999933" : "#333333"
pt(t) = t eq gnu_newest ? 5 : isgnu(t) ? 4 : t eq "spate" ? 7 : t eq "busybox" ? 9 : \
    t eq "toybox" ? 11 : t eq "uutils" ? 13 : t eq "pv" ? 3 : 1
dt(t) = t eq "limit" ? 2 : 1

# ---- every scenario: bars per tool, log scale
if (exists("ncol_scenarios")) {
set terminal pngcairo size 1800,640 font "sans,11" noenhanced
set output "bench-scenarios.png"
set title sprintf("spate bench (%s): spate and GNU, GiB/s per scenario, both ends of each pipe on one CPU (log scale; higher is better)", mode)
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y
set yrange [0.1:*]
set format y "%g"
set ylabel "GiB/s"
set xtics rotate by 30 right nomirror
set xrange [-0.5:nrow_scenarios - 0.5]

set bmargin 7
plot for [i = 2:ncol_scenarios] "scenarios.csv" skip 1 using i:xtic(1) \
    title word(tools_scenarios, i - 1) lc rgb col(word(tools_scenarios, i - 1))

set output "bench-cpu.png"
set title sprintf("spate bench (%s): CPU time of the tool per GiB moved, user + system seconds (log scale; lower is better)", mode)
set ylabel "CPU s/GiB"
set yrange [*:*]
plot for [i = 2:ncol_scenarios] "cpu.csv" skip 1 using i:xtic(1) \
    title word(tools_scenarios, i - 1) lc rgb col(word(tools_scenarios, i - 1))

}

# ---- curves
set style data linespoints
unset style histogram
set xtics norotate
set yrange [*:*]
set xrange [*:*]
set offsets 0, 0, 0, 0
set autoscale x
set bmargin

set terminal pngcairo size 1400,640 font "sans,11" noenhanced
if (exists("ncol_yes_linelen")) {
set output "bench-yes-linelen.png"
set title sprintf("yes: throughput against line length, into a pipe drained by splice (%s)", mode)
set logscale xy
set xlabel "line length, bytes (with its newline)"
set ylabel "GiB/s"
set xtics ("1" 1, "10" 10, "100" 100, "1K" 1024, "4K" 4096, "64K" 65536, "1M" 1048576)
plot for [i = 2:ncol_yes_linelen] "yes-linelen.csv" skip 1 using 1:i \
    title word(tools_yes_linelen, i - 1) lw 2 pt pt(word(tools_yes_linelen, i - 1)) \
    lc rgb col(word(tools_yes_linelen, i - 1))

}

if (exists("ncol_tee_pipesz")) {
set output "bench-tee-pipesz.png"
set title sprintf("tee: pipe > tee /dev/null > pipe against pipe size (%s); spate grows its pipes to 1 MiB", mode)
set logscale x 2
set xlabel "pipe size, KiB (all pipes the bench makes)"
set xtics auto
set xtics (64, 128, 256, 512, 1024)
plot for [i = 2:ncol_tee_pipesz] "tee-pipesz.csv" skip 1 using 1:i \
    title word(tools_tee_pipesz, i - 1) lw 2 pt pt(word(tools_tee_pipesz, i - 1)) \
    dt dt(word(tools_tee_pipesz, i - 1)) lc rgb col(word(tools_tee_pipesz, i - 1))

}

if (exists("ncol_tee_outputs_pipe") && exists("ncol_tee_outputs_file") && exists("ncol_tee_outputs_null")) {
set output "bench-tee-outputs.png"
set terminal pngcairo size 1500,560 font "sans,11" noenhanced
set multiplot layout 1,3 title sprintf("tee: GiB/s of input against the number of outputs, all of one kind (%s)", mode)
set logscale xy
set xlabel "outputs"
set xtics (1, 2, 4, 16, 64)
set key inside right top
set title "pipes, each emptied by splice"
plot for [i = 2:ncol_tee_outputs_pipe] "tee-outputs-pipe.csv" skip 1 using 1:i \
    title word(tools_tee_outputs_pipe, i - 1) lw 2 pt pt(word(tools_tee_outputs_pipe, i - 1)) \
    lc rgb col(word(tools_tee_outputs_pipe, i - 1))
set title "tmpfs files"
plot for [i = 2:ncol_tee_outputs_file] "tee-outputs-file.csv" skip 1 using 1:i \
    title word(tools_tee_outputs_file, i - 1) lw 2 pt pt(word(tools_tee_outputs_file, i - 1)) \
    lc rgb col(word(tools_tee_outputs_file, i - 1))
set title "/dev/null"
plot for [i = 2:ncol_tee_outputs_null] "tee-outputs-null.csv" skip 1 using 1:i \
    title word(tools_tee_outputs_null, i - 1) lw 2 pt pt(word(tools_tee_outputs_null, i - 1)) \
    lc rgb col(word(tools_tee_outputs_null, i - 1))
unset multiplot
}
