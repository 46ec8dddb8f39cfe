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
#   error:E	one message "yes: standard output: strerror(E)", status 1,
#		and nothing written (the first transfer failed for real)
#   late:E	the same message and status after a non-empty exact prefix
#   skip:N	the stream minus its first N bytes: strace does not run a
#		call it fakes, so `retval=N` claims N bytes that never went out
#
# (test_yes_run in lib-yes.sh checks them.)  The paths are test_path's:
# zc, the default settings, and rw, SPATE_ZEROCOPY=0.
#
# t0005 has the hand-written fallback cases; this is the full matrix.
# Every run is bounded by timeout: a hang fails the case.  Cases whose
# expectation needs vmsplice to be called are ZEROCOPY (spate, not the
# portable build); those where GNU 9.1 differs are SPATE.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-fault.sh"
. "$TEST_DIR/lib-yes.sh"
test_require_prereq GNU

MiB=1048576

# yes_fault PREREQ PATH SPEC WHAT: one case on PATH (zc or rw, see
# test_path) under the faults SPEC, checked with test_yes_run WHAT.  Each
# case runs a short line and a line longer than a page; a late fault
# needs a reader that goes on long enough to see it.
yes_fault() {
	yq=$1 yp=$2 ys=$3 yw=$4
	case $yw in
	late:*)	yn=$((64 * MiB)) ;;
	*)	yn=$((3 * MiB + 7)) ;;
	esac
	test_path $yp "$yq" "$ys: $yw" '
		long=$(data_word 5000) &&
		yes_faulted $yn "$ys" &&
		test_yes_run $yw $yn &&
		yes_faulted $yn "$ys" "$long" &&
		test_yes_run $yw $yn "$long"
	'
}

# vmsplice: a refusal (the kernel cannot serve this pipe: EINVAL,
# ENOSYS, ENOMEM pinning pages; a sandbox: EPERM, EACCES), at the first
# call or a later one, falls back to write(2) from the byte where it
# stopped; an error write(2) would give as well is the output's error,
# with nothing written at the first call, after an exact prefix at a
# later one.  EAGAIN waits in poll, EINTR retries; EAGAIN for ever, which
# no poll clears, ends as a refusal.  GNU 9.1 never calls vmsplice:
# exact there.
for err in EINVAL ENOSYS ENOMEM EPERM EACCES EAGAIN EINTR; do
	yes_fault STRACE zc vmsplice:error=$err:when=1 exact
done
for err in EFAULT EIO EPIPE ENOSPC EBADF; do
	yes_fault STRACE,ZEROCOPY zc vmsplice:error=$err:when=1 error:$err
done
for err in EAGAIN EINTR; do
	yes_fault STRACE zc vmsplice:error=$err:when=3 exact
	yes_fault STRACE zc vmsplice:error=$err:when=2+2 exact
done
for err in EINVAL ENOSYS ENOMEM EPERM EACCES EAGAIN; do
	yes_fault STRACE zc vmsplice:error=$err:when=3+ exact
done
for err in EFAULT EIO EPIPE ENOSPC EBADF; do
	yes_fault STRACE,ZEROCOPY zc vmsplice:error=$err:when=3 late:$err
done
# On the read/write path vmsplice is never called.
for err in EINVAL ENOMEM; do
	yes_fault STRACE rw vmsplice:error=$err exact
done

# write: on the read/write path, the first failure is an error with
# nothing written, a later one an error after an exact prefix (GNU 9.1
# alike).  EINTR is retried; EAGAIN waits in poll (GNU 9.1 gives up).
# On the zero-copy path write is not called: still exact.
for err in EINVAL ENOSPC EIO EPIPE EBADF EFBIG EDQUOT; do
	yes_fault STRACE rw write:error=$err:when=1 error:$err
	yes_fault STRACE rw write:error=$err:when=3 late:$err
done
for when in 1 3 1+2; do
	yes_fault STRACE rw write:error=EINTR:when=$when exact
	yes_fault STRACE,SPATE rw write:error=EAGAIN:when=$when exact
done
for err in EINVAL EIO ENOSPC EAGAIN; do
	yes_fault STRACE,ZEROCOPY zc write:error=$err exact
done

# fcntl: F_GETFL (call 1; refused, yes takes write(2)), then, once 4 MiB
# went out fast, F_GETPIPE_SZ and F_SETPIPE_SZ.  A refusal anywhere only
# costs speed: the output stays exact.
for err in EPERM EINVAL ENOMEM EBADF EBUSY; do
	for when in 1 2 3 3+ 1+; do
		yes_fault STRACE zc fcntl:error=$err:when=$when exact
	done
done

# poll is only called after EAGAIN.  EINTR is retried; any other failure
# is an error, before anything was written.
for path in zc rw; do
	if [ $path = zc ]; then call=vmsplice; else call=write; fi
	q=STRACE,SPATE
	[ $path = zc ] && q=STRACE,ZEROCOPY
	yes_fault STRACE,SPATE $path "$call:error=EAGAIN:when=1 poll:error=EINTR:when=1" exact
	for err in ENOMEM EINVAL EFAULT; do
		yes_fault $q $path \
			"$call:error=EAGAIN:when=1 poll:error=$err:when=1" error:$err
		yes_fault $q $path \
			"$call:error=EAGAIN:when=3 poll:error=$err:when=1" late:$err
	done
done

# Short counts at the first transfer: the stream resumes right after what
# the call claimed.
for k in 1 7 4095 4096; do
	yes_fault STRACE rw write:retval=$k:when=1 skip:$k
	yes_fault STRACE,ZEROCOPY zc vmsplice:retval=$k:when=1 skip:$k
done

# The vmsplice path's big buffer: mmap refused while running keeps the
# small buffer.  The mmap call to fail is found in a first, traced run.
for err in ENOMEM EAGAIN EPERM; do
	test_path zc STRACE,ZEROCOPY "mmap of the 2 MiB buffer fails with $err: exact" '
		when=$(yes_big_mmap) &&
		yes_faulted $((6 * MiB)) mmap:error=$err:when=$when &&
		test_yes_run exact $((6 * MiB))
	'
done

test_done
