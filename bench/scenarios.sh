# bench/scenarios.sh: the scenarios of bench/run, sourced by it.
# shellcheck shell=bash
#
# sc_NAME TOOL N [PARAM] runs TOOL once in scenario NAME, moving N bytes
# (PARAM: the row's parameter, for the curves), and sets R_BYTES and
# R_NS (what was timed), R_CPU (the tool's user + system ns) and R_RSS,
# or returns 1 with R_ERR set.  doc/bench.md says how each is timed.
# Uses T (tmpfs scratch), D (disk scratch), BB (helpers), TO (seconds
# before a run counts as hung), CUR_SECS (the length of a sampled run).

# The rows: name, family, unit (rate: GiB/s; us: microseconds per
# iteration; kib: peak RSS), a short name for the charts, and the text
# (the report adds the unit where it is not GiB/s).
SCENARIOS='
yes_splice	yes	rate	yes|splice	yes > pipe, reader splices
yes_read	yes	rate	yes|read	yes > pipe, reader read(2)s 128 KiB
yes_pv	yes	rate	yes|pv	yes | pv > /dev/null
yes_null	yes	rate	yes>null	yes > /dev/null
yes_file	yes	rate	yes>tmpfs	yes > tmpfs file
yes_disk	yes	rate	yes>disk	yes > disk file
startup_yes	yes	us	-	yes | head -n1
tee_null	tee	rate	tee|splice	pipe > tee /dev/null > pipe, reader splices
tee_null_progress	tee	rate	tee|splice+p	pipe > tee --progress /dev/null > pipe, reader splices
tee_null_1m	tee	rate	tee|splice-1m	pipe > tee /dev/null > pipe, reader splices, pipes of 1 MiB (the reader grew its own)
tee_read	tee	rate	tee|read	pipe > tee /dev/null > pipe, reader read(2)s
tee_file	tee	rate	tee-tmpfs	pipe > tee FILE > pipe (tmpfs)
tee_file_1m	tee	rate	tee-tmpfs-1m	pipe > tee FILE > pipe (tmpfs), pipes of 1 MiB (the reader grew its own)
tee_disk	tee	rate	tee-disk	pipe > tee FILE > pipe (disk)
tee_append	tee	rate	tee-a	pipe > tee -a FILE > pipe (tmpfs)
tee_4files	tee	rate	tee-4files	pipe > tee F1 F2 F3 F4 > /dev/null (tmpfs)
tee_4files_progress	tee	rate	tee-4files+p	pipe > tee --progress F1 F2 F3 F4 > /dev/null (tmpfs)
tee_filein	tee	rate	file>tee	tmpfs file > tee /dev/null > pipe
tee_filein_progress	tee	rate	file>tee+p	tmpfs file > tee --progress /dev/null > pipe
tee_pv_sparse	tee	rate	sparse>tee|pv	tee < FILE | pv > /dev/null, FILE sparse (holes)
tee_pv_file	tee	rate	file>tee|pv	tee < FILE | pv > /dev/null, FILE written, warm cache
tee_pv_cold	tee	rate	cold>tee|pv	tee < FILE | pv > /dev/null, FILE written, cold cache
tee_cat_pv	tee	rate	cat|tee|pv	cat FILE | tee | pv > /dev/null
tee_dd	tee	rate	dd|tee	dd if=/dev/zero bs=1M | tee /dev/null > /dev/null
startup_tee	tee	us	-	echo x | tee FILE
tee_2files_smp	tee	rate	tee-2files*	pipe > tee F1 F2 > /dev/null (tmpfs), every CPU
tee_4files_smp	tee	rate	tee-4files*	pipe > tee F1 F2 F3 F4 > /dev/null (tmpfs), every CPU
tee_2disk_smp	tee	rate	tee-2disk*	pipe > tee F1 F2 > /dev/null (disk), every CPU
tee_sock_smp	tee	rate	tee-sock*	pipe > tee FILE > socket (tmpfs; a reader drains the socket), every CPU
memory	tee	kib	-	pipe > tee FILE > pipe
cat_pipe	cat	rate	cat|splice	pipe > cat > pipe, reader splices
cat_pipe_progress	cat	rate	cat|splice+p	pipe > cat --progress > pipe, reader splices
cat_filepipe	cat	rate	file>cat|	tmpfs file > cat > pipe, reader splices
cat_filepipe_progress	cat	rate	file>cat|+p	tmpfs file > cat --progress > pipe, reader splices
cat_null	cat	rate	file>cat>null	tmpfs file > cat > /dev/null
cat_file	cat	rate	file>cat>file	tmpfs file > cat > tmpfs file
cat_file_progress	cat	rate	file>cat>file+p	tmpfs file > cat --progress > tmpfs file
cat_n	cat	rate	cat-n	cat -n text > pipe
cat_n_progress	cat	rate	cat-n+p	cat -n --progress text > pipe
cat_A	cat	rate	cat-A	cat -A text > pipe
cat_v	cat	rate	cat-v	cat -v text > pipe
cat_s	cat	rate	cat-s	cat -s text > pipe
cat_many_file	cat	rate	many>cat>file	5,000 files of 2 KB > cat > tmpfs file
cat_many_pipe	cat	rate	many>cat|	5,000 files of 2 KB > cat > pipe, reader splices
startup_cat	cat	us	-	echo x | cat
yes_splice_seccomp	seccomp	rate	yes|splice-f	yes > pipe, reader splices, under a filter
yes_file_seccomp	seccomp	rate	yes>tmpfs-f	yes > tmpfs file, under a filter
tee_null_seccomp	seccomp	rate	tee|splice-f	pipe > tee /dev/null > pipe, reader splices, under a filter
tee_file_seccomp	seccomp	rate	tee-tmpfs-f	pipe > tee FILE > pipe (tmpfs), under a filter
tee_4files_seccomp	seccomp	rate	tee-4files-f	pipe > tee F1 F2 F3 F4 > /dev/null (tmpfs), under a filter
tee_filein_seccomp	seccomp	rate	file>tee-f	tmpfs file > tee /dev/null > pipe, under a filter
cat_pipe_seccomp	seccomp	rate	cat|splice-f	pipe > cat > pipe, reader splices, under a filter
cat_filepipe_seccomp	seccomp	rate	file>cat|-f	tmpfs file > cat > pipe, reader splices, under a filter
cat_file_seccomp	seccomp	rate	file>cat>file-f	tmpfs file > cat > tmpfs file, under a filter
cat_n_seccomp	seccomp	rate	cat-n-f	cat -n text > pipe, under a filter
'
declare -A TEXT
while IFS='	' read -r name _ _ _ text; do
	[ -n "$name" ] && TEXT[$name]=$text
done <<<"$SCENARIOS"

# The tool's CPU time and peak RSS from bench/fan's report; with
# "time", its time too; with "sampled", its bytes and time.
rus() { # [time|sampled]
	local st b ns cpu rss
	read -r st b ns cpu rss <"$T/rus" || { R_ERR="no report"; return 1; }
	R_CPU=$cpu
	R_RSS=$rss
	[ -n "${1:-}" ] && R_NS=$ns
	[ "${1:-}" = sampled ] && R_BYTES=$b
	return 0
}

# The first line of what the commands said on stderr, for R_ERR.
said() { head -n1 "$T/err" | cut -c1-120; }

# Whether bench/fan's status $1 is a failure (a hang or a usage error).
hung() {
	if [ "$1" = 124 ]; then
		R_ERR="hung: killed after ${TO}s"
		return 0
	elif [ "$1" = 2 ] || [ "$1" = 127 ]; then
		R_ERR="could not run: $(said)"
		return 0
	fi
	return 1
}

# Whether every status is 0; R_ERR names the first that is not.
ok() { # STATUS...
	local s
	for s in "$@"; do
		hung "$s" && return 1
		if [ "$s" != 0 ]; then
			R_ERR="exit status $s: $(said)"
			return 1
		fi
	done
}

# Read the drain's report, after checking the statuses of the other
# commands (all but the last) and of the drain (the last).
drained() { # STATUS...
	ok "${@:1:$#-1}" || return 1
	if [ "${*: -1}" != 0 ]; then
		R_ERR=$(said)
		return 1
	fi
	read -r _ R_BYTES R_NS <"$T/out"
}

# Check that file $1 holds $2 bytes.
sized() {
	local s
	s=$(stat -c %s "$1" 2>/dev/null)
	if [ "$s" != "$2" ]; then
		R_ERR="${1##*/} has ${s:-no} bytes, not $2"
		return 1
	fi
}

# LINE: the operands of yes that make a line of $1 bytes with its
# newline; past 64 KiB, several operands (one may not pass 128 KiB).
line() { # BYTES
	local left=$(($1 - 1)) chunk
	LINE=()
	if [ "$left" -gt 65535 ]; then
		chunk=$(head -c 65535 /dev/zero | tr '\0' y)
		while [ "$left" -gt 65535 ]; do
			LINE+=("$chunk")
			left=$((left - 65536))
		done
	fi
	LINE+=("$(head -c "$left" /dev/zero | tr '\0' y)")
}

# IN: an input file of N bytes of one KIND, made once per size: yes
# ("y\n" in tmpfs), disk (the same on disk), sparse (a hole on disk),
# text (lines with tabs, control bytes and runs of empty lines, tmpfs).
input() { # KIND N
	IN=$T/in.$1.$2
	case $1 in disk | sparse) IN=$D/in.$1.$2 ;; esac
	[ -f "$IN" ] && return 0
	case $1 in
	yes | disk) "$BB/limit-yes" "$2" >"$IN" ;;
	sparse) truncate -s "$2" "$IN" ;;
	text) /usr/bin/yes "$(printf 'the quick brown fox\tjumps over the lazy dog \001\033[0m caf\303\251\n\n\n')" |
	    head -c "$2" >"$IN" ;;
	esac || { R_ERR="cannot make an input of $2 bytes"; rm -f "$IN"; return 1; }
}

# ---- yes

# Spate's own --progress: SC_progress is scenario SC with the option
# (set_cmd gives it spate's command), its lines going where SC sends
# stderr, a file, as a run logged would: the cost of the display.
progress_of() { # SC TOOL N [PARAM]
	local sc=$1
	shift
	PROGRESS=1 "sc_$sc" "$@"
}
sc_tee_null_progress() { progress_of tee_null "$@"; }
sc_tee_4files_progress() { progress_of tee_4files "$@"; }
sc_tee_filein_progress() { progress_of tee_filein "$@"; }
sc_cat_pipe_progress() { progress_of cat_pipe "$@"; }
sc_cat_filepipe_progress() { progress_of cat_filepipe "$@"; }
sc_cat_file_progress() { progress_of cat_file "$@"; }
sc_cat_n_progress() { progress_of cat_n "$@"; }

# Under a seccomp filter that refuses one harmless call (set_cmd): SC
# as spate, spate trusting the filter and GNU run under it.
filtered_of() { # SC TOOL N [PARAM]
	local sc=$1
	shift
	FILTERED=1 "sc_$sc" "$@"
}
sc_yes_splice_seccomp() { filtered_of yes_splice "$@"; }
sc_yes_file_seccomp() { filtered_of yes_file "$@"; }
sc_tee_null_seccomp() { filtered_of tee_null "$@"; }
sc_tee_file_seccomp() { filtered_of tee_file "$@"; }
sc_tee_4files_seccomp() { filtered_of tee_4files "$@"; }
sc_tee_filein_seccomp() { filtered_of tee_filein "$@"; }
sc_cat_pipe_seccomp() { filtered_of cat_pipe "$@"; }
sc_cat_filepipe_seccomp() { filtered_of cat_filepipe "$@"; }
sc_cat_file_seccomp() { filtered_of cat_file "$@"; }
sc_cat_n_seccomp() { filtered_of cat_n "$@"; }


# yes into a pipe that the drain empties with splice(2) or read(2).
sc_yes_splice() { yes_drain "$1" "$2"; }
sc_yes_read() { yes_drain "$1" "$2" -r; }
sc_yes_len() { line "$3"; yes_drain "$1" "$2" "" "${LINE[@]}"; }
yes_drain() { # TOOL N [-r] [ARG...]
	set_cmd yes "$1"
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "${@:4}" 2>"$T/err" |
	    "$BB/drain" ${3:+"$3"} "$2" >"$T/out" 2>>"$T/err"
	local st=("${PIPESTATUS[@]}")
	# yes ends by SIGPIPE or EPIPE: only a hang is its failure.
	hung "${st[0]}" && return 1
	drained "${st[1]}" && rus
}

# yes into a pipe drained by splice, yes on CPU 0 and the drain on CPU 0
# (same) or CPU 1 (split): where the two ends run changes the rate.
sc_yes_pin() { # TOOL N same|split
	local c=0
	[ "$3" = split ] && c=1
	set_cmd yes "$1"
	taskset -c 0 "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" 2>"$T/err" |
	    taskset -c $c "$BB/drain" "$2" >"$T/out" 2>>"$T/err"
	local st=("${PIPESTATUS[@]}")
	hung "${st[0]}" && return 1
	drained "${st[1]}" && rus
}

# yes | pv -S -s N > /dev/null: pv stops after N bytes, yes then dies of
# SIGPIPE; timed from yes's start to its end.
sc_yes_pv() { # TOOL N
	set_cmd yes "$1"
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" 2>"$T/err" |
	    pv -q -S -s "$2" >/dev/null 2>>"$T/err"
	local st=("${PIPESTATUS[@]}")
	hung "${st[0]}" && return 1
	ok "${st[1]}" || return 1
	R_BYTES=$2
	rus time
}

# yes into /dev/null, sampled for CUR_SECS: /proc/PID/io counts the bytes.
sc_yes_null() { # TOOL N
	set_cmd yes "$1"
	"$BB/fan" -s "$CUR_SECS" -t $TO -o "$T/rus" -- "${CMD[@]}" \
	    >/dev/null 2>"$T/err"
	hung $? && return 1
	rus sampled || return 1
	if [ "$R_BYTES" = 0 ]; then
		R_ERR="no bytes seen: /proc/PID/io counts only write(2), and this yes does not write(2) to /dev/null"
		return 1
	fi
}

# yes into a file, stopped at N bytes by RLIMIT_FSIZE: write(2) fails
# with EFBIG (SIGXFSZ ignored) and yes exits.
sc_yes_file() { yes_file "$1" "$2" "$T"; }
sc_yes_disk() { yes_file "$1" "$2" "$D"; }
yes_file() { # TOOL N DIR
	local st
	set_cmd yes "$1"
	rm -f "$3/y"
	(ulimit -f $(($2 / 1024)) && trap '' XFSZ &&
	    exec "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" >"$3/y" 2>"$T/err")
	st=$?
	hung $st && return 1
	sized "$3/y" "$2" || return 1
	rm -f "$3/y"
	R_BYTES=$2
	rus time
}

# ---- tee

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

# ---- cat

# N bytes from limit-yes through cat into a pipe drained by splice.
sc_cat_pipe() { # TOOL N
	set_cmd cat "$1"
	"$BB/limit-yes" "$2" |
	    "$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" 2>"$T/err" |
	    "$BB/drain" -e "$2" >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && rus
}

# A tmpfs file of N bytes through cat into a pipe drained by splice.
sc_cat_filepipe() { # TOOL N
	set_cmd cat "$1"
	input yes "$2" || return 1
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "$IN" 2>"$T/err" |
	    "$BB/drain" -e "$2" >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && rus
}

# A tmpfs file into /dev/null: nothing counts the bytes; timed.
sc_cat_null() { # TOOL N
	set_cmd cat "$1"
	input yes "$2" || return 1
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "$IN" >/dev/null 2>"$T/err"
	ok $? || return 1
	R_BYTES=$2
	rus time
}

# A tmpfs file into a new tmpfs file of exactly N bytes; timed.
sc_cat_file() { # TOOL N
	set_cmd cat "$1"
	input yes "$2" || return 1
	rm -f "$T/c"
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "$IN" >"$T/c" 2>"$T/err"
	ok $? && sized "$T/c" "$2" || return 1
	rm -f "$T/c"
	R_BYTES=$2
	rus time
}

# cat -OPT of N bytes of text into a pipe drained by splice: the rate is
# of the input; the output must have as many bytes as GNU 9.1's.
sc_cat_n() { cat_fmt "$1" "$2" -n; }
sc_cat_A() { cat_fmt "$1" "$2" -A; }
sc_cat_v() { cat_fmt "$1" "$2" -v; }
sc_cat_s() { cat_fmt "$1" "$2" -s; }
declare -A FMT_SIZE
cat_fmt() { # TOOL N -OPT
	local want
	set_cmd cat "$1"
	input text "$2" || return 1
	want=${FMT_SIZE["$3 $2"]:-}
	if [ -z "$want" ]; then
		want=$(/usr/bin/cat "$3" "$IN" | wc -c)
		FMT_SIZE["$3 $2"]=$want
	fi
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "$3" "$IN" 2>"$T/err" |
	    "$BB/drain" -e "$want" >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && rus time || return 1
	R_BYTES=$2
}

# MANY: 5,000 tmpfs files of 2,000 bytes each (MANY_BYTES in all), made
# once: the rows of what each file costs, whatever N.
MANY_BYTES=10000000
many() {
	local d=$T/many
	MANY=("$d"/*)
	[ "${#MANY[@]}" = 5000 ] && [ -f "${MANY[0]}" ] && return 0
	rm -rf "$d" && mkdir "$d" &&
	    "$BB/limit-yes" $MANY_BYTES | split -a 4 -d -b 2000 - "$d/" ||
	    { R_ERR="cannot make the small files"; return 1; }
	MANY=("$d"/*)
}

# The small files into a new tmpfs file; timed.
sc_cat_many_file() { # TOOL N
	set_cmd cat "$1"
	many || return 1
	rm -f "$T/c"
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "${MANY[@]}" >"$T/c" 2>"$T/err"
	ok $? && sized "$T/c" $MANY_BYTES || return 1
	rm -f "$T/c"
	R_BYTES=$MANY_BYTES
	rus time
}

# The small files into a pipe drained by splice.
sc_cat_many_pipe() { # TOOL N
	set_cmd cat "$1"
	many || return 1
	"$BB/fan" -t $TO -o "$T/rus" -- "${CMD[@]}" "${MANY[@]}" 2>"$T/err" |
	    "$BB/drain" -e $MANY_BYTES >"$T/out" 2>>"$T/err"
	drained "${PIPESTATUS[@]}" && rus
}
