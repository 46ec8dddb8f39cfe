#!/bin/sh
# cat --progress and tee --progress on a terminal, as a shell with job
# control runs them (lib-tty.sh): each line fitted to the width the
# terminal has when it is drawn, the rate, the percentage and the time
# left kept on a narrow one; after a resize, one line; nothing drawn in
# the background; a final line with a time and a rate however short
# the copy; --progress=SIZE on a pipe (^Z: t9005).  The inputs and
# readers are paced by the lines they wait for: no case asserts how
# long anything takes.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-tty.sh"

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
			tty_drain tty_has log '$((cols - 1))' 2 "$TTY_RUNNING" &&
			$SYS_CAT
		} <p >out &&
		wait &&
		test "$(tty_event exit)" = 0 &&
		cmp "$TRASH/big" out &&
		test "$(tty_count log 999 .)" = "$(tty_count log '$((cols - 1))' .)" &&
		tty_final_ok log 8000000
	'
done

test_expect_success SPATE,PYTHON3 'made narrower while it copies: one line' '
	mkfifo p ctl &&
	{ tty_run 80 log ctl fg cat --progress "$TRASH/big" >p & } &&
	{
		tty_drain tty_has log 79 2 "bytes .* copied, $TTY_RUNNING" &&
		echo "cols 30" >ctl &&
		tty_drain tty_has log 29 2 "$TTY_RUNNING" &&
		$SYS_CAT
	} <p >out &&
	wait &&
	test "$(tty_event exit)" = 0 &&
	cmp "$TRASH/big" out &&
	tty_segments log >segments &&
	awk -v re="$TTY_RUNNING" "length(\$0) <= 29 && \$0 ~ re { fit = 1 }
		fit && length(\$0) > 29 { print \"too wide: \" \$0; bad = 1 }
		END { exit !fit || bad }" segments &&
	tty_final_ok log 8000000
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
	tty_final_ok log "$(test_file_size fed)"
'

test_expect_success SPATE,PYTHON3 'a 1-byte and a 5 MiB copy: a time and a rate' '
	tty_run 80 log - fg cat --progress "$TRASH/one" >out &&
	tty_final_ok log 1 &&
	grep -q "^1 byte copied in " final &&
	rm log &&
	tty_run 80 log - fg cat --progress "$TRASH/five" >out &&
	cmp "$TRASH/five" out &&
	tty_final_ok log 5242880 &&
	rm log &&
	tty_run 80 log - fg tee --progress <"$TRASH/one" >out &&
	tty_final_ok log 1 &&
	rm log &&
	$SYS_CAT "$TRASH/five" |
	tty_run 80 log - fg tee --progress f1 >out &&
	cmp "$TRASH/five" out && cmp "$TRASH/five" f1 &&
	tty_final_ok log 5242880
'

for c in cat tee; do
	test_expect_success SPATE,PYTHON3 "$c --progress=SIZE, a pipe input: % and time left" '
		mkfifo in &&
		{ tty_run 80 log - fg '$c' --progress=1M <in >out & } &&
		tty_feed tty_has log 79 2 "copied, $TTY_RUNNING left" 1<>in &&
		wait &&
		test "$(tty_event exit)" = 0 &&
		cmp fed out &&
		tty_final_ok log "$(test_file_size fed)"
	'
done

test_done
