#!/bin/sh
# yes: the fault injection matrix.  Each syscall yes makes on each path
# (vmsplice on the zero-copy path, write on the read/write path, fcntl to
# size the pipe, poll after EAGAIN, mmap of the big buffer) fails with the
# errors the kernel really gives there, at the first call and at a later
# one, and a few calls return short counts.  The expectations:
#
#   exact	the stream is byte for byte `yes ARG...` (a fallback, a retry,
#		or a call on a path not taken): no message, killed by SIGPIPE
#		when the reader leaves
#   error	one message "yes: standard output: STRERROR", status 1, and
#		nothing written (the first transfer failed for real)
#   late	the same message and status after a non-empty exact prefix
#   skip:N	the stream minus its first N bytes: strace does not run a
#		call it fakes, so `retval=N` claims N bytes that never went out
#
# t0005 has the hand-written fallback cases; this is the full matrix.
# Every run is bounded by timeout: a hang fails the case.  Cases whose
# expectation needs vmsplice to be called are ZEROCOPY (sluice, not the
# portable build); those where GNU 9.1 differs are SLUICE.
. "$(dirname "$0")/test-lib.sh"

MiB=1048576
SQ="'"

# inject_yes N SPEC ARG...: run `yes ARG...` under strace with the faults
# SPEC (inject= specs, space separated), bounded by timeout; the first N
# bytes of its output go to actual, stderr to err, the status to status.
inject_yes() {
	n=$1 spec=$2
	shift 2
	if [ -n "${SLUICE_INJECT_LOG:-}" ]; then
		echo "yes $spec" >>"$SLUICE_INJECT_LOG"
	fi
	{
		env --default-signal=PIPE timeout 60 \
			strace -f -qq -o /dev/null \
			$(for s in $spec; do printf " -e inject=%s" "$s"; done) \
			yes "$@" 2>err
		echo $? >status
	} | head -c "$n" >actual
}

# expect_yes WHAT N ARG...: check the run against WHAT (see the top).
expect_yes() {
	what=$1 n=$2
	shift 2
	case $what in
	exact)
		yes_ref "$@" | head -c "$n" >expect &&
		cmp expect actual &&
		test_must_be_empty err &&
		sigpipe_code >expect.status &&
		test_cmp expect.status status ;;
	skip:*)
		yes_ref "$@" | tail -c +$((${what#skip:} + 1)) |
			head -c "$n" >expect &&
		cmp expect actual &&
		test_must_be_empty err &&
		sigpipe_code >expect.status &&
		test_cmp expect.status status ;;
	error:*|late:*)
		echo "yes: standard output: $(strerror ${what#*:})" >expect.err &&
		test_cmp expect.err err &&
		echo 1 >expect.status &&
		test_cmp expect.status status &&
		if [ "${what%%:*}" = error ]; then
			test_must_be_empty actual
		else
			test -s actual &&
			yes_ref "$@" | head -c "$(test_file_size actual)" >prefix &&
			cmp prefix actual
		fi ;;
	*)	echo "expect_yes: unknown $what"; return 1 ;;
	esac
}

# fault PREREQ PATH SPEC WHAT: one case.  PATH is zc (the default: a
# pipe, vmsplice) or rw (SLUICE_ZEROCOPY=0: write).  Each case runs a
# short line and a line longer than a page; a late fault needs a reader
# that goes on long enough to see it.
fault() {
	fprereq=$1 fpath=$2 fspec=$3 fwhat=$4
	case $fwhat in
	late:*)	fn=$((64 * MiB)) ;;
	*)	fn=$((3 * MiB + 7)) ;;
	esac
	test_expect_success "$fprereq" "$fpath path, $fspec: $fwhat" '
		if [ $fpath = rw ]; then
			SLUICE_ZEROCOPY=0 && export SLUICE_ZEROCOPY
		fi &&
		long=$(yes_ref 0123456789abcdef | head -c 5000 | tr -d "\n") &&
		inject_yes $fn "$fspec" &&
		expect_yes $fwhat $fn &&
		inject_yes $fn "$fspec" "$long" &&
		expect_yes $fwhat $fn "$long"
	'
}

# vmsplice: a refusal at the first call (the kernel cannot serve this
# pipe: EINVAL, ENOSYS, or ENOMEM pinning pages) falls back to write(2);
# an error write(2) would give as well is the output's error at once,
# with nothing written.  EAGAIN waits in poll, EINTR retries.  At a later
# call bytes have gone out: any failure is a real error.  GNU 9.1 never
# calls vmsplice: exact there.
for err in EINVAL ENOSYS ENOMEM EAGAIN EINTR; do
	fault STRACE zc vmsplice:error=$err:when=1 exact
done
for err in EFAULT EIO EPIPE ENOSPC EBADF; do
	fault STRACE,ZEROCOPY zc vmsplice:error=$err:when=1 error:$err
done
for err in EAGAIN EINTR; do
	fault STRACE zc vmsplice:error=$err:when=3 exact
	fault STRACE zc vmsplice:error=$err:when=2+2 exact
done
for err in EINVAL ENOSYS ENOMEM EFAULT EIO EPIPE ENOSPC EBADF; do
	fault STRACE,ZEROCOPY zc vmsplice:error=$err:when=3 late:$err
done
# On the read/write path vmsplice is never called.
for err in EINVAL ENOMEM; do
	fault STRACE rw vmsplice:error=$err exact
done

# write: on the read/write path, the first failure is an error with
# nothing written, a later one an error after an exact prefix (GNU 9.1
# alike).  EINTR is retried; EAGAIN waits in poll (GNU 9.1 gives up).
# On the zero-copy path write is not called: still exact.
for err in EINVAL ENOSPC EIO EPIPE EBADF EFBIG EDQUOT; do
	fault STRACE rw write:error=$err:when=1 error:$err
	fault STRACE rw write:error=$err:when=3 late:$err
done
for when in 1 3 1+2; do
	fault STRACE rw write:error=EINTR:when=$when exact
	fault STRACE,SLUICE rw write:error=EAGAIN:when=$when exact
done
for err in EINVAL EIO ENOSPC EAGAIN; do
	fault STRACE,ZEROCOPY zc write:error=$err exact
done

# fcntl: F_GETFL (call 1; refused, yes takes write(2)), then, once 4 MiB
# went out fast, F_GETPIPE_SZ and F_SETPIPE_SZ.  A refusal anywhere only
# costs speed: the output stays exact.
for err in EPERM EINVAL ENOMEM EBADF EBUSY; do
	for when in 1 2 3 3+ 1+; do
		fault STRACE zc fcntl:error=$err:when=$when exact
	done
done

# poll is only called after EAGAIN.  EINTR is retried; any other failure
# is an error, before anything was written.
for path in zc rw; do
	if [ $path = zc ]; then call=vmsplice; else call=write; fi
	q=STRACE,SLUICE
	[ $path = zc ] && q=STRACE,ZEROCOPY
	fault STRACE,SLUICE $path "$call:error=EAGAIN:when=1 poll:error=EINTR:when=1" exact
	for err in ENOMEM EINVAL EFAULT; do
		fault $q $path \
			"$call:error=EAGAIN:when=1 poll:error=$err:when=1" error:$err
		fault $q $path \
			"$call:error=EAGAIN:when=3 poll:error=$err:when=1" late:$err
	done
done

# Short counts at the first transfer: the stream resumes right after what
# the call claimed.
for k in 1 7 4095 4096; do
	fault STRACE rw write:retval=$k:when=1 skip:$k
	fault STRACE,ZEROCOPY zc vmsplice:retval=$k:when=1 skip:$k
done

# The vmsplice path's big buffer: mmap refused while running keeps the
# small buffer.  The mmap call to fail is found in a first, traced run.
for err in ENOMEM EAGAIN EPERM; do
	test_expect_success STRACE,ZEROCOPY "zc path, mmap of the 2 MiB buffer fails with $err: exact" '
		timeout 60 strace -qq -o trace -e trace=mmap,vmsplice yes |
			head -c $((4 * MiB)) >/dev/null &&
		when=$(awk "/^vmsplice/ { v = 1 }
			/^mmap\\(/ { n++; if (v) { print n; exit } }" trace) &&
		test -n "$when" &&
		inject_yes $((6 * MiB)) mmap:error='$err':when=$when &&
		expect_yes exact $((6 * MiB))
	'
done

test_done
