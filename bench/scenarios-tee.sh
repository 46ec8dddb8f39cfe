# bench/scenarios-tee.sh: the scenarios of tee, sourced by scenarios.sh,
# whose helpers they use.
# shellcheck shell=bash

# N bytes from limit-yes, a copy into /dev/null, stdout drained by splice
# (or read with -r); every pipe PSIZE bytes if given.
sc_tee_null() { tee_pipe "$1" "$2"; }
sc_tee_null_1m() { tee_pipe "$1" "$2" "" 1048576; }
sc_tee_read() { tee_pipe "$1" "$2" -r; }
sc_tee_psz() { tee_pipe "$1" "$2" "" "$3"; }
tee_pipe() { # TOOL N [-r] [PSIZE]
	local p=() q=() a=(/dev/null)
	set_cmd tee "$1"
	# bench/fan sets both of tee's pipes before tee starts; limit-yes
	# then leaves its pipe alone (-p 0), or it could race with tee.
	[ -n "${4:-}" ] && p=(-p "$4") && q=(-p 0)
	[ "$1" = limit ] && a=("${p[@]}")
	"$BB/limit-yes" "${q[@]}" "$2" |
	    "$BB/fan" "${p[@]}" -t $TO -o "$T/rus" -- "${CMD[@]}" "${a[@]}" \
	    2>"$T/err" |
	    "$BB/drain" ${3:+"$3"} -e "$2" >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && rus
}

# The same with a file instead of /dev/null; -a appends; every pipe
# PSIZE bytes if given, as in tee_pipe.
sc_tee_file() { tee_file "$1" "$2" "$T"; }
sc_tee_file_1m() { tee_file "$1" "$2" "$T" "" 1048576; }
sc_tee_disk() { tee_file "$1" "$2" "$D"; }
sc_tee_append() { tee_file "$1" "$2" "$T" -a; }
tee_file() { # TOOL N DIR [-a] [PSIZE]
	local p=() q=()
	set_cmd tee "$1"
	rm -f "$3/f"
	# An append goes to an existing file; it starts empty, to check size.
	[ -n "${4:-}" ] && : >"$3/f"
	[ -n "${5:-}" ] && p=(-p "$5") && q=(-p 0)
	"$BB/limit-yes" "${q[@]}" "$2" |
	    "$BB/fan" "${p[@]}" -t $TO -o "$T/rus" -- "${CMD[@]}" ${4:+"$4"} \
	    "$3/f" 2>"$T/err" |
	    "$BB/drain" -e "$2" >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && sized "$3/f" "$2" && rm -f "$3/f" && rus
}

# A regular tmpfs file in, a copy to /dev/null, stdout drained.
sc_tee_filein() { # TOOL N
	set_cmd tee "$1"
	input yes "$2" || return 1
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" /dev/null <"$IN" \
	    2>"$T/err" |
	    "$BB/drain" -e "$2" >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && rus
}

# N bytes from limit-yes into 4 tmpfs files, stdout to /dev/null.
sc_tee_4files() { # TOOL N
	local i
	set_cmd tee "$1"
	rm -f "$T"/q?
	"$BB/limit-yes" "$2" |
	    "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "$T/q1" "$T/q2" \
	    "$T/q3" "$T/q4" >/dev/null 2>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	for i in 1 2 3 4; do
		sized "$T/q$i" "$2" || return 1
	done
	rm -f "$T"/q?
	R_BYTES=$2
	rus time
}

# The rows that measure cores: every process may run on every CPU
# (ALLCPU), so that tee's threads have somewhere to run, and so may the
# serial tools' producers and readers.
# smp_tee TOOL N FAN-OPTION... -- OUTPUT...: TOOL's tee into OUTPUTs,
# under bench/fan, fed N bytes by limit-yes; or, for TOOL "split",
# bench/split-tee: the outputs dealt among NCPU one-thread tees, each fed
# its own N bytes.  Returns 1 (R_ERR set) if a process failed.
smp_tee() {
	local tool=$1 n=$2 fo=()
	shift 2
	while [ "$1" != -- ]; do fo+=("$1"); shift; done
	shift
	if [ "$tool" = split ]; then
		taskset -c "$ALLCPU" "$BB/fan" "${fo[@]}" -- env SPATE_THREADS=1 \
		    BB="$BB" "$here/split-tee" "$n" "$NCPU" "$BUILD/tee" "$@" \
		    </dev/null 2>"$T/err"
		ok "${PIPESTATUS[@]}"
		return
	fi
	set_cmd tee "$tool"
	taskset -c "$ALLCPU" "$BB/limit-yes" "$n" |
	    taskset -c "$ALLCPU" "$BB/fan" "${fo[@]}" -- "${CMD[@]}" "$@" \
	    2>"$T/err"
	ok "${PIPESTATUS[@]}"
}
# N bytes from limit-yes into K files in DIR, stdout to /dev/null.
sc_tee_2files_smp() { tee_files_smp "$1" "$2" 2 "$T"; }
sc_tee_4files_smp() { tee_files_smp "$1" "$2" 4 "$T"; }
sc_tee_2disk_smp() { tee_files_smp "$1" "$2" 2 "$D"; }
tee_files_smp() { # TOOL N K DIR
	local i a=()
	rm -f "$4"/q?
	for ((i = 1; i <= $3; i++)); do a+=("$4/q$i"); done
	smp_tee "$1" "$2" -t $TO -o "$T/rus" -- "${a[@]}" >/dev/null || return 1
	for ((i = 1; i <= $3; i++)); do
		sized "$4/q$i" "$2" || return 1
	done
	rm -f "$4"/q?
	R_BYTES=$2
	rus time
}
# N bytes from limit-yes into a tmpfs file and a local stream socket
# (bench/fan -u: its reader read(2)s and checks it got N bytes).
sc_tee_sock_smp() { # TOOL N
	rm -f "$T/q1"
	smp_tee "$1" "$2" -u -k 1 -n "$2" -t $TO -o "$T/rus" -- "$T/q1" ||
	    return 1
	sized "$T/q1" "$2" || return 1
	rm -f "$T/q1"
	R_BYTES=$2
	rus time
}

# tee < FILE | pv > /dev/null: FILE sparse, written (warm: read once
# before), or written and dropped from the page cache before each run
# (cold: root only).  Timed from tee's start to its end.
sc_tee_pv_sparse() { tee_pv "$1" "$2" sparse; }
sc_tee_pv_file() { tee_pv "$1" "$2" disk; }
sc_tee_pv_cold() { tee_pv "$1" "$2" disk cold; }
tee_pv() { # TOOL N KIND [cold]
	set_cmd tee "$1"
	input "$3" "$2" || return 1
	if [ -n "${4:-}" ]; then
		sync && echo 3 >/proc/sys/vm/drop_caches ||
		    { R_ERR="cannot drop the page cache"; return 1; }
	fi
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" <"$IN" 2>"$T/err" |
	    pv -q >/dev/null 2>>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	R_BYTES=$2
	rus time
}

# cat FILE | tee | pv > /dev/null: the system's cat feeds every tee.
sc_tee_cat_pv() { # TOOL N
	set_cmd tee "$1"
	input yes "$2" || return 1
	/usr/bin/cat "$IN" |
	    "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" 2>"$T/err" |
	    pv -q >/dev/null 2>>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	R_BYTES=$2
	rus time
}

# dd if=/dev/zero bs=1M count=N/1M | tee /dev/null > /dev/null.
sc_tee_dd() { # TOOL N
	set_cmd tee "$1"
	dd if=/dev/zero bs=1M count=$(($2 >> 20)) status=none |
	    "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" /dev/null \
	    >/dev/null 2>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	R_BYTES=$(($2 >> 20 << 20))
	rus time
}

# tee fanning out to K outputs of one kind, its standard output one of
# them: pipes, each emptied by splice (bench/fan checks each got N bytes),
# tmpfs files, or /dev/null.
sc_out_pipe() { # TOOL N K
	set_cmd tee "$1"
	"$BB/limit-yes" "$2" |
	    "$BB/fan" -k "$3" -n "$2" -t $TO -o "$T/rus" -- "${CMD[@]}" \
	    2>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	R_BYTES=$2
	rus time
}
sc_out_file() { # TOOL N K
	local i a=()
	set_cmd tee "$1"
	rm -f "$T"/o.*
	for ((i = 1; i < $3; i++)); do a+=("$T/o.$i"); done
	"$BB/limit-yes" "$2" |
	    "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "${a[@]}" \
	    >"$T/o.$3" 2>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	for ((i = 1; i <= $3; i++)); do
		sized "$T/o.$i" "$2" || return 1
	done
	rm -f "$T"/o.*
	R_BYTES=$2
	rus time
}
sc_out_null() { # TOOL N K
	local i a=()
	set_cmd tee "$1"
	for ((i = 1; i < $3; i++)); do a+=(/dev/null); done
	"$BB/limit-yes" "$2" |
	    "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "${a[@]}" \
	    >/dev/null 2>"$T/err"
	ok "${PIPESTATUS[@]}" || return 1
	R_BYTES=$2
	rus time
}
