#!/bin/sh
# tee against hostile descriptor states, where a fast path could lose,
# corrupt or hang and GNU tee does not: closed stdio, an input pipe read
# by someone else too, packet-mode pipes, readers that take the outputs
# in lockstep, one file reached through two outputs, a shared input
# offset.  Every expectation holds for GNU tee 9.1 as well.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: inputs of 5 MB and 40 MB' '
	head -c 5000000 /dev/urandom >"$TRASH/in" &&
	head -c 40000000 /dev/urandom >"$TRASH/big" &&
	seq 1000000 >"$TRASH/seq"
'

# The engine's private pipes must not become fds 1 and 2: the message
# about the closed stdout would land in a file, or block tee forever.
test_expect_success 'stdout and stderr closed, pipe input: files exact' '
	$SYS_CAT "$TRASH/seq" | save_status tee a b >&- 2>&- &&
	test_status 1 &&
	test_cmp "$TRASH/seq" a &&
	test_cmp "$TRASH/seq" b
'

test_expect_success 'stdout and stderr closed, file input: no hang, files exact' '
	test_expect_code 1 timeout 60 tee a b <"$TRASH/big" >&- 2>&- &&
	test_cmp "$TRASH/big" a &&
	test_cmp "$TRASH/big" b
'

test_expect_success 'stdout and stderr closed, one file: exact' '
	$SYS_CAT "$TRASH/big" | save_status tee a >&- 2>&- &&
	test_status 1 &&
	test_cmp "$TRASH/big" a
'

test_expect_success 'stdin, stdout and stderr closed: read error, files empty' '
	test_expect_code 1 tee a b <&- >&- 2>&- &&
	test_must_be_empty a &&
	test_must_be_empty b
'

# Which bytes tee gets from a pipe that another process reads as well is
# the race's business; that every output gets the same bytes is not.
for outs in "a b >/dev/null" "a b | $SYS_CAT >out" "a"; do
	test_expect_success "input pipe shared with another reader: tee $outs" '
		for i in 1 2 3 4 5; do
			# An asynchronous list reads /dev/null unless told.
			$SYS_CAT "$TRASH/big" | {
				exec 3<&0
				save_status eval "tee '"$outs"'" <&3 2>err &
				$SYS_CAT >c
				wait
			} &&
			test_status 0 &&
			test_must_be_empty err &&
			if [ -f b ]; then test_cmp a b || exit 1; fi &&
			if [ -f out ]; then test_cmp a out || exit 1; fi &&
			test $(($(test_file_size a) + $(test_file_size c))) = \
				40000000 || exit 1
		done
	'
done

# A packet-mode pipe (pipe2 with O_DIRECT) makes each write a packet,
# and a read takes at most one packet, dropping what it does not take.
# Zero-copy would pass the packets on into tee's output pipes, where a
# reader of less than a packet loses the rest.
test_expect_success PYTHON3 'packet-mode input pipe: a reader of small pieces gets all' '
	$SYS_CAT >packets.py <<-\EOF &&
	import os, subprocess, sys, threading
	r, w = os.pipe2(os.O_DIRECT)
	outr, outw = os.pipe()
	tee = subprocess.Popen(["tee"] + sys.argv[1:], stdin=r, stdout=outw)
	os.close(r)
	os.close(outw)
	data = bytes((i * 7 + i // 251) % 256 for i in range(200000))
	def feed():
	    for i in range(0, len(data), 11192):
	        os.write(w, data[i:i + 11192])
	    os.close(w)
	threading.Thread(target=feed).start()
	got = bytearray(os.read(outr, 100))
	while True:
	    b = os.read(outr, 100)
	    if not b:
	        break
	    got += b
	tee.wait()
	files = [open(f, "rb").read() for f in sys.argv[1:]]
	ok = got == data and all(f == data for f in files)
	print("got %d of %d bytes" % (len(got), len(data)))
	sys.exit(0 if ok and tee.returncode == 0 else 1)
	EOF
	timeout 60 "$(python3_path)" -I -S packets.py &&
	timeout 60 "$(python3_path)" -I -S packets.py f1 &&
	timeout 60 "$(python3_path)" -I -S packets.py f1 f2
'

# A reader that takes 4 KiB from one output, then 4 KiB from the other,
# waits on the second while tee is still giving the first more than it
# can buffer: both wait forever, unless tee gives no output more than
# the others can hold.  GNU moves 8 KiB at a time.
test_expect_success PYTHON3 'a reader of two outputs in lockstep: no deadlock' '
	$SYS_CAT >lockstep.py <<-\EOF &&
	import os, socket, subprocess, sys
	src, pipe_input = sys.argv[1], sys.argv[2] == "pipe"
	data = open(src, "rb").read()
	os.mkfifo("fifo")
	a, b = socket.socketpair()
	if pipe_input:
	    feed = subprocess.Popen([os.environ["SYS_CAT"], src],
	        stdout=subprocess.PIPE)
	    stdin = feed.stdout
	else:
	    stdin = open(src, "rb")
	files = sys.argv[3:]
	tee = subprocess.Popen(["tee"] + files + ["fifo"], stdin=stdin, stdout=b)
	b.close()
	fifo = os.open("fifo", os.O_RDONLY)
	def take(read, n):
	    out = bytearray()
	    while len(out) < n:
	        x = read(n - len(out))
	        if not x:
	            break
	        out += x
	    return out
	got = [bytearray(), bytearray()]
	while True:
	    x = take(a.recv, 4096)
	    y = take(lambda n: os.read(fifo, n), 4096)
	    got[0] += x
	    got[1] += y
	    if not x and not y:
	        break
	tee.wait()
	sys.exit(0 if got[0] == data and got[1] == data and
	    all(open(f, "rb").read() == data for f in files) and
	    tee.returncode == 0 else 1)
	EOF
	timeout 60 "$(python3_path)" -I -S lockstep.py "$TRASH/big" file &&
	rm -f fifo &&
	timeout 60 "$(python3_path)" -I -S lockstep.py "$TRASH/big" pipe &&
	rm -f fifo &&
	# Files too, before the fifo: they copy on threads of their own,
	# and tee must not wait for one while the reader waits on the fifo.
	timeout 60 "$(python3_path)" -I -S lockstep.py "$TRASH/big" pipe f1 f2
'

# Standard output the input file itself, read and written at two
# offsets: what tee reads must not be what it has just written there.
test_expect_success GNU 'an output that is the input file: as GNU' '
	head -c 4096 "$TRASH/big" >expect.head &&
	for t in gnu:$GNU_TEE sut:tee; do
		cp "$TRASH/big" F &&
		sh -c "{ head -c 4096 >/dev/null; ${t#*:} o.${t%%:*}; } <F 1<>F" &&
		mv F F.${t%%:*} || exit 1
	done &&
	test_cmp o.gnu o.sut &&
	test_cmp F.gnu F.sut
'

# `tee /dev/stdout >>g`: stdout appends to g, /dev/stdout writes g at its
# own offset.  Served chunk by chunk in the outputs' order, both write
# the same bytes at the same places and g ends up the input.
test_expect_success 'one file through two outputs, file input: identical' '
	: >g &&
	tee /dev/stdout <"$TRASH/in" >>g &&
	test_cmp "$TRASH/in" g
'

test_expect_success 'one file through two outputs, pipe input: identical' '
	: >g &&
	$SYS_CAT "$TRASH/in" | tee /dev/stdout >>g &&
	test_cmp "$TRASH/in" g
'

test_expect_success 'one file through three outputs: identical' '
	: >g &&
	tee /dev/stdout x /dev/stdout <"$TRASH/in" >>g &&
	test_cmp "$TRASH/in" g &&
	test_cmp "$TRASH/in" x
'

# The input offset of a regular file is shared with whoever runs next:
# tee must take from it only what it is about to deliver.  When the
# reader of stdout leaves, what tee took and no output got is lost to
# the next reader of the file; GNU loses one 8 KiB read.
test_expect_success 'shared input offset: tee takes little more than it delivers' '
	{ tee f | head -c 1000 >/dev/null; $SYS_CAT >rest; } <"$TRASH/in" &&
	lost=$((5000000 - $(test_file_size f) - $(test_file_size rest))) &&
	echo "lost $lost bytes" &&
	test $lost -ge 0 &&
	test $lost -le 131072 &&
	head -c $(test_file_size f) "$TRASH/in" | cmp - f &&
	tail -c $(test_file_size rest) "$TRASH/in" | cmp - rest
'

# An invalid --output-error argument is quoted as GNU quote() does: C
# escapes, a backslash doubled, the quote escaped, octal for a byte that
# is no character.
$SYS_CAT >"$TRASH/quoted" <<\EOF
tee: invalid argument 'a\nb' for '--output-error'
tee: invalid argument 'a\\b' for '--output-error'
tee: invalid argument 'a\'b' for '--output-error'
tee: invalid argument '\303' for '--output-error'
tee: invalid argument 'a\tb\177' for '--output-error'
EOF
i=0
for fmt in 'a\nb' 'a\\\\b' "a'b" '\303' 'a\tb\177'; do
	i=$((i + 1))
	test_expect_success "invalid --output-error argument $i: quoted as GNU" '
		arg=$(printf "'"$fmt"'") &&
		test_expect_code 1 tee --output-error="$arg" </dev/null 2>err &&
		head -n 1 err >actual &&
		sed -n '$i'p "$TRASH/quoted" >expect &&
		test_cmp expect actual
	'
done

test_done
