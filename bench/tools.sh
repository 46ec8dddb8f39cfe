# bench/tools.sh: which tools bench/run compares, and how to run each.
# shellcheck shell=bash
# Sourced by bench/run, which sets BUILD (spate's commands) and BB (the
# helper programs).
#
# A tool is one word:
#   spate       $BUILD/yes, tee, cat (a command that is not built has no rows)
#   serial       $BUILD/tee with SPATE_THREADS=1: copies on one thread
#   trusted      $BUILD/CMD with SPATE_SECCOMP=trust: the whole engine
#                under a seccomp filter (the seccomp rows only)
#   gnu-VERSION  GNU coreutils VERSION: /usr/bin, and each directory of
#                BENCH_GNU (dir[:dir...]) holding GNU builds; the version
#                is the last word of the first line of `CMD --version`
#   busybox toybox uutils   the peers, when installed and answering
#   pv           pv -q, as a one-output tee
#   limit        bench/limit-CMD, the fastest loop the kernel allows
#   split        the rows that measure cores only: their outputs dealt
#                among one-thread tees side by side, one a CPU
#                (bench/split-tee), the most threads could give

declare -A GNU_PATH	# "CMD TOOL" -> the GNU command's path
declare -A LABEL	# TOOL -> its name in the report
GNU_DIRS=()

# The version of GNU command $1, or nothing if it is not GNU coreutils.
gnu_version() { # PATH
	local l
	[ -x "$1" ] || return 1
	l=$("$1" --version 2>/dev/null | head -n1)
	case $l in
	*"(GNU coreutils)"*) echo "${l##* }" ;;
	*) return 1 ;;
	esac
}

# GNU_yes, GNU_tee, GNU_cat: the GNU tools of each command, newest first;
# one per version (a build of the system's version adds nothing).
find_gnu() { # DIR...
	local d c v tools
	for d in /usr/bin "$@"; do
		[ -d "$d" ] || continue
		GNU_DIRS+=("$d")
		for c in yes tee cat; do
			v=$(gnu_version "$d/$c") || continue
			[ -n "${GNU_PATH["$c gnu-$v"]:-}" ] && continue
			GNU_PATH["$c gnu-$v"]=$d/$c
			LABEL[gnu-$v]="GNU $v"
		done
	done
	for c in yes tee cat; do
		tools=$(for k in "${!GNU_PATH[@]}"; do
			case $k in "$c "*) echo "${k#* }" ;; esac
		done | sort -rV | tr '\n' ' ')
		# shellcheck disable=SC2206 # the words are tool names
		eval "GNU_$c=($tools)"
	done
}

# Set CMD to the command line of TOOL's COMMAND (yes, tee or cat).
set_cmd() { # COMMAND TOOL
	case $2 in
	gnu-*) CMD=("${GNU_PATH["$1 $2"]}") ;;
	spate) CMD=("$BUILD/$1" ${PROGRESS:+--progress} \
	    ${LAG:+--slow-output=close}) ;;
	serial) CMD=(env SPATE_THREADS=1 "$BUILD/$1") ;;
	trusted) CMD=(env SPATE_SECCOMP=trust "$BUILD/$1") ;;
	busybox) CMD=(busybox "$1") ;;
	toybox) CMD=(toybox "$1") ;;
	uutils) CMD=(coreutils "$1") ;;
	pv) CMD=(pv -q) ;;
	limit) CMD=("$BB/limit-$1") ;;
	esac
	# A seccomp row: the command under a filter that refuses acct(2),
	# which nothing here makes, as a container's profile refuses some
	# calls (FILTER: callfilter and its options).
	if [ -n "${FILTERED:-}" ]; then
		CMD=("${FILTER[@]}" "$(command -v "${CMD[0]}")" "${CMD[@]:1}")
	fi
}

# PEERS_yes, PEERS_tee, PEERS_cat: the peers that answer like the command
# should; MISSING: what bench/setup would install.
find_peers() {
	local p c ok
	MISSING=()
	PEERS_yes=() PEERS_tee=() PEERS_cat=()
	for p in busybox toybox uutils; do
		ok=0
		for c in yes tee cat; do
			set_cmd "$c" "$p"
			case $c in
			yes) [ "$("${CMD[@]}" 2>/dev/null | head -n1)" = y ] ;;
			*) [ "$(echo x | "${CMD[@]}" 2>/dev/null)" = x ] ;;
			esac || continue
			eval "PEERS_$c+=($p)"
			ok=1
		done
		[ $ok = 1 ] || MISSING+=("$p")
		LABEL[$p]=$p
	done
	PV=()
	if [ "$(echo x | pv -q 2>/dev/null)" = x ]; then
		PV=(pv)
	else
		MISSING+=(pv)
	fi
	command -v gnuplot >/dev/null 2>&1 || MISSING+=(gnuplot)
	command -v taskset >/dev/null 2>&1 || MISSING+=(taskset)
	LABEL[spate]=spate
	LABEL[serial]="spate, 1 thread"
	LABEL[trusted]="spate, SPATE_SECCOMP=trust"
	LABEL[pv]=pv
	LABEL[limit]="limit loop"
	LABEL[split]="split over $NCPU tees"
}

# TOOLS: every tool of COMMAND's rows: spate (if built), the GNUs, the
# peers, then EXTRA (limit, pv) as given.
tools_for() { # COMMAND [EXTRA...]
	local -n g=GNU_$1 p=PEERS_$1
	TOOLS=()
	[ -x "$BUILD/$1" ] && TOOLS+=(spate)
	shift
	TOOLS+=("${g[@]}" "${p[@]}" "$@")
}

# The version of a Debian package, for the report.
pkg_version() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo '?'; }
