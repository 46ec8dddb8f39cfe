"""Run one scenario with one program in a fresh directory; collect what
it left: its status (or death signal), its stderr, what every reader got
(stdout, a FIFO operand) and every regular file of its directory.

One process, no threads: the feeder of stdin and the readers of the
outputs (ends.py) are served by one poll loop, so fork() is safe.  Every run ends
by its deadline: a program still running then is killed and its result
is a hang.

A scenario's tmpfs of a given size is mounted where the test has a mount
namespace of its own (private_mounts); elsewhere it is a plain directory.

A scenario of the sandbox family runs its program under a refusal of
zero-copy calls (scenario.refusal): t/sandbox.c's seccomp filter, which
execs it (-x), or t/inject/ preloaded; both built in TOOLS.
"""

import ctypes
import fcntl
import os
import resource
import select
import signal
import socket
import time

import data
import ends
import scenario

PIPE_DEFAULT = 65536
MOUNTS = False		# whether materialise mounts the tmpfs of a scenario
TOOLS = 'build/t'	# where t/sandbox.c and t/inject/ are built


class Result:
	def __init__(self):
		self.status = None	# ('exit', N), ('signal', N) or ('hang',)
		self.stderr = b''
		self.streams = {}	# reader name -> bytes it got
		self.files = {}		# path in the directory -> bytes
		self.stdin_pipe_size = None
		self.threads = 1	# the most threads the program was seen to run
		self.seconds = 0.0	# how long it ran

	def __repr__(self):
		return 'status=%s stderr=%r' % (self.status, self.stderr[:400])


def materialise(s, d):
	"""Make the files of scenario S in the empty directory D."""
	for name, kind, spec in s['files']:
		p = os.path.join(d, name)
		if kind == 'dir':
			os.mkdir(p)
		elif kind == 'fifo':
			os.mkfifo(p)
		elif kind == 'tmpfs':
			os.mkdir(p)
			if MOUNTS:
				_mount(p, spec['size'])
		else:
			_write(p, data.make(spec) if spec else b'')
	i = s['stdin']
	if i['kind'] == 'file':
		_write(os.path.join(d, 'stdin'), b'#' * i['offset'] + data.make(i['data']))
	elif i['kind'] == 'empty':
		_write(os.path.join(d, 'stdin'), b'')
	o = s['stdout']
	if o['kind'] == 'file':
		_write(os.path.join(d, 'out'), b'')
	elif o['kind'] == 'append':
		_write(os.path.join(d, 'out'), data.make(o['prefill']))


def sandbox_missing():
	"""Why the sandbox family cannot run here (the tools not built, no
	seccomp filter installs: an emulator, a kernel without it), or None."""
	sandbox = os.path.join(TOOLS, 'sandbox')
	if not os.access(sandbox, os.X_OK) or not os.path.isfile(
			os.path.join(TOOLS, 'inject.so')):
		return '%s has no sandbox and inject.so (make check builds them)' % TOOLS
	probe = ','.join('%s:EPERM' % c for c in scenario.SANDBOX_CALLS)
	pid = os.fork()
	if pid == 0:
		try:
			fd = os.open(os.devnull, os.O_RDWR)
			for i in (0, 1, 2):
				os.dup2(fd, i)
			os.execv(sandbox, ['sandbox', '-t', probe])
		finally:
			os._exit(127)
	if os.waitpid(pid, 0)[1] != 0:
		return 'no seccomp filter installs here (sandbox -t)'
	return None


def private_mounts():
	"""Move this process to a mount namespace of its own, whose mounts
	nobody else sees, and make MOUNTS true; return whether that worked
	(it needs root)."""
	global MOUNTS
	libc = ctypes.CDLL(None, use_errno=True)
	CLONE_NEWNS, MS_REC, MS_PRIVATE = 0x20000, 0x4000, 0x40000
	if os.geteuid() != 0 or libc.unshare(CLONE_NEWNS) != 0:
		return False
	# Mounts made from now on must not propagate back to the parent
	# namespace, whatever the system's default propagation is.
	if libc.mount(b'none', b'/', None, MS_REC | MS_PRIVATE, None) != 0:
		return False
	MOUNTS = True
	return True


def _mount(path, size):
	"""A tmpfs of SIZE bytes on PATH."""
	libc = ctypes.CDLL(None, use_errno=True)
	if libc.mount(b'tmpfs', os.fsencode(path), b'tmpfs', 0, b'size=%d' % size) != 0:
		e = ctypes.get_errno()
		raise OSError(e, 'mount tmpfs: ' + os.strerror(e), path)


def unmount(s, d):
	"""Undo materialise's mounts of scenario S in directory D."""
	if not MOUNTS:
		return
	libc = ctypes.CDLL(None, use_errno=True)
	for name, kind, _ in s['files']:
		if kind == 'tmpfs':
			libc.umount2(os.fsencode(os.path.join(d, name)), 2)	# MNT_DETACH


def _write(path, b):
	with open(path, 'wb') as f:
		f.write(b)


def _sockpair(kind):
	"""A connected unix socket pair of KIND, as two descriptors."""
	t = {'socket': socket.SOCK_STREAM, 'stream': socket.SOCK_STREAM,
		'seqpacket': socket.SOCK_SEQPACKET, 'dgram': socket.SOCK_DGRAM}[kind]
	a, b = socket.socketpair(socket.AF_UNIX, t)
	return a.detach(), b.detach()


def _pipe(small):
	"""A pipe; shrunk to 4 KiB (the kernel's least, one page) if SMALL."""
	r, w = os.pipe()
	if small:
		fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
	return r, w


def _setup_stdin(s, d, child, parent):
	"""Open the child's stdin of S (in directory D) as CHILD[0]; a fed
	kind gets its feeder in PARENT['feeder']."""
	i = s['stdin']
	k = i['kind']
	if k == 'pipe':
		r, w = _pipe(i.get('small'))
		child[0] = r
		parent['feeder'] = ends.Feeder(w, i)
	elif k == 'fifo':
		p = os.path.join(d, 'stdin.fifo')
		os.mkfifo(p)
		r = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
		w = os.open(p, os.O_WRONLY)
		os.set_blocking(r, True)
		os.unlink(p)
		child[0] = r
		parent['feeder'] = ends.Feeder(w, i)
	elif k == 'socket':
		a, b = _sockpair(k)
		child[0] = a
		parent['feeder'] = ends.Feeder(b, i, socket.socket(fileno=os.dup(b)))
	elif k in ('file', 'empty'):
		fd = os.open(os.path.join(d, 'stdin'), os.O_RDONLY)
		os.lseek(fd, i.get('offset', 0), os.SEEK_SET)
		child[0] = fd
	elif k == 'null':
		child[0] = os.open('/dev/null', os.O_RDONLY)


def _setup_stdout(s, d, child, readers):
	"""Open the child's stdout of S (in directory D) as CHILD[1]; a kind
	with a reader adds it to READERS."""
	o = s['stdout']
	k = o['kind']
	if k == 'pipe':
		r, w = _pipe(o.get('small'))
		child[1] = w
		readers.append(ends.Reader('stdout', r, o))
	elif k == 'broken':
		r, w = os.pipe()
		os.close(r)
		child[1] = w
	elif k in ('stream', 'seqpacket', 'dgram'):
		a, b = _sockpair(k)
		child[1] = a
		readers.append(ends.Reader('stdout', b, o, record=k != 'stream'))
	elif k == 'file':
		child[1] = os.open(os.path.join(d, 'out'), os.O_WRONLY)
	elif k == 'append':
		child[1] = os.open(os.path.join(d, 'out'), os.O_WRONLY | os.O_APPEND)
	elif k in ('null', 'full'):
		child[1] = os.open('/dev/' + k, os.O_WRONLY)
	if o.get('nonblock') and child[1] is not None:
		os.set_blocking(child[1], False)


def run(s, prog, d, timeout):
	"""Run scenario S with the program at path PROG in directory D (made
	by materialise); return its Result.  Ends within TIMEOUT seconds."""
	child = {0: None, 1: None, 2: None}
	parent = {'feeder': None}
	readers = []
	_setup_stdin(s, d, child, parent)
	_setup_stdout(s, d, child, readers)
	if s['stderr'] == 'pipe':
		r, w = os.pipe()
		child[2] = w
		readers.append(ends.Reader('stderr', r, {}))
	for name, kind, spec in s['files']:
		if kind == 'fifo':
			fd = os.open(os.path.join(d, name), os.O_RDONLY | os.O_NONBLOCK)
			readers.append(ends.Reader(name, fd, spec or {}))
	pid = os.fork()
	if pid == 0:
		_child(s, prog, d, child)
	for fd in child.values():
		if fd is not None:
			os.close(fd)
	res = Result()
	start = time.monotonic()
	res.status, res.threads = _loop(pid, parent['feeder'], readers, start + timeout)
	res.seconds = time.monotonic() - start
	for r in readers:
		r.finish()
		if r.name == 'stderr':
			res.stderr = bytes(r.got)
		else:
			res.streams[r.name] = bytes(r.got)
	f = parent['feeder']
	if f is not None:
		f.close()
		res.stdin_pipe_size = f.pipe_size
	res.files = _files(d)
	return res


def _child(s, prog, d, child):
	"""In the child: descriptors, signals, limits, then exec PROG."""
	try:
		os.chdir(d)
		for fd in (0, 1, 2):
			if child[fd] is not None:
				os.dup2(child[fd], fd)
		for fd in (0, 1, 2):
			if child[fd] is None:
				try:
					os.close(fd)
				except OSError:
					pass
		os.closerange(3, 4096)
		for sig, how in ((signal.SIGPIPE, s['sigpipe']), (signal.SIGXFSZ, s['sigxfsz'])):
			signal.signal(sig, signal.SIG_DFL if how == 'default' else signal.SIG_IGN)
		signal.signal(signal.SIGINT, signal.SIG_DFL)
		if s['fsize'] is not None:
			resource.setrlimit(resource.RLIMIT_FSIZE, (s['fsize'], s['fsize']))
		refuse = scenario.refusal(s)
		if refuse and s['refuse']['how'] == 'seccomp':
			# The name it runs by is PROG: run.py's normalise takes it.
			os.execv(os.path.join(TOOLS, 'sandbox'),
				['sandbox', '-x', refuse, '--', prog] + s['args'])
		if refuse:
			os.environ['LD_PRELOAD'] = os.path.join(TOOLS, 'inject.so')
			os.environ['SPATE_INJECT'] = refuse
		os.execv(prog, [s['cmd']] + s['args'])
	finally:
		os._exit(127)


def _loop(pid, feeder, readers, deadline):
	"""Serve FEEDER and READERS until PID ends; return its status and
	the most threads it was seen to run.  A
	watchdog process kills PID at DEADLINE: this loop's own read(2) may
	block in spite of O_NONBLOCK, and no signal ends it (a pipe's lock
	held by a splice(2) that waits for its input), only the end of PID."""
	dog = os.fork()
	if dog == 0:
		os.closerange(0, 4096)
		time.sleep(max(0, deadline - time.monotonic()))
		try:
			os.kill(pid, signal.SIGKILL)
		finally:
			os._exit(0)
	try:
		threads = _serve(pid, feeder, readers)
	finally:
		os.kill(dog, signal.SIGKILL)
		os.waitpid(dog, 0)
	# Reaped only now: the watchdog cannot hit a reused pid.
	status = _status(os.waitpid(pid, 0)[1])
	if status == ('signal', signal.SIGKILL) and time.monotonic() >= deadline:
		return ('hang',), threads
	return status, threads


def _serve(pid, feeder, readers):
	"""Serve FEEDER and READERS until PID has ended (not reaped); return
	the most threads PID was seen to run (counted every 20 ms).  One that
	pauses is not polled: it would spin the loop until its time comes."""
	active = [x for x in [feeder] + readers if x is not None]
	threads, counted = 1, 0.0
	while True:
		if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
			return threads
		now = time.monotonic()
		if now - counted > 0.02:
			counted = now
			try:
				threads = max(threads, len(os.listdir('/proc/%d/task' % pid)))
			except OSError:
				pass
		serve_turn(active, feeder, 5)


def serve_turn(active, feeder, wait):
	"""One turn of serving ACTIVE, the feeder FEEDER and readers: wait at
	most WAIT ms for an end to be ready, or for the time one that pauses
	wakes, then step each one whose time came; those done leave ACTIVE."""
	now = time.monotonic()
	p = select.poll()
	for x in active:
		if x.wake > now:
			wait = min(wait, 1000 * (x.wake - now))
		else:
			p.register(x.fd, select.POLLOUT if x is feeder else select.POLLIN)
	ready = {fd for fd, _ in p.poll(max(wait, 0))}
	now = time.monotonic()
	for x in list(active):
		if x.fd in ready or (now >= x.wake > 0):
			if not x.step(now):
				active.remove(x)


def _status(st):
	if os.WIFSIGNALED(st):
		return ('signal', os.WTERMSIG(st))
	return ('exit', os.WEXITSTATUS(st))


def _files(d):
	"""Every regular file under D, by relative path, with its bytes."""
	out = {}
	for root, dirs, names in os.walk(d):
		for n in names:
			p = os.path.join(root, n)
			if os.path.isfile(p) and not os.path.islink(p):
				with open(p, 'rb') as f:
					out[os.path.relpath(p, d)] = f.read()
	return out
