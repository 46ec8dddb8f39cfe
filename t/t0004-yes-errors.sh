#!/bin/sh
# yes: what it says and how it exits when the output fails, and that a
# non-blocking or interrupted output loses nothing.
. "$(dirname "$0")/test-lib.sh"

MiB=1048576

# check_exit CODE MESSAGE: status holds CODE and err holds MESSAGE, or
# nothing if MESSAGE is empty.
check_exit() {
	echo "$1" >expect.status &&
	test_cmp expect.status status &&
	if [ -n "$2" ]; then
		echo "$2" >expect.err &&
		test_cmp expect.err err
	else
		test_must_be_empty err
	fi
}

# wait_for PATTERN FILE: wait until FILE has a line matching PATTERN
# (at most about 30 s, which only a hang takes).
wait_for() {
	i=0
	until grep -q "$1" "$2" 2>/dev/null; do
		[ $i -lt 300 ] || { echo "wait_for: no $1 in $2"; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
}

# nonblock: make the open file behind stdout non-blocking, for the
# command that the caller runs next on the same stdout.
nonblock() {
	dd oflag=nonblock count=0 </dev/null 2>/dev/null
}

# no_spin TRACE: in the strace log TRACE, every EAGAIN from a write is
# followed by a poll before the next write, and there is at least one.
no_spin() {
	awk '
		/EAGAIN/ { if (waiting) spin = 1; waiting = 1; n++ }
		/poll\(/ { waiting = 0 }
		END {
			if (n == 0) print "no EAGAIN at all"
			if (spin) print "write retried without poll"
			exit n == 0 || spin
		}' "$1"
}

for zc in default 0; do
	if [ $zc = 0 ]; then
		SLUICE_ZEROCOPY=0
		export SLUICE_ZEROCOPY
		how="SLUICE_ZEROCOPY=0"
	else
		how="zero-copy"
	fi

	test_expect_success "$how: reader gone, SIGPIPE default: killed" '
		{
			env --default-signal=PIPE yes 2>err
			echo $? >status
		} | head -c $((MiB + 3)) >actual &&
		check_exit $(sigpipe_code) "" &&
		yes_ref | head -c $((MiB + 3)) >expect &&
		cmp expect actual
	'

	test_expect_success "$how: reader gone, SIGPIPE ignored: one error" '
		{
			env --ignore-signal=PIPE yes abc 2>err
			echo $? >status
		} | head -c $((MiB + 3)) >actual &&
		check_exit 1 "yes: standard output: Broken pipe" &&
		yes_ref abc | head -c $((MiB + 3)) >expect &&
		cmp expect actual
	'

	test_expect_success "$how: SIGPIPE ignored, reader reads nothing" '
		{
			env --ignore-signal=PIPE yes 2>err
			echo $? >status
		} | true &&
		check_exit 1 "yes: standard output: Broken pipe"
	'

	test_expect_success "$how: SIGPIPE ignored, reader exits at once" '
		{
			env --ignore-signal=PIPE yes x 2>err
			echo $? >status
		} | head -c 0 &&
		check_exit 1 "yes: standard output: Broken pipe"
	'

	test_expect_success DEVFULL "$how: /dev/full: one error, exit 1" '
		yes >/dev/full 2>err
		echo $? >status &&
		check_exit 1 "yes: standard output: No space left on device"
	'

	test_expect_success DEVFULL "$how: /dev/full with a long line" '
		w=$(yes_ref abcdefg | head -c 131071 | tr -d "\n") &&
		yes "$w" "$w" >/dev/full 2>err
		echo $? >status &&
		check_exit 1 "yes: standard output: No space left on device"
	'

	test_expect_success "$how: closed stdout: bad file descriptor" '
		yes >&- 2>err
		echo $? >status &&
		check_exit 1 "yes: standard output: Bad file descriptor"
	'

	test_expect_success "$how: stdout open read-only: bad file descriptor" '
		yes 1</dev/null 2>err
		echo $? >status &&
		check_exit 1 "yes: standard output: Bad file descriptor"
	'

	# The kernel would read the pipe *into* the line with vmsplice on a
	# read end; write(2) says EBADF.  timeout only bounds a hang.
	test_expect_success "$how: stdout is the read end of a pipe" '
		: | timeout 5 yes 1<&0 2>err
		echo $? >status &&
		check_exit 1 "yes: standard output: Bad file descriptor"
	'

	test_expect_success "$how: stdout is the read end of a live pipe" '
		echo hello | {
			timeout 5 yes abc 1<&0 2>err
			echo $? >status
		} &&
		check_exit 1 "yes: standard output: Bad file descriptor"
	'

	# GNU 9.1 fails with EAGAIN on a non-blocking stdout.
	test_expect_success SLUICE "$how: non-blocking stdout: exact, no error" '
		{
			nonblock &&
			env --default-signal=PIPE yes a b 2>err
			echo $? >status
		} | { sleep 1 && head -c $((3 * MiB + 5)); } >actual &&
		check_exit $(sigpipe_code) "" &&
		yes_ref a b | head -c $((3 * MiB + 5)) >expect &&
		cmp expect actual
	'

	test_expect_success SLUICE "$how: non-blocking stdout, 1 MiB line" '
		w=$(yes_ref abcdefg | head -c 131071 | tr -d "\n") &&
		set -- "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w" &&
		{
			nonblock &&
			env --default-signal=PIPE yes "$@" 2>err
			echo $? >status
		} | { sleep 1 && head -c $((3 * MiB + 5)); } >actual &&
		check_exit $(sigpipe_code) "" &&
		yes_prefix actual "$@" &&
		test $(test_file_size actual) = $((3 * MiB + 5))
	'

	test_expect_success STRACE "$how: write EINTR is retried" '
		{
			env --default-signal=PIPE strace -f -qq -o /dev/null \
				-e inject=write:error=EINTR:when=1..3 yes ab 2>err
			echo $? >status
		} | head -c $((2 * MiB + 1)) >actual &&
		check_exit $(sigpipe_code) "" &&
		yes_ref ab | head -c $((2 * MiB + 1)) >expect &&
		cmp expect actual
	'

	test_expect_success STRACE "$how: vmsplice EINTR is retried" '
		for when in 1 2 3..5 2+3; do
			{
				env --default-signal=PIPE \
					strace -f -qq -o /dev/null \
					-e inject=vmsplice:error=EINTR:when=$when \
					yes ab 2>err
				echo $? >status
			} | head -c $((2 * MiB + 1)) >actual &&
			check_exit $(sigpipe_code) "" &&
			yes_ref ab | head -c $((2 * MiB + 1)) >expect &&
			cmp expect actual || return 1
		done
	'
done

# A reader that starts only once the writer met EAGAIN; the write path
# must then sleep in poll, not retry at once.  (vmsplice ignores the
# file's O_NONBLOCK and blocks, so this is the write path's case.)
test_expect_success SLUICE,STRACE 'non-blocking stdout: EAGAIN, poll, no spin' '
	{
		nonblock &&
		SLUICE_ZEROCOPY=0 env --default-signal=PIPE \
			strace -qq -o trace -e trace=write,vmsplice,poll,ppoll \
			yes abc 2>err
		echo $? >status
	} | { wait_for EAGAIN trace && head -c $((3 * MiB + 1)); } >actual &&
	check_exit $(sigpipe_code) "" &&
	yes_ref abc | head -c $((3 * MiB + 1)) >expect &&
	cmp expect actual &&
	no_spin trace
'

test_done
