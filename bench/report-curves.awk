# bench/report-curves.awk: the curves of bench/report.awk's report (the
# rows run at several values of one parameter: line length, CPUs,
# outputs, pipe size), a table each and a CSV each for plot.gp.
# Functions only, over report.awk's arrays.

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
