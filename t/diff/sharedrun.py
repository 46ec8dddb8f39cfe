"""Run a scenario of the shared family (shared.py): the command, the
other writers of its pipes and the other reader of its input, each a
process; one poll loop feeds the input and drains every pipe, sorting
each read's bytes by writer class as they come (_Sink, _Check), so that
hundreds of MiB are judged without being kept.
"""

import os
import random
import re
import signal
import time

import ends
import execute
import shared

ME, MIB = shared.ME, shared.MIB

CLASS_OF = bytes(48 + (x >> 6) for x in range(256))	# b'0' to b'3'
RUNS = re.compile(rb'0+|1+|2+|3+')


class _Check:
	"""What one writer's bytes in one pipe must be: WANT exactly, or a
	prefix of LINE over and over, or anything (kept); RECORD: the size
	its stream is written in, each write atomic."""
	def __init__(self, want=None, line=None, record=0):
		self.want, self.line, self.record = want, line, record
		if line is not None:
			# Any piece (a read: at most 1 MiB) at any phase.
			self.rep = line * (MIB // len(line) + 2)
		self.kept = bytearray() if want is None and line is None else None
		self.count = 0
		self.bad = None		# the offset of its first wrong byte
		self.split = None	# the offset where a record was split

	def take(self, piece):
		"""PIECE (a memoryview) is the writer's next bytes."""
		if self.bad is None:
			if self.line is not None:
				ok = self.rep.startswith(piece, self.count % len(self.line))
			elif self.want is not None:
				ok = self.want.startswith(piece, self.count)
			else:
				ok = True
			if not ok:
				self.bad = self.count + self._differs(piece)
		if self.kept is not None:
			self.kept += piece
		self.count += len(piece)

	def _differs(self, piece):
		"""Where PIECE first differs from what was wanted: bisected."""
		lo, hi = 0, len(piece)
		while lo < hi:
			mid = (lo + hi + 1) // 2
			if self.line is not None:
				ok = self.rep.startswith(piece[:mid], self.count % len(self.line))
			else:
				ok = self.want.startswith(piece[:mid], self.count)
			lo, hi = (mid, hi) if ok else (lo, mid - 1)
		return lo

	def cut(self):
		"""Another writer's bytes come next to these: a record's end or
		start, unless one was split."""
		if self.record and self.count % self.record and self.split is None and (
				self.count < len(self.want)):
			self.split = self.count

	def done(self):
		"""The summary a Result keeps."""
		return {'count': self.count, 'bad': self.bad, 'split': self.split,
			'kept': bytes(self.kept) if self.kept is not None else None,
			'size': len(self.want) if self.want is not None else None}


class _Sink:
	"""This loop's end of a pipe that several write: reads as PLAN says,
	gives each run of bytes to the _Check of its class (CHECKS); bytes
	of a class nobody writes are counted as stray."""
	def __init__(self, name, fd, plan, checks):
		self.name, self.fd, self.checks = name, fd, checks
		self.read = plan.get('read', MIB)
		self.every, self.ms = plan.get('every', 0), plan.get('ms', 0)
		self.rng = _rng('drain', plan.get('drain_seed', 0))
		self.next_pause = self._gap()
		self.got = 0
		self.stray = 0
		self.last = None	# the class of the last byte read
		self.wake = 0.0
		self.buf = bytearray(MIB)
		os.set_blocking(fd, False)

	def _gap(self):
		return self.rng.randint(self.every // 2, self.every * 3 // 2) if self.every else -1

	def step(self, now):
		if now < self.wake:
			return True
		if self.next_pause >= 0 and self.got >= self.next_pause:
			self.next_pause = self.got + self._gap()
			self.wake = now + 0.001 * self.ms
			return True
		return self._read(self.read)

	def _read(self, n):
		try:
			k = os.readv(self.fd, [memoryview(self.buf)[:n]])
		except BlockingIOError:
			return True
		if k == 0:
			return self.close()
		self.got += k
		self._sort(memoryview(self.buf)[:k])
		return True

	def _sort(self, chunk):
		classes = bytes(chunk).translate(CLASS_OF)
		for m in RUNS.finditer(classes):
			c = classes[m.start()] - 48
			if c != self.last and self.last is not None:
				for x in (self.last, c):
					if x in self.checks:
						self.checks[x].cut()
			self.last = c
			if c in self.checks:
				self.checks[c].take(chunk[m.start():m.end()])
			else:
				self.stray += m.end() - m.start()

	def finish(self):
		"""The writers are gone: take what is left (a pipe still open
		somewhere is left as it is)."""
		while self.fd is not None:
			try:
				k = os.readv(self.fd, [self.buf])
			except BlockingIOError:
				break
			if k == 0:
				break
			self.got += k
			self._sort(memoryview(self.buf)[:k])
		self.close()

	def close(self):
		if self.fd is not None:
			os.close(self.fd)
			self.fd = None
		return False

	def done(self):
		return {'stray': self.stray, 'got': self.got,
			'checks': {c: x.done() for c, x in self.checks.items()}}


def _rng(what, seed):
	return random.Random('%s:%s' % (what, seed))


class _Proc:
	"""One process of a run: the command, a writer or a reader."""
	def __init__(self, name, prog, argv, fds, finite=True):
		self.name, self.prog, self.argv, self.fds = name, prog, argv, fds
		self.finite = finite
		self.pid = None
		self.ended = False
		self.status = None
		self.err = None		# the reader of its stderr


def run(s, prog, ref, d, timeout):
	"""Run scenario S with the program at PROG (GNU's programs in REF) in
	directory D (made by execute.materialise); return its Result, with
	.sinks (what each pipe's reader saw, by writer class) and .procs
	(the status and stderr of every other process).  Ends within
	TIMEOUT seconds."""
	bindir = os.path.dirname(prog)
	want = shared.expected(s)
	child = {0: None, 1: None, 2: None}
	parent = {'feeder': None}
	me = _Proc('command', prog, [s['cmd']] + s['args'], child)
	sinks, procs, close_after, holders = [], [me], [], []
	i = s['stdin']
	if i['kind'] == 'shared':
		r, w = os.pipe()
		child[0] = r
		parent['feeder'] = ends.Feeder(w, i)
		sinks.append(_other_reader(s, r, bindir, ref, procs, close_after))
	else:
		execute._setup_stdin(s, d, child, parent)
	close_after += [fd for fd in (child[0],) if fd is not None]
	for name, plan in shared.pipes(s):
		if name == 'stdout':
			r, w = execute._pipe(plan.get('small'))
			child[1] = w
			close_after.append(w)
		else:
			path = os.path.join(d, name)
			r = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
			# Held until the command and the finite writers are done:
			# its reader sees no end before the command opened it.
			w = os.open(path, os.O_WRONLY)
			holders.append(w)
		checks = {ME: _Check(want)}
		for x in plan['writers']:
			checks[x['class']] = _writer_check(s, x)
			path, argv = shared.argv(s, x, bindir, ref)
			if x['kind'] != 'peer':
				stdin = os.open('/dev/null', os.O_RDONLY)
			elif x.get('via') == 'pipe':
				# Fed as in `cat FILE | tee`: GNU cat writes its pipe.
				stdin, pw = os.pipe()
				close_after.append(pw)
				procs.append(_Proc(x['name'] + '.feed', os.path.join(ref, 'cat'),
					['cat', x['name']], {0: None, 1: pw, 2: None}))
			else:
				stdin = os.open(os.path.join(d, x['name']), os.O_RDONLY)
			close_after.append(stdin)
			procs.append(_Proc(x['name'], path, argv, {0: stdin, 1: w, 2: None},
				finite=x['kind'] != 'yes'))
		sinks.append(_Sink(name, r, plan, checks))
	readers = []
	for p in procs:
		r, w = os.pipe()
		p.fds[2] = w
		p.err = ends.Reader('stderr', r, {})
		readers.append(p.err)
	start = time.monotonic()
	for p in procs:
		p.pid = os.fork()
		if p.pid == 0:
			execute._child({'sigpipe': 'default', 'sigxfsz': 'default', 'fsize': None,
				'cmd': p.argv[0], 'args': p.argv[1:]}, p.prog, d, p.fds)
	for fd in set(close_after) | {p.fds[2] for p in procs}:
		os.close(fd)
	res = execute.Result()
	res.threads = _loop(procs, parent['feeder'], sinks + readers, holders,
		start + timeout)
	res.seconds = time.monotonic() - start
	for x in sinks + readers:
		x.finish()
	if parent['feeder'] is not None:
		parent['feeder'].close()
	res.status, res.stderr = me.status, bytes(me.err.got)
	res.procs = {p.name: (p.status, bytes(p.err.got)) for p in procs[1:]}
	res.sinks = {x.name: x.done() for x in sinks}
	res.files = {a: _read(os.path.join(d, a)) for a in s['args'] if a.startswith('new')}
	return res


def _read(path):
	try:
		with open(path, 'rb') as f:
			return f.read()
	except OSError:
		return None


def _writer_check(s, w):
	if w['kind'] == 'yes':
		return _Check(line=shared.yes_line(w))
	return _Check(shared.file_data(s, w['name']), record=w.get('bs', 0))


def _other_reader(s, r, bindir, ref, procs, close_after):
	"""The other reader of the input pipe R: this loop, on a file
	description of its own (O_NONBLOCK on the command's would reach the
	command), or a process into a pipe of its own; its sink."""
	o = s['stdin']['reader']
	if o['kind'] == 'loop':
		fd = os.open('/proc/self/fd/%d' % r, os.O_RDONLY | os.O_NONBLOCK)
		return _Sink('other', fd, o, {ME: _Check()})
	pr, pw = os.pipe()
	close_after.append(pw)
	if o['kind'] == 'peer':
		prog, argv = os.path.join(bindir, s['cmd']), [s['cmd']] + o['args']
	else:
		prog, argv = os.path.join(ref, 'cat'), ['cat']
	procs.append(_Proc('other', prog, argv, {0: r, 1: pw, 2: None}))
	return _Sink('other', pr, {'read': MIB}, {ME: _Check()})


def _loop(procs, feeder, readers, holders, deadline):
	"""Serve FEEDER and READERS until every process of PROCS has ended
	and every reader is done; once the finite ones have ended, stop the
	others (yes) and close HOLDERS.  A watchdog kills them all at
	DEADLINE (a read here can block in spite of O_NONBLOCK, as
	execute._loop says).  Set each process's status; return the most
	threads the command was seen to run."""
	dog = os.fork()
	if dog == 0:
		os.closerange(0, 4096)
		time.sleep(max(0, deadline - time.monotonic()))
		for p in procs:
			try:
				os.kill(p.pid, signal.SIGKILL)
			except OSError:
				pass
		os._exit(0)
	threads, counted, stopped = 1, 0.0, False
	active = [x for x in [feeder] + readers if x is not None]
	try:
		while True:
			for p in procs:
				if not p.ended and os.waitid(os.P_PID, p.pid,
						os.WEXITED | os.WNOHANG | os.WNOWAIT):
					p.ended = True
			if not stopped and all(p.ended for p in procs if p.finite):
				stopped = True
				for p in procs:
					if not p.finite and not p.ended:
						os.kill(p.pid, signal.SIGTERM)
				for fd in holders:
					os.close(fd)
			if stopped and all(p.ended for p in procs) and not [
					x for x in active if x is not feeder]:
				break
			now = time.monotonic()
			if now - counted > 0.02 and not procs[0].ended:
				counted = now
				try:
					threads = max(threads, len(os.listdir('/proc/%d/task' % procs[0].pid)))
				except OSError:
					pass
			execute.serve_turn(active, feeder, 20)
	finally:
		os.kill(dog, signal.SIGKILL)
		os.waitpid(dog, 0)
	for p in procs:
		p.status = execute._status(os.waitpid(p.pid, 0)[1])
		if p.status == ('signal', signal.SIGKILL) and time.monotonic() >= deadline:
			p.status = ('hang',)
	return threads
