#!/bin/sh
# tee --lag=SIZE and --slow-output=MODE (spate's own): each output on a
# thread of its own may fall SIZE bytes behind the fastest; one that
# would fall further is waited for, closed, or misses whole chunks of
# 128 KiB.  Every output holds the input, a prefix of it (closed), or
# the input less whole chunks (dropped), into pipes, FIFOs, files and
# sockets; a stalled output is a FIFO whose reader takes nothing until
# the case lets it, closed or dropped once a write to it has waited 2
# s (t1013: files and a pipe that is read never are, under load).  The
# options' parsing and messages; -p and --output-error tell what GNU's
# tee tells where no output lags.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"

test_expect_success 'setup: inputs' '
	head -c 8388608 /dev/urandom >"$TRASH/in" &&
	head -c 300000 /dev/urandom >"$TRASH/small"
'

test_expect_success SPATE '--help lists the extensions' '
	tee --help >help &&
	grep "^Extensions:$" help &&
	grep "^      --lag=SIZE  " help &&
	grep "^      --slow-output=MODE  " help
'

test_expect_success SPATE '--help says when an output is slow, and the cost' '
	tee --help >help &&
	tr -s " \n" "  " <help >words &&
	grep "An output is slow when it is more than the lag behind and has not taken 8 KiB in 2 seconds. A file or a device never is." words &&
	grep "goes through memory, a thread for each output: 2-3 times the CPU time" words
'

test_expect_success SPATE '--lag takes head -c'\''s sizes' '
	for s in 1 100 1K 1KiB 1kB 1MB 1M 1MiB 1b 1G 2TB K " 1K" 0 1MD; do
		tee --lag="$s" f <"$TRASH/small" >out &&
		test_cmp "$TRASH/small" out &&
		test_cmp "$TRASH/small" f || return 1
	done
'

# bad_lag ARG: tee --lag=ARG exits 1, reads and writes nothing, and
# says what head -c says of ARG, in GNU's words.
bad_lag() {
	echo hi >f &&
	echo data | test_expect_code 1 tee --lag="$1" f >out 2>err &&
	test_must_be_empty out &&
	echo hi >expect &&
	test_cmp expect f
}

test_expect_success SPATE 'a bad SIZE: GNU'\''s message, exit 1' '
	for s in 1x "" 1g 1e 1K2 -1 1iB 1Ki; do
		bad_lag "$s" &&
		echo "tee: invalid number of bytes: ${SQ}$s${SQ}" >expect &&
		test_cmp expect err || return 1
	done &&
	bad_lag 99999999999999999999 &&
	echo "tee: invalid number of bytes: ${SQ}99999999999999999999${SQ}: Value too large for defined data type" >expect &&
	test_cmp expect err
'

test_expect_success SPATE,GNU 'a bad SIZE: as GNU'\''s head -c says it' '
	for s in 1x "" 1g 1e 1K2 1iB 1Ki 99999999999999999999; do
		bad_lag "$s" &&
		test_expect_code 1 /usr/bin/head -c "$s" </dev/null 2>herr &&
		sed "s/^[^:]*head: /tee: /" herr >expect &&
		test_cmp expect err || return 1
	done
'

# slow_error KIND ARG: GNU's message for a bad MODE, as argmatch words it.
slow_error() {
	printf "tee: %s argument '%s' for '--slow-output'\n" "$1" "$2"
	echo "Valid arguments are:"
	for m in wait close drop; do
		echo "  - '$m'"
	done
	echo "Try 'tee --help' for more information."
}

test_expect_success SPATE 'a bad MODE: invalid, ambiguous; prefixes' '
	test_expect_code 1 tee --slow-output=slow </dev/null >out 2>err &&
	test_must_be_empty out &&
	slow_error invalid slow >expect &&
	test_cmp expect err &&
	test_expect_code 1 tee --slow-output= </dev/null >out 2>err &&
	slow_error ambiguous "" >expect &&
	test_cmp expect err &&
	for m in w c d wai clo dro; do
		tee --slow-output=$m f <"$TRASH/small" >out 2>err &&
		test_must_be_empty err &&
		test_cmp "$TRASH/small" out || return 1
	done
'

test_expect_success SPATE 'wait: a pipe, a FIFO and files get every byte' '
	mkfifo fifo &&
	fifo_reader fifo fromfifo &&
	$SYS_CAT "$TRASH/in" |
	tee --lag=256K f1 fifo f2 9>&- | $SYS_CAT >out &&
	fifo_reader_end &&
	for o in out fromfifo f1 f2; do
		test_cmp "$TRASH/in" $o || return 1
	done
'

# sockout.py OUT CMD...: run CMD with its stdout a unix stream socket,
# whose other end is copied into OUT; exit with CMD's status.
test_expect_success PYTHON3 'setup: a socket output' '
	$SYS_CAT >"$TRASH/sockout.py" <<-\EOF
	import socket, subprocess, sys
	a, b = socket.socketpair()
	p = subprocess.Popen(sys.argv[2:], stdout=b)
	b.close()
	with open(sys.argv[1], "wb") as f:
	    while True:
	        x = a.recv(65536)
	        if not x:
	            break
	        f.write(x)
	sys.exit(p.wait())
	EOF
'

test_expect_success SPATE,PYTHON3 'wait: a socket gets every byte' '
	test_python3 "$TRASH/sockout.py" sock \
		tee --lag=1M --slow-output=wait f <"$TRASH/in" &&
	test_cmp "$TRASH/in" sock &&
	test_cmp "$TRASH/in" f
'

test_expect_success SPATE 'close: a stalled FIFO is closed, stdout runs on' '
	stalled_reader fifo got &&
	test_expect_code 1 timeout 60 tee --slow-output=close fifo \
		<"$TRASH/in" >out 2>err 9>&- &&
	stalled_reader_go &&
	echo "tee: fifo: output too slow, closed" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_is_strict_prefix got "$TRASH/in"
'

test_expect_success SPATE 'close: standard output named as GNU names it' '
	stalled_reader fifo got &&
	test_expect_code 1 timeout 60 tee --slow-output=close --lag=64K f \
		<"$TRASH/in" >fifo 2>err 9>&- &&
	stalled_reader_go &&
	echo "tee: ${SQ}standard output${SQ}: output too slow, closed" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" f &&
	test_is_strict_prefix got "$TRASH/in"
'

# chunks.py IN GOT MISSED: GOT is IN less whole chunks of 128 KiB, in
# order, and MISSED bytes were left out.
test_expect_success PYTHON3 'setup: the check of whole chunks' '
	$SYS_CAT >"$TRASH/chunks.py" <<-\EOF
	import sys
	data = open(sys.argv[1], "rb").read()
	got = open(sys.argv[2], "rb").read()
	p = q = 0
	while q < len(got) and p < len(data):
	    k = data[p:p + 131072]
	    if got[q:q + len(k)] == k:
	        q += len(k)
	    p += len(k)
	sys.exit(not (q == len(got) and len(data) - len(got) == int(sys.argv[3])))
	EOF
'

# The FIFO's reader reads once standard output has the first half of the
# input, far more than the lag and the FIFO's buffer: by then the FIFO,
# slow, has missed chunks; it takes what it is given while the second
# half comes, and is not closed at the end.
test_expect_success SPATE,PYTHON3 'drop: a stalled FIFO misses whole chunks' '
	stalled_reader fifo got &&
	{
		head -c 4194304 "$TRASH/in" &&
		wait_for_size f 4194304 &&
		echo go >go &&
		tail -c +4194305 "$TRASH/in"
	} 9>&- | save_status tee --slow-output=drop --lag=256K fifo \
		>f 2>err 9>&- &&
	exec 9>&- &&
	wait "$stalled_reader_pid" &&
	test_status 1 &&
	test_cmp "$TRASH/in" f &&
	missed=$(sed -n \
		"s/^tee: fifo: output too slow, \([0-9]*\) bytes dropped$/\1/p" \
		err) &&
	test -n "$missed" && test "$missed" -gt 0 &&
	test $(wc -l <err) = 1 &&
	test_python3 "$TRASH/chunks.py" "$TRASH/in" got "$missed"
'

# tee_lag_broken_stdout OPTION...: 300 kB into f with a lag of 1M, stdout
# read by `head -c 1`; the status in status, stderr in err (as t1006's
# tee_broken_stdout, without a lag).
tee_lag_broken_stdout() {
	save_status tee --lag=1M "$@" f <"$TRASH/small" 2>err | head -c 1 >/dev/null
}

test_expect_success SPATE 'a broken stdout: SIGPIPE, -p, warn, exit as GNU' '
	tee_lag_broken_stdout &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	test_is_prefix f "$TRASH/small" &&
	tee_lag_broken_stdout -p &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/small" f &&
	tee_lag_broken_stdout --output-error=warn &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/small" f &&
	tee_lag_broken_stdout --output-error=exit &&
	test_status 1 &&
	test_cmp expect err &&
	test_is_prefix f "$TRASH/small"
'

# The input, a FIFO held open here (descriptor 7), says one byte and
# then nothing: tee ends once its readers, which take a byte, have left.
test_expect_success SPATE '-p: broken pipes end tee while its input waits' '
	mkfifo fifo input &&
	fifo_head fifo first &&
	test_when_finished "fifo_head_end fifo" &&
	exec 7<>input &&
	printf x >&7 &&
	save_status timeout 60 tee -p --lag=1M fifo <input 2>err 7>&- |
		head -c 1 >/dev/null &&
	exec 7>&- &&
	test_status 0 &&
	test_must_be_empty err
'

# Two outputs that fail: told in the order of the outputs, as GNU tells
# them; --output-error=exit tells the first alone.
test_expect_success SPATE,DEVFULL 'failures told in GNU'\''s order' '
	ln -s /dev/full full1 &&
	ln -s /dev/full full2 &&
	test_expect_code 1 tee --lag=1M --output-error=warn full1 f full2 \
		<"$TRASH/small" >out 2>err &&
	{
		echo "tee: full1: No space left on device" &&
		echo "tee: full2: No space left on device"
	} >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/small" out &&
	test_cmp "$TRASH/small" f &&
	test_expect_code 1 tee --lag=1M --output-error=exit full1 f full2 \
		<"$TRASH/small" >out 2>err &&
	echo "tee: full1: No space left on device" >expect &&
	test_cmp expect err
'

test_expect_success SPATE,DEVFULL,GNU 'failures: GNU'\''s tee says the same' '
	ln -s /dev/full full1 &&
	ln -s /dev/full full2 &&
	for m in warn exit; do
		save_status tee --lag=1M --output-error=$m full1 f full2 \
			<"$TRASH/small" >out 2>err &&
		mv status status.sut &&
		save_status $GNU_TEE --output-error=$m full1 f full2 \
			<"$TRASH/small" >out 2>gnu &&
		sed "s|^[^:]*tee: |tee: |" gnu >expect &&
		test_cmp expect err &&
		test_cmp status status.sut || return 1
	done
'

# A pipe in packet mode as the input: a read takes one packet, and one
# that asks for less than the packet loses the rest of it.  Packets of
# 1000 bytes end short of a chunk's end, where a read into what is left
# of the chunk would ask for less; GNU's asks for 8 KiB every time.
test_expect_success SPATE,PYTHON3 'a packet-mode pipe input: every byte' '
	$SYS_CAT >packets.py <<-\EOF &&
	import os, subprocess, sys
	r, w = os.pipe2(os.O_DIRECT)
	with open("out", "wb") as out:
	    p = subprocess.Popen(sys.argv[2:], stdin=r, stdout=out)
	os.close(r)
	with open(sys.argv[1], "rb") as f:
	    data = f.read()
	for i in range(0, len(data), 1000):
	    os.write(w, data[i:i + 1000])
	os.close(w)
	sys.exit(p.wait())
	EOF
	for m in wait drop; do
		rm -f f out &&
		test_python3 packets.py "$TRASH/small" \
			tee --lag=1M --slow-output=$m f &&
		test_cmp "$TRASH/small" f &&
		test_cmp "$TRASH/small" out || return 1
	done
'

# Records of one byte from a record socket, an output that takes
# nothing meanwhile: what is held for it is packed into chunks, the lag
# bounding the memory, not a chunk of its own for each record (30 MB
# for these 300,000 once).  The peak resident size of tee, once the
# file output has every record, stays under 16 MiB: the 4 MiB lag and
# what the process is anyway.  Not where tee's memory is not its own:
# the sanitizer build's shadow, valgrind's, qemu-user's (NATIVE), as in
# t2007.
[ "${SPATE_SAN:-}" = 1 ] || [ "${SPATE_VALGRIND:-}" = 1 ] ||
test_expect_success SPATE,PYTHON3,NATIVE 'one-byte records, an output stalled: memory bound by the lag' '
	$SYS_CAT >records.py <<-\EOF &&
	import os, socket, subprocess, sys, time
	a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	r, w = os.pipe()
	n = 300000
	p = subprocess.Popen(["tee", "--lag=4M", "/dev/fd/%d" % w, "f"],
	    stdin=b, stdout=subprocess.DEVNULL, pass_fds=[w])
	b.close()
	os.close(w)
	for i in range(n):
	    a.send(b"%c" % (65 + i % 26))
	a.shutdown(socket.SHUT_WR)
	while p.poll() is None and (not os.path.exists("f") or
	        os.path.getsize("f") < n):
	    time.sleep(0.05)
	status = open("/proc/%d/status" % p.pid).read()
	hwm = [l for l in status.splitlines() if l.startswith("VmHWM")][0]
	kib = int(hwm.split()[1])
	got = b""
	while True:
	    k = os.read(r, 65536)
	    if not k:
	        break
	    got += k
	want = bytes(65 + i % 26 for i in range(n))
	ok = p.wait() == 0 and got == want and open("f", "rb").read() == want
	print("peak %d KiB, outputs %s" % (kib, "whole" if ok else "wrong"))
	sys.exit(0 if ok and kib < 16384 else 1)
	EOF
	test_python3 records.py
'

# The input pipe as an output through a descriptor of its own (tee
# /dev/stdin): not aliased, the lag runs.  The pipe holds the input (as
# much as it takes) before tee starts, and no one else writes it: tee
# feeds itself, and stdout gets the input over and over, as from GNU's,
# until its reader leaves (SIGPIPE).  Outputs wait (no close, no drop:
# stdout's reader may be kept off its CPU for seconds on a busy machine).
test_expect_success SPATE,GNU,PYTHON3 'the input pipe as an output: as GNU'\''s tee' '
	$SYS_CAT >selffed.py <<-\EOF &&
	import fcntl, os, subprocess, sys
	r, w = os.pipe()
	room = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
	os.write(w, open(sys.argv[1], "rb").read(min(room, 60000)))
	os.close(w)
	p = subprocess.Popen(sys.argv[2:], stdin=r, stdout=subprocess.PIPE)
	os.close(r)
	sys.stdout.buffer.write(p.stdout.read(1 << 20))
	p.stdout.close()
	sys.exit(0 if p.wait() == -13 else 1)
	EOF
	test_python3 selffed.py "$TRASH/small" $GNU_TEE /dev/stdin >expect &&
	for o in --lag=64K --lag=1; do
		test_python3 selffed.py "$TRASH/small" tee $o /dev/stdin >out &&
		test_cmp expect out || return 1
	done
'

test_expect_success SPATE,GNU 'the same file twice: as GNU'\''s tee, no lag' '
	tee --lag=1M --slow-output=drop f f <"$TRASH/small" >/dev/null &&
	$GNU_TEE g g <"$TRASH/small" >/dev/null &&
	test_cmp g f
'

test_done
