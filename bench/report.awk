# bench/report.awk: turn bench/run's runs into the Markdown report
# (stdout) and CSV files in directory RES (-v res=DIR).
#
#	awk -v res=DIR -v total=SECONDS -v mode=MODE -f report.awk META RAW
#
# META, tab-separated: "tool ID LABEL" in column order (spate, the GNUs
# newest first, peers, limit), and "row NAME FAMILY UNIT SHORT TEXT" in
# row order; UNIT is rate (GiB/s), us (per iteration) or kib (peak RSS).
# RAW, one run a line: SCENARIO PARAM TOOL ROUND N BYTES NS CPU_NS
#   N: the bytes the run was sized for; BYTES, NS: what was timed;
#   CPU_NS: the tool's user + system time.  Start-up rows hold the
#   iterations in N and BYTES; memory rows the peak RSS (KiB) in NS.

function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# Three significant digits or so, whatever the magnitude.
function fmt(v) {
	return v == "" ? "-" : v >= 100 ? sprintf("%.0f", v) : \
	    v >= 10 ? sprintf("%.1f", v) : v >= 0.1 ? sprintf("%.2f", v) : \
	    sprintf("%.2g", v)
}

function size(b) {
	return b >= 1048576 ? (b / 1048576) " MiB" : \
	    b >= 1024 ? (b / 1024) " KiB" : b " B"
}

# Markdown table cells must not hold a bare |.
function cell(s) {
	gsub(/\|/, "\\|", s)
	return s
}

# MED, LO, HI, CPU: the median, min and max of row K's values, and its
# median CPU seconds per GiB.
function stats(k,    n, j, a, c) {
	n = cnt[k]
	LO = HI = val[k, 1]
	for (j = 1; j <= n; j++) {
		a[j] = val[k, j]
		c[j] = cpu[k, j]
		if (a[j] < LO) LO = a[j]
		if (a[j] > HI) HI = a[j]
	}
	MED = median(a, n)
	CPU = median(c, n)
}

# RATIO, RLO, RHI: how many times better tool T did than tool G in
# scenario SC with PARAM, round by round (faster; for start-up and
# memory, smaller): the median and the range over the rounds they share.
function ratio(sc, param, t, g,    k, kg, r, m, b, lo, hi, x) {
	k = sc SUBSEP param SUBSEP t
	kg = sc SUBSEP param SUBSEP g
	m = 0
	for (r = 1; r <= maxround; r++)
		if ((k, r) in round && (kg, r) in round && round[kg, r] > 0 && round[k, r] > 0) {
			x = unit[sc] == "rate" ? round[k, r] / round[kg, r] : round[kg, r] / round[k, r]
			b[++m] = x
			if (m == 1 || x < lo) lo = x
			if (m == 1 || x > hi) hi = x
		}
	RATIO = m ? median(b, m) : ""
	RLO = lo
	RHI = hi
	RN = m
	return m
}

# "14.8x GNU 9.11 (12.1-16.0)", or without WHO "14.8x (12.1-16.0)".
function rtext(who,    s) {
	s = fmt(RATIO) "x" (who == "" ? "" : " " who)
	if (RN > 1)
		s = s " (" fmt(RLO) "-" fmt(RHI) ")"
	return s
}

# A row's text with its unit when that is not GiB/s.
function rowtext(sc) {
	return text[sc] (unit[sc] == "us" ? " (us per run)" : unit[sc] == "kib" ? ", peak RSS (KiB)" : "")
}

function unitname(sc) {
	return unit[sc] == "rate" ? "GiB/s" : unit[sc] == "us" ? "us" : "KiB"
}

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

	# ---- the bar charts' data: the throughput rows, spate, the GNUs
	# and the limit loops
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
	close(g)
}

# A pivot table of the curves SCS (space-separated scenarios sharing one
# parameter): a row per scenario and value, a column per tool and one of
# spate against the newest GNU; and a CSV per scenario for the charts.
function curve_table(scs, title, pname, file,    ns, s, sc, i, p, t, k, line, hdr, u, nu, ng1, any, f, cl, sep, id) {
	ns = split(scs, s, " ")
	nu = 0
	ng1 = ""
	for (t = 1; t <= ntool; t++)
		for (i = 1; i <= ns; i++)
			if (has[s[i], tool[t]]) {
				u[++nu] = tool[t]
				if (ng1 == "" && tool[t] ~ /^gnu-/)
					ng1 = tool[t]
				break
			}
	any = 0
	for (i = 1; i <= ns; i++)
		if (pnum[s[i]])
			any = 1
	if (!any)
		return
	printf "\n## %s\n\n", title
	line = "| " (ns > 1 ? "kind | " : "") pname
	sep = "|" (ns > 1 ? "---|" : "") "---:"
	for (t = 1; t <= nu; t++) {
		line = line " | " label[u[t]]
		sep = sep "|---:"
	}
	if (ng1 != "") {
		line = line " | spate vs " label[ng1]
		sep = sep "|---:"
	}
	print line " |"
	print sep "|"
	for (i = 1; i <= ns; i++) {
		sc = s[i]
		unit[sc] = "rate"
		if (!pnum[sc])
			continue
		id = file (ns > 1 ? "-" substr(sc, 5) : "")
		f = res "/" id ".csv"
		hdr = pname == "pipe size" ? "kib" : pname == "line" ? "bytes" : pname == "CPUs" ? "cpus" : "outputs"
		for (t = 1; t <= nu; t++)
			if (has[sc, u[t]])
				hdr = hdr "," u[t]
		print hdr >f
		gsub(/-/, "_", id)
		ncols[id] = split(hdr, junk, ",")
		names[id] = hdr
		for (p = 1; p <= pnum[sc]; p++) {
			param = params[sc, p]
			line = "| " (ns > 1 ? (sc == "out_pipe" ? "pipes" : sc == "out_file" ? "tmpfs files" : "/dev/null") " | " : "") (pname == "outputs" || pname == "CPUs" ? param : size(param))
			cl = pname == "pipe size" ? param / 1024 : param
			for (t = 1; t <= nu; t++) {
				k = sc SUBSEP param SUBSEP u[t]
				if (k in cnt) {
					stats(k)
					line = line " | " fmt(MED)
					ratio(sc, param, u[t], ng1)
					printf "%s,%s,%s,%s,%d,%.0f,%.6g,GiB/s,%.6g,%.6g,%s,%s,%s,%s,%.6g\n", substr(sc, 1, 3) == "yes" ? "yes" : "tee", u[t], sc, param, cnt[k], bytes[k] / cnt[k], MED, LO, HI, ng1, RATIO, RLO, RHI, CPU >csv
					cl = cl "," sprintf("%.6g", MED)
				} else {
					line = line " | -"
					if (has[sc, u[t]])
						cl = cl ",NaN"
				}
			}
			if (ng1 != "")
				line = line " | " (ratio(sc, param, "spate", ng1) ? rtext() : "-")
			print line " |"
			print cl >f
		}
		close(f)
	}
}
