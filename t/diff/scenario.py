"""Draw a scenario from (SEED, INDEX): a command line, the files of its
directory, what its stdin, stdout and stderr are, its signals and limits.

A scenario is plain data (dicts, lists, strings, numbers): execute.py
runs it, verdict.py judges it, reproducer.py prints it as shell.  The
same (SEED, INDEX) always draws the same scenario.
"""

import random

import data
import shared

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
	family = family_of(seed, index)
	if family != 'mixed':
		return FAMILIES[family][1](rng, {'seed': seed, 'index': index,
			'family': family, 'files': [], 'fsize': None, 'stderr': 'pipe'})
	return _mixed(rng, {'seed': seed, 'index': index, 'family': 'mixed',
		'files': []})


def _mixed(rng, s):
	"""Everything drawn independently: the command, its arguments and
	descriptors, signals, limits."""
	s.update({'cmd': rng.choice(['cat', 'cat', 'cat', 'tee', 'tee', 'yes']),
		'sigpipe': rng.choice(['default', 'ignore']),
		'sigxfsz': rng.choice(['default', 'ignore']),
		'fsize': rng.choice([None] * 8 + [rng.randint(0, 3 * MIB)]),
		'stderr': rng.choice(['pipe'] * 9 + ['closed'])})
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


# One process feeding and draining: a poll loop (asyncio, libuv, a
# proxy, this test's own) writes the command's stdin and reads its
# outputs.  A command that waits on one of its outputs while holding a
# lock of the stdin pipe (splice(2) from a pipe into a socket holds it
# while it waits for room) puts the loop's next write into that pipe to
# sleep, and the output is never drained.  Stdin a pipe or FIFO of some
# MiB, every output drained slowly, so that the outputs fill.
def _feed(rng, s):
	s['cmd'] = rng.choice(['cat', 'cat', 'cat', 'tee', 'tee'])
	s['sigpipe'] = rng.choice(['default', 'ignore'])
	s['sigxfsz'] = 'default'
	kind = rng.choice(['pipe', 'pipe', 'fifo'])
	size = rng.randint(2 * MIB, 8 * MIB) + rng.choice([0, 1, 4095])
	s['stdin'] = {'kind': kind, 'data': {'style': rng.choice(data.STYLES),
		'size': size, 'seed': rng.getrandbits(32)},
		'feed_seed': rng.getrandbits(32), 'pauses': rng.choice([0, 1, 3]),
		'small': kind == 'pipe' and rng.random() < 0.15}
	o = _paced(rng, size)
	o.update(kind=rng.choice(['stream', 'stream', 'pipe']), nonblock=False)
	o['small'] = o['kind'] == 'pipe' and rng.random() < 0.2
	s['stdout'] = o
	s['args'] = (_feed_cat if s['cmd'] == 'cat' else _feed_tee)(rng, s)
	return s


def _paced(rng, span):
	"""A slow reader's plan: small reads, and a few pauses of the test's
	loop at offsets below SPAN."""
	return {'drain': 'paced', 'read': rng.choice([1024, 4096, 4096, 16384, 65536]),
		'pauses': sorted([rng.randint(0, span), 0.001 * rng.randint(1, 30)]
			for _ in range(rng.choice([0, 3, 10]))),
		'drain_seed': rng.getrandbits(32)}


def _feed_cat(rng, s):
	"""Plain or with options; stdin alone, or `-` among files."""
	args = []
	if rng.random() < 0.4:
		args.append('-' + (''.join(c for c in CAT_SHORT if rng.random() < 0.3) or
			rng.choice(CAT_SHORT)))
	r = rng.random()
	if r < 0.35:
		return args
	if r < 0.65:
		return args + ['-']
	ops = []
	for i in range(rng.randint(1, 3)):
		if rng.random() < 0.15:
			ops.append(rng.choice(['missing', _add(s, 'dir', 'dir')]))
		else:
			ops.append(_add(s, 'in%d' % i, 'data', {'style': rng.choice(data.STYLES),
				'size': rng.choice([0, 1, 4096, 65537, 300000]),
				'seed': rng.getrandbits(32)}))
	for _ in range(rng.choice([1, 1, 2])):
		ops.insert(rng.randint(0, len(ops)), '-')
	if rng.random() < 0.2:
		ops.insert(0, '--')
	return args + ops


def _feed_tee(rng, s):
	"""Standard output alone, or with FIFOs drained as slowly, files,
	/dev/null.  (Not /dev/stdout: a pipe written twice a chunk holds the
	chunks' bounds, which hang on timing.)"""
	args = []
	r = rng.random()
	if r < 0.25:
		args.append('-p')
	elif r < 0.45:
		args.append('--output-error=' + rng.choice(TEE_MODES))
	span = s['stdin']['data']['size']
	for i in range(rng.choice([0, 0, 1, 2, 3])):
		r = rng.random()
		if r < 0.65:
			args.append(_add(s, 'fifo%d' % i, 'fifo', _paced(rng, span)))
		elif r < 0.85:
			args.append('new%d' % i)
		else:
			args.append('/dev/null')
	return args


# Lanes: tee's copies into files on threads (doc/design.md, "Copies on
# every core") start once 4 MiB went through within a second, and only
# where two outputs or more copy: tens of MiB, fed fast, into two files
# or more and pipes.  Outputs fail at offsets of their own: a file on a
# tmpfs of its own, of a size drawn (ENOSPC), RLIMIT_FSIZE (EFBIG or
# SIGXFSZ), /dev/full, a pipe whose reader leaves after K bytes (EPIPE or
# SIGPIPE), a path that cannot be opened; and a pipe's reader stalls for
# more than the second after which tee gives its pipes back.  K is far
# from the end, so that the pipe's writer certainly writes after the
# reader left: what GNU gives does not hang on timing.
def _lanes(rng, s):
	size = rng.randint(10, 40) * MIB + rng.randint(0, 70000)
	s['cmd'] = 'tee'
	s['sigpipe'] = rng.choice(['default', 'ignore'])
	s['sigxfsz'] = rng.choice(['default', 'ignore'])
	if rng.random() < 0.2:
		s['fsize'] = rng.randint(1, size)
	kind = rng.choice(['pipe', 'pipe', 'file', 'fifo'])
	d = {'kind': kind, 'data': {'style': rng.choice(['binary', 'text', 'mixed',
		'longline', 'nul']), 'size': size, 'seed': rng.getrandbits(32)}}
	if kind == 'file':
		d['offset'] = 0
	else:
		d.update(feed_seed=rng.getrandbits(32), pauses=rng.choice([0, 0, 1]),
			small=False, chunks=[65536, 262144, MIB])
	s['stdin'] = d
	# Not the exit modes: they copy on one thread, GNU's chunks (the
	# mixed family has them).
	args = []
	r = rng.random()
	if r < 0.25:
		args.append('-p')
	elif r < 0.5:
		args.append('--output-error=' + rng.choice(['warn', 'warn-nopipe']))
	if rng.random() < 0.05:
		args.append('-a')
	if rng.random() < 0.1:
		args.append('-i')
	# Each output is named once: the verdict knows an output by the name
	# its message gives.
	pipes = []
	files = 0
	limits = []
	for i in range(rng.randint(2, 6)):
		r = rng.random()
		if r < 0.35:
			args.append('new%d' % i)
			files += 1
		elif r < 0.6:
			limits.append(_tmpfs_size(rng, size, limits))
			args.append(_add(s, 'lim%d' % i, 'tmpfs', {'size': limits[-1]}) + '/f')
			files += 1
		elif r < 0.8:
			pipes.append(_lanes_reader(rng, size))
			args.append(_add(s, 'fifo%d' % i, 'fifo', pipes[-1]))
		elif r < 0.88 and '/dev/full' not in args:
			args.append('/dev/full')
		elif r < 0.94 or 'nodir/x' in args:
			args.append('/dev/null')
		else:
			args.append('nodir/x')
	while files < 2:
		args.append('new%d' % len(args))
		files += 1
	o = {'kind': rng.choice(['pipe', 'pipe', 'pipe', 'file', 'null', 'stream', 'full']),
		'nonblock': False}
	if o['kind'] in ('pipe', 'stream'):
		o.update(_lanes_reader(rng, size), small=False)
		if o['kind'] == 'stream':
			# A socket's reader that leaves with bytes unread gives
			# ECONNRESET, else EPIPE: that hangs on timing.
			o.pop('k', None)
		pipes.append(o)
	s['stdout'] = o
	if pipes and rng.random() < 0.6:
		# One reader stalls, once.
		rng.choice(pipes)['pauses'] = [[rng.randint(0, size), rng.choice([1.2, 1.5])]]
	ends = [x['k'] for x in pipes if x.get('k')] + [s['fsize']] * (s['fsize'] is not None)
	tmpfs = [spec for _, kind, spec in s['files'] if kind == 'tmpfs']
	if ends and tmpfs and rng.random() < 0.5:
		# A file fails just before the signal that may end the run,
		# while the lanes may still hold what it got before.
		at = min(ends) - rng.randint(0, 3 * MIB // 2)
		rng.choice(tmpfs)['size'] = max(4096, at // 4096 * 4096)
	s['args'] = args
	return s


def _tmpfs_size(rng, size, limits):
	"""The size of a tmpfs (whole pages): anywhere in the stream or just
	beyond it, or that of one drawn before, or a page off it (errors in
	one chunk, in operand order)."""
	if limits and rng.random() < 0.5:
		return max(4096, rng.choice(limits) + rng.choice([0, 0, 4096, -4096]))
	return rng.randint(1, size // 4096 + 64) * 4096


def _lanes_reader(rng, size):
	"""The reader of a pipe: all at once, in 64 KiB reads, or leaving
	after K bytes, K at least 1 MiB before the end."""
	plan = {'drain': 'paced', 'read': MIB, 'pauses': [], 'drain_seed': rng.getrandbits(32)}
	r = rng.random()
	if r < 0.3:
		plan['k'] = rng.randint(1, size - MIB)
	elif r < 0.45:
		plan['read'] = 65536
	return plan


# A sandbox that refuses zero-copy calls: a mixed scenario, run by both
# programs under the same refusal (execute.py): a seccomp filter
# (t/sandbox.c) that refuses from the first call, or t/inject/ failing
# them from the Nth (N 2-5) on.  One call, or all of them, each with an
# error a sandbox gives.  The verdict is GNU's under the same refusal:
# GNU 9.1 makes none of the calls but copy_file_range, whose EACCES it
# tells as the input's error; it copies a file below 1 GiB in one call,
# and never meets a later one: copy_file_range's EACCES is refused only
# at the first.
SANDBOX_CALLS = ['vmsplice', 'splice', 'tee', 'copy_file_range', 'sendfile',
	'F_SETPIPE_SZ', 'F_GETPIPE_SZ']
SANDBOX_ERRNOS = ['EPERM', 'EACCES', 'ENOSYS', 'EINVAL', 'EOPNOTSUPP']


# The calls refused alone, weighted as spate makes them: splice on most
# paths, vmsplice (yes, cat's handed-off output) and tee (tee) on some.
SANDBOX_ONE = ['splice'] * 3 + ['vmsplice', 'tee'] * 2 + ['copy_file_range',
	'sendfile', 'F_SETPIPE_SZ', 'F_GETPIPE_SZ']


def _sandbox(rng, s):
	s = _mixed(rng, s)
	# Mostly where spate makes the calls: data in, into a pipe, a file,
	# /dev/null or a socket, cat without options (with them, only past
	# 4 MiB of output), past the 32 KiB after which a stream goes by
	# zero-copy.
	if rng.random() < 0.7:
		while s['cmd'] != 'yes' and 'data' not in s['stdin']:
			s['stdin'] = _stdin(rng, s)
		while s['stdout']['kind'] not in ('pipe', 'file', 'append', 'null', 'stream'):
			s['stdout'] = _stdout(rng, s)
		if s['cmd'] == 'cat':
			s['args'] = [a for a in s['args'] if a == '-' or not a.startswith('-')]
	for spec in [s['stdin'].get('data')] + [f[2] for f in s['files'] if f[1] == 'data']:
		if spec and spec['size'] < 65536 and rng.random() < 0.7:
			spec['size'] = rng.randint(65536, 2 * MIB)
	how = rng.choice(['seccomp', 'inject'])
	calls = SANDBOX_CALLS if rng.random() < 0.4 else [rng.choice(SANDBOX_ONE)]
	err = rng.choice(SANDBOX_ERRNOS)
	if how == 'inject':
		calls = [c for c in calls if (c, err) != ('copy_file_range', 'EACCES')] or ['splice']
	s['refuse'] = {'how': how, 'calls': calls, 'errno': err,
		'nth': rng.randint(2, 5) if how == 'inject' else 1}
	return s


def refusal(s):
	"""The refusal of scenario S as t/sandbox.c takes it (CALL:ERRNO,
	comma separated) or t/inject/ (SPATE_INJECT: CALL:nth=N+:error=ERRNO,
	space separated); None for a scenario without one."""
	r = s.get('refuse')
	if r is None:
		return None
	if r['how'] == 'seccomp':
		return ','.join('%s:%s' % (c, r['errno']) for c in r['calls'])
	return ' '.join('%s:nth=%d+:error=%s' % (c, r['nth'], r['errno'])
		for c in r['calls'])


FAMILIES = {'feed': (0.04, _feed), 'lanes': (0.02, _lanes), 'shared': (0.008, shared.draw),
	'sandbox': (0.1, _sandbox)}


def family_of(seed, index):
	"""The family of scenario INDEX of SEED: drawn apart from the rest,
	so that a scenario of the mixed family is what it was before the
	other families came; every shared.EVERY-th is of the shared family
	(in its race shape)."""
	if index % shared.EVERY == 0:
		return 'shared'
	r = random.Random('families:%s:%s' % (seed, index)).random()
	for name, (weight, _) in FAMILIES.items():
		if r < weight:
			return name
		r -= weight
	return 'mixed'
