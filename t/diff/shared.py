"""The shared family: pipes that other processes also write or read.

The command's standard output (and, for tee, FIFO operands) is a pipe
that 1-3 other writers write at the same time: another copy of the
program under test (a peer: GNU's in GNU's run, the one under test in
the other), GNU cat, GNU yes, GNU dd writing records of at most PIPE_BUF
bytes; and its standard input may be a pipe that another reader reads
too (this test's loop, GNU cat, a peer).  Tens to hundreds of MiB, so
that zero-copy engages, and readers that drain fast, slowly or in
bursts: the pipes fill, and the writers race for each page of room.

What GNU guarantees there is not an order across writers, so that is
not what is judged.  Every writer writes bytes of a class of its own
(data.in_class: the top two bits of each byte; the command's are class
1), so that the reader of a pipe tells each writer's bytes apart:
- each finite writer's bytes all there, in its order, nothing else
  (the command's: its input, or for a shared input what it took);
  yes's a prefix of its lines (it is stopped once the others are done);
- no record of dd split by another writer's bytes (writes of at most
  PIPE_BUF bytes are atomic);
- a shared input: every output of the command got the same bytes, and
  those and the other reader's, taken in pieces, make up the input;
- the status and messages of every process as in GNU's run.
"""

import os
import random
import re
import select
import shlex
import signal
import time

import data
import execute

KIB, MIB = 1 << 10, 1 << 20
PIPE_BUF = 4096
ME = 1			# the class of the command's bytes
# A yes line: printable bytes of class 0 (its newline is too), no '-'
# (never an option).
YES_CHARS = '0123456789 !#%&()*+,./:;<=>?'
CLASS_OF = bytes(48 + (x >> 6) for x in range(256))	# b'0' to b'3'
RUNS = re.compile(rb'0+|1+|2+|3+')
# Byte ranges of the classes, as tr(1) takes them.
TR = ['\\000-\\077', '\\100-\\177', '\\200-\\277', '\\300-\\377']


# -- drawing ---------------------------------------------------------

def draw(rng, s):
	"""Fill scenario S (seed, index, family set) from RNG."""
	s['sigpipe'] = s['sigxfsz'] = 'default'
	if rng.random() < RACE:
		return _race(rng, s)
	s['cmd'] = rng.choice(['tee', 'tee', 'cat'])
	kind = rng.choice(['pipe', 'pipe', 'fifo', 'file', 'shared'])
	size = _size(rng, kind == 'shared')
	s['stdin'] = _stdin(rng, s, kind, size)
	# Standard output is shared but now and then, when a FIFO is.
	n = [0]
	shared_out = s['cmd'] == 'cat' or rng.random() < 0.85
	s['stdout'] = dict(_plan(rng, size), kind='pipe', nonblock=False,
		writers=_writers(rng, s, size, n) if shared_out else [])
	if s['cmd'] == 'cat':
		s['args'] = rng.choice([[], ['-']] + [['in0', '-']] * (kind != 'shared'))
		if s['args'] and s['args'][0] == 'in0':
			s['files'].append(['in0', 'data', _spec(rng, rng.randint(0, MIB), ME)])
		return s
	args = ['-p'] if rng.random() < 0.15 else []
	for k in range(rng.choice([1, 1, 2, 3])):
		r = rng.random()
		if r < 0.45 or (k == 0 and not shared_out):
			name = 'fifo%d' % k
			w = _writers(rng, s, size, n) if rng.random() < 0.6 or not shared_out else []
			s['files'].append([name, 'fifo', dict(_plan(rng, size), writers=w)])
			shared_out = True
			args.append(name)
		elif r < 0.75:
			args.append('/dev/null')
		else:
			args.append('new%d' % k)
	s['args'] = args
	return s


# The part of the family drawn in the shape that makes writers race for
# room most often: three other writers and tee's output copied by
# tee(2) (any but its last), a reader that frees a page at a time.
RACE = 0.6


def _race(rng, s):
	s['cmd'] = 'tee'
	size = rng.randint(12 * MIB, 24 * MIB) + rng.choice([0, 1, PIPE_BUF - 1])
	s['stdin'] = _stdin(rng, s, rng.choice(['pipe', 'pipe', 'fifo', 'file']), size)
	plan = {'drain': 'slow', 'drain_seed': rng.getrandbits(32), 'read': PIPE_BUF,
		'every': 4 * MIB, 'ms': 1}
	# Done about when tee is, if all go as fast: the race is over then.
	writers = _writers(rng, s, size, [0], 3, (0.6, 0.8, 1))
	last = rng.choice(['/dev/null', '/dev/null', 'new1'])
	if rng.random() < 0.7:
		s['stdout'] = dict(plan, kind='pipe', nonblock=False, writers=writers)
		s['args'] = [last]
	else:
		s['stdout'] = dict(_plan(rng, size), kind='pipe', nonblock=False, writers=[])
		s['files'].append(['fifo0', 'fifo', dict(plan, writers=writers)])
		s['args'] = ['fifo0', last]
	return s


def _stdin(rng, s, kind, size):
	i = {'kind': kind, 'data': _spec(rng, size, ME)}
	if kind == 'file':
		i['offset'] = 0
	else:
		i.update(feed_seed=rng.getrandbits(32), pauses=rng.choice([0, 0, 3]),
			small=False, chunks=[65536, 262144, MIB] if size >= 4 * MIB else None)
	if kind == 'shared':
		i['reader'] = {'kind': rng.choice(['loop', 'cat', 'peer']),
			'args': rng.choice([['/dev/null'], []]) if s['cmd'] == 'tee' else [],
			'read': rng.choice([4096, 65536, MIB]), 'every': MIB, 'ms': 1,
			'drain_seed': rng.getrandbits(32)}
	return i


def _size(rng, shared_in):
	"""The command's input: at times small, mostly tens of MiB, now and
	then a hundred and more (a shared input, whose shares are kept,
	at most 32 MiB)."""
	r = rng.random()
	if r < 0.3:
		n = rng.randint(32 * KIB, 4 * MIB)
	elif r < 0.85 or shared_in:
		n = rng.randint(8 * MIB, 32 * MIB)
	else:
		n = rng.randint(64 * MIB, 160 * MIB)
	return n + rng.choice([0, 1, PIPE_BUF - 1])


def _spec(rng, size, c):
	return {'style': 'tiled', 'size': size, 'seed': rng.getrandbits(32), 'class': c}


def _plan(rng, size):
	"""How a pipe's reader drains it: in reads of READ bytes, pausing MS
	milliseconds every EVERY bytes (0: never).  Not slowly past 32 MiB
	(this loop's time)."""
	how = rng.choice(['fast', 'slow', 'slow', 'bursts'] if size <= 32 * MIB else
		['fast', 'bursts'])
	plan = {'drain': how, 'drain_seed': rng.getrandbits(32)}
	if how == 'fast':
		plan.update(read=MIB, every=0, ms=0)
	elif how == 'slow':
		plan.update(read=rng.choice([4096, 16384, 65536]),
			every=rng.choice([MIB, 4 * MIB]), ms=rng.randint(1, 3))
	else:
		plan.update(read=MIB, every=rng.choice([MIB, 4 * MIB, 16 * MIB]),
			ms=rng.randint(10, 40))
	return plan


# Other writers, as drawn: peers most (the program under test against
# itself races hardest: each waits in poll(2), and all wake at once).
KINDS = ['peer'] * 8 + ['cat'] * 5 + ['yes'] * 3 + ['dd'] * 4


def _writers(rng, s, size, n, count=None, scale=(0.25, 0.5, 1, 1.5)):
	"""COUNT (else 1-3) other writers of a pipe, each of a class of its
	own, writing SIZE bytes times one of SCALE; N[0] counts the writers
	of S so far (their names)."""
	out = []
	free = [0, 2, 3]
	rng.shuffle(free)
	for _ in range(count or rng.choice([1, 1, 2, 3])):
		kind = rng.choice(KINDS)
		if kind == 'yes' and 0 not in free:
			kind = 'cat'
		c = 0 if kind == 'yes' else free[0]
		free.remove(c)
		n[0] += 1
		w = {'name': 'w%d' % n[0], 'kind': kind, 'class': c}
		if kind == 'yes':
			w['args'] = [''.join(rng.choice(YES_CHARS) for _ in range(rng.randint(1, 30)))
				for _ in range(rng.randint(1, 2))]
		else:
			cap = 4 * MIB if kind == 'dd' else 32 * MIB
			k = min(cap, max(PIPE_BUF, int(size * rng.choice(scale))))
			s['files'].append([w['name'], 'data', _spec(rng, k + rng.randint(0, 4095), c)])
			if kind == 'dd':
				w['bs'] = rng.choice([509, 1000, 2048, 4093, PIPE_BUF])
			if kind == 'peer':
				w['args'] = rng.choice([['/dev/null']] * 3 + [[]]) if s['cmd'] == 'tee' else []
				w['via'] = rng.choice(['pipe', 'pipe', 'pipe', 'file'])
		out.append(w)
	return out


def _pipes(s):
	"""The shared family's pipes: (name, plan with its writers)."""
	return [('stdout', s['stdout'])] + [(name, spec) for name, kind, spec in s['files']
		if kind == 'fifo']


def _argv(s, w, bindir, ref):
	"""The program and argv of writer W (with BINDIR under test)."""
	if w['kind'] == 'peer':
		return os.path.join(bindir, s['cmd']), [s['cmd']] + w['args']
	if w['kind'] == 'yes':
		return os.path.join(ref, 'yes'), ['yes'] + w['args']
	if w['kind'] == 'dd':
		return os.path.join(ref, 'dd'), ['dd', 'if=' + w['name'], 'bs=%d' % w['bs'],
			'status=none']
	return os.path.join(ref, 'cat'), ['cat', w['name']]


def summary(s):
	"""One line: the command, and who else writes and reads its pipes."""
	out = ['%s %s <%s' % (s['cmd'], ' '.join(s['args']), s['stdin']['kind'])]
	if s['stdin']['kind'] == 'shared':
		out[0] += '(+%s)' % s['stdin']['reader']['kind']
	out[0] += ' %d MiB' % (s['stdin']['data']['size'] >> 20)
	for name, plan in _pipes(s):
		if plan['writers']:
			out.append('%s drained %s, also by %s' % (name, plan['drain'],
				', '.join(w['kind'] for w in plan['writers'])))
	return '; '.join(out)


# -- running ---------------------------------------------------------

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
		"""The writers are gone: take what is left."""
		while self.fd is not None and self._read(MIB):
			pass

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


def _want(s):
	"""The command's bytes on each output, unless its input is shared."""
	if s['stdin']['kind'] == 'shared':
		return None
	x = data.make(s['stdin']['data'])
	if s['args'][:1] == ['in0']:
		return _file(s, 'in0') + x
	return x


def run(s, prog, ref, d, timeout):
	"""Run scenario S with the program at PROG (GNU's programs in REF) in
	directory D (made by execute.materialise); return its Result, with
	.sinks (what each pipe's reader saw, by writer class) and .procs
	(the status and stderr of every other process).  Ends within
	TIMEOUT seconds."""
	bindir = os.path.dirname(prog)
	want = _want(s)
	child = {0: None, 1: None, 2: None}
	parent = {'feeder': None}
	me = _Proc('command', prog, [s['cmd']] + s['args'], child)
	sinks, procs, close_after, holders = [], [me], [], []
	i = s['stdin']
	if i['kind'] == 'shared':
		r, w = os.pipe()
		child[0] = r
		parent['feeder'] = execute._Feeder(w, i)
		sinks.append(_other_reader(s, r, bindir, ref, procs, close_after))
	else:
		execute._setup_stdin(s, d, child, parent)
	close_after += [fd for fd in (child[0],) if fd is not None]
	for name, plan in _pipes(s):
		if name == 'stdout':
			r, w = execute._pipe(plan.get('small'))
			child[1] = w
			close_after.append(w)
		else:
			p = os.path.join(d, name)
			r = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
			# Held until the command and the finite writers are done:
			# its reader sees no end before the command opened it.
			w = os.open(p, os.O_WRONLY)
			holders.append(w)
		checks = {ME: _Check(want)}
		for x in plan['writers']:
			checks[x['class']] = _writer_check(s, x)
			p, argv = _argv(s, x, bindir, ref)
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
			procs.append(_Proc(x['name'], p, argv, {0: stdin, 1: w, 2: None},
				finite=x['kind'] != 'yes'))
		sinks.append(_Sink(name, r, plan, checks))
	readers = []
	for p in procs:
		r, w = os.pipe()
		p.fds[2] = w
		p.err = execute._Reader('stderr', r, {})
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


def _file(s, name):
	"""The bytes of the file NAME of S's directory."""
	return data.make(next(spec for n, kind, spec in s['files'] if n == name))


def _writer_check(s, w):
	if w['kind'] == 'yes':
		return _Check(line=_line(w))
	return _Check(_file(s, w['name']), record=w.get('bs', 0))


def _line(w):
	return (' '.join(w['args']) + '\n').encode()


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
			poll = select.poll()
			wait = 20
			for x in active:
				if x.wake > now:
					wait = min(wait, 1000 * (x.wake - now))
				else:
					poll.register(x.fd, select.POLLOUT if x is feeder else select.POLLIN)
			ready = {fd for fd, _ in poll.poll(max(wait, 0))}
			now = time.monotonic()
			for x in list(active):
				if x.fd in ready or (now >= x.wake > 0):
					if not x.step(now):
						active.remove(x)
	finally:
		os.kill(dog, signal.SIGKILL)
		os.waitpid(dog, 0)
	for p in procs:
		p.status = execute._status(os.waitpid(p.pid, 0)[1])
		if p.status == ('signal', signal.SIGKILL) and time.monotonic() >= deadline:
			p.status = ('hang',)
	return threads


# -- judging ---------------------------------------------------------

def judge(s, gnu, test):
	"""Problems of TEST against GNU's run GNU of S: each run's bytes as
	GNU guarantees them (GNU's too: a problem there is this test's), and
	every process's status and messages as in GNU's run."""
	p = ["GNU's run: " + x for x in _own(s, gnu)] + _own(s, test)
	if test.status != gnu.status:
		p.append('status %s, GNU %s' % (test.status, gnu.status))
	if test.stderr != gnu.stderr:
		p.append('stderr %r, GNU %r' % (test.stderr[:600], gnu.stderr[:600]))
	for name in sorted(set(gnu.procs) | set(test.procs)):
		g, t = gnu.procs.get(name), test.procs.get(name)
		if g != t:
			p.append('%s (%s): status %s, stderr %r; GNU %s, %r' % (name, _who(s, name),
				t and t[0], t and t[1][:300], g and g[0], g and g[1][:300]))
	return p


def _who(s, name):
	"""What the process NAME of S is, in words."""
	if name == 'other':
		return 'the other reader of stdin, %s' % s['stdin']['reader']['kind']
	for pipe, plan in _pipes(s):
		for w in plan['writers']:
			if w['name'] == name:
				return '%s into %s' % (w['kind'], pipe)
	return s['cmd']


def _own(s, r):
	"""Problems of the run R of S, on its own."""
	if r.status == ('hang',):
		return []
	p = []
	names = {}
	for pipe, plan in _pipes(s):
		names[pipe] = {w['class']: '%s (%s)' % (w['name'], w['kind']) for w in plan['writers']}
		names[pipe][ME] = s['cmd']
	names['other'] = {ME: 'the other reader'}
	for pipe, sink in sorted(r.sinks.items()):
		if sink['stray']:
			p.append('%s: %d bytes that no writer of it writes' % (pipe, sink['stray']))
		for c, x in sorted(sink['checks'].items()):
			who = names[pipe][c]
			if x['bad'] is not None:
				p.append("%s: %s's bytes differ from its stream at its byte %d" % (
					pipe, who, x['bad']))
			if x['size'] is not None and x['count'] != x['size']:
				p.append("%s: %d bytes of %s's, its stream has %d" % (
					pipe, x['count'], who, x['size']))
			if x['split'] is not None:
				p.append('%s: a record of %s split at its byte %d' % (pipe, who, x['split']))
	if s['stdin']['kind'] == 'shared':
		return p + _shares(s, r)
	want = _want(s)
	for name, b in sorted(r.files.items()):
		if b != want:
			p.append('%s: %s, its stream has %d bytes' % (name,
				'absent' if b is None else '%d bytes, not its stream' % len(b), len(want)))
	return p


def _shares(s, r):
	"""A shared input: every output of the command got the same bytes
	(what it took), and those and the other reader's make the input."""
	outs = [(pipe, r.sinks[pipe]['checks'][ME]['kept']) for pipe, _ in _pipes(s)]
	outs += sorted(r.files.items())
	mine = outs[0][1]
	p = ['%s: %s bytes, %s %d: the outputs got different bytes' % (name,
		'no' if b is None else len(b), outs[0][0], len(mine))
		for name, b in outs[1:] if b != mine]
	x = data.make(s['stdin']['data'])
	other = r.sinks['other']['checks'][ME]['kept']
	if len(mine) + len(other) != len(x):
		p.append('stdin: %s took %d bytes, the other reader %d, of %d' % (
			s['cmd'], len(mine), len(other), len(x)))
	else:
		at = _interleaved(x, mine, other)
		if at is not None:
			p.append("stdin: what %s and the other reader took is not the input "
				"in turns; no way past its byte %d" % (s['cmd'], at))
	return p


SLACK = 8	# bytes a piece may match past its end by chance (p = 64 ** -9)
STEPS = 1000000


def _interleaved(x, a, b):
	"""None if X is A and B taken in turns, a piece at a time, each in
	order (what two readers of one pipe get), else the furthest offset
	of X a search reached.  X is random bytes of one class: a piece ends
	at most SLACK bytes before its longest match, and a wrong turn soon
	fails."""
	todo, seen, far = [(0, 0)], set(), 0
	while todo and len(seen) < STEPS:
		i, j = todo.pop()
		if i == len(x):
			return None
		if (i, j) in seen:
			continue
		seen.add((i, j))
		far = max(far, i)
		k = i - j
		turns = [(i + n, j + n) for n in _ends(_common(x, i, a, j))]
		turns += [(i + n, j) for n in _ends(_common(x, i, b, k))]
		todo += sorted(turns)
	return far


def _ends(n):
	return range(max(1, n - SLACK), n + 1)


def _common(x, i, a, j):
	"""The length of the common prefix of X[i:] and A[j:]: galloping,
	then bisected, each step a memcmp."""
	n = min(len(x) - i, len(a) - j)
	mv = memoryview(a)
	lo, hi, step = 0, n, 1
	while lo < n:
		m = min(n, lo + step)
		if not x.startswith(mv[j + lo:j + m], i + lo):
			hi = m - 1
			break
		lo, step = m, step * 2
	while lo < hi:
		m = (lo + hi + 1) // 2
		if x.startswith(mv[j + lo:j + m], i + lo):
			lo = m
		else:
			hi = m - 1
	return lo


# -- the reproducer --------------------------------------------------

def shell(s, bindir, ref, tool):
	"""The bash script that reproduces S (TOOL: the path of run.py): each
	run in a directory of its own, then each writer's bytes sorted out
	of each pipe by class (tr -dc) and compared with its stream."""
	fifos = [name for name, _ in _pipes(s) if name != 'stdout']
	holds = ['stdout.pipe', 'stdin.pipe'] + fifos
	shut = ' ' + ' '.join('%d>&-' % (5 + k) for k in range(len(holds)))
	i = s['stdin']
	lines = ['#!/bin/bash',
		'# sluice-diff seed %d index %d (shared family): %s' % (s['seed'], s['index'],
			summary(s)),
		'# approximated: the pipes are FIFOs, each read by cat, not as its plan says; '
		'stdin is written by cat; yes is stopped once the others are done',
		'# checked here: the bytes of each writer of each pipe (tr -dc keeps one class); '
		"run.py --replay also checks that dd's records stayed whole and how a shared "
		'input was shared',
		'one() {	# one DIR BINDIR: the scenario in a fresh DIR, with the programs in BINDIR',
		'	mkdir "$1" && cd "$1" && python3 %s --files %d:%d . || return' % (
			shlex.quote(tool), s['seed'], s['index']),
		'	mkfifo stdout.pipe stdin.pipe || return',
		'	# Held open (read-write, which never waits) until all have opened',
		'	# them and the writers are done: no reader sees an end before.',
		'	exec ' + ' '.join('%d<>%s' % (5 + k, p) for k, p in enumerate(holds))]
	for name, _ in _pipes(s):
		lines.append('	cat <%s >%s.got%s &' % (name + '.pipe' * (name == 'stdout'), name, shut))
	src = {'file': 'stdin', 'fifo': 'stdin.pipe', 'pipe': 'stdin.pipe',
		'shared': 'stdin.pipe'}[i['kind']]
	if i['kind'] == 'shared':
		o = i['reader']
		prog = '"$2"/%s %s' % (s['cmd'], ' '.join(o['args'])) if o['kind'] == 'peer' else \
			'%s/cat' % ref
		lines.append('	%s <stdin.pipe >other.got 2>other.err%s & other=$!' % (prog, shut))
	lines.append('	env --default-signal=PIPE "$2"/%s %s <%s >stdout.pipe 2>err%s & cmd=$!' % (
		s['cmd'], ' '.join(shlex.quote(a) for a in s['args']), src, shut))
	stops = []
	for name, plan in _pipes(s):
		out = name + '.pipe' * (name == 'stdout')
		for w in plan['writers']:
			prog, argv = _argv(s, w, '"$2"', ref)
			words = [prog if w['kind'] == 'peer' else shlex.quote(prog)] + [
				shlex.quote(a) for a in argv[1:]]
			feed = '<%s ' % w['name'] if w['kind'] == 'peer' else '</dev/null '
			if w.get('via') == 'pipe':
				words = ['%s/cat %s |' % (ref, w['name'])] + words
				feed = ''
			lines.append('	%s %s>%s 2>%s.err%s & %s=$!' % (' '.join(words), feed, out,
				w['name'], shut, w['name']))
			stops.append(w)
	if src == 'stdin.pipe':
		lines.append('	cat stdin.data >stdin.pipe%s' % shut)
	lines.append('	exec 6<&-	# stdin.pipe: its readers may end')
	lines.append('	wait $cmd; echo "status $?" >status	# 128+N: killed by signal N')
	if i['kind'] == 'shared':
		lines.append('	wait $other; echo "status $?" >other.status')
	for w in stops:
		if w['kind'] == 'yes':
			continue
		lines.append('	wait $%s; echo "status $?" >%s.status' % (w['name'], w['name']))
	for w in stops:
		if w['kind'] == 'yes':
			lines.append('	kill $%s; wait $%s; echo "status $?" >%s.status' % (
				w['name'], w['name'], w['name']))
	lines += ['	exec ' + ' '.join('%d>&-' % (5 + k) for k in range(len(holds)) if k != 1),
		'	wait',
		'	rm -f stdout.pipe stdin.pipe' + ''.join(' ' + f for f in fifos),
		'	test ! -f err || sed -i "s|$2/||g" err	# the name it ran by, as run.py does',
		'}',
		'check() {	# check DIR: each writer\'s bytes in each pipe, by class',
		'	cd "$1" || return']
	me = 'stdin.data'
	if s['args'][:1] == ['in0']:
		me = '<(cat in0 stdin.data)'
	for name, plan in _pipes(s):
		lines.append("	tr -dc '%s' <%s.got >%s.%s" % (TR[ME], name, name, s['cmd']))
		if i['kind'] != 'shared':
			lines.append('	cmp %s.%s %s && echo "$1: %s: all of %s\'s bytes"' % (
				name, s['cmd'], me, name, s['cmd']))
		for w in plan['writers']:
			part = '%s.%s' % (name, w['name'])
			lines.append("	tr -dc '%s' <%s.got >%s" % (TR[w['class']], name, part))
			want = w['name']
			if w['kind'] == 'yes':
				want = '<(%s %s | head -c $(stat -c %%s %s))' % (shlex.quote(
					os.path.join(ref, 'yes')), ' '.join(shlex.quote(a) for a in w['args']), part)
			lines.append('	cmp %s %s && echo "$1: %s: all of %s\'s bytes (%s)"' % (
				part, want, name, w['name'], w['kind']))
	if i['kind'] == 'shared':
		lines.append('	echo "$1: %s took $(wc -c <stdout.%s) bytes of stdin, the other '
			'reader $(wc -c <other.got), of $(wc -c <stdin.data)"' % (s['cmd'], s['cmd']))
	lines += ['}',
		'top=$(mktemp -d) && cd "$top" || exit 1',
		'(one gnu %s); (one test %s)' % (shlex.quote(ref), shlex.quote(bindir)),
		'(check gnu); (check test)',
		'for f in gnu/*status gnu/*err; do cmp -s "$f" "test/${f#gnu/}" || '
		'echo "differ: ${f#gnu/}"; done; cat gnu/status test/status; echo "in $top"']
	return '\n'.join(lines)
