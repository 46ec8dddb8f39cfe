"""Draw a scenario from (SEED, INDEX): a command line, the files of its
directory, what its stdin, stdout and stderr are, its signals and limits.

A scenario is plain data (dicts, lists, strings, numbers): execute.py
runs it, verdict.py judges it, reproducer.py prints it as shell.  The
same (SEED, INDEX) always draws the same scenario.
"""

import random

import data

KIB, MIB = 1 << 10, 1 << 20
# Around the sizes where buffers, pipes and pages turn over.
EDGES = [0, 1, 2, 4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537,
	131071, 131072, 131073, 262144, MIB - 1, MIB, MIB + 1]

CAT_SHORT = 'AbeEnstTuv'
CAT_LONG = {'A': '--show-all', 'b': '--number-nonblank', 'E': '--show-ends',
	'n': '--number', 's': '--squeeze-blank', 'T': '--show-tabs',
	'v': '--show-nonprinting'}
TEE_MODES = ['warn', 'warn-nopipe', 'exit', 'exit-nopipe']
IN_KINDS = ['pipe', 'pipe', 'pipe', 'file', 'file', 'fifo', 'socket', 'null',
	'empty', 'closed']
OUT_KINDS = ['pipe', 'pipe', 'pipe', 'file', 'append', 'stream', 'seqpacket',
	'dgram', 'null', 'full', 'closed', 'broken']


def draw(seed, index):
	"""The scenario number INDEX of SEED."""
	rng = random.Random('scenario:%s:%s' % (seed, index))
	s = {'seed': seed, 'index': index, 'files': [],
		'cmd': rng.choice(['cat', 'cat', 'cat', 'tee', 'tee', 'yes']),
		'sigpipe': rng.choice(['default', 'ignore']),
		'sigxfsz': rng.choice(['default', 'ignore']),
		'fsize': rng.choice([None] * 8 + [rng.randint(0, 3 * MIB)]),
		'stderr': rng.choice(['pipe'] * 9 + ['closed'])}
	s['stdin'] = _stdin(rng, s)
	s['stdout'] = _stdout(rng, s)
	s['args'] = {'cat': _cat_args, 'tee': _tee_args, 'yes': _yes_args}[s['cmd']](rng, s)
	return s


def _size(rng):
	"""A data size: mostly near an edge, now and then tens of MiB."""
	r = rng.random()
	if r < 0.03:
		return rng.randint(4, 24) * MIB + rng.randint(0, 3)
	if r < 0.25:
		return rng.randint(0, 300000)
	return max(0, rng.choice(EDGES) + rng.choice([0, 0, 0, -1, 1, 7]))


def _data(rng):
	return {'style': rng.choice(data.STYLES), 'size': _size(rng),
		'seed': rng.getrandbits(32)}


def _stdin(rng, s):
	kind = 'closed' if s['cmd'] == 'yes' else rng.choice(IN_KINDS)
	d = {'kind': kind}
	if kind in ('pipe', 'fifo', 'socket', 'file'):
		d['data'] = _data(rng)
	if kind == 'file':
		d['offset'] = rng.choice([0, 0, 1, 4096, rng.randint(1, 70000)])
	if kind in ('pipe', 'fifo', 'socket'):
		d['feed_seed'] = rng.getrandbits(32)
		d['pauses'] = rng.choice([0, 0, 1, 3])
		d['small'] = kind == 'pipe' and rng.random() < 0.15
	return d


def _stdout(rng, s):
	kinds = OUT_KINDS
	if s['cmd'] == 'yes':
		# yes never ends: every output it gets must stop it.
		kinds = ['pipe', 'pipe', 'stream', 'seqpacket', 'dgram', 'full',
			'closed', 'broken']
		if s['fsize'] is not None:
			kinds = kinds + ['file', 'append'] * 3
	d = {'kind': rng.choice(kinds), 'nonblock': False}
	if d['kind'] in ('pipe', 'stream', 'seqpacket', 'dgram'):
		d['drain'] = rng.choice(['all', 'all', 'random', 'slow', 'close'])
		d['k'] = rng.choice([0, 1, 4096, 65536, rng.randint(1, 2 * MIB)])
		if s['cmd'] == 'yes':
			d['drain'] = 'close'
		d['drain_seed'] = rng.getrandbits(32)
		d['nonblock'] = d['kind'] in ('pipe', 'stream') and rng.random() < 0.1
		d['small'] = d['kind'] == 'pipe' and rng.random() < 0.2
	if d['kind'] in ('seqpacket', 'dgram'):
		# A reader smaller than a record loses its tail: only where the
		# record sizes do not hang on how a pipe was fed.
		fed = s['stdin']['kind'] in ('pipe', 'fifo', 'socket')
		d['bufsize'] = 1 << 20 if fed else rng.choice([1 << 20, 8192, 131072])
	if d['kind'] == 'append':
		d['prefill'] = {'style': 'text', 'size': rng.choice([1, 100, 5000]),
			'seed': rng.getrandbits(32)}
	return d


def _add(s, name, kind, spec=None):
	"""Put NAME in the scenario's directory (once); return NAME."""
	if all(f[0] != name for f in s['files']):
		s['files'].append([name, kind, spec])
	return name


def _cat_args(rng, s):
	args = []
	letters = [c for c in CAT_SHORT if rng.random() < 0.3]
	while letters:
		n = rng.randint(1, len(letters))
		group, letters = letters[:n], letters[n:]
		if len(group) == 1 and group[0] in CAT_LONG and rng.random() < 0.4:
			args.append(CAT_LONG[group[0]])
		else:
			args.append('-' + ''.join(group))
	if rng.random() < 0.02:
		args.append(rng.choice(['-z', '--bogus', '--number=3']))
	for i in range(rng.choice([0, 0, 1, 1, 2, 3, 5])):
		args.append(_cat_operand(rng, s, i))
	if args and rng.random() < 0.1:
		args.insert(rng.randint(0, len(args)), '--')
	return args


def _cat_operand(rng, s, i):
	r = rng.random()
	if r < 0.2:
		return '-'
	if r < 0.3:
		return 'missing'
	if r < 0.35:
		return _add(s, 'dir', 'dir')
	if r < 0.42:
		return _add(s, 'empty', 'empty')
	if r < 0.47 and s['stdout']['kind'] in ('file', 'append'):
		return 'out'
	return _add(s, 'in%d' % i, 'data', _data(rng))


def _tee_args(rng, s):
	args = []
	for opt in (['-a', '--append'], ['-i', '--ignore-interrupts'], ['-p']):
		if rng.random() < 0.25:
			args.append(rng.choice(opt))
	if rng.random() < 0.3:
		mode = rng.choice(TEE_MODES + ['bogus'] * (rng.random() < 0.05))
		args.append('--output-error=' + mode)
	if rng.random() < 0.02:
		args.append(rng.choice(['-z', '--bogus']))
	fifo = False
	for i in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6])):
		r = rng.random()
		if r < 0.3:
			args.append('new%d' % i)
		elif r < 0.45:
			args.append(_add(s, 'old%d' % i, 'data', {'style': 'text',
				'size': rng.choice([1, 5000]), 'seed': rng.getrandbits(32)}))
		elif r < 0.55:
			args.append('/dev/null')
		elif r < 0.65:
			args.append('/dev/full')
		elif r < 0.72:
			args.append(rng.choice(['nodir/x', _add(s, 'dir', 'dir')]))
		elif r < 0.8 and len(args) and not args[-1].startswith('-'):
			args.append(args[-1] if args[-1] != 'fifo' else 'new%d' % i)
		elif r < 0.88 and not fifo:
			fifo = True
			args.append(_add(s, 'fifo', 'fifo'))
		else:
			args.append('-')
	return args


def _yes_args(rng, s):
	r = rng.random()
	if r < 0.3:
		return []
	if r < 0.4:
		return ['']
	if r < 0.55:
		return ['x' * rng.choice([4095, 4096, 8191, 8192, 10000, 70000])]
	if r < 0.7:
		return ['w%d' % i for i in range(rng.randint(2, 300))]
	if r < 0.75:
		return [rng.choice(['-z', '--bogus', '--', '-', '--', '\t\x7f\xe9'])]
	return [rng.choice(['y', 'hello', 'a b', '\t', 'x\ny', 'n'])
		for _ in range(rng.randint(1, 3))]
