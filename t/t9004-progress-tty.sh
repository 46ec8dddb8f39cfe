#!/bin/sh
# cat --progress and tee --progress on a terminal, as a shell with job
# control runs them (lib-tty.sh): each line fitted to the width the
# terminal has when it is drawn, the rate, the percentage and the time
# left kept on a narrow one; after a resize, one line; ^Z and fg, the
# time stopped left out; nothing drawn in the background; a final line
# with a time and a rate however short the copy; --progress=SIZE.  The
# inputs and readers are paced by the lines they wait for: no case
# asserts how long anything takes.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-tty.sh"

# Fields of a line, as extended regular expressions: a rate, a
# percentage and a time left; a final line's time and rate.
RATE='[0-9.]+ ([KMGTPE]i)?B/s'
RUNNING="$RATE,? [0-9]+%,? [0-9:]+"
FINAL='([0-9]+\.[0-9]+ s|[0-9]+:[0-9][0-9](:[0-9][0-9])?),? '"$RATE"' *$'

# tty_drain CMD...: a slow reader.  Copy 64 KiB of stdin to stdout every
# 0.1 s until CMD succeeds; fail after about 60 s.
tty_drain() {
	td_i=0
	until "$@"; do
		[ $td_i -lt 600 ] || {
			echo "tty_drain: never: $*" >&2
			return 1
		}
		head -c 65536 || return 1
		sleep 0.1
		td_i=$((td_i + 1))
	done
}

# tty_after AT MAX N PATTERN: what LOG holds past its first AT bytes has
# at least N segments of at most MAX characters that match PATTERN.
tty_after() {
	tail -c +$(($1 + 1)) log >tail && tty_has tail "$2" "$3" "$4"
}

# tty_event WORD: print the rest of the first line of the file events
# that starts with WORD; fail if there is none.
tty_event() {
	sed -n "s/^$1 //p" events | sed -n 1p | grep .
}

# tty_seen WORD: the file events has a line that starts with WORD.
tty_seen() {
	grep -q "^$1 " events 2>/dev/null
}

# tty_final LOG: put LOG's last segment in the file final, and print
# its time in seconds and its rate in bytes a second.
tty_final() {
	tty_segments "$1" | tail -n 1 >final &&
	awk '{
		t = $0; sub(/,? [0-9.]+ [KMGTPEi]*B\/s *$/, "", t)
		sub(/ s$/, "", t); sub(/.* /, "", t)
		if (t ~ /:/) { n = split(t, p, ":"); t = 0
			for (i = 1; i <= n; i++) t = t * 60 + p[i] }
		match($0, /[0-9.]+ [KMGTPEi]*B\/s *$/)
		split(substr($0, RSTART), r, " ")
		m = index("KMGTPE", substr(r[2], 1, 1))
		print t + 0, r[1] * (r[2] ~ /^B/ ? 1 : 1024 ^ m)
	}' final
}

# tty_final_ok BYTES: the final line in LOG is one of its own (the only
# line end in LOG), has a time and a rate, and the rate times the time
# is BYTES, to the three figures each is given in.
tty_final_ok() {
	test "$(tr -dc '\n' <log | wc -c)" = 1 &&
	tty_final log >figures &&
	grep -Eq "$FINAL" final &&
	awk -v bytes="$1" '$1 * $2 < bytes * 0.985 || $1 * $2 > bytes * 1.015 {
		print "time " $1 " times rate " $2 " is not " bytes; exit 1
	}' figures
}

test_expect_success 'setup: inputs' '
	head -c 8000000 /dev/urandom >"$TRASH/big" &&
	head -c 5242880 /dev/urandom >"$TRASH/five" &&
	printf x >"$TRASH/one"
'

for cols in 30 80 200; do
	test_expect_success SPATE,PYTHON3 "$cols columns: the rate, % and time left kept" '
		mkfifo p &&
		{ tty_run '$cols' log - fg cat --progress "$TRASH/big" >p & } &&
		{
			tty_drain tty_has log '$((cols - 1))' 2 "$RUNNING" &&
			$SYS_CAT
		} <p >out &&
		wait &&
		test "$(tty_event exit)" = 0 &&
		cmp "$TRASH/big" out &&
		test "$(tty_count log 999 .)" = "$(tty_count log '$((cols - 1))' .)" &&
		tty_final_ok 8000000
	'
done

test_expect_success SPATE,PYTHON3 'made narrower while it copies: one line' '
	mkfifo p ctl &&
	{ tty_run 80 log ctl fg cat --progress "$TRASH/big" >p & } &&
	{
		tty_drain tty_has log 79 2 "bytes .* copied, $RUNNING" &&
		echo "cols 30" >ctl &&
		tty_drain tty_has log 29 2 "$RUNNING" &&
		$SYS_CAT
	} <p >out &&
	wait &&
	test "$(tty_event exit)" = 0 &&
	cmp "$TRASH/big" out &&
	tty_segments log >segments &&
	awk -v re="$RUNNING" "length(\$0) <= 29 && \$0 ~ re { fit = 1 }
		fit && length(\$0) > 29 { print \"too wide: \" \$0; bad = 1 }
		END { exit !fit || bad }" segments &&
	tty_final_ok 8000000
'

test_expect_success SPATE,PYTHON3 '^Z, then fg: drawn again, the time stopped left out' '
	mkfifo in ctl &&
	{ tty_run 80 log ctl fg cat --progress <in >out & } &&
	{
		tty_feed tty_has log 79 2 "copied, $RATE" &&
		echo "stop 2" >ctl &&
		tty_feed tty_seen continued &&
		at=$(tty_event continued) &&
		tty_feed tty_after "$at" 79 2 "copied, $RATE"
	} 1<>in &&
	wait &&
	test "$(tty_event exit)" = 0 &&
	test "$(kill -l "$(tty_event stopped)")" = TSTP &&
	cmp fed out &&
	tty_final_ok "$(test_file_size fed)" &&
	awk -v bound="$(tty_event bound)" "\$1 > bound * 1.01 {
		print \"took \" \$1 \" s, more than \" bound; exit 1 }" figures
'

test_expect_success SPATE,PYTHON3 'in the background: no line drawn but the final one' '
	mkfifo in &&
	{ tty_run 80 log - bg cat --progress <in >out & } &&
	{
		i=0 &&
		while [ $i -lt 20 ]; do
			echo "line $i" >>fed && echo "line $i" &&
			sleep 0.1 &&
			i=$((i + 1)) || return 1
		done
	} 1<>in &&
	wait &&
	test "$(tty_event exit)" = 0 &&
	cmp fed out &&
	test "$(tty_count log 999 "copied, ")" = 0 &&
	test "$(tr -dc "\r" <log | wc -c)" = 1 &&
	tty_final_ok "$(test_file_size fed)"
'

test_expect_success SPATE,PYTHON3 'a 1-byte and a 5 MiB copy: a time and a rate' '
	tty_run 80 log - fg cat --progress "$TRASH/one" >out &&
	tty_final_ok 1 &&
	grep -q "^1 byte copied in " final &&
	rm log &&
	tty_run 80 log - fg cat --progress "$TRASH/five" >out &&
	cmp "$TRASH/five" out &&
	tty_final_ok 5242880 &&
	rm log &&
	tty_run 80 log - fg tee --progress <"$TRASH/one" >out &&
	tty_final_ok 1 &&
	rm log &&
	$SYS_CAT "$TRASH/five" |
	tty_run 80 log - fg tee --progress f1 >out &&
	cmp "$TRASH/five" out && cmp "$TRASH/five" f1 &&
	tty_final_ok 5242880
'

for c in cat tee; do
	test_expect_success SPATE,PYTHON3 "$c --progress=SIZE, a pipe input: % and time left" '
		mkfifo in &&
		{ tty_run 80 log - fg '$c' --progress=1M <in >out & } &&
		tty_feed tty_has log 79 2 "copied, $RUNNING left" 1<>in &&
		wait &&
		test "$(tty_event exit)" = 0 &&
		cmp fed out &&
		tty_final_ok "$(test_file_size fed)"
	'
done

test_done
