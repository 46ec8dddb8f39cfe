# bench/scenarios-yes.sh: the scenarios of yes, sourced by scenarios.sh,
# whose helpers they use.
# shellcheck shell=bash

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
