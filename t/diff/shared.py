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

Here: drawing a scenario, and the verdict; sharedrun.py runs one, and
reproducer.py writes its bash script.
"""

import os

import data

KIB, MIB = 1 << 10, 1 << 20
PIPE_BUF = 4096
ME = 1			# the class of the command's bytes
# A yes line: printable bytes of class 0 (its newline is too), no '-'
# (never an option).
YES_CHARS = '0123456789 !#%&()*+,./:;<=>?'


def draw(rng, s):
	"""Fill scenario S (seed, index, family set) from RNG."""
	s['sigpipe'] = s['sigxfsz'] = 'default'
	if s['index'] % EVERY == 0 or rng.random() < RACE:
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
# tee(2) (any but its last), a reader that frees a page at a time.  One
# of them a peer fed by a pipe: it waits in poll(2) as the command does,
# and they wake at once.  Against a tee that takes tee(2)'s 0 for an end
# (it is a full pipe too), four in five such scenarios fail on a busy
# machine of two cores; every EVERY-th scenario of a seed is one, so
# that a slow machine's few scenarios have some.
RACE = 0.6
EVERY = 150


def _race(rng, s):
	s['cmd'] = 'tee'
	size = rng.randint(10 * MIB, 20 * MIB) + rng.choice([0, 1, PIPE_BUF - 1])
	s['stdin'] = _stdin(rng, s, rng.choice(['pipe', 'pipe', 'fifo', 'file']), size)
	plan = {'drain': 'slow', 'drain_seed': rng.getrandbits(32), 'read': PIPE_BUF,
		'every': 4 * MIB, 'ms': 1}
	# Done about when tee is, if all go as fast: the race is over then.
	writers = _writers(rng, s, size, [0], 3, (0.6, 0.8, 1))
	if not [w for w in writers if w.get('via') == 'pipe']:
		w = sorted((w for w in writers if w['kind'] != 'yes'),
			key=lambda w: w['kind'] == 'peer')[0]
		w.update(kind='peer', args=['/dev/null'], via='pipe')
		w.pop('bs', None)
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
	milliseconds every EVERY bytes (0: never).  Not slowly past 32 MiB,
	nor in bursts of 1 MiB (this loop's time)."""
	how = rng.choice(['fast', 'slow', 'slow', 'bursts'] if size <= 32 * MIB else
		['fast', 'bursts'])
	plan = {'drain': how, 'drain_seed': rng.getrandbits(32)}
	if how == 'fast':
		plan.update(read=MIB, every=0, ms=0)
	elif how == 'slow':
		plan.update(read=rng.choice([4096, 16384, 65536]),
			every=rng.choice([MIB, 4 * MIB]), ms=rng.randint(1, 3))
	else:
		plan.update(read=MIB, every=rng.choice([MIB, 4 * MIB, 16 * MIB][size > 32 * MIB:]),
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


def pipes(s):
	"""The shared family's pipes: (name, plan with its writers)."""
	return [('stdout', s['stdout'])] + [(name, spec) for name, kind, spec in s['files']
		if kind == 'fifo']


def argv(s, w, bindir, ref):
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
	for name, plan in pipes(s):
		if plan['writers']:
			out.append('%s drained %s, also by %s' % (name, plan['drain'],
				', '.join(w['kind'] for w in plan['writers'])))
	return '; '.join(out)

def expected(s):
	"""The command's bytes on each output, unless its input is shared."""
	if s['stdin']['kind'] == 'shared':
		return None
	x = data.make(s['stdin']['data'])
	if s['args'][:1] == ['in0']:
		return file_data(s, 'in0') + x
	return x
def file_data(s, name):
	"""The bytes of the file NAME of S's directory."""
	return data.make(next(spec for n, kind, spec in s['files'] if n == name))
def yes_line(w):
	return (' '.join(w['args']) + '\n').encode()


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
	for pipe, plan in pipes(s):
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
	for pipe, plan in pipes(s):
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
	want = expected(s)
	for name, b in sorted(r.files.items()):
		if b != want:
			p.append('%s: %s, its stream has %d bytes' % (name,
				'absent' if b is None else '%d bytes, not its stream' % len(b), len(want)))
	return p


def _shares(s, r):
	"""A shared input: every output of the command got the same bytes
	(what it took), and those and the other reader's make the input."""
	outs = [(pipe, r.sinks[pipe]['checks'][ME]['kept']) for pipe, _ in pipes(s)]
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
