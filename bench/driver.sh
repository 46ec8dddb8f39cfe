# bench/driver.sh: how bench/run sizes and runs its rows, sourced by it.
# shellcheck shell=bash
#
# A row (row, row_cores) or a point of a curve (curve) runs each tool of
# its command CUR_RUNS times, interleaved, each run sized by calibrate to
# last about CUR_SECS; start-up and memory have loops of their own.
# Every run is a line of RAW ("scenario param tool round N bytes ns
# cpu_ns", what report.awk reads), and whatever went wrong a line of ODD
# (odd), for the report.  BENCH_ONLY, a list of scenario names, runs only
# those.  Uses what bench/run sets (T, D, BB, BUILD, RAW, ODD, CAP, CAPF,
# CAPIN, RUNS, SECS, CORE_SECS, SRUNS, SSECS, NSTART, CURVE_PEERS), the
# tools of tools.sh and the sc_* of scenarios.sh.

odd() { echo "- $*" >>"$ODD"; echo "bench: $*" >&2; }
# What went wrong with TOOL in SC (with PARAM), for odd().
what() { # TOOL SC PARAM
	local t=${TEXT[$2]:-$2}
	[ "$3" = - ] || t="$t, $3"
	echo "${LABEL[$1]:-$1}, $t"
}

# Set N to what TOOL moves in CUR_SECS in scenario SC (with PARAM).  A
# row SC_progress moves what its plain twin SC did, when it ran: the two
# then differ by the option alone, not by their sizes.
declare -A SIZED
calibrate() { # SC TOOL PARAM
	local n=65536 lim=$CAP file= unit=65536
	N=${SIZED["${1%_progress} $2 ${3:-}"]:-}
	[ "$1" != "${1%_progress}" ] && [ -n "$N" ] && return 0
	case ${1%_progress} in
	yes_null) N=0; return 0 ;;	# runs for a time, not a size
	cat_many_*) N=0; return 0 ;;	# the same files, whatever N
	tee_filein | tee_pv_* | tee_cat_pv | cat_filepipe | cat_null | \
	    cat_file | cat_[nAvs]) lim=$CAPIN file=1 ;;
	tee_dd) n=$((1 << 20)) unit=$((1 << 20)) ;;
	out_file) lim=$((CAPF / $3)) ;;
	esac
	while :; do
		"sc_$1" "$2" $n "${3:-}" || return 1
		if [ "$R_NS" -ge 30000000 ] || [ $n -ge $lim ]; then
			break
		fi
		n=$((n * 8))
		[ $n -gt $lim ] && n=$lim
	done
	N=$(awk -v b="$R_BYTES" -v t="$R_NS" -v s="$CUR_SECS" -v cap=$lim \
	    -v file="$file" -v unit=$unit 'BEGIN {
		n = t > 0 ? b / t * s * 1e9 : cap
		if (file) {
			# input files come in powers of two, to be shared
			p = 65536
			while (p * 1.5 < n) p *= 2
			n = p
		}
		n = int(n / unit) * unit
		if (n < unit) n = unit
		if (n > cap) n = cap
		printf "%.0f", n }')
}

# Run scenario SC with PARAM (- for none) for each TOOL, interleaved,
# CUR_RUNS times each.
scenario() { # SC PARAM TOOL...
	local sc=$1 param=$2 tool r order
	local -A size
	shift 2
	[ $# -gt 0 ] || return 0
	printf 'bench: %s %s:' "$sc" "$param" >&2
	for tool in "$@"; do
		if calibrate "$sc" "$tool" "$param"; then
			size[$tool]=$N
			SIZED["$sc $tool $param"]=$N
		else
			odd "$(what "$tool" "$sc" "$param"): $R_ERR"
		fi
	done
	for ((r = 1; r <= CUR_RUNS; r++)); do
		# Odd rounds go in the order given, even ones backwards, so no
		# tool always runs right after the same neighbour.
		order=("$@")
		if ((r % 2 == 0)); then
			order=()
			for tool in "$@"; do order=("$tool" "${order[@]}"); done
		fi
		for tool in "${order[@]}"; do
			[ -n "${size[$tool]:-}" ] || continue
			if "sc_$sc" "$tool" "${size[$tool]}" "$param"; then
				echo "$sc $param $tool $r ${size[$tool]} $R_BYTES $R_NS $R_CPU" >>"$RAW"
			else
				odd "$(what "$tool" "$sc" "$param"), run $r: $R_ERR"
				unset "size[$tool]"
			fi
		done
		printf ' %d' $r >&2
	done
	rm -f "$T"/in.* "$D"/in.*
	echo >&2
}
# BENCH_ONLY (a list of scenario names) runs only those.
only() {
	[ -z "${BENCH_ONLY:-}" ] && return 0
	case " $BENCH_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
# A row of the family tables: every tool of COMMAND, and EXTRA tools.
row() { # SC COMMAND [EXTRA...]
	local sc=$1 c=$2
	shift 2
	only "$sc" || return 0
	tools_for "$c" "$@"
	CUR_RUNS=$RUNS CUR_SECS=$SECS timed scenario "$sc" - "${TOOLS[@]}"
}
# A row of spate alone, for an option of its own that the others lack
# (--progress): it goes after the row of its plain twin.
row_own() { # SC
	only "$1" || return 0
	CUR_RUNS=$RUNS CUR_SECS=$SECS timed scenario "$1" - spate
}
# A row under a seccomp filter (FILTER): spate, spate trusting the
# filter, and the GNUs under it.
row_seccomp() { # SC COMMAND
	local sc=$1 c=$2 t=() x
	only "$sc" || return 0
	tools_for "$c"
	for x in "${TOOLS[@]}"; do
		case $x in spate) t+=(spate trusted) ;; gnu-*) t+=("$x") ;; esac
	done
	CUR_RUNS=$RUNS CUR_SECS=$SECS timed scenario "$sc" - "${t[@]}"
}
# A row that measures cores: runs of CORE_SECS, long enough for tee's
# threads to start (after 4 MiB) and to pay for starting.
row_cores() { # SC COMMAND [EXTRA...]
	local sc=$1 c=$2
	shift 2
	only "$sc" || return 0
	tools_for "$c" "$@"
	CUR_RUNS=$RUNS CUR_SECS=$CORE_SECS timed scenario "$sc" - "${TOOLS[@]}"
}
# A point of a curve: spate and the GNUs (and the peers in full mode).
curve() { # SC PARAM COMMAND [EXTRA...]
	local sc=$1 p=$2 c=$3 t=() x
	shift 3
	only "$sc" || return 0
	tools_for "$c"
	if [ -z "$CURVE_PEERS" ]; then
		for x in "${TOOLS[@]}"; do
			case $x in spate | gnu-*) t+=("$x") ;; esac
		done
		TOOLS=("${t[@]}")
	fi
	CUR_RUNS=$SRUNS CUR_SECS=$SSECS timed scenario "$sc" "$p" "${TOOLS[@]}" "$@"
}
# Run "$@" and show on stderr how long it took.
timed() {
	local t0=$EPOCHREALTIME
	"$@"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "bench:   (%.1f s)\n", b - a }' >&2
}
# Nanoseconds from EPOCHREALTIME value $1 to $2.
ns() {
	local a=${1/./} b=${2/./}
	echo $(((10#$b - 10#$a) * 1000))
}

# The byte-exact pre-check (bench/check); its failures go to the report.
check() {
	local out=$T/check.tap
	TMPDIR=$T BENCH_BIN=$BB SPATE_BIN=$BUILD "$here/check" >"$out" 2>&1
	grep '^not ok' "$out" | sed 's/^not ok [0-9]* - //' | while read -r l; do
		odd "pre-check failed: spate $l (bench/check shows how)"
	done
	grep -q '^1\.\.' "$out" || odd "pre-check did not finish: $(tail -n3 "$out" | tr '\n' ' ')"
}

# Start-up: NSTART iterations of a shell loop (`yes | head -n1`,
# `echo x | tee FILE`, `echo x | cat`) per tool and round, 5 rounds in
# alternating order; the loop's time per iteration.
startup() { # COMMAND
	local c=$1 r i t0 t1 tool order x
	only "startup_$c" || return 0
	tools_for "$c"
	printf 'bench: startup_%s:' "$c" >&2
	for ((r = 1; r <= 5; r++)); do
		order=("${TOOLS[@]}")
		if ((r % 2 == 0)); then
			order=()
			for tool in "${TOOLS[@]}"; do order=("$tool" "${order[@]}"); done
		fi
		for tool in "${order[@]}"; do
			set_cmd "$c" "$tool"
			x=("${CMD[@]}")
			t0=$EPOCHREALTIME
			case $c in
			yes) for ((i = 0; i < NSTART; i++)); do
				"${x[@]}" 2>/dev/null | head -n1 >/dev/null
			done ;;
			tee) for ((i = 0; i < NSTART; i++)); do
				echo x | "${x[@]}" "$T/s" >/dev/null
			done ;;
			cat) for ((i = 0; i < NSTART; i++)); do
				echo x | "${x[@]}" >/dev/null
			done ;;
			esac
			t1=$EPOCHREALTIME
			echo "startup_$c - $tool $r $NSTART $NSTART $(ns "$t0" "$t1") 0" >>"$RAW"
		done
		printf ' %d' $r >&2
	done
	echo >&2
}

# Peak RSS (KiB) of tee in pipe > tee FILE > pipe: the ru_maxrss of
# wait4(2), what /usr/bin/time %M shows.
memory() {
	local tool n
	only memory || return 0
	n=$(awk '$1 == "tee_file" && $3 == "spate" { print $5; exit }' "$RAW")
	[ "${n:-0}" -gt 0 ] || n=$((1 << 30))
	tools_for tee
	for tool in "${TOOLS[@]}"; do
		if sc_tee_file "$tool" "$n"; then
			echo "memory - $tool 1 $n $n $R_RSS 0" >>"$RAW"
		else
			odd "${LABEL[$tool]} tee, memory run: $R_ERR"
		fi
	done
}
