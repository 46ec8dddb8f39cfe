"""A scenario as words (summary) and as a bash reproducer (shell).

The reproducer makes the scenario's directory with `run.py --files`,
then runs the command line with standard tools (prlimit, env, head,
python3 for O_NONBLOCK and lseek) once with GNU and once with the
programs under test, each in a directory of its own, and compares the
two with diff -rq; sockets are made by sockrun.py.  What the shell cannot
say exactly (a pipe fed in chunks with pauses, a reader's drain sizes)
becomes a plain pipe, named in a comment: `run.py --replay` reruns the
exact scenario.
"""

import os
import shlex

import verdict


def summary(s):
	"""One line: the command (its arguments cut at 100 characters) and
	its descriptors."""
	args = ' '.join(s['args'])
	if len(args) > 100:
		args = args[:100] + '...'
	return '%s %s <%s >%s' % (s['cmd'], args, s['stdin']['kind'], s['stdout']['kind'])


def shell(s, bindir, ref, tool):
	"""The bash script that reproduces S; TOOL: the path of run.py."""
	notes = []
	sockrun = os.path.join(os.path.dirname(tool), 'sockrun.py')
	pre, cmd, post = _stdin(s, notes), _command(s, sockrun), _stdout(s, notes)
	where = 1 if pre else 0
	line = ' | '.join(x for x in (pre, cmd + post[0], post[1]) if x)
	lines = ['#!/bin/bash',
		'# sluice-diff seed %d index %d: %s' % (s['seed'], s['index'], summary(s))]
	lines += ['# approximated: ' + n for n in notes]
	if verdict.racy(s):
		lines.append('# racy: outputs are judged as prefixes, status and stderr as GNU can give them')
	lines += ['one() {	# one DIR BINDIR: the scenario in a fresh DIR, with the programs in BINDIR',
		'	mkdir "$1" && cd "$1" &&',
		'	python3 %s --files %d:%d . || return' % (shlex.quote(tool), s['seed'], s['index'])]
	if s['stdin']['kind'] == 'fifo':
		lines.append('	mkfifo stdin.fifo && { cat stdin.data >stdin.fifo & }')
	lines += ['	' + line,
		'	echo "status ${PIPESTATUS[%d]}" >status	# 128+N: killed by signal N' % where,
		'	rm -f stdin.data stdin.fifo',
		'}',
		'top=$(mktemp -d) && cd "$top" || exit 1',
		'(one gnu %s); (one test %s)' % (shlex.quote(ref), shlex.quote(bindir)),
		'diff -rq gnu test && echo "the same"; cat gnu/status test/status; echo "in $top"']
	return '\n'.join(lines)


def _stdin(s, notes):
	"""What goes before the command in the pipeline."""
	i = s['stdin']
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
	if o['kind'] in verdict.SOCKETS:
		sock.append('--stdout %s:%d:%d:stdout.got' % (o['kind'], o.get('bufsize', 1 << 20),
			o['k'] if o['drain'] == 'close' else 0))
	if sock:
		inner = 'python3 %s %s -- %s' % (shlex.quote(sockrun), ' '.join(sock), inner)
	redir += {'file': ' >out', 'append': ' >>out', 'null': ' >/dev/null',
		'full': ' >/dev/full', 'closed': ' >&-'}.get(o['kind'], '')
	redir += ' 2>err' if s['stderr'] == 'pipe' else ' 2>&-'
	return inner + redir


def _stdout(s, notes):
	"""(what follows the command's redirections, the reader after it)."""
	o = s['stdout']
	k = o['kind']
	if k not in ('pipe', 'broken'):
		return ('', '')
	if k == 'broken':
		notes.append('stdout is a pipe whose reader is gone before the start: here one that exits at once')
		return ('', 'true')
	if o.get('small'):
		notes.append('the stdout pipe is shrunk to 4 KiB: not here')
	if o['drain'] == 'close':
		return ('', 'head -c %d >stdout.got' % o['k'])
	if o['drain'] != 'all':
		notes.append('stdout is drained %s: here by cat' % o['drain'])
	return ('', 'cat >stdout.got')
