#!/bin/sh
# A pipe into an output whose writes wait on a peer (a stream socket):
# splice(2) from a pipe into a socket holds the pipe's lock while it
# waits for room in the socket, so a writer of that pipe that is also
# the socket's reader would sleep on the lock, even with O_NONBLOCK, and
# never drain what would free it.  The mirror of t2008.  GNU 9.1 copies;
# every expectation holds for it too.
. "$(dirname "$0")/test-lib.sh"

# sockdrain.py STDIN CMD...: one poll(2) loop writes 8 MiB into CMD's
# stdin, a pipe (STDIN pipe) or a FIFO (STDIN fifo), as it takes them,
# and reads CMD's stdout, a unix stream socket, 4 KiB a read, as it
# fills; CMD's end of the socket has the smallest send buffer, so that
# CMD waits for room in it often.  The first MiB goes in writes of 64 KiB, so that CMD's reads
# come full and it takes its zero-copy path; the rest in writes of
# 4 KiB, so that the pipe has room while CMD waits for the socket.  A write that never returns ends when the watchdog kills CMD (a
# hang, not a measurement), and fails the case.
test_expect_success PYTHON3 'setup: the feeder and drainer' '
	$SYS_CAT >"$TRASH/sockdrain.py" <<-\EOF
	import os, select, socket, subprocess, sys, threading
	data = os.urandom(8 << 20)
	a, b = socket.socketpair()
	b.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
	if sys.argv[1] == "fifo":
	    os.mkfifo("fifo")
	    p = subprocess.Popen(["sh", "-c", "exec \"$@\" <fifo", "sh"] +
	        sys.argv[2:], stdout=b)
	    w = os.open("fifo", os.O_WRONLY)
	else:
	    r, w = os.pipe()
	    p = subprocess.Popen(sys.argv[2:], stdin=r, stdout=b)
	    os.close(r)
	b.close()
	os.set_blocking(w, False)
	a.setblocking(False)
	hung = []
	def end():
	    hung.append(1)
	    p.kill()
	watchdog = threading.Timer(120, end)
	watchdog.start()
	sent, got, done = 0, bytearray(), False
	po = select.poll()
	po.register(a, select.POLLIN)
	po.register(w, select.POLLOUT)
	while not done:
	    for fd, ev in po.poll():
	        if fd == a.fileno():
	            try:
	                x = a.recv(4096)
	            except BlockingIOError:
	                continue
	            done = not x
	            got += x
	        elif sent < len(data):
	            try:
	                sent += os.write(w, data[sent:sent + (65536 if sent < 1 << 20 else 4096)])
	            except (BlockingIOError, BrokenPipeError):
	                continue
	            if sent == len(data):
	                po.unregister(w)
	                os.close(w)
	watchdog.cancel()
	p.wait()
	if hung:
	    sys.exit("the socket reader waited until the program was killed")
	if p.returncode != 0:
	    sys.exit("status %d" % p.returncode)
	sys.exit(0 if got == data else "the output differs from the input")
	EOF
'

for stdin in pipe fifo
do
	for cmd in cat 'cat -' 'cat -u' tee 'tee -p' 'tee /dev/null' 'tee -a f'
	do
		test_both_paths PYTHON3 "a $stdin into a socket drained by its feeder: $cmd" "
			\"\$(python3_path)\" -I -S \"\$TRASH/sockdrain.py\" $stdin $cmd
		"
	done
done

# quiet.py CMD...: CMD reads a pipe and writes a unix stream socket,
# which a thread here drains.  8 MiB go in fast, so that CMD's private
# pipe grows; then nothing until CMD holds no pipe of its own (its input
# pipe and our end are not close-on-exec: its own are; 30 s at most),
# then 1 MiB more.  Every byte must come out.
test_expect_success PYTHON3 'setup: the quiet feeder' '
	$SYS_CAT >"$TRASH/quiet.py" <<-\EOF
	import os, socket, subprocess, sys, threading, time
	data = os.urandom(9 << 20)
	a, b = socket.socketpair()
	r, w = os.pipe()
	p = subprocess.Popen(sys.argv[1:], stdin=r, stdout=b)
	os.close(r)
	b.close()
	got = bytearray()
	def drain():
	    while True:
	        x = a.recv(1 << 20)
	        if not x:
	            return
	        got.extend(x)
	t = threading.Thread(target=drain)
	t.start()
	def own_pipes():
	    n = 0
	    for fd in os.listdir("/proc/%d/fd" % p.pid):
	        try:
	            if not os.readlink("/proc/%d/fd/%s" % (p.pid, fd)).startswith("pipe:"):
	                continue
	            with open("/proc/%d/fdinfo/%s" % (p.pid, fd)) as i:
	                fl = [l for l in i if l.startswith("flags:")][0]
	        except OSError:
	            continue
	        n += (int(fl.split()[1], 8) & os.O_CLOEXEC) != 0
	    return n
	off = 0
	while off < 8 << 20:
	    off += os.write(w, data[off:8 << 20])
	for _ in range(300):
	    if own_pipes() == 0:
	        break
	    time.sleep(0.1)
	else:
	    p.kill()
	    sys.exit("the program held its pipe while its input was quiet")
	while off < len(data):
	    off += os.write(w, data[off:])
	os.close(w)
	t.join()
	p.wait()
	sys.exit(0 if got == data and p.returncode == 0 else "not every byte")
	EOF
'

for cmd in cat tee
do
	test_expect_success PYTHON3 "a quiet pipe into a socket: $cmd gives its pipe back" "
		\"\$(python3_path)\" -I -S \"\$TRASH/quiet.py\" $cmd
	"
done

test_done
