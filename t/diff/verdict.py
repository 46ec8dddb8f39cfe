"""Judge a run of the program under test against GNU's runs of the same
scenario.

Deterministic scenarios must agree exactly: status (or death signal),
stderr (program name normalised) and the bytes of every reader and every
file.  Where GNU's own result hangs on chunk sizes or timing, what GNU
itself keeps is checked instead:
- racy scenarios (a reader that leaves after K bytes, a non-blocking
  stdout): each output a prefix of the full stream, the status one that
  GNU gives in a variant of the scenario (the reader stays; the reader
  was gone before the start; EAGAIN), each stderr line one GNU prints in
  one of them;
- a tee cut short (killed, or an exit mode): each output a prefix of what
  it would have had, and empty where GNU's is left empty by an output
  that fails at its first write (without RLIMIT_FSIZE, which cuts at a
  size); killed by the signal that killed GNU, its messages those of
  GNU's run or some of them (or GNU's some of its);
- `tee -a F F`: F gets each chunk twice, interleaved by chunk: its
  length and the count of each byte value, not the order; only its
  length once RLIMIT_FSIZE cut it, inside a chunk whose bounds are the
  reads' (GNU against GNU differs there too);
- the lanes family (tee on threads, outputs failing at offsets of their
  own): the status, every output as GNU's (a prefix of it if a signal
  ended either), GNU's error messages, in an order GNU could give
  (_lanes_stderr).
Returns a list of problems, empty when the two agree.
"""

import collections
import re
import signal

import data
import shared

# How each command words an error writing stdout (GNU 9.1).
STDOUT_ERROR = {'cat': ['cat: write error: %s'], 'yes': ['yes: standard output: %s'],
	'tee': ["tee: 'standard output': %s", 'tee: standard output: %s']}


def _stdout_errors(cmd, error):
	return {(x % error).encode() for x in STDOUT_ERROR[cmd]}


SOCKETS = ('stream', 'seqpacket', 'dgram')


def racy(s):
	"""Whether GNU's own result of S hangs on timing: a non-blocking
	stdout; a reader that leaves early, unless yes writes to a pipe (its
	stream never ends: the reader always leaves first, and a pipe says
	EPIPE; a socket says ECONNRESET instead if unread bytes are left)."""
	o = s['stdout']
	if o.get('nonblock'):
		return True
	return o.get('drain') == 'close' and (s['cmd'] != 'yes' or o['kind'] in SOCKETS)


def variants(s):
	"""The deterministic variants of a racy scenario whose GNU results
	bound what its runs may give: (name, scenario) pairs."""
	full = dict(s, stdout=dict(s['stdout'], nonblock=False))
	if s['cmd'] != 'yes':
		full['stdout']['drain'] = 'all'
	out = [('full', full)]
	if s['stdout'].get('drain') == 'close':
		out.append(('gone', dict(s, stdout={'kind': 'broken', 'nonblock': False})))
	return out


def judge(s, gnu, test, refs, data_in):
	"""Problems of result TEST against GNU's result GNU of scenario S;
	REFS: GNU's results of variants(S) by name (racy S only); DATA_IN:
	the bytes on stdin (what every tee output gets)."""
	if test.status == ('hang',):
		return ['hang: still running after %.0f s (GNU: %s in %.1f s)' % (
			test.seconds, gnu.status, gnu.seconds)]
	if racy(s):
		return _racy(s, gnu, test, refs, data_in)
	if s.get('family') == 'lanes':
		return _lanes(s, gnu, test, data_in)
	if s.get('family') == 'shared':
		return shared.judge(s, gnu, test)
	p = []
	if test.status != gnu.status:
		p.append('status %s, GNU %s' % (test.status, gnu.status))
	short = _cut_short(s, gnu) or _cut_short(s, test)
	if test.stderr != gnu.stderr and not (short and _killed_alike(gnu, test)):
		p.append('stderr %r, GNU %r' % (test.stderr[:600], gnu.stderr[:600]))
	for name in sorted(set(gnu.streams) | set(test.streams) | set(gnu.files) | set(test.files)):
		g, t = _get(gnu, name), _get(test, name)
		if g == t:
			continue
		if g is None or t is None:
			p.append('%s: %s, GNU %s' % (name, _len(t), _len(g)))
		elif _appended_twice(s, name):
			cut = s['fsize'] is not None and len(g) >= s['fsize']
			if len(g) != len(t) or (not cut and
			    collections.Counter(g) != collections.Counter(t)):
				p.append('%s (tee -a twice): %d bytes, GNU %d' % (name, len(t), len(g)))
		elif short and _is_tee_output(s, name):
			p += _prefix(name, s, g, t, _expected(s, name, data_in))
		else:
			p.append('%s: %s' % (name, _differ(t, g)))
	p += _pipe_size(s, gnu, test)
	return p


def _racy(s, gnu, test, refs, data_in):
	p = []
	outcomes = [gnu] + list(refs.values())
	statuses = {r.status for r in outcomes}
	lines = set()
	for r in outcomes:
		lines |= set(r.stderr.splitlines())
	if s['stdout'].get('nonblock'):
		statuses.add(('exit', 1))
		lines |= _stdout_errors(s['cmd'], 'Resource temporarily unavailable')
	if s['stdout']['kind'] in SOCKETS and s['stdout'].get('drain') == 'close':
		# A reader that leaves unread bytes behind: ECONNRESET, not
		# EPIPE; a datagram socket's gone peer: ECONNREFUSED.
		statuses |= {('exit', 1), ('signal', 13)}
		for e in ('Connection reset by peer', 'Broken pipe', 'Connection refused'):
			lines |= _stdout_errors(s['cmd'], e)
	if test.status not in statuses:
		p.append('status %s, GNU gives %s' % (test.status, sorted(statuses)))
	for line in test.stderr.splitlines():
		if line not in lines:
			p.append('stderr line %r, GNU prints only %r' % (line, sorted(lines)))
	full = refs['full']
	for name in sorted(set(gnu.files) - set(test.files)):
		p.append('%s: absent, GNU %d bytes' % (name, len(gnu.files[name])))
	for name in sorted(set(test.streams) | set(test.files)):
		t = _get(test, name)
		if t in (_get(gnu, name), _get(full, name)):
			continue
		if s['cmd'] == 'tee' and _is_tee_output(s, name):
			exp = _expected(s, name, data_in)
		elif name == 'stdout':
			exp = full.streams.get('stdout', b'')
		else:
			exp = _get(full, name)
		if exp is None or _appended_twice(s, name):
			continue
		if not exp.startswith(t):
			p.append('%s: not a prefix of the full stream: %s' % (name, _differ(t, exp)))
	return p


def _get(r, name):
	if name in r.streams:
		return r.streams[name]
	return r.files.get(name)


def _len(b):
	return 'absent' if b is None else '%d bytes' % len(b)


def _differ(t, g):
	"""Where T first differs from G, in words."""
	n = 0
	while n < min(len(t), len(g)) and t[n] == g[n]:
		n += 1
	if n == len(t) == len(g):
		return 'equal'
	return '%d bytes, GNU %d; first difference at byte %d: %r vs GNU %r' % (
		len(t), len(g), n, t[n:n + 16], g[n:n + 16])


def _prefix(name, s, g, t, exp):
	p = []
	if not exp.startswith(t):
		p.append('%s: not a prefix of its stream: %s' % (name, _differ(t, exp)))
	if not g and t and s['fsize'] is None and '/dev/full' in _outputs(s):
		p.append('%s: %d bytes where GNU leaves it empty' % (name, len(t)))
	return p


def _killed_alike(gnu, test):
	"""Both killed by one signal mid-stream (SIGXFSZ at a size, SIGPIPE),
	the messages of one run all among the other's: how far a tee got
	before it died hangs on its chunk size."""
	if gnu.status != test.status or gnu.status[0] != 'signal':
		return False
	g, t = set(gnu.stderr.splitlines()), set(test.stderr.splitlines())
	return g <= t or t <= g


def _cut_short(s, r):
	"""Whether tee stopped before the end of its input."""
	if s['cmd'] != 'tee' or r.status == ('exit', 0):
		return False
	if r.status[0] == 'signal':
		return True
	return any(a.startswith('--output-error=exit') for a in s['args'])


def _operands(s):
	"""tee's file operands, as the strings given."""
	args, out, opts = s['args'], [], True
	for a in args:
		if opts and a == '--':
			opts = False
		elif opts and a.startswith('-') and a != '-':
			continue
		else:
			out.append(a)
	return out


def _outputs(s):
	return _operands(s) + (['/dev/full'] if s['stdout']['kind'] == 'full' else [])


def _is_tee_output(s, name):
	return name == 'stdout' or name == 'out' or name in _operands(s)


def _appending(s):
	return any(a in ('-a', '--append') for a in s['args'])


def _appended_twice(s, name):
	return s['cmd'] == 'tee' and _appending(s) and _operands(s).count(name) > 1


def _expected(s, name, data_in):
	"""All that tee output NAME would get: what it kept, then stdin."""
	if name in ('stdout', 'out') and name not in _operands(s):
		o = s['stdout']
		base = b''
		if o['kind'] == 'append':
			base = data.make(o['prefill'])
		return base + data_in
	base = b''
	if _appending(s):
		for n, kind, spec in s['files']:
			if n == name and kind == 'data' and spec:
					base = data.make(spec)
	return base + data_in


def _pipe_size(s, gnu, test):
	"""GNU never resizes its input pipe; seen once stdin has been fed
	more than a pipe holds."""
	i = s['stdin']
	if i['kind'] != 'pipe' or i['data']['size'] <= 4 * 65536:
		return []
	if gnu.stdin_pipe_size is None or test.stdin_pipe_size is None:
		return []
	if gnu.stdin_pipe_size != test.stdin_pipe_size:
		return ['stdin pipe resized to %d (GNU leaves it %d)' % (
			test.stdin_pipe_size, gnu.stdin_pipe_size)]
	return []


MIB = 1 << 20
# An error on a lane is told when the fan-out's thread next serves that
# output: up to a lane and the chunk pipe (1.5 MiB, tee.1) and a chunk
# after the offset where it happened.
WINDOW = 2 * MIB
# More than the biggest chunk of GNU's (8 KiB) and of tee's (512 KiB):
# two failures this far apart are in chunks of their own.
CHUNK = MIB
PIPE = 65536		# what a FIFO or stdout pipe of the scenario holds
_MESSAGE = re.compile(rb"^tee: (.*): ([^:]*)$")


def _lanes(s, gnu, test, data_in):
	"""Problems of TEST against GNU in the lanes family."""
	p = []
	if test.status != gnu.status:
		p.append('status %s, GNU %s' % (test.status, gnu.status))
	killed = 'signal' in (gnu.status[0], test.status[0])
	for name in sorted(set(gnu.streams) | set(test.streams) | set(gnu.files) | set(test.files)):
		g, t = _get(gnu, name), _get(test, name)
		if g == t:
			continue
		if g is None or t is None:
			p.append('%s: %s, GNU %s' % (name, _len(t), _len(g)))
		elif killed and _is_tee_output(s, name):
			exp = _expected(s, name, data_in)
			if not exp.startswith(t):
				p.append('%s: not a prefix of its stream: %s' % (name, _differ(t, exp)))
		else:
			p.append('%s: %s' % (name, _differ(t, g)))
	return p + _lanes_stderr(s, gnu, test, killed) + _pipe_size(s, gnu, test)


def _lanes_stderr(s, gnu, test, killed):
	"""TEST's messages against GNU's.  GNU serves each chunk to every
	output in operand order before the next chunk: of two outputs that
	fail, the one that failed at a lower offset and comes first among
	the operands (standard output first) is told first, and so is one
	that failed more than WINDOW earlier.  An output that cannot be
	opened is told before any data moves.  When a signal ended the run,
	GNU has told every failure before the one that raised it, in chunks
	before (or in the same chunk, by an output before it); the others
	it may or may not have told."""
	p = []
	g_lines, t_lines = gnu.stderr.splitlines(), test.stderr.splitlines()
	if not killed:
		g, t = collections.Counter(g_lines), collections.Counter(t_lines)
		p += ['stderr: no %r, as GNU has' % x for x in sorted(g - t)]
		p += ['stderr: %r, which GNU has not' % x for x in sorted(t - g)]
	else:
		lo, killer = _kill_point(s, test if test.status[0] == 'signal' else gnu)
		g_at = _failures(s, gnu)
		t_names = [_name(x) for x in t_lines if _name(x) is not None]
		for x in g_lines:
			f = g_at.get(_name(x))
			if f is None or x in t_lines:
				continue
			op, f_lo, f_hi = f
			if f_hi + CHUNK < lo or (f_hi <= lo and killer is not None and op < killer):
				p.append('stderr: no %r, which GNU tells before the signal ends it' % x)
		g_by = {_name(x): x for x in g_lines}
		for x in t_lines:
			n = _name(x)
			if x in g_lines:
				continue
			if n not in _failures(s, test) or (n in g_by and g_by[n] != x):
				p.append('stderr: %r, which GNU has not' % x)
		if len(set(t_names)) < len(t_names):
			p.append('stderr: an output told twice: %r' % test.stderr[:600])
	return p + _order(s, test, t_lines)


def _order(s, r, lines):
	"""Pairs of LINES (of result R) told in an order GNU never gives."""
	at = _failures(s, r)
	known = [(x, at[_name(x)]) for x in lines if _name(x) in at]
	for i, (x, (xop, xlo, _)) in enumerate(known):
		for y, (yop, _, yhi) in known[i + 1:]:
			# Y was told after X: wrong if Y failed no later and comes
			# first, or failed far earlier.
			if (yop < xop and yhi <= xlo) or yhi + WINDOW < xlo:
				return ['stderr order: %r before %r; GNU tells %s first (%s)' % (
					x, y, _name(y).decode(errors='replace'),
					'an operand before it, failed no later' if yop < xop else
					'failed more than %d MiB earlier' % (WINDOW // MIB))]
	return []


def _name(line):
	"""The output a message of tee names (its operand, 'standard
	output' for stdout), or None."""
	m = _MESSAGE.match(line)
	if m is None:
		return None
	n = m.group(1)
	return b'standard output' if n in (b"'standard output'", b'standard output') else n


def _failures(s, r):
	"""Where each output of S that can fail did, in R, by the name its
	messages give it: (position, lo, hi): position -1 for standard
	output, else its operand's; the offset of the first byte it did not
	take is in [lo, hi], -inf for a path that cannot be opened."""
	out = {}
	o = s['stdout']
	ops = [(-1, b'standard output', o['kind'], o)]
	plans = {name: spec for name, kind, spec in s['files'] if kind == 'fifo'}
	for i, a in enumerate(_operands(s)):
		kind = 'fifo' if a in plans else 'full' if a == '/dev/full' else 'file'
		ops.append((i, a.encode(), kind, plans.get(a)))
	for i, name, kind, plan in ops:
		if name == b'nodir/x':
			out[name] = (i, float('-inf'), float('-inf'))
		elif kind == 'full':
			out[name] = (i, 0, 0)
		elif kind in ('pipe', 'fifo') and plan.get('k'):
			out[name] = (i, plan['k'], plan['k'] + PIPE)
		elif kind == 'file':
			b = r.files.get('out' if i == -1 else name.decode())
			if b is not None:
				out[name] = (i, len(b), len(b))
	return out


def _kill_point(s, r):
	"""Where the signal that ended R was raised: the lowest offset it
	can have been, and the position of the output that raised it (None
	if that hangs on timing)."""
	if r.status == ('signal', signal.SIGPIPE):
		# The readers that leave.
		plans = {name: spec for name, kind, spec in s['files'] if kind == 'fifo'}
		at = sorted((plans[a]['k'], i) for i, a in enumerate(_operands(s))
			if a in plans and plans[a].get('k'))
		if s['stdout'].get('drain') == 'paced' and s['stdout'].get('k'):
			at.insert(0, (s['stdout']['k'], -1))
			at.sort()
		if not at:
			return 0, None
		return at[0][0], at[0][1] if len(at) == 1 else None
	if r.status == ('signal', signal.SIGXFSZ) and s['fsize'] is not None:
		# The first regular file that reaches the limit, not stopped
		# before by its tmpfs.
		limits = {name + '/f': spec['size'] for name, kind, spec in s['files']
			if kind == 'tmpfs'}
		regular = ([-1] if s['stdout']['kind'] == 'file' else []) + [
			i for i, a in enumerate(_operands(s)) if a.startswith('new') or (
				a in limits and limits[a] >= s['fsize'])]
		return s['fsize'], min(regular) if regular else None
	return 0, None
