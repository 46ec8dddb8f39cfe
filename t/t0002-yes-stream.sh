#!/bin/sh
# yes: the output is an exact repetition of the line, whatever the line's
# length, however much is read and by whatever kind of reader, on the
# zero-copy path and on the portable one (test_both_paths).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

MiB=1048576

# yes_head N ARG...: the first N bytes of `yes ARG...` into actual, and
# its exit status (SIGPIPE by default, whatever the caller ignores) into
# status.
yes_head() {
	n=$1
	shift
	save_status env --default-signal=PIPE yes "$@" | head -c "$n" >actual
}

# check_head N ARG...: yes_head N ARG... gives the first N bytes of the
# reference in ref, and yes was stopped by SIGPIPE.
check_head() {
	n=$1
	shift
	head -c "$n" ref >expect &&
	yes_head "$n" "$@" &&
	cmp expect actual &&
	test_status $SIGPIPE_STATUS
}

# check_sizes ARG...: check_head for sizes around the page, the default
# pipe and the grown pipe, and the ramp of the engine's buffer.
check_sizes() {
	for n in 0 1 2 3 4095 4096 4097 8191 8193 65535 65536 65537 \
	    $((MiB - 1)) $MiB $((MiB + 1)) $((2 * MiB + 3)) $((3 * MiB + 7))
	do
		check_head $n "$@" || return 1
	done
}

test_both_paths "y, read by head -c at many sizes" '
	yes_ref | head -c $((4 * MiB)) >ref &&
	check_sizes
'

test_both_paths "y, 20 MiB read by head -c" '
	yes_ref | head -c $((20 * MiB + 1)) >ref &&
	check_head $((20 * MiB + 1))
'

for len in 1 2 3 7 4095 4096 4097 5000; do
	test_both_paths "a line of $len bytes at many sizes" '
		w=$(data_word $((len - 1))) &&
		yes_ref "$w" | head -c $((4 * MiB)) >ref &&
		check_sizes "$w"
	'
done

test_both_paths "a line of 1 MiB from 8 operands" '
	w=$(data_word 131071) &&
	set -- "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w" &&
	yes_ref "$@" | head -c $((5 * MiB)) >ref &&
	for n in 1 $((MiB - 1)) $MiB $((MiB + 1)) $((5 * MiB)); do
		check_head $n "$@" || return 1
	done
'

test_both_paths "a line of 1 MiB + 5 bytes" '
	w=$(data_word 131071) &&
	set -- "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w" abcd &&
	yes_ref "$@" | head -c $((5 * MiB)) >ref &&
	for n in $((MiB + 4)) $((MiB + 5)) $((MiB + 6)) $((5 * MiB)); do
		check_head $n "$@" || return 1
	done
'

test_both_paths "a line of 3 MiB (longer than any buffer)" '
	ulimit -s 32768 &&
	w=$(data_word 131071) &&
	set -- &&
	i=0 &&
	while [ $i -lt 24 ]; do
		set -- "$@" "$w" &&
		i=$((i + 1)) || return 1
	done &&
	yes_ref "$@" | head -c $((7 * MiB)) >ref &&
	for n in 4096 $((3 * MiB - 1)) $((3 * MiB + 1)) $((7 * MiB))
	do
		check_head $n "$@" || return 1
	done
'

test_both_paths "100000 operands x" '
	set -- $(yes_ref x | head -n 100000) &&
	test $# = 100000 &&
	yes_ref "$@" | head -c $((2 * MiB + 1)) >ref &&
	for n in 199999 200000 200001 $((2 * MiB + 1)); do
		check_head $n "$@" || return 1
	done
'

test_both_paths "the line is the operands joined by spaces" '
	printf "%s\n" "a   b c" "a   b c" >expect &&
	yes "a " " b" c | head -n 2 >actual &&
	test_cmp expect actual
'

# 3 MiB, or 300,000 blocks (past two of yes's 128 KiB buffers) at most:
# each block is two system calls of dd's.
test_both_paths "dd with odd full blocks" '
	yes_ref abc | head -c $((3 * MiB)) >ref &&
	for bs in 1 7 4093 65537 1000003; do
		n=$((3 * MiB / bs)) &&
		if [ $n -gt 300000 ]; then n=300000; fi &&
		save_status env --default-signal=PIPE yes abc |
		dd bs=$bs count=$n iflag=fullblock >actual 2>/dev/null &&
		head -c $((n * bs)) ref >expect &&
		cmp expect actual &&
		test_status $SIGPIPE_STATUS || return 1
	done
'

test_both_paths "dd with odd partial reads gets a prefix" '
	yes_ref hello world | head -c $((8 * MiB)) >ref &&
	for bs in 3 4097 131073 1048583; do
		yes hello world |
		dd ibs=$bs obs=777 count=5 >actual 2>/dev/null &&
		test -s actual &&
		test_is_prefix actual ref || return 1
	done
'

test_both_paths "5000 one-byte reads" '
	yes_ref ab | head -c 5000 >expect &&
	yes ab | dd bs=1 count=5000 >actual 2>/dev/null &&
	cmp expect actual
'

test_both_paths "a reader that starts late" '
	yes_ref late | head -c $((3 * MiB)) >expect &&
	save_status env --default-signal=PIPE yes late |
	{ sleep 1 && head -c $((3 * MiB)); } >actual &&
	cmp expect actual &&
	test_status $SIGPIPE_STATUS
'

test_both_paths "a reader on a FIFO" '
	yes_ref fifo | head -c $((3 * MiB + 1)) >expect &&
	mkfifo fifo &&
	{ env --default-signal=PIPE yes fifo >fifo & } &&
	pid=$! &&
	head -c $((3 * MiB + 1)) fifo >actual &&
	test_expect_code $SIGPIPE_STATUS wait $pid &&
	cmp expect actual
'

test_both_paths "a stopped and continued writer" '
	yes_ref | head -c $((3 * MiB)) >expect &&
	mkfifo fifo &&
	{ env --default-signal=PIPE yes >fifo & } &&
	pid=$! &&
	exec 3<fifo &&
	kill -STOP $pid &&
	kill -CONT $pid &&
	head -c $MiB <&3 >actual &&
	kill -STOP $pid &&
	kill -CONT $pid &&
	head -c $((2 * MiB)) <&3 >>actual &&
	exec 3<&- &&
	test_expect_code $SIGPIPE_STATUS wait $pid &&
	cmp expect actual
'

# The size limit bounds a run into a regular file: the last write is
# cut short, the next fails with EFBIG.
test_both_paths "into a regular file, up to a size limit" '
	for limit in 2048 2049 4097; do
		test_expect_code 1 with_ulimit -f $limit \
			env --ignore-signal=XFSZ yes "a b c" >file 2>err &&
		echo "yes: standard output: File too large" >expect.err &&
		test_cmp expect.err err &&
		size=$(test_file_size file) &&
		case $size in
		$((limit * 512))|$((limit * 1024))) ;;
		*) echo "size $size for ulimit -f $limit"; false ;;
		esac &&
		yes_ref "a b c" | head -c $size >expect &&
		cmp expect file || return 1
	done
'

test_both_paths "into /dev/null until killed" '
	test_expect_code 124 timeout 1 yes >/dev/null 2>err &&
	test_must_be_empty err
'

test_done
