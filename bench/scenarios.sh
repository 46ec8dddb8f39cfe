# bench/scenarios.sh: the scenarios of bench/run, sourced by it: their
# rows, the helpers they share, and the variants (--progress, a seccomp
# filter); each command's own in scenarios-yes.sh, -tee.sh, -cat.sh.
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

# ---- variants of the scenarios of scenarios-{yes,tee,cat}.sh

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

# The scenarios of each command: one function each, sc_NAME.
# shellcheck source=scenarios-yes.sh
. "$here/scenarios-yes.sh"
# shellcheck source=scenarios-tee.sh
. "$here/scenarios-tee.sh"
# shellcheck source=scenarios-cat.sh
. "$here/scenarios-cat.sh"
