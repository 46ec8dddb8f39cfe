# bench/report.awk: turn bench/run's raw runs into the Markdown report
# (stdout) and CSV files in directory RES (-v res=DIR).
#
# Input, one run a line: SCENARIO PARAM TOOL ROUND N BYTES NS CPU_NS
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

# The median of row K's values, and its min, max, ratio and CPU.
function stats(k, sc, param,    n, j, lo, hi, g, r, m, a, b, c) {
	n = cnt[k]
	lo = hi = val[k, 1]
	for (j = 1; j <= n; j++) {
		a[j] = val[k, j]
		c[j] = cpu[k, j]
		if (a[j] < lo) lo = a[j]
		if (a[j] > hi) hi = a[j]
	}
	MED = median(a, n)
	LO = lo
	HI = hi
	CPU = median(c, n)
	g = sc SUBSEP param SUBSEP "gnu"
	m = 0
	for (r = 1; r <= maxround; r++)
		if ((k, r) in round && (g, r) in round && round[g, r] > 0)
			b[++m] = round[k, r] / round[g, r]
	RATIO = m ? median(b, m) : ""
}

BEGIN {
	name["yes_splice"] = "yes > pipe, drained by splice"
	name["yes_read"] = "yes > pipe, drained by read(2) 128 KiB"
	name["yes_null"] = "yes > /dev/null"
	name["yes_file"] = "yes > tmpfs file"
	name["yes_disk"] = "yes > disk file"
	name["tee_null"] = "pipe > tee /dev/null > pipe"
	name["tee_read"] = "pipe > tee /dev/null > pipe, drained by read(2)"
	name["tee_file"] = "pipe > tee FILE > pipe"
	name["tee_disk"] = "pipe > tee DISKFILE > pipe"
	name["tee_filein"] = "tmpfs file > tee /dev/null > pipe"
	name["tee_4files"] = "pipe > tee F1 F2 F3 F4 > /dev/null"
	name["tee_append"] = "pipe > tee -a FILE > pipe"
	name["startup_yes"] = "yes \\| head -n1"
	name["startup_tee"] = "echo x \\| tee FILE"
	name["memory"] = "pipe > tee FILE > pipe"
	# short names for the chart
	short["yes_splice"] = "yes|splice"
	short["yes_read"] = "yes|read"
	short["yes_null"] = "yes>null"
	short["yes_file"] = "yes>tmpfs"
	short["yes_disk"] = "yes>disk"
	short["tee_null"] = "tee null|splice"
	short["tee_read"] = "tee null|read"
	short["tee_file"] = "tee tmpfs|splice"
	short["tee_disk"] = "tee disk|splice"
	short["tee_filein"] = "file>tee null|splice"
	short["tee_4files"] = "tee 4 tmpfs"
	short["tee_append"] = "tee -a tmpfs|splice"
	ntool = split("gnu sluice busybox toybox uutils pv limit", order)
	kinds["out_pipe"] = "pipes"
	kinds["out_file"] = "tmpfs files"
	kinds["out_null"] = "/dev/null"
	csv = res "/latest.csv"
	runs = res "/runs.csv"
	print "kind,tool,scenario,runs,bytes_per_run,median,unit,min,max,ratio_vs_gnu,param,cpu_s_per_gib" >csv
	print "scenario,param,tool,round,bytes_per_run,bytes_timed,ns,cpu_ns" >runs
}

{
	print $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 >runs
	k = $1 SUBSEP $2 SUBSEP $3
	if (!(($1, $2) in seen)) {
		seen[$1, $2] = 1
		rows[++nrow] = $1 SUBSEP $2
		if ($2 != "-" && !($1 in pnum))
			curves[++ncurve] = $1
		if ($2 != "-")
			params[$1, ++pnum[$1]] = $2
	}
	if (!(k in cnt))
		tools[$1, $2, ++nt[$1, $2]] = $3
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

END {
	# ---- main table: scenarios without a parameter
	print "## Throughput (GiB/s, higher is better; vs GNU > 1 is faster; CPU: the tool's user + system seconds per GiB, lower is better)\n"
	print "| tool | scenario | runs | MiB/run | median GiB/s | min-max | vs GNU | CPU s/GiB |"
	print "|---|---|---:|---:|---:|---:|---:|---:|"
	hdr = "scenario"
	for (t = 1; t <= ntool; t++) {
		used[t] = 0
		for (r = 1; r <= nrow; r++) {
			split(rows[r], rc, SUBSEP)
			if (rc[2] == "-" && rc[1] !~ /^(startup|memory)/ && has[rc[1], order[t]])
				used[t] = 1
		}
		if (used[t])
			hdr = hdr "," order[t]
	}
	print hdr >(res "/scenarios.csv")
	print hdr >(res "/cpu.csv")
	for (r = 1; r <= nrow; r++) {
		split(rows[r], rc, SUBSEP)
		sc = rc[1]
		if (rc[2] != "-" || sc ~ /^(startup|memory)/)
			continue
		line = short[sc]
		cline = short[sc]
		for (t = 1; t <= ntool; t++) {
			if (!used[t])
				continue
			k = sc SUBSEP "-" SUBSEP order[t]
			if (!(k in cnt)) {
				line = line ",NaN"
				cline = cline ",NaN"
				continue
			}
			stats(k, sc, "-")
			printf "| %s | %s | %d | %s | %s | %s-%s | %s | %s |\n", order[t], name[sc], cnt[k], fmt(bytes[k] / cnt[k] / 1048576), fmt(MED), fmt(LO), fmt(HI), fmt(RATIO), order[t] == "limit" ? "-" : fmt(CPU)
			printf "throughput,%s,%s,%d,%.0f,%.6g,GiB/s,%.6g,%.6g,%s,-,%.6g\n", order[t], sc, cnt[k], bytes[k] / cnt[k], MED, LO, HI, RATIO, CPU >csv
			line = line "," sprintf("%.6g", MED)
			cline = cline "," sprintf("%.6g", CPU)
		}
		print line >(res "/scenarios.csv")
		print cline >(res "/cpu.csv")
		nsc++
	}
	printf "nrow_scenarios = %d\n", nsc >(res "/charts.gp")
	close(res "/scenarios.csv")
	close(res "/cpu.csv")
	ncols["scenarios"] = split(hdr, junk, ",")
	names["scenarios"] = hdr

	# ---- the curves, one pivot table each
	curve_table("yes_len", "yes: line length (GiB/s into a pipe drained by splice; the line is LEN bytes with its newline, several operands past 64 KiB)", "line", "yes-linelen")
	curve_table("yes_pin", "yes: where the scheduler puts the two ends (pipe drained by splice, GiB/s; yes pinned to CPU 0, the drain to CPU 0 too or to CPU 1; unpinned rows above get either, or both in turn)", "CPUs", "yes-pin")
	curve_table("out_pipe out_file out_null", "tee: number of outputs (GiB/s of input, every output gets all of it; the outputs are tee's standard output and K-1 operands, all of one kind; pipes are each emptied by splice)", "outputs", "tee-outputs")
	curve_table("tee_psz", "tee: pipe size (pipe > tee /dev/null > pipe drained by splice, GiB/s; every pipe the bench makes is set to this size before tee starts; sluice grows the pipes it is given to 1 MiB again, the others keep it)", "pipe size", "tee-pipesz")

	# ---- start-up and memory
	for (pass = 1; pass <= 2; pass++) {
		first = 1
		for (r = 1; r <= nrow; r++) {
			split(rows[r], rc, SUBSEP)
			sc = rc[1]
			if (pass == 1 && sc !~ /^startup/ || pass == 2 && sc != "memory")
				continue
			if (first && pass == 1) {
				print "\n## Start-up (us per shell-loop iteration, lower is better; vs GNU < 1 is faster)\n"
				print "| tool | loop | runs x iterations | median us | min-max | vs GNU |"
				print "|---|---|---:|---:|---:|---:|"
			} else if (first) {
				print "\n## Memory (peak RSS of tee, ru_maxrss from wait4(2) as /usr/bin/time %M)\n"
				print "| tool | scenario | MiB moved | peak RSS KiB | vs GNU |"
				print "|---|---|---:|---:|---:|"
			}
			first = 0
			for (t = 1; t <= nt[sc, "-"]; t++) {
				tool = tools[sc, "-", t]
				k = sc SUBSEP "-" SUBSEP tool
				stats(k, sc, "-")
				n = bytes[k] / cnt[k]
				if (pass == 1) {
					printf "| %s | %s | %d x %d | %.0f | %.0f-%.0f | %s |\n", tool, name[sc], cnt[k], n, MED, LO, HI, fmt(RATIO)
					printf "startup,%s,%s,%d,%.0f,%.6g,us/iteration,%.6g,%.6g,%s,-,\n", tool, sc, cnt[k], n, MED, LO, HI, RATIO >csv
				} else {
					printf "| %s | %s | %.0f | %d | %s |\n", tool, name[sc], n / 1048576, MED, fmt(RATIO)
					printf "memory,%s,%s,%d,%.0f,%.6g,KiB,%.6g,%.6g,%s,-,\n", tool, sc, cnt[k], n, MED, LO, HI, RATIO >csv
				}
			}
		}
	}
	printf "\ntotal bench time: %s s (%s)\n", total, mode

	# what plot.gp needs to know
	g = res "/charts.gp"
	for (c in ncols) {
		v = c
		gsub(/-/, "_", v)
		h = names[c]
		sub(/^[^,]*,/, "", h)
		gsub(/,/, " ", h)
		printf "ncol_%s = %d\ntools_%s = \"%s\"\n", v, ncols[c], v, h >g
	}
	close(g)
}

# A pivot table of the curves SCS (space-separated scenarios, sharing
# one parameter): a row per scenario and value, a column per tool; and a
# CSV per scenario for the chart.
function curve_table(scs, title, pname, file,    ns, s, sc, i, p, t, k, line, hdr, u, nu, c, any, f) {
	ns = split(scs, s, " ")
	nu = 0
	for (t = 1; t <= ntool; t++) {
		for (i = 1; i <= ns; i++)
			if (has[s[i], order[t]]) {
				u[++nu] = order[t]
				break
			}
	}
	any = 0
	for (i = 1; i <= ns; i++)
		if (pnum[s[i]])
			any = 1
	if (!any)
		return
	printf "\n## %s\n\n", title
	line = "| " (ns > 1 ? "kind | " : "") pname
	for (t = 1; t <= nu; t++)
		line = line " | " u[t]
	print line " | sluice vs GNU | sluice CPU s/GiB | GNU CPU s/GiB |"
	line = "|" (ns > 1 ? "---|" : "") "---:"
	for (t = 1; t <= nu; t++)
		line = line "|---:"
	print line "|---:|---:|---:|"
	for (i = 1; i <= ns; i++) {
		sc = s[i]
		if (!pnum[sc])
			continue
		f = res "/" file (ns > 1 ? "-" substr(sc, 5) : "") ".csv"
		hdr = pname == "pipe size" ? "kib" : pname == "line" ? "bytes" : pname == "CPUs" ? "cpus" : "outputs"
		for (t = 1; t <= nu; t++)
			if (has[sc, u[t]])
				hdr = hdr "," u[t]
		print hdr >f
		c = split(hdr, junk, ",")
		ncols[file (ns > 1 ? "_" substr(sc, 5) : "")] = c
		names[file (ns > 1 ? "_" substr(sc, 5) : "")] = hdr
		for (p = 1; p <= pnum[sc]; p++) {
			param = params[sc, p]
			line = "| " (ns > 1 ? kinds[sc] " | " : "") (pname == "outputs" || pname == "CPUs" ? param : size(param))
			cl = pname == "pipe size" ? param / 1024 : param
			for (t = 1; t <= nu; t++) {
				k = sc SUBSEP param SUBSEP u[t]
				if (k in cnt) {
					stats(k, sc, param)
					line = line " | " fmt(MED)
					if (u[t] == "sluice") { sr = RATIO; scpu = CPU }
					if (u[t] == "gnu") gcpu = CPU
					printf "throughput,%s,%s,%d,%.0f,%.6g,GiB/s,%.6g,%.6g,%s,%s,%.6g\n", u[t], sc, cnt[k], bytes[k] / cnt[k], MED, LO, HI, RATIO, param, CPU >csv
					cl = cl "," sprintf("%.6g", MED)
				} else {
					line = line " | -"
					if (has[sc, u[t]])
						cl = cl ",NaN"
				}
			}
			print line " | " fmt(sr) " | " fmt(scpu) " | " fmt(gcpu) " |"
			print cl >f
			sr = scpu = gcpu = ""
		}
		close(f)
	}
}
