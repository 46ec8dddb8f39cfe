#!/bin/sh
# cat --progress and tee --progress and the process they run in: with
# standard error closed, the same output and status; the data path
# makes the same system calls with and without it; ^Z then fg, as a
# job-control shell gives them (lib-tty.sh), the time stopped left out
# of the final line's.  Apart from t9003 and t9004, which run under
# valgrind: these count descriptors and calls, and valgrind does not
# stop on ^Z.  No case asserts how long anything takes: the bound on
# the time a stopped copy says is what it lived less what it was surely
# stopped, both measured around it.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-tty.sh"

test_expect_success 'setup: inputs' '
	head -c 4000000 /dev/urandom >"$TRASH/big" &&
	data_word 300000 >"$TRASH/text" &&
	printf "one\n" >"$TRASH/one"
'

test_expect_success SPATE 'stderr closed: the same output and status' '
	cat --progress "$TRASH/text" 2>&- >out &&
	cmp "$TRASH/text" out &&
	test_expect_code 1 cat --progress "$TRASH/one" nosuch "$TRASH/text" \
		2>&- >out &&
	$SYS_CAT "$TRASH/one" "$TRASH/text" >expect &&
	cmp expect out &&
	tee --progress f1 <"$TRASH/text" 2>&- >out &&
	cmp "$TRASH/text" out && cmp "$TRASH/text" f1
'

# progress_data_calls OUT CMD...: run CMD, its stdout into OUT, and
# print how many of each call that moves data it made, as strace sees
# them, less the writes to standard error (the lines of --progress).
progress_data_calls() {
	pdc_out=$1
	shift
	strace -qq -o trace \
		-e trace=read,write,splice,tee,vmsplice,copy_file_range,sendfile \
		"$@" >"$pdc_out" 2>/dev/null &&
	grep -v "^write(2, " trace | sed "s/(.*//" | sort | uniq -c
}

# tee with one output: two would run threads, whose calls vary.
test_expect_success SPATE,STRACE 'the data path makes the same calls with and without it' '
	progress_data_calls out cat "$TRASH/big" >plain &&
	progress_data_calls out cat --progress "$TRASH/big" >with &&
	test_cmp plain with &&
	progress_data_calls out cat -n "$TRASH/text" >plain &&
	progress_data_calls out cat -n --progress "$TRASH/text" >with &&
	test_cmp plain with &&
	progress_data_calls out tee <"$TRASH/big" >plain &&
	progress_data_calls out tee --progress <"$TRASH/big" >with &&
	test_cmp plain with &&
	grep -q "^write(2, " trace
'

# tee with two files: their writes on threads of their own, while ^Z
# comes to the main thread.
for c in cat "tee f1 f2"; do
	test_expect_success SPATE,PYTHON3 "$c: ^Z, then fg: drawn again, the time stopped left out" '
		mkfifo in ctl &&
		{ tty_run 80 log ctl fg '"$c"' --progress <in >out & } &&
		{
			tty_feed tty_has log 79 2 "copied, $TTY_RATE" &&
			echo "stop 2" >ctl &&
			tty_feed tty_seen continued &&
			at=$(tty_event continued) &&
			tty_feed tty_after log "$at" 79 2 "copied, $TTY_RATE"
		} 1<>in &&
		wait &&
		test "$(tty_event exit)" = 0 &&
		test "$(kill -l "$(tty_event stopped)")" = TSTP &&
		cmp fed out &&
		for f in f1 f2; do
			test ! -e $f || cmp fed $f || return 1
		done &&
		tty_final_ok log "$(test_file_size fed)" &&
		awk -v bound="$(tty_event bound)" "\$1 > bound * 1.01 {
			print \"took \" \$1 \" s, more than \" bound; exit 1 }" figures
	'
done

test_done
