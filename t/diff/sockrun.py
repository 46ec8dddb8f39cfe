#!/usr/bin/env python3
"""Run a command with unix sockets for stdin or stdout, for a reproducer.

	sockrun.py [--stdin FILE | --feed FILE] [--stdout KIND:SIZE:K:GOT] -- CMD [ARG...]

--stdin FILE: stdin is a stream socket that carries FILE, then is shut
down for writing.  --stdout: stdout is a socket of KIND (stream,
seqpacket, dgram) read SIZE bytes a call, closed after K bytes (0: read
to the end), what was read written to the file GOT.  --feed FILE (with
--stdout, whose KIND may then be pipe too): stdin is a pipe that
carries FILE, written (up to 1 MiB a call) by the one loop that also
drains stdout, as an event loop would.  Exits with the command's
status, or 128 + the signal that killed it.
"""

import os
import select
import signal
import socket
import sys
import threading

TYPES = {'stream': socket.SOCK_STREAM, 'seqpacket': socket.SOCK_SEQPACKET,
	'dgram': socket.SOCK_DGRAM}


def main(argv):
	cut = argv.index('--')
	opts, cmd = dict(zip(argv[1:cut:2], argv[2:cut:2])), argv[cut + 1:]
	keep = {}
	if '--stdin' in opts:
		a, b = socket.socketpair()
		keep[0], feed = a, b
	if '--feed' in opts:
		r, w = os.pipe()
		keep[0], feed = r, w
	if '--stdout' in opts:
		kind, size, k, got = opts['--stdout'].split(':')
		if kind == 'pipe' and '--feed' not in opts:
			sys.exit('sockrun.py: --stdout pipe:... needs --feed')
		if kind == 'pipe':
			keep[1], drain = os.pipe()[::-1]
		else:
			a, b = socket.socketpair(socket.AF_UNIX, TYPES[kind])
			keep[1], drain = a, b
	pid = os.fork()
	if pid == 0:
		for fd, s in keep.items():
			os.dup2(s if isinstance(s, int) else s.fileno(), fd)
		# python ignores SIGPIPE and SIGXFSZ: give the command the
		# defaults (the reproducer's env sets what the scenario wants).
		signal.signal(signal.SIGPIPE, signal.SIG_DFL)
		signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
		os.execvp(cmd[0], cmd)
	for s in keep.values():
		if isinstance(s, int):
			os.close(s)
		else:
			s.close()
	if '--stdin' in opts:
		threading.Thread(target=_feed, args=(feed, opts['--stdin']), daemon=True).start()
	if '--feed' in opts:
		_loop(feed, opts['--feed'], drain, int(size), int(k), got)
	elif '--stdout' in opts:
		_drain(drain, kind, int(size), int(k), got, pid)
	st = os.waitpid(pid, 0)[1]
	return 128 + os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)


def _feed(sock, path):
	try:
		with open(path, 'rb') as f:
			sock.sendall(f.read())
		sock.shutdown(socket.SHUT_WR)
	except OSError:
		pass


def _loop(feed, path, drain, size, k, got_path):
	"""Write the file PATH into the pipe FEED and read SIZE bytes a call
	from DRAIN (a descriptor or a socket), in one poll loop, until DRAIN
	ends or K bytes were read; write what was read to GOT_PATH."""
	with open(path, 'rb') as f:
		data = memoryview(f.read())
	fd = drain if isinstance(drain, int) else drain.detach()
	os.set_blocking(feed, False)
	got, pos = bytearray(), 0
	while fd is not None:
		p = select.poll()
		p.register(fd, select.POLLIN)
		if feed is not None:
			p.register(feed, select.POLLOUT)
		for ready, _ in p.poll():
			if ready == feed:
				try:
					pos += os.write(feed, data[pos:pos + (1 << 20)])
				except BlockingIOError:
					pass
				except BrokenPipeError:
					pos = len(data)
				if pos == len(data):
					os.close(feed)
					feed = None
			elif ready == fd:
				b = os.read(fd, size if not k else min(size, k - len(got)))
				got += b
				if not b or (k and len(got) >= k):
					os.close(fd)
					fd = None
					break
	if feed is not None:
		os.close(feed)
	with open(got_path, 'wb') as f:
		f.write(got)


def _drain(sock, kind, size, k, path, pid):
	got = bytearray()
	sock.settimeout(0.1)
	while not k or len(got) < k:
		try:
			b = sock.recv(size)
		except socket.timeout:
			# A datagram socket never says end: the command's end does.
			if kind == 'dgram' and os.waitid(os.P_PID, pid,
					os.WEXITED | os.WNOHANG | os.WNOWAIT):
				break
			continue
		except ConnectionResetError:
			continue
		if not b and kind != 'dgram':
			break
		got += b
	sock.close()
	with open(path, 'wb') as f:
		f.write(got)


if __name__ == '__main__':
	sys.exit(main(sys.argv))
