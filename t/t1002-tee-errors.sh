#!/bin/sh
# tee: write and read errors, broken pipes, non-blocking descriptors,
# latency and many outputs.  Expectations are GNU coreutils 9.1's, except
# where a case is marked SPATE (GNU 9.1 fails it; later GNU agrees).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

# tee_read_within SECS: copy to stdout the first byte of stdin if it
# arrives within SECS seconds; nothing if it does not.  Needs PYTHON3.
tee_read_within() {
	test_python3 -c '
import os, select, sys
r, _, _ = select.select([0], [], [], float(sys.argv[1]))
if r:
    os.write(1, os.read(0, 1))
' "$1"
}

# tee_count_eagain TRACE: the number of calls that returned EAGAIN in
# strace's TRACE, 0 included (tee may wait in poll(2) before it ever
# meets EAGAIN); fails only if TRACE cannot be read.
tee_count_eagain() {
	grep -c "= -1 EAGAIN" "$1" || [ $? = 1 ]
}

test_expect_success 'setup: inputs' '
	head -c 3145728 /dev/urandom >"$TRASH/in" &&
	head -c 10485760 /dev/urandom >"$TRASH/in10m" &&
	head -c 100000 /dev/urandom >"$TRASH/small"
'

test_expect_success DEVFULL 'stdout /dev/full: one message, files complete' '
	test_expect_code 1 tee f1 f2 <"$TRASH/in" >/dev/full 2>err &&
	echo "tee: ${SQ}standard output${SQ}: No space left on device" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success DEVFULL 'stdout /dev/full, input from a pipe' '
	$SYS_CAT "$TRASH/in" | save_status tee f1 f2 >/dev/full 2>err &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: No space left on device" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success DEVFULL 'a file output /dev/full: one message, rest complete' '
	test_expect_code 1 tee f1 /dev/full f2 <"$TRASH/in" >out 2>err &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success DEVFULL 'a file output /dev/full, input from a pipe' '
	$SYS_CAT "$TRASH/in" | save_status tee /dev/full f 2>err | $SYS_CAT >out &&
	test_status 1 &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success DEVFULL '/dev/full as the only output besides stdout' '
	$SYS_CAT "$TRASH/in" | save_status tee /dev/full 2>err | $SYS_CAT >out &&
	test_status 1 &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out
'

test_expect_success DEVFULL '-p: /dev/full is still diagnosed' '
	test_expect_code 1 tee -p /dev/full f <"$TRASH/in" >out 2>err &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success DEVFULL '--output-error=exit stops early' '
	test_expect_code 1 tee --output-error=exit f /dev/full g \
		<"$TRASH/in10m" >out 2>err &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect err &&
	test_is_strict_prefix f "$TRASH/in10m" &&
	test_is_strict_prefix g "$TRASH/in10m" &&
	test_is_strict_prefix out "$TRASH/in10m"
'

test_expect_success DEVFULL '--output-error=exit-nopipe stops early' '
	$SYS_CAT "$TRASH/in10m" |
	save_status tee --output-error=exit-nopipe /dev/full f 2>err |
		$SYS_CAT >out &&
	test_status 1 &&
	echo "tee: /dev/full: No space left on device" >expect &&
	test_cmp expect err &&
	test_is_strict_prefix f "$TRASH/in10m" &&
	test_is_strict_prefix out "$TRASH/in10m"
'

# tee_broken_pipe OPTION...: tee 10 MiB from a pipe into f, its stdout read by
# `head -c 1`; leave tee's status in status (save_status), its stderr
# in err.
tee_broken_pipe() {
	$SYS_CAT "$TRASH/in10m" | save_status tee "$@" f 2>err | head -c 1 >first
}

test_expect_success 'broken stdout pipe: killed by SIGPIPE, no message' '
	tee_broken_pipe &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	head -c 1 "$TRASH/in10m" >expect &&
	test_cmp expect first &&
	test_is_strict_prefix f "$TRASH/in10m"
'

test_expect_success 'broken stdout pipe with -p: silent, files complete, 0' '
	tee_broken_pipe -p &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success 'broken stdout pipe, --output-error=warn: message, 1' '
	tee_broken_pipe --output-error=warn &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success 'broken stdout pipe, --output-error=warn-nopipe' '
	tee_broken_pipe --output-error=warn-nopipe &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success 'broken stdout pipe, --output-error=exit: stops early' '
	tee_broken_pipe --output-error=exit &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err &&
	test_is_strict_prefix f "$TRASH/in10m"
'

test_expect_success 'broken stdout pipe, --output-error=exit-nopipe' '
	tee_broken_pipe --output-error=exit-nopipe &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success 'broken pipe from yes | head: killed by SIGPIPE' '
	$GNU_YES | head -c 10M | save_status tee f | head -c 1 >first &&
	test_status $SIGPIPE_STATUS &&
	printf y >expect &&
	test_cmp expect first
'

test_expect_success 'broken pipe from yes | head with -p: f complete' '
	$GNU_YES | head -c 10M | save_status tee -p f | head -c 1 >first &&
	test_status 0 &&
	yes_ref | head -c 10M >expect &&
	test_cmp expect f
'

test_expect_success 'a broken fifo output: killed by SIGPIPE' '
	mkfifo fo &&
	fifo_head fo first &&
	test_when_finished "fifo_head_end fo" &&
	test_expect_code $SIGPIPE_STATUS tee fo f <"$TRASH/in10m" >out 2>err &&
	test_must_be_empty err &&
	test_is_strict_prefix f "$TRASH/in10m"
'

test_expect_success 'a broken fifo output with -p: others complete' '
	mkfifo fo &&
	fifo_head fo first &&
	test_when_finished "fifo_head_end fo" &&
	test_expect_code 0 tee -p fo f <"$TRASH/in10m" >out 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" out &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success '-p: tee ends when every output is a broken pipe' '
	$GNU_YES | save_status timeout 60 tee -p 2>err |
		head -c 1 >first &&
	test_status 0 &&
	test_must_be_empty err
'

test_expect_success '-p: ends when stdout and a fifo are both broken' '
	mkfifo fo &&
	fifo_head fo first2 &&
	test_when_finished "fifo_head_end fo" &&
	$GNU_YES | save_status timeout 60 tee -p fo 2>err |
		head -c 1 >first &&
	test_status 0 &&
	test_must_be_empty err &&
	printf y >expect &&
	test_cmp expect first2
'

test_expect_success '--output-error=warn: ends when every output is broken' '
	$GNU_YES | save_status timeout 60 tee --output-error=warn 2>err |
		head -c 1 >first &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err
'

test_expect_success 'stdin a directory: read error, exit 1' '
	mkdir d &&
	test_expect_code 1 tee f <d >out 2>err &&
	echo "tee: read error: Is a directory" >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	test_must_be_empty f
'

test_expect_success 'closed stdout: message, the file is complete' '
	test_expect_code 1 tee f <"$TRASH/in" >&- 2>err &&
	echo "tee: ${SQ}standard output${SQ}: Bad file descriptor" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" f
'

test_expect_success 'closed stdout, input from a pipe' '
	$SYS_CAT "$TRASH/in" | save_status tee f1 f2 >&- 2>err &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Bad file descriptor" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success 'closed stdin: read error and close error' '
	test_expect_code 1 tee f <&- >out 2>err &&
	printf "%s\n" "tee: read error: Bad file descriptor" \
		"tee: standard input: Bad file descriptor" >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	test_must_be_empty f
'

# O_NONBLOCK on stdout belongs to whoever set it on the shared open file
# (a parent, another program in the pipeline), not to tee's user, and a
# full pipe only means the reader is slow: giving up would lose the
# user's data for nothing.  GNU 9.1 gives up on EAGAIN ("Resource
# temporarily unavailable", status 1); GNU 9.2 and later wait in poll(2)
# and retry, a fix spate follows.
test_expect_success SPATE 'non-blocking stdout, slow reader: exact output' '
	save_status with_nonblock 1 tee f <"$TRASH/in" 2>err |
		{ sleep 1; $SYS_CAT; } >out &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success SPATE 'non-blocking stdout from a pipe: exact, status 0' '
	$SYS_CAT "$TRASH/in" |
	save_status with_nonblock 1 tee f1 f2 2>err |
		{ sleep 1; $SYS_CAT; } >out &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success SPATE,STRACE 'non-blocking stdout: waits, does not spin' '
	head -c 1048576 "$TRASH/in" >in1m &&
	$SYS_CAT in1m | save_status with_nonblock 1 strace -f -qq -o trace \
		-e trace=splice,tee,write,poll,ppoll tee f 2>err |
		{ sleep 1; $SYS_CAT; } >out &&
	test_status 0 &&
	test_cmp in1m out &&
	test_cmp in1m f &&
	n=$(tee_count_eagain trace) &&
	echo "EAGAIN: $n" &&
	test "$n" -lt 2000
'

# GNU 9.1 reports "read error: Resource temporarily unavailable".
test_expect_success SPATE 'non-blocking stdin, slow writer: exact output' '
	{ sleep 1; $SYS_CAT "$TRASH/in"; } |
	save_status with_nonblock 0 tee f 2>err | $SYS_CAT >out &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success SPATE 'non-blocking stdin, several outputs, trickle' '
	{ printf a; sleep 1; $SYS_CAT "$TRASH/in"; sleep 1; printf z; } |
	save_status with_nonblock 0 tee f1 f2 2>err | $SYS_CAT >out &&
	{ printf a; $SYS_CAT "$TRASH/in"; printf z; } >expect.data &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp expect.data out &&
	test_cmp expect.data f1 &&
	test_cmp expect.data f2
'

test_expect_success SPATE,STRACE 'non-blocking stdin: waits, does not spin' '
	{ sleep 1; printf abc; } |
	save_status with_nonblock 0 strace -f -qq -o trace \
		-e trace=read,splice,tee,poll,ppoll tee f 2>err | $SYS_CAT >out &&
	test_status 0 &&
	printf abc >expect &&
	test_cmp expect out &&
	test_cmp expect f &&
	n=$(tee_count_eagain trace) &&
	echo "EAGAIN: $n" &&
	test "$n" -lt 100
'

# The byte written first must be on every output before the second is
# written: the writer sends b only once the reader has seen a on each
# output (a line through the FIFO seen), so a tee that held a back until
# more input came would show nothing early.  The reader gives the writer
# its line whatever it saw, so that nothing waits for it.
test_expect_success PYTHON3 'latency: data is forwarded as soon as it arrives' '
	mkfifo seen &&
	{ printf a; read _ <seen; printf b; } |
	save_status tee f |
	{
		wait_for_content f a && $SYS_CAT f >f.early &&
		tee_read_within 60 >out.early
		echo >seen
		$SYS_CAT >out.rest
	} &&
	printf a >expect &&
	test_cmp expect f.early &&
	test_cmp expect out.early &&
	printf b >expect &&
	test_cmp expect out.rest &&
	printf ab >expect &&
	test_cmp expect f &&
	test_status 0
'

test_expect_success PYTHON3 'latency with several outputs: files, a fifo, stdout' '
	mkfifo fo seen &&
	fifo_reader fo fo.out &&
	{ printf a; read _ <seen; printf b; } |
	save_status tee f1 fo f2 |
	{
		wait_for_content f1 a && $SYS_CAT f1 >f1.early &&
		wait_for_content f2 a && $SYS_CAT f2 >f2.early &&
		wait_for_content fo.out a && $SYS_CAT fo.out >fo.early &&
		tee_read_within 60 >out.early
		echo >seen
		$SYS_CAT >out.rest
	} &&
	fifo_reader_end &&
	printf a >expect &&
	test_cmp expect f1.early &&
	test_cmp expect f2.early &&
	test_cmp expect out.early &&
	test_cmp expect fo.early &&
	printf b >expect &&
	test_cmp expect out.rest &&
	printf ab >expect &&
	test_cmp expect fo.out &&
	test_cmp expect f1 &&
	test_cmp expect f2 &&
	test_status 0
'

test_expect_success 'latency: a trickle of lines arrives line by line' '
	for i in 1 2 3 4 5; do echo $i; sleep 0.3; done |
	save_status tee f | $SYS_CAT >out &&
	test_status 0 &&
	printf "%s\n" 1 2 3 4 5 >expect &&
	test_cmp expect out &&
	test_cmp expect f
'

test_expect_success '1000 outputs at once, input from a file' '
	test_expect_code 0 with_ulimit -n 2048 tee $(seq -f f%g 1000) \
		<"$TRASH/small" >out 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/small" out &&
	test -f f1000 &&
	sha256sum <"$TRASH/small" | cut -d" " -f1 >expect &&
	sha256sum f* | cut -d" " -f1 | sort -u >actual &&
	test_cmp expect actual
'

test_expect_success '1000 outputs at once, input from a pipe' '
	$SYS_CAT "$TRASH/small" |
	save_status with_ulimit -n 2048 tee $(seq -f f%g 1000) 2>err |
		$SYS_CAT >out &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/small" out &&
	test -f f1000 &&
	sha256sum <"$TRASH/small" | cut -d" " -f1 >expect &&
	sha256sum f* | cut -d" " -f1 | sort -u >actual &&
	test_cmp expect actual
'

test_expect_success PYTHON3 'ulimit -n too low for 1000 outputs: per-file messages' '
	test_expect_code 1 with_fd_limit 503 tee $(seq -f f%g 1000) \
		<"$TRASH/small" >out 2>err &&
	seq -f "tee: f%g: Too many open files" 501 1000 >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/small" out &&
	ls f* | wc -l >count &&
	echo 500 >expect &&
	test_cmp expect count &&
	sha256sum <"$TRASH/small" | cut -d" " -f1 >expect &&
	sha256sum f* | cut -d" " -f1 | sort -u >actual &&
	test_cmp expect actual
'

# With N descriptors, fds 0-2 and N-3 files open; what is left (0, 1, 2
# or more fds) is all any private pipe can get.
for lim in 8 9 10 11 12 13; do
	for how in file pipe; do
		flim=$lim fhow=$how
		test_expect_success PYTHON3 "ulimit -n $lim, 7 files, input from a $how" '
			if test $fhow = file
			then
				save_status with_fd_limit $flim \
					tee f1 f2 f3 f4 f5 f6 f7 \
					<"$TRASH/in" >out 2>err
			else
				$SYS_CAT "$TRASH/in" | save_status with_fd_limit $flim \
					tee f1 f2 f3 f4 f5 f6 f7 2>err | $SYS_CAT >out
			fi &&
			ok=$((flim - 3)) &&
			if test $ok -ge 7
			then
				want=0 &&
				: >expect.err
			else
				want=1 &&
				seq -f "tee: f%g: Too many open files" \
					$((ok + 1)) 7 >expect.err
			fi &&
			test_status $want &&
			test_cmp expect.err err &&
			test_cmp "$TRASH/in" out &&
			for i in $(seq 1 7); do
				if test $i -le $ok
				then
					test_cmp "$TRASH/in" f$i || exit 1
				else
					! test -e f$i || exit 1
				fi
			done
		'
	done
done

# An input open for writing only (here the write end of tee's own stdout
# pipe): the first read fails with EBADF, as GNU's; a tee that looked
# at it first for input would wait for ever (killed after 60 s).
test_expect_success 'an input open for writing only: read error at once' '
	save_status timeout 60 tee f1 f2 0<&1 2>err | $SYS_CAT >out &&
	test_status 1 &&
	echo "tee: read error: $(strerror EBADF)" >expect.err &&
	test_cmp expect.err err &&
	test_must_be_empty f1 &&
	test_must_be_empty f2
'

test_done
