#!/bin/sh
# yes: what it says and how it exits when the output fails, and that a
# non-blocking or interrupted output loses nothing.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-fault.sh"
test_require_prereq GNU

MiB=1048576

test_both_paths "reader gone, SIGPIPE default: killed" '
	save_status env --default-signal=PIPE yes 2>err |
		head -c $((MiB + 3)) >actual &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	yes_ref | head -c $((MiB + 3)) >expect &&
	cmp expect actual
'

test_both_paths "reader gone, SIGPIPE ignored: one error" '
	save_status env --ignore-signal=PIPE yes abc 2>err |
		head -c $((MiB + 3)) >actual &&
	test_status 1 &&
	echo "yes: standard output: Broken pipe" >expect.err &&
	test_cmp expect.err err &&
	yes_ref abc | head -c $((MiB + 3)) >expect &&
	cmp expect actual
'

test_both_paths "SIGPIPE ignored, reader reads nothing" '
	save_status env --ignore-signal=PIPE yes 2>err | true &&
	test_status 1 &&
	echo "yes: standard output: Broken pipe" >expect.err &&
	test_cmp expect.err err
'

test_both_paths "SIGPIPE ignored, reader exits at once" '
	save_status env --ignore-signal=PIPE yes x 2>err | head -c 0 &&
	test_status 1 &&
	echo "yes: standard output: Broken pipe" >expect.err &&
	test_cmp expect.err err
'

test_both_paths DEVFULL "/dev/full: one error, exit 1" '
	test_expect_code 1 yes >/dev/full 2>err &&
	echo "yes: standard output: No space left on device" >expect.err &&
	test_cmp expect.err err
'

test_both_paths DEVFULL "/dev/full with a long line" '
	w=$(data_word 131071) &&
	test_expect_code 1 yes "$w" "$w" >/dev/full 2>err &&
	echo "yes: standard output: No space left on device" >expect.err &&
	test_cmp expect.err err
'

test_both_paths "closed stdout: bad file descriptor" '
	test_expect_code 1 yes >&- 2>err &&
	echo "yes: standard output: Bad file descriptor" >expect.err &&
	test_cmp expect.err err
'

test_both_paths "stdout open read-only: bad file descriptor" '
	test_expect_code 1 yes 1</dev/null 2>err &&
	echo "yes: standard output: Bad file descriptor" >expect.err &&
	test_cmp expect.err err
'

# The kernel would read the pipe *into* the line with vmsplice on a
# read end; write(2) says EBADF.  timeout only bounds a hang.
test_both_paths "stdout is the read end of a pipe" '
	: | test_expect_code 1 timeout 60 yes 1<&0 2>err &&
	echo "yes: standard output: Bad file descriptor" >expect.err &&
	test_cmp expect.err err
'

test_both_paths "stdout is the read end of a live pipe" '
	echo hello | test_expect_code 1 timeout 60 yes abc 1<&0 2>err &&
	echo "yes: standard output: Bad file descriptor" >expect.err &&
	test_cmp expect.err err
'

# GNU 9.1 fails with EAGAIN on a non-blocking stdout (see below).
test_both_paths SPATE "non-blocking stdout: exact, no error" '
	save_status with_nonblock 1 env --default-signal=PIPE yes a b 2>err |
		{ sleep 1 && head -c $((3 * MiB + 5)); } >actual &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	yes_ref a b | head -c $((3 * MiB + 5)) >expect &&
	cmp expect actual
'

test_both_paths SPATE "non-blocking stdout, 1 MiB line" '
	w=$(data_word 131071) &&
	set -- "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w" &&
	save_status with_nonblock 1 env --default-signal=PIPE yes "$@" 2>err |
		{ sleep 1 && head -c $((3 * MiB + 5)); } >actual &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	yes_prefix actual "$@" &&
	test $(test_file_size actual) = $((3 * MiB + 5))
'

test_both_paths STRACE "write EINTR is retried" '
	save_status with_faults write:error=EINTR:when=1..3 yes ab 2>err |
		head -c $((2 * MiB + 1)) >actual &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	yes_ref ab | head -c $((2 * MiB + 1)) >expect &&
	cmp expect actual
'

test_both_paths STRACE "vmsplice EINTR is retried" '
	for when in 1 2 3..5 2+3; do
		save_status with_faults vmsplice:error=EINTR:when=$when \
			yes ab 2>err | head -c $((2 * MiB + 1)) >actual &&
		test_status $SIGPIPE_STATUS &&
		test_must_be_empty err &&
		yes_ref ab | head -c $((2 * MiB + 1)) >expect &&
		cmp expect actual || return 1
	done
'
# GNU 9.1 gives up at the first EAGAIN, after an exact prefix: the
# reference that the SPATE cases above part from.
test_expect_success !SPATE 'non-blocking stdout: GNU stops at EAGAIN' '
	save_status with_nonblock 1 env --default-signal=PIPE yes a b 2>err |
		{ sleep 1 && head -c $((3 * MiB + 5)); } >actual &&
	test_status 1 &&
	echo "yes: standard output: $(strerror EAGAIN)" >expect.err &&
	test_cmp expect.err err &&
	test -s actual &&
	yes_prefix actual a b
'

# A reader that starts only once the writer met EAGAIN; the write path
# must then sleep in poll, not retry at once.  (vmsplice ignores the
# file's O_NONBLOCK and blocks, so this is the write path's case.)
test_expect_success SPATE,STRACE 'non-blocking stdout: EAGAIN, poll, no spin' '
	save_status with_nonblock 1 env --default-signal=PIPE SPATE_ZEROCOPY=0 \
		strace -qq -o trace -e trace=write,vmsplice,poll,ppoll \
		yes abc 2>err |
		{ wait_for_match trace EAGAIN && head -c $((3 * MiB + 1)); } \
		>actual &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	yes_ref abc | head -c $((3 * MiB + 1)) >expect &&
	cmp expect actual &&
	test_no_spin trace
'

test_done
