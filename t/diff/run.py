#!/usr/bin/env python3
"""The differential scenario test: random scenarios, each run with GNU's
yes, tee and cat (the reference) and with the ones under test, in
identical fresh directories; every divergence is printed with its seed
and index and the command that replays it.  See t/README.

	run.py [--seconds N | --count N] [--seed N] [--bin DIR]
	run.py --replay SEED:INDEX [--bin DIR]	the scenario as shell, and its verdict
	run.py --self-test			GNU against GNU, and planted defects
"""

import argparse
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import data		# noqa: E402
import execute		# noqa: E402
import known		# noqa: E402
import reproducer	# noqa: E402
import scenario		# noqa: E402
import sharedrun	# noqa: E402
import verdict		# noqa: E402

GNU = '/usr/bin'


def normalise(err, cmd):
	"""STDERR with the program's name as plain CMD, whatever path ran."""
	err = re.sub(rb'(?m)^(\S*/)?' + cmd.encode() + rb': ', cmd.encode() + b': ', err)
	return re.sub(rb"Try '(\S*/)?" + cmd.encode() + rb" ", b"Try '" + cmd.encode() + b" ", err)


def run_one(s, bindir, root, timeout, ref=GNU):
	"""Run S with the program in BINDIR in a fresh directory under ROOT
	(the shared family's other writers, GNU's, from REF)."""
	d = tempfile.mkdtemp(dir=root)
	try:
		execute.materialise(s, d)
		if s['family'] == 'shared':
			r = sharedrun.run(s, os.path.join(bindir, s['cmd']), ref, d, timeout)
		else:
			r = execute.run(s, os.path.join(bindir, s['cmd']), d, timeout)
		r.stderr = normalise(r.stderr, s['cmd'])
		return r
	finally:
		execute.unmount(s, d)
		shutil.rmtree(d, ignore_errors=True)


def deadline(gnu, timeout):
	"""How long the program under test may run where GNU ran GNU.seconds:
	a hang is told from a slow run well before TIMEOUT, the most."""
	return min(timeout, 10 + 4 * gnu.seconds)


def stdin_bytes(s):
	i = s['stdin']
	return data.make(i['data']) if 'data' in i else b''


def check(s, bindir, ref, root, timeout):
	"""Run S both ways; return (outcome, problems, threads): outcome is
	'ok', 'divergence', 'known', 'allowed' or 'gnu-hang'; threads the
	most the program under test was seen to run."""
	g = run_one(s, ref, root, timeout, ref)
	if g.status == ('hang',):
		return 'gnu-hang', ['GNU still running at the deadline'], 0
	t = run_one(s, bindir, root, deadline(g, timeout), ref)
	refs = {}
	if verdict.racy(s):
		refs = {name: run_one(v, ref, root, timeout) for name, v in verdict.variants(s)}
	problems = verdict.judge(s, g, t, refs, stdin_bytes(s))
	data.forget()
	if not problems:
		return 'ok', [], t.threads
	outcome, label = known.classify(s, problems)
	if label:
		problems = ['(%s) ' % label + p for p in problems]
	return outcome, problems, t.threads


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	ap.add_argument('--seconds', type=float, default=60)
	ap.add_argument('--count', type=int)
	ap.add_argument('--seed', type=int)
	ap.add_argument('--start', type=int, default=0, help='first index')
	ap.add_argument('--bin', default='build', help='the programs under test')
	ap.add_argument('--ref', default=GNU, help='the reference programs')
	ap.add_argument('--tools', default=execute.TOOLS,
		help="where t/sandbox.c and t/inject/ are built (the sandbox family's)")
	ap.add_argument('--timeout', type=float, default=30, help='seconds a run may take')
	ap.add_argument('--replay', metavar='SEED:INDEX')
	ap.add_argument('--files', nargs=2, metavar=('SEED:INDEX', 'DIR'),
		help="make the scenario's files in DIR, and stdin.data")
	ap.add_argument('--self-test', action='store_true')
	ap.add_argument('--only', help='draw only scenarios of this command')
	ap.add_argument('--family', choices=['mixed'] + list(scenario.FAMILIES),
		help='draw only scenarios of this family')
	a = ap.parse_args()
	for fd in (0, 1, 2):
		try:
			os.fstat(fd)
		except OSError:
			os.open(os.devnull, os.O_RDWR)
	bindir = os.path.abspath(a.bin)
	execute.TOOLS = os.path.abspath(a.tools)
	if a.files:
		s = scenario.draw(*(int(x) for x in a.files[0].split(':')))
		execute.materialise(s, a.files[1])
		with open(os.path.join(a.files[1], 'stdin.data'), 'wb') as f:
			f.write(stdin_bytes(s))
		return 0
	root = tempfile.mkdtemp(prefix='spate-diff.')
	execute.private_mounts()
	try:
		if a.self_test:
			import selftest
			return selftest.main(a.ref, root)
		if a.replay:
			return replay(a, bindir, root)
		return explore(a, bindir, root)
	finally:
		shutil.rmtree(root, ignore_errors=True)


def replay(a, bindir, root):
	seed, index = (int(x) for x in a.replay.split(':'))
	s = scenario.draw(seed, index)
	print(reproducer.shell(s, bindir, a.ref, os.path.abspath(__file__)))
	outcome, problems, threads = check(s, bindir, a.ref, root, a.timeout)
	print('# verdict: %s (%s ran %d threads at the most)' % (outcome, s['cmd'], threads))
	for p in problems:
		print('#   ' + p)
	return 0 if outcome in ('ok', 'allowed', 'known') else 1


def explore(a, bindir, root, out=sys.stdout):
	"""Draw and check scenarios for a while; print each divergence and a
	summary; return 1 if any divergence was new."""
	seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), 'big')
	nobox = execute.sandbox_missing()
	print('spate-diff: seed %d, %s against %s, %s%s%s' % (seed, bindir, a.ref,
		'%d scenarios' % a.count if a.count else '%g s' % a.seconds,
		'' if execute.MOUNTS else ' (no mount namespace of its own: the lanes '
		'family\'s small tmpfs are plain directories)',
		' (no sandbox family: %s)' % nobox if nobox else ''), file=out, flush=True)
	counts = {'ok': 0, 'divergence': 0, 'known': 0, 'allowed': 0, 'gnu-hang': 0, 'error': 0}
	families = {f: [0, 0, 0.0] for f in ['mixed'] + list(scenario.FAMILIES)}
	start = time.monotonic()
	index = a.start
	n = 0
	while (n < a.count) if a.count else (time.monotonic() - start < a.seconds):
		s = scenario.draw(seed, index)
		index += 1
		if (a.only and s['cmd'] != a.only) or (a.family and s['family'] != a.family):
			continue
		if nobox and s['family'] == 'sandbox':
			continue
		n += 1
		t0 = time.monotonic()
		try:
			outcome, problems, threads = check(s, bindir, a.ref, root, a.timeout)
		except OSError as e:
			# The machine's, not the program's: a full disk, no fds.
			outcome, problems, threads = 'error', ['the test itself failed: %s' % e], 0
		counts[outcome] += 1
		f = families[s['family']]
		f[0] += 1
		f[1] += threads > 1
		f[2] += time.monotonic() - t0
		if outcome != 'ok':
			print('%s seed=%d index=%d: %s' % (outcome.upper(), seed, s['index'],
				reproducer.summary(s)), file=out)
			for p in problems:
				print('    ' + p, file=out)
			print('    replay: t/diff/run.py --replay %d:%d --bin %s' % (seed, s['index'], a.bin),
				file=out, flush=True)
	print('spate-diff: seed %d: %d scenarios in %.0f s: %d divergences, %d known, '
		'%d allowed, %d where GNU hung, %d errors' % (seed, n, time.monotonic() - start,
		counts['divergence'], counts['known'], counts['allowed'], counts['gnu-hang'],
		counts['error']), file=out, flush=True)
	print('spate-diff: by family: %s' % ', '.join('%s %d in %.0f s (threads in %d)' % (
		name, f[0], f[2], f[1]) for name, f in families.items()), file=out, flush=True)
	return 1 if counts['divergence'] or counts['gnu-hang'] or counts['error'] else 0


if __name__ == '__main__':
	sys.exit(main())
