#!/bin/sh
# tee where the size of the pieces it writes shows: GNU tee 9.1 reads and
# writes 8 KiB (BUFSIZ) at a time, one output after the other.  From a
# regular file its reads are all full, so what reaches an output named
# twice with O_APPEND or a pipe named twice is fixed to the byte, and
# spate takes GNU's chunks there; a SOCK_SEQPACKET output gets one
# record per write(2).  Every expectation holds for GNU 9.1.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"

# Made with the shell's tools alone: every case reads it, and those
# that need no python3 run without it.
test_expect_success 'setup: a 1 MB input, the same twice in 8 KiB turns' '
	head -c 1000000 /dev/urandom >"$TRASH/in" &&
	split -b 8192 -a 3 "$TRASH/in" piece. &&
	for p in piece.*; do
		$SYS_CAT "$p" "$p" || exit 1
	done >"$TRASH/twice" &&
	test "$(test_file_size "$TRASH/twice")" = 2000000
'

test_both_paths 'one file named twice with -a: 8 KiB turns, as GNU' '
	: >f &&
	tee -a f f <"$TRASH/in" >/dev/null &&
	test_cmp "$TRASH/twice" f
'

test_both_paths 'tee -a FILE >>FILE: 8 KiB turns, as GNU' '
	: >g &&
	tee -a g <"$TRASH/in" >>g &&
	test_cmp "$TRASH/twice" g
'

test_both_paths 'tee /dev/stdout into a pipe: 8 KiB turns, as GNU' '
	save_status tee /dev/stdout <"$TRASH/in" | $SYS_CAT >out &&
	test_status 0 &&
	test_cmp "$TRASH/twice" out
'

# How much an output before a failing one gets before --output-error=exit
# stops tee is one chunk: 8 KiB for GNU, more for spate, an exact
# prefix either way (a documented difference: GNU's own chunks from a
# pipe are whatever each read(2) returns).
test_both_paths DEVFULL '--output-error=exit: the file before /dev/full has a prefix, the one after nothing' '
	test_expect_code 1 tee --output-error=exit x /dev/full y \
		<"$TRASH/in" >/dev/null 2>err &&
	echo "tee: /dev/full: No space left on device" >expect.err &&
	test_cmp expect.err err &&
	test -s x &&
	head -c $(test_file_size x) "$TRASH/in" | cmp - x &&
	test_must_be_empty y
'

# A SOCK_SEQPACKET socket keeps each write(2) a record; a write longer
# than the send buffer fails with EMSGSIZE, and a reader with a smaller
# buffer loses the rest of a record.  GNU writes 8 KiB records.
$SYS_CAT >"$TRASH/seqpacket.py" <<\EOF
import os, socket, subprocess, sys
sndbuf, recvsize, src, pipe_input = (int(sys.argv[1]), int(sys.argv[2]),
    sys.argv[3], sys.argv[4] == "pipe")
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
if sndbuf:
    b.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
data = open(src, "rb").read()
if pipe_input:
    feed = subprocess.Popen([os.environ["SYS_CAT"], src],
        stdout=subprocess.PIPE)
    stdin = feed.stdout
else:
    stdin = open(src, "rb")
tee = subprocess.Popen(["tee"] + sys.argv[5:], stdin=stdin, stdout=b)
stdin.close()
b.close()
got = bytearray()
while True:
    x = a.recv(recvsize)
    if not x:
        break
    got += x
tee.wait()
files = [open(f, "rb").read() == data for f in sys.argv[5:]]
print("got %d of %d bytes, status %d" % (len(got), len(data), tee.returncode))
sys.exit(0 if got == data and all(files) and tee.returncode == 0 else 1)
EOF

for input in file pipe; do
	test_both_paths PYTHON3 "seqpacket stdout with a 64 KiB send buffer, $input input: all bytes" '
		timeout 60 "$(python3_path)" -I -S "$TRASH/seqpacket.py" \
			32768 1048576 "$TRASH/in" '$input' &&
		timeout 60 "$(python3_path)" -I -S "$TRASH/seqpacket.py" \
			32768 1048576 "$TRASH/in" '$input' f1
	'
	test_both_paths PYTHON3 "seqpacket stdout read 8 KiB a record, $input input: all bytes" '
		timeout 60 "$(python3_path)" -I -S "$TRASH/seqpacket.py" \
			0 8192 "$TRASH/in" '$input' &&
		timeout 60 "$(python3_path)" -I -S "$TRASH/seqpacket.py" \
			0 8192 "$TRASH/in" '$input' f1 &&
		timeout 60 "$(python3_path)" -I -S "$TRASH/seqpacket.py" \
			0 8192 "$TRASH/in" '$input' f1 f2
	'
done

# A pipe in packet mode makes each write(2) packets of at most a page,
# and a read takes one packet: into one, with a file beside it, GNU's
# 8 KiB writes make pages; tee(2) or splice(2) would make none.
test_both_paths PYTHON3,GNU 'packet-mode pipe stdout and files: the packets GNU writes' '
	for f in "" "f1" "f1 f2"; do
		with_record_stdout packet 0 $GNU_TEE $f <"$TRASH/in" >expect &&
		with_record_stdout packet 0 tee $f <"$TRASH/in" >actual &&
		test_cmp expect actual &&
		cmp "$TRASH/in" records &&
		echo 0 >expect.status &&
		test_cmp expect.status status || exit 1
		for g in $f; do test_cmp "$TRASH/in" $g || exit 1; done
	done
'

# A reader that grows its pipe once it has started, after tee has: tee
# asks the pipe's size anew as the stream goes on, and its chunks grow
# to the pipe's size (tee(2) calls of more than 64 KiB; from a file,
# whose reads are not bound by a pipe).  The reader takes 8 MiB, grows
# its pipe to 1 MiB, then takes the rest.
test_expect_success SPATE,ZEROCOPY,STRACE,PYTHON3 'a reader that grows its pipe late: chunks of its size' '
	head -c 67108864 /dev/zero >big &&
	strace -qq -o trace -e trace=tee tee /dev/null <big |
	test_python3 -c "
import fcntl, os, sys
left = 8 << 20
while left > 0:
    left -= len(os.read(0, min(left, 1 << 16)))
fcntl.fcntl(0, 1031, 1 << 20)
n = 8 << 20
while True:
    b = os.read(0, 1 << 20)
    if not b:
        break
    n += len(b)
sys.exit(0 if n == 64 << 20 else 1)
" &&
	grep -E "^tee\(.* = [0-9]+$" trace | awk "\$NF > 65536" >big.calls &&
	test -s big.calls
'

test_done
