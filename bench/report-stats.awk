# bench/report-stats.awk: the numbers of bench/report.awk's report (the
# median, range and CPU of a row, how many times better one tool did
# than another, round by round) and how they are written.  Functions
# only, over report.awk's arrays (cnt, val, cpu, round, unit, text).

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
