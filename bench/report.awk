# bench/report.awk: turn bench/run's runs into the Markdown report
# (stdout) and CSV files in directory RES (-v res=DIR).
#
#	awk -v res=DIR -v total=SECONDS -v mode=MODE -f report-stats.awk \
#	    -f report-curves.awk -f report-charts.awk -f report.awk META RAW
#
# This file reads the runs and writes the summary (a sentence a row)
# and a table a family; report-stats.awk has the numbers,
# report-curves.awk the curves' tables, report-charts.awk the bar
# charts' data.
#
# META, tab-separated: "tool ID LABEL" in column order (spate, the GNUs
# newest first, peers, limit), and "row NAME FAMILY UNIT SHORT TEXT" in
# row order; UNIT is rate (GiB/s), us (per iteration) or kib (peak RSS).
# RAW, one run a line: SCENARIO PARAM TOOL ROUND N BYTES NS CPU_NS
#   N: the bytes the run was sized for; BYTES, NS: what was timed;
#   CPU_NS: the tool's user + system time.  Start-up rows hold the
#   iterations in N and BYTES; memory rows the peak RSS (KiB) in NS.

FNR == NR {
	n = split($0, f, "\t")
	if (f[1] == "tool") {
		tool[++ntool] = f[2]
		label[f[2]] = f[3]
	} else if (f[1] == "row") {
		rowname[++nrowdef] = f[2]
		family[f[2]] = f[3]
		unit[f[2]] = f[4]
		short[f[2]] = f[5]
		text[f[2]] = f[6]
	}
	next
}

{
	print $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 >runs
	k = $1 SUBSEP $2 SUBSEP $3
	if (!(($1, $2) in seen)) {
		seen[$1, $2] = 1
		if ($2 != "-")
			params[$1, ++pnum[$1]] = $2
	}
	has[$1, $3] = 1
	if ($1 ~ /^startup/)
		v = $7 / $6 / 1000		# us an iteration
	else if ($1 == "memory")
		v = $7				# KiB
	else
		v = $6 / $7 * 1e9 / 1073741824	# GiB/s
	cnt[k]++
	val[k, cnt[k]] = v
	b = $5 > 0 ? $5 : $6
	cpu[k, cnt[k]] = b > 0 ? $8 / 1e9 / (b / 1073741824) : 0
	round[k, $4] = v
	if ($4 > maxround) maxround = $4
	bytes[k] += $5 > 0 ? $5 : $6
}

BEGIN {
	csv = res "/latest.csv"
	runs = res "/runs.csv"
	print "family,tool,scenario,param,runs,bytes_per_run,median,unit,min,max,vs_gnu,ratio,ratio_min,ratio_max,cpu_s_per_gib" >csv
	print "scenario,param,tool,round,bytes_per_run,bytes_timed,ns,cpu_ns" >runs
	nfam = split("yes tee cat seccomp", fams)
}

# The columns of family F: every tool with a row in it; NG of them GNU.
function columns(f,    t, r, sc) {
	ncol = ng = 0
	for (t = 1; t <= ntool; t++)
		for (r = 1; r <= nrowdef; r++) {
			sc = rowname[r]
			if (family[sc] == f && has[sc, tool[t]]) {
				col[++ncol] = tool[t]
				if (tool[t] ~ /^gnu-/)
					gcol[++ng] = tool[t]
				break
			}
		}
}

END {
	# ---- one sentence per row, against every GNU measured
	print "## Summary (spate against each GNU version, median ratio of the rounds and its range)\n"
	for (i = 1; i <= nfam; i++) {
		columns(fams[i])
		for (r = 1; r <= nrowdef; r++) {
			sc = rowname[r]
			k = sc SUBSEP "-" SUBSEP "spate"
			if (family[sc] != fams[i] || !(k in cnt) || !ng)
				continue
			stats(k)
			if (unit[sc] == "kib") {
				line = "- spate " fams[i] " peaked at " fmt(MED) " KiB of memory"
				for (g = 1; g <= ng; g++)
					if ((sc, "-", gcol[g]) in cnt) {
						stats(sc SUBSEP "-" SUBSEP gcol[g])
						line = line ", " label[gcol[g]] " at " fmt(MED)
					}
				print line ": " text[sc]
				continue
			}
			line = ""
			for (g = 1; g <= ng; g++)
				if (ratio(sc, "-", "spate", gcol[g]))
					line = line (line == "" ? "" : ", ") rtext(label[gcol[g]])
			if (line == "")
				continue
			if (ratio(sc, "-", "spate", "serial"))
				line = line ", " rtext(label["serial"])
			if (ratio(sc, "-", "spate", "split"))
				line = line ", " rtext(label["split"])
			stats(k)
			printf "- spate %s ran %s: %s (%s %s)\n", fams[i], line, text[sc], fmt(MED), unitname(sc)
		}
	}

	# ---- one table per family: rows the scenarios, columns the tools
	for (i = 1; i <= nfam; i++) {
		columns(fams[i])
		if (!ncol)
			continue
		if (!captioned++)
			print "\nIn the tables: GiB/s unless the row says otherwise, the median of the runs; \"spate vs GNU\": how many times faster spate ran than that GNU in the same round (start-up: quicker; memory: smaller), median (min-max) over the rounds; -: not run or failed (see Problems)."
		printf "\n## %s\n\n", fams[i]
		line = "| scenario"
		sep = "|---"
		for (c = 1; c <= ncol; c++) {
			line = line " | " label[col[c]]
			sep = sep "|---:"
		}
		for (g = 1; g <= ng; g++) {
			line = line " | spate vs " label[gcol[g]]
			sep = sep "|---:"
		}
		# Rows that measure cores have spate on one thread too, and
		# the split of their outputs over one-thread tees.
		serial = splitcol = 0
		for (c = 1; c <= ncol; c++) {
			if (col[c] == "serial")
				serial = 1
			if (col[c] == "split")
				splitcol = 1
		}
		if (serial) {
			line = line " | spate vs " label["serial"]
			sep = sep "|---:"
		}
		if (splitcol) {
			line = line " | spate vs " label["split"]
			sep = sep "|---:"
		}
		print line " |"
		print sep "|"
		for (r = 1; r <= nrowdef; r++) {
			sc = rowname[r]
			if (family[sc] != fams[i] || !((sc, "-") in seen))
				continue
			line = "| " cell(rowtext(sc))
			for (c = 1; c <= ncol; c++) {
				k = sc SUBSEP "-" SUBSEP col[c]
				if (!(k in cnt)) {
					line = line " | -"
					continue
				}
				stats(k)
				line = line " | " fmt(MED)
				g = ""
				for (j = 1; j <= ng; j++)
					if (ratio(sc, "-", col[c], gcol[j])) {
						g = gcol[j]
						break
					}
				printf "%s,%s,%s,-,%d,%.0f,%.6g,%s,%.6g,%.6g,%s,%s,%s,%s,%s\n", fams[i], col[c], sc, cnt[k], bytes[k] / cnt[k], MED, unitname(sc), LO, HI, g, RATIO, RLO, RHI, unit[sc] == "rate" && col[c] != "limit" && col[c] != "split" ? sprintf("%.6g", CPU) : "" >csv
				if (unit[sc] == "rate" && col[c] != "limit" && col[c] != "split" && short[sc] != "-") {
					chart[sc, col[c]] = MED
					ccpu[sc, col[c]] = CPU
					inchart[col[c]] = 1
				}
			}
			for (g = 1; g <= ng; g++)
				line = line " | " (ratio(sc, "-", "spate", gcol[g]) ? rtext() : "-")
			if (serial)
				line = line " | " (ratio(sc, "-", "spate", "serial") ? rtext() : "-")
			if (splitcol)
				line = line " | " (ratio(sc, "-", "spate", "split") ? rtext() : "-")
			print line " |"
		}
	}

	# ---- the curves, one table each
	curve_table("yes_len", "yes: line length (into a pipe drained by splice; the line is LEN bytes with its newline, several operands past 64 KiB)", "line", "yes-linelen")
	curve_table("yes_pin", "yes: where the two ends of the pipe run (drained by splice; yes on CPU 0, the drain on CPU 0 too or on CPU 1; the rows above have both ends on one CPU)", "CPUs", "yes-pin")
	curve_table("out_pipe out_file out_null", "tee: number of outputs (GiB/s of input, every output gets all of it; tee's standard output and K-1 operands, all of one kind; pipes are each emptied by splice)", "outputs", "tee-outputs")
	curve_table("tee_psz", "tee: pipe size (pipe > tee /dev/null > pipe drained by splice; every pipe the bench makes is set to this size before tee starts; no tee resizes them)", "pipe size", "tee-pipesz")

	printf "\ntotal bench time: %s s (%s)\n", total, mode

	# ---- the bar charts' data
	charts()
}
