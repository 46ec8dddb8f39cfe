#!/bin/sh
# cat's handoff: past 4 MiB of transformed output into a pipe, cat -n,
# -v, -A ... make their output in fresh huge pages and vmsplice(2) them
# into the pipe, never writing a page again once it is handed over.
# Readers that hold the pages (tee(2) into other pipes), read slowly or
# from a non-blocking pipe must all get exactly GNU's output; where the
# handoff must not be taken (a packet-mode pipe, SPATE_ZEROCOPY=0, a
# short output) it is not.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-fault.sh"
test_require_prereq GNU

test_expect_success 'setup: 12 MiB of every byte value, in lines' '
	head -c 12582912 /dev/urandom >"$TRASH/big" &&
	head -c 1048576 /dev/urandom >"$TRASH/small"
'

# Every option, and the combinations that take each of the formatter's
# loops, on both paths: the zc cases hand over all but the first 4 MiB.
for opts in -n -b -s -v -E -T -A -e -t -vET -bsE -nT; do
	test_both_paths "cat $opts of 12 MiB into a pipe: GNU's output" '
		$GNU_CAT '$opts' "$TRASH/big" >expect &&
		cat '$opts' "$TRASH/big" | $GNU_CAT >out &&
		test_cmp expect out
	'
done

# Short lines: the output outgrows what it is made from, and the handoff
# starts in the middle of what one read brought.
test_expect_success 'setup: 10 MB of short lines' '
	seq 1 1500000 >"$TRASH/lines"
'
for opts in -n -A -bE; do
	test_both_paths "cat $opts of short lines into a pipe: GNU's output" '
		$GNU_CAT '$opts' "$TRASH/lines" >expect &&
		save_status cat '$opts' "$TRASH/lines" | $GNU_CAT >out &&
		test_status 0 &&
		test_cmp expect out
	'
done

test_expect_success STRACE,ZEROCOPY 'cat -n of 12 MiB into a pipe: vmsplice, the output exact' '
	$GNU_CAT -n "$TRASH/big" >expect &&
	strace -qq -o trace -e trace=vmsplice,write cat -n "$TRASH/big" |
	    $GNU_CAT >out &&
	test_cmp expect out &&
	grep -q "^vmsplice(1," trace
'

# Where the handoff is not taken, the output is written: no vmsplice.
test_expect_success STRACE 'cat -n of 1 MiB (a short output): write(2) only' '
	$GNU_CAT -n "$TRASH/small" >expect &&
	strace -qq -o trace -e trace=vmsplice,write,mmap cat -n "$TRASH/small" |
	    $GNU_CAT >out &&
	test_cmp expect out &&
	grep -q "^write(1," trace &&
	! grep -q "^vmsplice(" trace &&
	! grep -q "^mmap(NULL, 4194304," trace
'
test_expect_success STRACE 'SPATE_ZEROCOPY=0 cat -n of 12 MiB: write(2) only' '
	$GNU_CAT -n "$TRASH/big" >expect &&
	SPATE_ZEROCOPY=0 strace -qq -o trace -e trace=vmsplice,write \
	    cat -n "$TRASH/big" | $GNU_CAT >out &&
	test_cmp expect out &&
	grep -q "^write(1," trace &&
	! grep -q "^vmsplice(" trace
'

# A packet-mode pipe makes each write(2) a packet, as GNU's readers of
# such a pipe expect: the output there is written, whatever its length.
test_expect_success PYTHON3,STRACE 'packet-mode output pipe: write(2) only, and a reader of packets gets all' '
	$SYS_CAT >packets.py <<-\EOF &&
	import os, subprocess, sys
	r, w = os.pipe2(os.O_DIRECT)
	cat = subprocess.Popen(["strace", "-qq", "-o", "trace", "-e",
	    "trace=vmsplice,write", "cat", "-n", sys.argv[1]], stdout=w)
	os.close(w)
	got = bytearray()
	while True:
	    b = os.read(r, 4096)
	    if not b:
	        break
	    got += b
	cat.wait()
	sys.stdout.buffer.write(got)
	sys.exit(cat.returncode)
	EOF
	$GNU_CAT -n "$TRASH/big" >expect &&
	timeout 60 "$(python3_path)" -I -S packets.py "$TRASH/big" >out &&
	test_cmp expect out &&
	grep -q "^write(1," trace &&
	! grep -q "^vmsplice(" trace
'

# The pages handed over stay in the pipe, and in every pipe tee(2)
# passes them on to, while cat goes on making more: a page written again
# would show in the slow readers' copies.  The input pauses, so that cat
# hands over part of a region and goes on in the same one.
test_expect_success 'tee(2) holds the pages in pipes read late: every copy exact' '
	$GNU_CAT -A "$TRASH/big" >expect && mkfifo f1 f2 || exit 1
	{ sleep 1; $GNU_CAT f1 >out1; } &
	{ sleep 2; $GNU_CAT f2 >out2; } &
	{
		head -c 6000000 "$TRASH/big"; sleep 0.3
		tail -c +6000001 "$TRASH/big"
	} | cat -A | tee f1 f2 | { sleep 1; $GNU_CAT >out3; } &&
	wait &&
	test_cmp expect out1 &&
	test_cmp expect out2 &&
	test_cmp expect out3
'

test_expect_success 'a reader of 1000 bytes at a time, after a pause: exact' '
	$GNU_CAT -v "$TRASH/big" >expect &&
	cat -v "$TRASH/big" | { sleep 1; dd bs=1000 2>/dev/null; } >out &&
	test_cmp expect out
'

# GNU 9.1 stops there with "write error: Resource temporarily
# unavailable"; 9.2 and later wait, a fix spate follows.
test_expect_success SPATE,STRACE 'non-blocking output pipe, slow reader: exact, no spin' '
	$GNU_CAT -n "$TRASH/big" >expect &&
	with_nonblock 1 strace -qq -o trace -e trace=vmsplice,write,poll \
	    cat -n "$TRASH/big" | { sleep 1; $GNU_CAT; } >out &&
	test_cmp expect out &&
	test_no_spin trace
'

test_expect_success 'input from a pipe in bursts and pauses: exact' '
	$GNU_CAT -n "$TRASH/big" "$TRASH/big" >expect &&
	{
		head -c 6000000 "$TRASH/big"; sleep 0.2
		tail -c +6000001 "$TRASH/big"; sleep 0.2
		$GNU_CAT "$TRASH/big"
	} | cat -n | $GNU_CAT >out &&
	test_cmp expect out
'

test_expect_success 'operands one after another, - and files: numbering carries' '
	$GNU_CAT -n "$TRASH/big" "$TRASH/small" "$TRASH/big" >expect &&
	$GNU_CAT "$TRASH/small" |
	    cat -n "$TRASH/big" - "$TRASH/big" | $GNU_CAT >out &&
	test_cmp expect out
'

# A coprocess: lines go in with pauses, each flushed on its own as the
# input pipe runs dry, and nothing is read until the end.  Handed over
# one by one, each would take a page and a pipe slot of its own, and the
# pipes would fill (and a writer that blocks, deadlock) long before
# GNU's; few bytes are copied, packed as GNU's writes are.
test_expect_success PYTHON3 'a trickle nobody reads yet fits as it does with GNU' '
	$SYS_CAT >coproc.py <<-\EOF &&
	import fcntl, os, select, subprocess, sys, threading, time
	cat = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
	    stdout=subprocess.PIPE)
	got = bytearray()
	first = b"".join(b"%099d\n" % i for i in range(50000))
	def read_all(n):
	    while n is None or len(got) < n:
	        b = os.read(cat.stdout.fileno(), 1 << 20)
	        if not b:
	            return
	        got.extend(b)
	# 5 MB with a reader: past the handoff threshold.
	t = threading.Thread(target=read_all, args=(len(first) + 50000 * 7,))
	t.start()
	cat.stdin.write(first)
	cat.stdin.flush()
	t.join()
	fd = cat.stdin.fileno()
	fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
	sent = 0
	while sent < 1100:
	    try:
	        os.write(fd, b"%099d\n" % sent)
	    except BlockingIOError:
	        # cat reads on, however late, unless its output is full.
	        if not select.select([], [fd], [], 60)[1]:
	            break
	        continue
	    sent += 1
	    time.sleep(0.001)
	cat.stdin.close()
	read_all(None)
	cat.wait()
	print("%d of 1100 lines went in before nobody read" % sent)
	want = subprocess.run([os.environ["GNU_CAT"], "-n"], input=first + b"".join(
	    b"%099d\n" % i for i in range(sent)), stdout=subprocess.PIPE).stdout
	sys.exit(0 if sent == 1100 and bytes(got) == want else 1)
	EOF
	timeout 120 "$(python3_path)" -I -S coproc.py cat -n
'

# A reader that goes away: the write error as GNU reports it.
test_expect_success 'the reader exits mid-stream, SIGPIPE ignored: write error, status 1' '
	echo "cat: write error: Broken pipe" >expect.err &&
	(trap "" PIPE; save_status cat -n "$TRASH/big" "$TRASH/big" 2>err) |
	    head -c 6000000 >/dev/null &&
	test_status 1 &&
	test_cmp expect.err err
'

test_done
