"""A scenario as words (summary) and as a bash reproducer (shell).

The reproducer makes the scenario's directory with `run.py --files`,
then runs the command line with standard tools (prlimit, env, head,
python3 for O_NONBLOCK and lseek) once with GNU and once with the
programs under test, each in a directory of its own, and compares the
two with diff -rq; sockets, and the one loop that feeds stdin and drains
stdout (the feed family), are made by sockrun.py; a FIFO operand gets a
reader of its own; a tmpfs of a given size is mounted (root, in a mount
namespace of the script's own).  What the shell cannot say exactly (a
pipe fed in chunks with pauses, a reader's drain sizes and pauses)
becomes a plain pipe, named in a comment: `run.py --replay` reruns the
exact scenario.  The sandbox family's refusal is t/sandbox.c or
t/inject/ in front of the command, as execute.py puts it.  The shared family's script (_shared) starts every
writer and reader of its pipes, FIFOs held open until the writers are
done, then sorts each pipe's bytes by writer (tr -dc, by byte class)
and compares them with each writer's stream.
"""

import os
import shlex

import execute
import scenario
import shared
import verdict


def summary(s):
	"""One line: the command (its arguments cut at 100 characters) and
	its descriptors."""
	if s['family'] == 'shared':
		return shared.summary(s)
	args = ' '.join(s['args'])
	if len(args) > 100:
		args = args[:100] + '...'
	return '%s %s <%s >%s' % (s['cmd'], args, s['stdin']['kind'], s['stdout']['kind'])


def shell(s, bindir, ref, tool):
	"""The bash script that reproduces S; TOOL: the path of run.py."""
	if s['family'] == 'shared':
		return _shared(s, bindir, ref, tool)
	notes = []
	sockrun = os.path.join(os.path.dirname(tool), 'sockrun.py')
	pre, cmd, post = _stdin(s, notes), _command(s, sockrun), _stdout(s, notes)
	where = 1 if pre else 0
	line = ' | '.join(x for x in (pre, cmd + post[0], post[1]) if x)
	readers = _readers(s, notes)
	lines = ['#!/bin/bash',
		'# spate-diff seed %d index %d (%s family): %s' % (s['seed'], s['index'],
			s['family'], summary(s))]
	lines += ['# approximated: ' + n for n in notes]
	if verdict.racy(s):
		lines.append('# racy: outputs are judged as prefixes, status and stderr as GNU can give them')
	mounts = ['mount -t tmpfs -o size=%d tmpfs %s' % (spec['size'], name)
		for name, kind, spec in s['files'] if kind == 'tmpfs']
	if mounts:
		lines.append('# mounts a tmpfs: as root, run it as `unshare -m bash SCRIPT`')
	if _fed_by_loop(s):
		lines.append('# one process feeds stdin and drains stdout: a command that deadlocks it '
			'is killed after 60 s (status 137); whether it does hangs on timing, run it a few times')
	setup = ['mkdir "$1"', 'cd "$1"', 'python3 %s --files %d:%d .' % (
		shlex.quote(tool), s['seed'], s['index'])] + mounts
	lines += ['one() {	# one DIR BINDIR: the scenario in a fresh DIR, with the programs in BINDIR',
		'	' + ' &&\n\t'.join(setup) + ' || return']
	if s['stdin']['kind'] == 'fifo':
		lines.append('	mkfifo stdin.fifo && { cat stdin.data >stdin.fifo & }')
	lines += ['	' + r for r in readers]
	lines += ['	' + line,
		'	echo "status ${PIPESTATUS[%d]}" >status	# 128+N: killed by signal N' % where]
	if readers:
		# A reader whose FIFO the command never opened would wait
		# for a writer for ever: a writer that opens and closes at
		# once ends it.
		lines.append('	' + '; '.join(': <>%s' % name for name, kind, _ in s['files']
			if kind == 'fifo') + '; wait')
	lines += ['	rm -f stdin.data stdin.fifo' + ''.join(' ' + name for name, kind, _ in s['files']
			if kind == 'fifo'),
		'	test ! -f err || sed -i "s|$2/||g" err	# the name it ran by, as run.py does',
		'}',
		'top=$(mktemp -d) && cd "$top" || exit 1',
		'(one gnu %s); (one test %s)' % (shlex.quote(ref), shlex.quote(bindir)),
		'diff -rq gnu test && echo "the same"; cat gnu/status test/status; echo "in $top"']
	return '\n'.join(lines)


def _fed_by_loop(s):
	"""Whether sockrun.py feeds stdin and drains stdout in one loop."""
	return s['family'] == 'feed' and s['stdin']['kind'] == 'pipe'


def _readers(s, notes):
	"""The commands that read the FIFO operands, in the background."""
	out = []
	for name, kind, plan in s['files']:
		if kind == 'fifo':
			out.append(_reader(plan or {}, notes, name) + ' <%s >%s.got &' % (name, name))
	return out


def _reader(plan, notes, name):
	"""A command that reads stdin as PLAN says (NAME: what it reads)."""
	if plan.get('drain') == 'close':
		return 'head -c %d' % plan['k']
	if plan.get('drain') != 'paced':
		return 'cat'
	k = plan.get('k', 0)
	pauses = [x for x in plan.get('pauses', []) if not k or x[0] < k]
	stalls = [x for x in pauses if x[1] >= 1]
	if len(stalls) < len(pauses) or plan.get('read', 1 << 20) < 65536:
		notes.append('%s is read %d bytes a call, with pauses of a few ms: here by cat' % (
			name, plan['read']))
	words, done = [], 0
	for at, seconds in stalls:
		words.append('head -c %d; sleep %g;' % (at - done, seconds))
		done = at
	words.append('head -c %d' % (k - done) if k else 'cat')
	return words[0] if len(words) == 1 else '{ %s; }' % ' '.join(words)


def _stdin(s, notes):
	"""What goes before the command in the pipeline."""
	i = s['stdin']
	if _fed_by_loop(s):
		notes.append('stdin is fed in writes of up to 1 MiB, not in random chunks with pauses')
		if i.get('small'):
			notes.append('the stdin pipe is shrunk to 4 KiB: not here')
		return ''
	if i['kind'] == 'pipe':
		if i.get('pauses') or i['kind'] == 'pipe':
			notes.append('stdin is fed in random chunks with pauses: here by cat')
		if i.get('small'):
			notes.append('the stdin pipe is shrunk to 4 KiB: not here')
		return 'cat stdin.data'
	return ''


def _command(s, sockrun):
	"""The command with its limits, signals and redirections of stdin,
	stderr and (for a non-pipe stdout) stdout; in SOCKRUN for sockets."""
	words = []
	if s['fsize'] is not None:
		words.append('prlimit --fsize=%d:%d' % (s['fsize'], s['fsize']))
	words.append('env --%s-signal=PIPE --%s-signal=XFSZ' % (
		s['sigpipe'], s['sigxfsz']))
	refuse = scenario.refusal(s)
	if refuse and s['refuse']['how'] == 'inject':
		words.append('LD_PRELOAD=%s SPATE_INJECT=%s' % (shlex.quote(os.path.join(
			os.path.abspath(execute.TOOLS), 'inject.so')), shlex.quote(refuse)))
	elif refuse:
		words.append('%s -x %s --' % (shlex.quote(os.path.join(
			os.path.abspath(execute.TOOLS), 'sandbox')), refuse))
	inner = ' '.join(words + ['"$2"/' + s['cmd']] + [shlex.quote(a) for a in s['args']])
	o = s['stdout']
	if o.get('nonblock'):
		inner = ("python3 -c 'import os; os.set_blocking(1, False)' && exec " + inner)
	i = s['stdin']
	redir = {'file': ' <stdin', 'empty': ' <stdin', 'null': ' </dev/null',
		'closed': ' <&-', 'fifo': ' <stdin.fifo'}.get(i['kind'], '')
	if i['kind'] == 'file' and i.get('offset'):
		inner = ("python3 -c 'import os; os.lseek(0, %d, 0)' && exec %s" % (i['offset'], inner))
	if inner.startswith('python3'):
		inner = 'bash -c %s _ "$1" "$2"' % shlex.quote(inner)
	sock = []
	if i['kind'] == 'socket':
		sock.append('--stdin stdin.data')
	if _fed_by_loop(s):
		sock.append('--feed stdin.data')
	if o['kind'] in verdict.SOCKETS or _fed_by_loop(s):
		sock.append('--stdout %s:%d:%d:stdout.got' % (o['kind'], o.get('read',
			o.get('bufsize', 1 << 20)), o.get('k', 0) if o['drain'] in ('close', 'paced') else 0))
	if sock:
		inner = 'python3 %s %s -- %s' % (shlex.quote(sockrun), ' '.join(sock), inner)
	if _fed_by_loop(s):
		inner = 'timeout -s KILL 60 ' + inner
	redir += {'file': ' >out', 'append': ' >>out', 'null': ' >/dev/null',
		'full': ' >/dev/full', 'closed': ' >&-'}.get(o['kind'], '')
	redir += ' 2>err' if s['stderr'] == 'pipe' else ' 2>&-'
	return inner + redir


def _stdout(s, notes):
	"""(what follows the command's redirections, the reader after it)."""
	o = s['stdout']
	k = o['kind']
	if k not in ('pipe', 'broken') or _fed_by_loop(s):
		return ('', '')
	if k == 'broken':
		notes.append('stdout is a pipe whose reader is gone before the start: here one that exits at once')
		return ('', 'true')
	if o.get('small'):
		notes.append('the stdout pipe is shrunk to 4 KiB: not here')
	if o['drain'] in ('close', 'paced'):
		return ('', _reader(o, notes, 'stdout') + ' >stdout.got')
	if o['drain'] != 'all':
		notes.append('stdout is drained %s: here by cat' % o['drain'])
	return ('', 'cat >stdout.got')


# The shared family's byte classes (shared.py), as tr(1) takes them.
TR = ['\\000-\\077', '\\100-\\177', '\\200-\\277', '\\300-\\377']


def _shared(s, bindir, ref, tool):
	"""The bash script that reproduces S (TOOL: the path of run.py): each
	run in a directory of its own, then each writer's bytes sorted out
	of each pipe by class (tr -dc) and compared with its stream."""
	fifos = [name for name, _ in shared.pipes(s) if name != 'stdout']
	holds = ['stdout.pipe', 'stdin.pipe'] + fifos
	shut = ' ' + ' '.join('%d>&-' % (5 + k) for k in range(len(holds)))
	i = s['stdin']
	lines = ['#!/bin/bash',
		'# spate-diff seed %d index %d (shared family): %s' % (s['seed'], s['index'],
			shared.summary(s)),
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
	for name, _ in shared.pipes(s):
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
	for name, plan in shared.pipes(s):
		out = name + '.pipe' * (name == 'stdout')
		for w in plan['writers']:
			prog, argv = shared.argv(s, w, '"$2"', ref)
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
		'}']
	lines += _shared_check(s, ref)
	lines += ['top=$(mktemp -d) && cd "$top" || exit 1',
		'(one gnu %s); (one test %s)' % (shlex.quote(ref), shlex.quote(bindir)),
		'(check gnu); (check test)',
		'for f in gnu/*status gnu/*err; do cmp -s "$f" "test/${f#gnu/}" || '
		'echo "differ: ${f#gnu/}"; done; cat gnu/status test/status; echo "in $top"']
	return '\n'.join(lines)


def _shared_check(s, ref):
	"""The script's function check: each writer's bytes in each pipe of
	the shared scenario S, sorted out by class, against its stream."""
	i = s['stdin']
	lines = ['check() {	# check DIR: each writer\'s bytes in each pipe, by class',
		'	cd "$1" || return']
	me = 'stdin.data'
	if s['args'][:1] == ['in0']:
		me = '<(cat in0 stdin.data)'
	for name, plan in shared.pipes(s):
		lines.append("	tr -dc '%s' <%s.got >%s.%s" % (TR[shared.ME], name, name, s['cmd']))
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
	return lines + ['}']
