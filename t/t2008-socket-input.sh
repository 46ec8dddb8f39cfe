#!/bin/sh
# An input that makes splice(2) wait (a socket) into a pipe: the kernel
# holds the output pipe's lock while splice(2) waits for its input, so a
# reader of the pipe that is also the input's writer would wait on the
# lock, even with O_NONBLOCK, and never send what would free it.  GNU 9.1
# copies; every expectation holds for it too.
. "$(dirname "$0")/test-lib.sh"

# sockfeed.py CMD...: CMD reads a socket and writes a pipe; one poll(2)
# loop sends 8 MiB into the socket as it takes them and reads the pipe
# as it fills.  A read of the pipe that never returns ends when the
# watchdog kills CMD (a hang, not a measurement), and fails the case.
test_expect_success PYTHON3 'setup: the feeder' '
	$SYS_CAT >"$TRASH/sockfeed.py" <<-\EOF
	import os, select, socket, subprocess, sys, threading
	data = os.urandom(8 << 20)
	a, b = socket.socketpair()
	r, w = os.pipe()
	p = subprocess.Popen(sys.argv[1:], stdin=b, stdout=w)
	b.close()
	os.close(w)
	os.set_blocking(r, False)
	a.setblocking(False)
	hung = []
	def end():
	    hung.append(1)
	    p.kill()
	watchdog = threading.Timer(120, end)
	watchdog.start()
	sent, got, done = 0, bytearray(), False
	po = select.poll()
	po.register(r, select.POLLIN)
	po.register(a, select.POLLOUT)
	while not done:
	    for fd, ev in po.poll():
	        if fd == r:
	            try:
	                x = os.read(r, 1 << 20)
	            except BlockingIOError:
	                continue
	            done = not x
	            got += x
	        elif sent < len(data):
	            try:
	                sent += a.send(data[sent:sent + 65536])
	            except (BlockingIOError, BrokenPipeError):
	                continue
	            if sent == len(data):
	                po.unregister(a)
	                a.shutdown(socket.SHUT_WR)
	watchdog.cancel()
	p.wait()
	if hung:
	    sys.exit("the pipe reader waited until the program was killed")
	if p.returncode != 0:
	    sys.exit("status %d" % p.returncode)
	sys.exit(0 if got == data else "the output differs from the input")
	EOF
'

for cmd in cat 'cat -' tee 'tee -p' 'tee /dev/null' 'tee -a f'
do
	test_both_paths PYTHON3 "socket into a pipe read by its feeder: $cmd" "
		\"\$(python3_path)\" -I -S \"\$TRASH/sockfeed.py\" $cmd
	"
done

test_done
