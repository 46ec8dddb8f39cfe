#!/bin/sh
# cat against a packet-mode input pipe (pipe2 O_DIRECT) whose writer
# first splices a plain stream and then writes packets: the buffers
# splice(2) adds carry no packet flag, so reads of them are not cut at a
# packet and may pass ZC_AFTER, and the read end shows no O_DIRECT.  The
# packets that follow must not reach the output pipe as packets, where a
# reader of small pieces loses the rest of each.  GNU 9.1 cat copies.
. "$(dirname "$0")/test-lib.sh"

test_expect_success PYTHON3 'packet-mode input, spliced stream then packets: small reads get all' '
	cat >mixed.py <<-\EOF &&
	import os, subprocess, sys, threading, time
	r, w = os.pipe2(os.O_DIRECT)
	outr, outw = os.pipe()
	prog = subprocess.Popen(sys.argv[1:], stdin=r, stdout=outw)
	os.close(r)
	os.close(outw)
	head = bytes((i * 13 + i // 253) % 256 for i in range(200000))
	tail = bytes((i * 7 + i // 251) % 256 for i in range(100000))
	open("head", "wb").write(head)
	def feed():
	    fd = os.open("head", os.O_RDONLY)
	    left = len(head)
	    while left > 0:
	        left -= os.splice(fd, w, left)
	    os.close(fd)
	    time.sleep(0.3)
	    for i in range(0, len(tail), 4096):
	        os.write(w, tail[i:i + 4096])
	    os.close(w)
	threading.Thread(target=feed).start()
	time.sleep(0.1)
	got = bytearray()
	while True:
	    b = os.read(outr, 100)
	    if not b:
	        break
	    got += b
	prog.wait()
	data = head + tail
	print("got %d of %d bytes" % (len(got), len(data)))
	sys.exit(0 if got == data and prog.returncode == 0 else 1)
	EOF
	timeout 60 "$(python3_path)" -I -S mixed.py cat &&
	timeout 60 "$(python3_path)" -I -S mixed.py cat -
'

test_done
