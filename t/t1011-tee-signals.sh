#!/bin/sh
# tee and a SIGPIPE sent from outside: it ends tee while tee waits, for
# input or for room in its output, as it ends GNU's tee, which waits in
# read(2) or write(2).  Expectations are GNU coreutils 9.1's.
. "$(dirname "$0")/test-lib.sh"

# A SIGPIPE sent from outside (`timeout -s PIPE`, `kill -PIPE`) ends tee
# while it waits for input, as it ends GNU's, which waits in read(2):
# with two outputs or more spate holds SIGPIPE while it writes, and
# must let it in while it waits.  The input is a FIFO held open here
# (descriptor 9), at first empty, then after 8 MiB went through (the
# stream then on tee's own pipes and threads, gone quiet).  A tee that
# kept the signal waiting would wait for ever: killed after 60 s, its
# status then 137.
# tee_f1_holds BYTES: wait until f1 holds BYTES at least (30 s at most).
tee_f1_holds() {
	tfh_i=0
	until [ -f f1 ] && [ "$(wc -c <f1)" -ge "$1" ]; do
		[ $tfh_i -lt 300 ] || return 0
		sleep 0.1
		tfh_i=$((tfh_i + 1))
	done
}

# tee_kill_pipe PID: send PID SIGPIPE and wait for it, 60 s at most (then
# SIGKILL); its status goes to status.
tee_kill_pipe() {
	kill -PIPE "$1" &&
	{ (sleep 60; kill -KILL "$1" 2>/dev/null) & } &&
	tkp_dog=$! &&
	save_status wait "$1" &&
	kill $tkp_dog 2>/dev/null
	test -s status
}

# tee_killed_waiting BYTES: run tee f1 f2 on the FIFO, give it BYTES of
# the input and wait until f1 holds them, send SIGPIPE; its status goes
# to status.
tee_killed_waiting() {
	rm -f fi f1 f2 status && mkfifo fi && exec 9<>fi &&
	{ env --default-signal=PIPE tee f1 f2 <fi 2>err & } &&
	tkw_pid=$! &&
	head -c "$1" "$TRASH/in.8m" >&9 &&
	tee_f1_holds "$1" &&
	tee_kill_pipe $tkw_pid
	tkw_status=$?
	exec 9>&-
	return $tkw_status
}

test_expect_success 'setup: 8 MiB of input' '
	head -c 8388608 /dev/urandom >"$TRASH/in.8m"
'

test_expect_success 'tee f1 f2, no input yet: a SIGPIPE from outside ends it' '
	tee_killed_waiting 0 &&
	test "$($SYS_CAT status)" = "$SIGPIPE_STATUS" &&
	test_must_be_empty err
'

test_expect_success 'tee f1 f2, input quiet after 8 MiB: a SIGPIPE from outside ends it' '
	tee_killed_waiting 8388608 &&
	test "$($SYS_CAT status)" = "$SIGPIPE_STATUS" &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in.8m" f1 &&
	test_cmp "$TRASH/in.8m" f2
'

# ... and while it waits to write: its standard output a FIFO that its
# reader (descriptor 8, here) never reads.  GNU's tee waits in write(2);
# spate's, once the output has stalled (its 1 s) and the stream went
# back to read/write, waits for room in ppoll(2) with SIGPIPE let in.
# (0.3.0 waited in write(2) with it held, for ever.)
test_expect_success 'tee f1 f2 >FIFO never read: a SIGPIPE from outside ends it' '
	rm -f fo f1 f2 status && mkfifo fo && exec 8<>fo &&
	{ env --default-signal=PIPE tee f1 f2 <"$TRASH/in.8m" >fo 2>err & } &&
	tkw_pid=$! &&
	tee_f1_holds 65536 &&
	sleep 3 &&
	tee_kill_pipe $tkw_pid
	exec 8>&-
	test "$($SYS_CAT status)" = "$SIGPIPE_STATUS" &&
	test_must_be_empty err
'

# ... and while it never waits: a regular file's input (4 TiB, sparse),
# into /dev/null twice and a file that stays empty of it but for what
# went before the kill.  GNU's tee ends in the read(2) or write(2) it is
# making; spate's looks between rounds (0.3.0 held the signal to the end
# of its input: hours here, killed after 60 s, status 137).
test_expect_success 'tee /dev/null /dev/null <4 TiB file: a SIGPIPE from outside ends it' '
	rm -f huge status && truncate -s 4T huge &&
	{ env --default-signal=PIPE tee /dev/null /dev/null <huge >/dev/null 2>err & } &&
	tkw_pid=$! &&
	sleep 0.5 &&
	tee_kill_pipe $tkw_pid &&
	rm -f huge &&
	test "$($SYS_CAT status)" = "$SIGPIPE_STATUS" &&
	test_must_be_empty err
'

test_done
