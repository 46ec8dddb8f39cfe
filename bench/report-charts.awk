# bench/report-charts.awk: the data of plot.gp's bar charts, which
# bench/report.awk's tables gathered (chart, ccpu, inchart): the
# throughput rows of spate, the GNUs and the limit loops, into
# scenarios.csv and cpu.csv, and their sizes into charts.gp.  Functions
# only.

# Write the bar charts' CSV files and charts.gp into RES.
function charts(    hdr, nc, h, t, r, sc, nsc, line, cline, c, g, v, s) {
	hdr = "scenario"
	for (t = 1; t <= ntool; t++)
		if (tool[t] != "limit" && inchart[tool[t]] && (tool[t] == "spate" || tool[t] ~ /^gnu-/))
			hdr = hdr "," tool[t]
	nc = split(hdr, h, ",")
	print hdr >(res "/scenarios.csv")
	print hdr >(res "/cpu.csv")
	nsc = 0
	for (r = 1; r <= nrowdef; r++) {
		sc = rowname[r]
		if (!((sc, "spate") in chart))
			continue
		line = cline = short[sc]
		for (c = 2; c <= nc; c++) {
			line = line "," ((sc, h[c]) in chart ? sprintf("%.6g", chart[sc, h[c]]) : "NaN")
			cline = cline "," ((sc, h[c]) in ccpu ? sprintf("%.6g", ccpu[sc, h[c]]) : "NaN")
		}
		print line >(res "/scenarios.csv")
		print cline >(res "/cpu.csv")
		nsc++
	}
	close(res "/scenarios.csv")
	close(res "/cpu.csv")
	g = res "/charts.gp"
	printf "nrow_scenarios = %d\n", nsc >g
	ncols["scenarios"] = nc
	names["scenarios"] = hdr
	for (t = 1; t <= ntool; t++)
		if (tool[t] ~ /^gnu-/) {
			printf "gnu_newest = \"%s\"\n", tool[t] >g
			break
		}
	for (c in ncols) {
		v = c
		gsub(/-/, "_", v)
		s = names[c]
		sub(/^[^,]*,/, "", s)
		gsub(/,/, " ", s)
		printf "ncol_%s = %d\ntools_%s = \"%s\"\n", v, ncols[c], v, s >g
	}
}
