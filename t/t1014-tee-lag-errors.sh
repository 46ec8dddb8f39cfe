#!/bin/sh
# tee with a lag where it stops, fails, or cannot have what the lag
# needs.  A stop (--output-error=exit or exit-nopipe) ends tee at once,
# as GNU's, even while an output's thread is blocked in a write to a
# FIFO whose reader never reads.  Write failures are told in GNU's order,
# by the 8 KiB read the failing byte was in, then by output, so that two
# files that fill at different offsets of one chunk of 128 KiB are named
# as GNU 9.1 names them.  Threads that cannot be had (ulimit -u) refuse
# the lag at the start, with a message and status 1, never a copy made
# silently without it.  The expectations are GNU 9.1's tee, run here.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-quota.sh"

test_expect_success 'setup: inputs' '
	head -c 8388608 /dev/urandom >"$TRASH/in" &&
	head -c 120000 /dev/urandom >"$TRASH/l1"
'

# gnu_said: GNU's stderr gnu as ours words it (the program's name as
# "tee"), into expect; its status into expect.status.
gnu_said() {
	sed "s|^[^:]*tee: |tee: |" gnu >expect &&
	mv status expect.status
}

# Standard output, /dev/full, then a FIFO whose reader (descriptor 9 of
# this shell, read-write) never reads: GNU fails on /dev/full before it
# writes to the FIFO, and exits 1 at once.  tee's thread for the FIFO is
# blocked in its first write by then.  The timeout only makes a hang
# fail sooner.
test_expect_success SPATE,DEVFULL,GNU 'a stop ends tee at once, a FIFO never read as an output' '
	mkfifo fifo &&
	exec 9<>fifo &&
	for m in exit exit-nopipe; do
		$GNU_YES | save_status timeout 60 $GNU_TEE --output-error=$m \
			/dev/full /dev/fd/9 >/dev/null 2>gnu &&
		gnu_said &&
		for s in "" --slow-output=close --slow-output=drop; do
			$GNU_YES | save_status timeout 60 tee --lag=1M $s \
				--output-error=$m /dev/full /dev/fd/9 \
				>/dev/null 2>err &&
			test_cmp expect.status status &&
			test_cmp expect err || {
				echo "with --output-error=$m $s"
				return 1
			}
		done || return 1
	done &&
	exec 9>&-
'

# SMALL_TMPFS: a tmpfs can be mounted in a mount namespace of our own
# (root, and unshare(1) and mount(8) allowed: not so in many containers).
test_lazy_prereq SMALL_TMPFS '
	mkdir m &&
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs m"
'

# two_tmpfs CMD...: run CMD big/f small/f <l1 >out 2>err, its status in
# status, in a mount namespace of its own where big is a tmpfs of 48 KiB
# and small one of 20 KiB: big/f fills at 49152 bytes and small/f at
# 20480, both inside tee's first chunk.  The files come back as big.f
# and small.f.
two_tmpfs() {
	mkdir -p big small &&
	L1="$TRASH/l1" unshare -m sh -c '
		mount -t tmpfs -o size=48k tmpfs big &&
		mount -t tmpfs -o size=20k tmpfs small || exit 1
		"$@" big/f small/f <"$L1" >out 2>err
		echo $? >status
		cp big/f big.f && cp small/f small.f
	' sh "$@"
}

# warn: both told, small/f first, as GNU's tee meets them; exit: small/f
# alone, as GNU's.  small/f holds what fits, as GNU's; big/f what fits
# under warn, and under exit at least what GNU's holds (it may have run
# ahead), a prefix.
test_expect_success SPATE,GNU,SMALL_TMPFS 'two files fill inside one chunk: told as GNU tells them' '
	for m in warn exit; do
		two_tmpfs $GNU_TEE --output-error=$m &&
		mv err gnu && gnu_said &&
		mv big.f gnu.big && mv small.f gnu.small &&
		for s in "" --slow-output=close --slow-output=drop; do
			two_tmpfs tee --lag=1M $s --output-error=$m &&
			test_cmp expect.status status &&
			test_cmp expect err &&
			test_cmp gnu.small small.f &&
			test_is_prefix big.f "$TRASH/l1" &&
			test_is_prefix gnu.big big.f &&
			test_cmp "$TRASH/l1" out || {
				echo "with --output-error=$m $s"
				return 1
			}
		done || return 1
	done
'

# As an unprivileged uid of our own with no process to spare, no thread
# can be made: the lag is refused before a byte is read.  (Nor could the
# sanitizer build's LeakSanitizer start its thread at the exit: it is
# off here.)
test_expect_success SPATE,QUOTA_SETUID,QUOTA_COPY 'ulimit -u too low for the threads: refused, exit 1' '
	mkdir -m 0777 q &&
	echo "tee: cannot start the lag: $(strerror EAGAIN)" >expect &&
	for s in --lag=1M --slow-output=close --slow-output=drop; do
		rm -f q/f1 q/f2 &&
		test_expect_code 1 as_quota env ASAN_OPTIONS=detect_leaks=0 \
			prlimit --nproc=1 \
			"$QUOTA_BIN/tee" $s "$PWD/q/f1" "$PWD/q/f2" \
			<"$TRASH/in" >out 2>err.raw &&
		sed "s|^[^:]*tee: |tee: |" err.raw >err &&
		test_cmp expect err &&
		test_must_be_empty out &&
		test_must_be_empty q/f1 &&
		test_must_be_empty q/f2 || return 1
	done
'

test_done
