#!/bin/sh
# cat --progress and tee --progress, spate's own: the output byte for
# byte what it is without the option; on standard error a final line
# that counts every byte, lines while it copies (redrawn in place on a
# terminal, a line of their own elsewhere), a percentage only for a
# regular file's input or with --progress=SIZE, sizes in three figures;
# a message on a line of its own; a failing standard error changes
# nothing else (a closed one: t9005; the terminal: t9004).  The slow
# inputs and readers here are paced by sleeps and end when the lines
# they wait for have come: no case asserts how long anything takes.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-nls.sh"

# TTY: util-linux's script(1) runs a command with a terminal as its
# standard error.
test_lazy_prereq TTY '
	SHELL=/bin/sh script -qfec "test -t 2" /dev/null </dev/null >/dev/null
'

# progress_tty LOG CMD: run the shell command CMD with a terminal for
# its standard input, output and error (script(1)), what the terminal
# showed in LOG; CMD's status goes to the file status.
progress_tty() {
	SHELL=/bin/sh script -qfec "$2" "$1" </dev/null >/dev/null 2>&1
	echo $? >status
}

# progress_count FILE PATTERN: how many lines of FILE match PATTERN, a
# line ending at each carriage return too (a redrawn line counts).
progress_count() {
	tr '\r' '\n' 2>/dev/null <"$1" | grep -c "$2"
}

# progress_feed FILE COUNT PATTERN: a slow input.  Write a line to
# stdout, and to the file fed, every 0.1 s until FILE has COUNT lines
# matching PATTERN (progress_count); fail after about 30 s.
progress_feed() {
	pf_i=0
	while [ "$(progress_count "$1" "$3")" -lt "$2" ]; do
		[ $pf_i -lt 300 ] || {
			echo "progress_feed: $2 lines matching '$3' never in $1" >&2
			return 1
		}
		pf_line="line $pf_i of a slow input"
		echo "$pf_line" >>fed && echo "$pf_line" || return 1
		sleep 0.1
		pf_i=$((pf_i + 1))
	done
}

# progress_drain FILE COUNT PATTERN: a slow reader.  Copy 64 KiB of
# stdin to stdout every 0.1 s until FILE has COUNT lines matching
# PATTERN (progress_count), then the rest at once; fail after about
# 30 s.
progress_drain() {
	pd_i=0
	while [ "$(progress_count "$1" "$3")" -lt "$2" ]; do
		[ $pd_i -lt 300 ] || {
			echo "progress_drain: $2 lines matching '$3' never in $1" >&2
			return 1
		}
		head -c 65536 || return 1
		sleep 0.1
		pd_i=$((pd_i + 1))
	done
	$SYS_CAT
}

# The final line for N bytes: "N bytes (H) copied in T, R/s", T in
# seconds ("0.0123 s") or M:SS.
progress_final() {
	echo "^$1 bytes\{0,1\}\( (.*)\)\{0,1\} copied in \([0-9.]* s\|[0-9]*:[0-9][0-9]\), [0-9.]* [KMGTPEi]*B/s *\$"
}

test_expect_success 'setup: inputs' '
	head -c 4000000 /dev/urandom >"$TRASH/big" &&
	data_word 300000 >"$TRASH/text" &&
	printf "one\n" >"$TRASH/one"
'

test_expect_success SPATE '--help lists --progress under Extensions' '
	for c in cat tee; do
		$c --help >help &&
		sed -n "/^Extensions:\$/,/^\$/p" help >block &&
		grep -q "^      --progress\[=SIZE\]  *[a-z]" block || return 1
	done
'

test_expect_success SPATE 'cat, stderr a file: the output intact, one final line' '
	cat --progress "$TRASH/big" "$TRASH/text" >out 2>err &&
	$SYS_CAT "$TRASH/big" "$TRASH/text" >expect &&
	cmp expect out &&
	test $(wc -l <err) = 1 &&
	grep "$(progress_final $(test_file_size expect))" err
'

test_expect_success SPATE 'sizes in units of three figures, never four' '
	for n in 999 1023 1000 1024; do
		head -c $((n * 1024)) /dev/zero >in &&
		cat --progress in >out 2>err &&
		sed -n "s/^[0-9]* bytes (\(.*\)) copied in .*/\1/p" err \
			>>actual || return 1
	done &&
	printf "%s\n" "999 KiB" "1.00 MiB" "0.98 MiB" "1.00 MiB" >expect &&
	test_cmp expect actual
'

test_expect_success SPATE,LOCALE_DE 'in German: English, a decimal point' '
	LC_ALL=de_DE.UTF-8 cat --progress "$TRASH/big" >out 2>err &&
	cmp "$TRASH/big" out &&
	grep "$(progress_final 4000000)" err &&
	grep -Fq "4000000 bytes (3.81 MiB) copied in " err
'

test_expect_success SPATE,GNU '--progress=SIZE: SIZE as head -c takes it' '
	cat --progress=1K "$TRASH/one" >out 2>err &&
	cmp "$TRASH/one" out &&
	grep "$(progress_final 4)" err &&
	$SYS_CAT "$TRASH/one" | tee --progress=2MB >out 2>err &&
	cmp "$TRASH/one" out &&
	grep "$(progress_final 4)" err &&
	for c in cat tee; do
		for size in x 1X 99999999999999999999; do
			test_expect_code 1 head -c $size </dev/null \
				2>err &&
			sed "s/^head:/$c:/" err >expect &&
			test_expect_code 1 $c --progress=$size </dev/null \
				>out 2>actual &&
			test_cmp expect actual &&
			test_must_be_empty out || return 1
		done
	done
'

test_expect_success SPATE 'cat, a pipe input, and - twice: the output intact' '
	$SYS_CAT "$TRASH/text" | cat --progress - "$TRASH/one" - \
		>out 2>err &&
	$SYS_CAT "$TRASH/text" "$TRASH/one" >expect &&
	cmp expect out &&
	grep "$(progress_final $(test_file_size expect))" err &&
	cat --progress - "$TRASH/one" - <"$TRASH/text" >out 2>err &&
	cmp expect out &&
	grep "$(progress_final $(test_file_size expect))" err
'

test_expect_success SPATE,GNU 'cat -n: the output as without it, its bytes counted' '
	cat -n --progress "$TRASH/text" "$TRASH/one" >out 2>err &&
	$GNU_CAT -n "$TRASH/text" "$TRASH/one" >expect &&
	cmp expect out &&
	grep "$(progress_final $(test_file_size expect))" err &&
	$SYS_CAT "$TRASH/big" | cat -A --progress >out 2>err &&
	$GNU_CAT -A "$TRASH/big" >expect &&
	cmp expect out &&
	grep "$(progress_final $(test_file_size expect))" err
'

test_expect_success SPATE 'tee to several files, input a file and a pipe' '
	tee --progress f1 f2 f3 <"$TRASH/big" >out 2>err &&
	for f in out f1 f2 f3; do
		cmp "$TRASH/big" $f || return 1
	done &&
	test $(wc -l <err) = 1 &&
	grep "$(progress_final 4000000)" err &&
	$SYS_CAT "$TRASH/big" | tee --progress f1 f2 >out 2>err &&
	for f in out f1 f2; do
		cmp "$TRASH/big" $f || return 1
	done &&
	grep "$(progress_final 4000000)" err
'

test_expect_success SPATE 'stderr a file: a line of its own every few seconds' '
	mkfifo in &&
	{ { cat --progress <in >out 2>err; echo $? >status; } & } &&
	progress_feed err 1 "copied, " 1<>in &&
	wait &&
	test "$($SYS_CAT status)" = 0 &&
	cmp fed out &&
	! grep -q "$(printf "\r")" err &&
	test $(wc -l <err) -ge 2 &&
	grep "^[0-9]* bytes.* copied, " err &&
	grep "$(progress_final $(test_file_size fed))" err
'

test_expect_success SPATE,TTY 'cat on a terminal: redrawn in place, a percentage' '
	mkfifo p &&
	{ progress_tty log "cat --progress \"$TRASH/big\" >p" & } &&
	progress_drain log 2 "copied, .*%, .* left" <p >out &&
	wait &&
	test "$($SYS_CAT status)" = 0 &&
	cmp "$TRASH/big" out &&
	test $(grep -c "copied" log) = 1 &&
	test $(progress_count log "copied, .*%, .* left *\$") -ge 2 &&
	test $(progress_count log "$(progress_final 4000000)") = 1
'

test_expect_success SPATE,TTY 'tee on a terminal: a percentage for a file input' '
	mkfifo p &&
	{ progress_tty log "tee --progress f1 <\"$TRASH/big\" >p" & } &&
	progress_drain log 2 "copied, .*%, .* left" <p >out &&
	wait &&
	test "$($SYS_CAT status)" = 0 &&
	cmp "$TRASH/big" out && cmp "$TRASH/big" f1 &&
	test $(progress_count log "$(progress_final 4000000)") = 1
'

test_expect_success SPATE,TTY 'a pipe input on a terminal: no percentage' '
	mkfifo in &&
	{ progress_tty log "cat --progress <in >out" & } &&
	progress_feed log 2 "copied, " 1<>in &&
	wait &&
	test "$($SYS_CAT status)" = 0 &&
	cmp fed out &&
	test $(progress_count log "copied, ") -ge 2 &&
	test $(progress_count log "%") = 0 &&
	test $(progress_count log "$(progress_final $(test_file_size fed))") = 1
'

test_expect_success SPATE,TTY 'an error on a terminal: the message on a line of its own' '
	mkfifo in &&
	{ progress_tty log "cat --progress - nosuch \"$TRASH/one\" <in >out" & } &&
	progress_feed log 1 "copied, " 1<>in &&
	wait &&
	test "$($SYS_CAT status)" = 1 &&
	$SYS_CAT fed "$TRASH/one" >expect &&
	cmp expect out &&
	tr -d "\r" <log >lines &&
	grep -x "cat: nosuch: No such file or directory" lines &&
	test $(progress_count log "$(progress_final $(test_file_size expect))") = 1
'

test_expect_success SPATE,DEVFULL 'a failed copy: the message, then the final line' '
	test_expect_code 1 cat --progress "$TRASH/text" >/dev/full 2>err &&
	test $(wc -l <err) = 2 &&
	sed -n 1p err >actual &&
	echo "cat: write error: No space left on device" >expect &&
	test_cmp expect actual &&
	sed -n 2p err | grep "$(progress_final 0)" &&
	test_expect_code 1 tee --progress /dev/full <"$TRASH/text" >out 2>err &&
	cmp "$TRASH/text" out &&
	sed -n 1p err >actual &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect actual &&
	sed -n 2p err | grep "$(progress_final 300000)"
'

test_expect_success SPATE 'stderr the output file: no line in the data' '
	cat --progress "$TRASH/text" >out 2>&1 &&
	cmp "$TRASH/text" out &&
	tee --progress <"$TRASH/text" >out 2>&1 &&
	cmp "$TRASH/text" out
'

test_expect_success SPATE,PYTHON3 'stderr a pipe with no reader: no SIGPIPE, status 0' '
	for c in cat tee; do
		test_python3 -c "
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[2], \"rb\") as i, open(\"out\", \"wb\") as o:
    sys.exit(subprocess.call([sys.argv[1], \"--progress\"], stdin=i,
        stdout=o, stderr=w, restore_signals=True))
" $c "$TRASH/text" &&
		cmp "$TRASH/text" out || return 1
	done
'

test_expect_success SPATE 'stderr a file past the size limit: no SIGXFSZ, status 0' '
	head -c 2048 "$TRASH/text" >err &&
	with_ulimit -f 1 cat --progress "$TRASH/one" 2>>err >out &&
	cmp "$TRASH/one" out &&
	with_ulimit -f 1 tee --progress f1 <"$TRASH/one" 2>>err >out &&
	cmp "$TRASH/one" out && cmp "$TRASH/one" f1 &&
	test $(test_file_size err) = 2048
'

test_done
