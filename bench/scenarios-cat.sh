# bench/scenarios-cat.sh: the scenarios of cat, sourced by scenarios.sh,
# whose helpers they use.
# shellcheck shell=bash

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
