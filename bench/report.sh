# bench/report.sh: the report of bench/run, sourced by it: its header
# (the machine, the tools, how they ran), the tools and rows report.awk
# reads, and at the end the report itself, with the CSV files report.awk
# writes and the charts plot.gp draws from them (bench/results).
# shellcheck shell=bash
#
# Uses what bench/run sets (MODE, DOC, T, RES, RAW, ODD, DIR, DISK,
# PINNED, BUILD, BENCH_GNU, COLD, the run counts and lengths, start),
# the tools of tools.sh and the SCENARIOS of scenarios.sh.

# Name a path for the report relative to the checkout, not this machine.
shown() {
	local p
	p=$(realpath -ms "$1")
	case $p in
	"$root") echo . ;;
	"$root"/*) echo "${p#"$root"/}" ;;
	/usr/* | /bin/* | /dev/* | /tmp/* | /var/tmp/*) echo "$p" ;;
	*) realpath -ms --relative-to="$root" "$p" ;;
	esac
}

# The GNU builds of COMMAND that the bench compares, for the header.
gnus() { # COMMAND
	local -n g=GNU_$1
	local t p
	# A build named by BENCH_GNU is told by its version, not by where
	# it happens to lie on the machine that ran the bench.
	for t in "${g[@]}"; do
		p=${GNU_PATH["$1 $t"]}
		case $p in /usr/bin/*) ;; *) p="BENCH_GNU" ;; esac
		printf '%s (%s), ' "${LABEL[$t]}" "$p"
	done | sed 's/, $//'
}

# The header of the report, into T/head and onto stderr.
report_head() {
	local thp cpu c p
	thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
	{
		echo "# spate bench ($MODE), $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo
		echo "- machine: ${cpu:-unknown CPU}, $NCPU cores, $(uname -sr), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), load before the run $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "- pipe-max-size $(cat /proc/sys/fs/pipe-max-size), THP ${thp:-?}; tmpfs files in $(shown "$DIR") ($(fstype "$DIR")), disk files in $(shown "$DISK") ($(fstype "$DISK"))"
		if [ -n "$PINNED" ]; then
			echo "- every process pinned to CPU $PINNED with taskset: both ends of each pipe on one CPU"
		else
			echo "- not pinned: each run gets the placement the scheduler picks"
		fi
		echo "- spate $("$BUILD/yes" --version 2>/dev/null | head -n1 | awk '{ print $NF }'): $(for c in yes tee cat; do [ -x "$BUILD/$c" ] && printf '%s ' $c; done)"
		for c in yes tee cat; do
			echo "- GNU $c: $(gnus $c)"
		done
		[ "$BENCH_GNU" = "" ] && echo "  (no other GNU builds: BENCH_GNU is empty)"
		echo "- peers: yes: ${PEERS_yes[*]:-none}; tee: ${PEERS_tee[*]:-none}${PV:+ pv}; cat: ${PEERS_cat[*]:-none}${MISSING[*]:+; missing: ${MISSING[*]} (bench/setup installs them)}"
		for p in busybox toybox uutils pv; do
			case " ${PEERS_yes[*]} ${PEERS_tee[*]} ${PEERS_cat[*]} ${PV[*]} " in
			*" $p "*) ;;
			*) continue ;;
			esac
			case $p in
			uutils) echo "  - uutils coreutils (rust-coreutils) $(pkg_version rust-coreutils)" ;;
			*) echo "  - $p $(pkg_version $p)" ;;
			esac
		done
		[ -n "${PV[*]:-}" ] || echo "- pv is missing: its rows are left out (bench/setup installs it)"
		if [ -n "$COLD" ]; then
			echo "- cold cache: run as root, so the page cache is dropped (sync; echo 3 > /proc/sys/vm/drop_caches) before each cold run"
		else
			echo "- cold cache: not measured (BENCH_COLD=1, as root, drops the page cache for them)"
		fi
		echo "- rows: $RUNS interleaved runs of ~${SECS}s; curves: $SRUNS runs of ~${SSECS}s, ${CURVE_PEERS:+with peers}${CURVE_PEERS:-spate and GNU only}; start-up: 5 rounds of $NSTART"
		echo
	} >"$T/head"
	cat "$T/head" >&2
}

# The tools and rows, for bench/report.awk, into T/meta.
report_meta() {
	local t
	{
		for t in spate serial trusted $(printf '%s\n' "${!LABEL[@]}" | grep '^gnu-' | sort -rV) \
		    busybox toybox uutils pv limit split; do
			echo "tool	$t	${LABEL[$t]}"
		done
		echo "$SCENARIOS" | sed '/^$/d; s/^/row	/'
	} >"$T/meta"
}

# The report: bench/results/bench.md (printed), raw.txt, the CSV files
# and, with gnuplot, the charts; with --doc, into the documentation.
report_write() {
	local total CHARTS
	total=$(awk -v ns="$(ns "$start" "$EPOCHREALTIME")" 'BEGIN { printf "%.0f", ns / 1e9 }')
	awk -v res="$RES" -v total="$total" -v mode="$MODE" \
	    -f "$here/report-stats.awk" -f "$here/report-curves.awk" \
	    -f "$here/report-charts.awk" -f "$here/report.awk" \
	    "$T/meta" "$RAW" >"$T/table"
	{
		cat "$T/head" "$T/table"
		if [ -s "$ODD" ]; then
			echo
			echo "## Problems, and rows left out"
			echo
			cat "$ODD"
		fi
	} >"$RES/bench.md"
	cp "$RAW" "$RES/raw.txt"
	cat "$RES/bench.md"

	CHARTS=
	if command -v gnuplot >/dev/null 2>&1; then
		(cd "$RES" && gnuplot -e "mode='$MODE'" "$here/plot.gp") ||
		    echo "bench: gnuplot failed" >&2
		CHARTS=$(cd "$RES" && ls ./*.png 2>/dev/null | sed 's|^\./||' | tr '\n' ' ')
	fi
	echo
	echo "CSV: bench/results/latest.csv (rows), runs.csv (every run), and one per chart; report: bench/results/bench.md${CHARTS:+; charts: bench/results/*.png}"
	if [ "$DOC" = 1 ]; then
		"$here/doc" "$RES" "$MODE" "$total" || die "bench/doc failed"
	fi
}
