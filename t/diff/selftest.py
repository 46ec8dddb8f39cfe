"""The test's test: GNU against GNU finds nothing, and each planted
defect is found.  The plants are bash wrappers around GNU's programs,
made in a scratch directory: each misbehaves in one way, and everything
else they do is GNU's.

A plant is found when one of the first LIMIT scenarios of its command
(and family, if it names one) (seed SEED) diverges with a problem its
signature matches (so a wrapper's own artefact does not count); GNU
against GNU must report none
over the first GG scenarios, nor over the first GG_FAMILY of each family
but the mixed one (rare among the first GG).
"""

import io
import os
import re
import types

SEED = 1
LIMIT = 400
GG = 40
GG_FAMILY = 6

# A wrapper that runs GNU in a subshell dies, after it, of the signal GNU
# died of, as GNU would have.
DIE = 'test $st -gt 128 && kill -s $((st - 128)) $$\n'

# name, command, signature (a regular expression a problem matches),
# body (bash; "$GNU" is GNU's program)[, the family it is sought in].
PLANTS = [
	('cat that drops the last byte of large inputs', 'cat', r'^out: ', r'''
(exec -a cat "$GNU" "$@"); st=$?
out=$(readlink /proc/$$/fd/1)
if test -f "$out" && test "$(stat -c %s "$out")" -gt 65536; then
	truncate -s -1 "$out"
fi
''' + DIE + 'exit $st\n'),
	('tee that exits 0 after a write error', 'tee', r"^status \('exit', 0\), GNU \('exit', 1\)", r'''
(exec -a tee "$GNU" "$@"); st=$?
test $st = 1 && st=0
''' + DIE + 'exit $st\n'),
	('tee that serves its outputs in reverse order', 'tee', r'', r'''
opts=() files=()
for a in "$@"; do
	case $a in -?*) opts+=("$a") ;; *) files=("$a" "${files[@]}") ;; esac
done
exec -a tee "$GNU" "${opts[@]}" "${files[@]}"
'''),
	('cat that never ends when its input is a socket', 'cat', r'^hang: ', r'''
test -S /dev/stdin && exec sleep 3600
exec -a cat "$GNU" "$@"
'''),
	# The lock of the pipe it splices from is held while it waits for
	# room in the socket: the feeding and draining loop's write sleeps.
	('cat that splices a pipe on stdin straight into a socket', 'cat', r'^hang: ', r'''
if { test $# = 0 || test "$*" = -; } && test -p /dev/stdin && test -S /dev/stdout; then
	exec python3 -c 'import os
while os.splice(0, 1, 1 << 20):
	pass'
fi
exec -a cat "$GNU" "$@"
'''),
	('tee that tells its errors in reverse order', 'tee', r'^stderr order: ', r'''
err=$(mktemp) || exit
(exec -a tee "$GNU" "$@" 2>"$err"); st=$?
tac "$err" >&2
rm -f "$err"
''' + DIE + 'exit $st\n'),
	# A pipe that others write too fills and empties under it: GNU
	# 9.1's tee takes EAGAIN for an error, and stops copying there.
	('tee that makes its standard output non-blocking', 'tee',
		r"^(stdout|fifo0): \d+ bytes of tee's, its stream has", r'''
test -p /dev/stdout && python3 -c 'import os; os.set_blocking(1, False)'
exec -a tee "$GNU" "$@"
''', 'shared'),
	# spate before the sandbox family: a refused call was an error.
	('cat that gives up where a call is refused', 'cat',
		r"^status \('exit', 1\), GNU \('exit', 0\)", r'''
if grep -q '^Seccomp:[[:space:]]*2' /proc/self/status || test -n "$SPATE_INJECT"
then
	echo 'cat: write error: Operation not permitted' >&2
	exit 1
fi
exec -a cat "$GNU" "$@"
''', 'sandbox'),
]


def plant(root, n, cmd, body, ref):
	"""Make the wrapper CMD in a directory of its own; return that."""
	d = os.path.join(root, 'plant%d' % n)
	os.makedirs(d, exist_ok=True)
	p = os.path.join(d, cmd)
	with open(p, 'w') as f:
		f.write('#!/bin/bash\nGNU=%s\n%s' % (os.path.join(ref, cmd), body))
	os.chmod(p, 0o755)
	return d


def main(ref, root):
	import run
	ok = True
	args = types.SimpleNamespace(seed=SEED, start=0, only=None, family=None, count=GG,
		seconds=0, bin=ref, ref=ref, timeout=30)
	out = io.StringIO()
	bad = run.explore(args, ref, root, out)
	print('%s - GNU against GNU, %d scenarios: %s' % ('not ok' if bad else 'ok', GG,
		out.getvalue().splitlines()[-2]))
	if bad:
		print(out.getvalue())
		ok = False
	import scenario
	for family in scenario.FAMILIES:
		args = types.SimpleNamespace(seed=SEED, start=0, only=None, family=family,
			count=GG_FAMILY, seconds=0, bin=ref, ref=ref, timeout=30)
		out = io.StringIO()
		bad = run.explore(args, ref, root, out)
		print('%s - GNU against GNU, %d scenarios of the %s family: %s' % (
			'not ok' if bad else 'ok', GG_FAMILY, family, out.getvalue().splitlines()[-2]))
		if bad:
			print(out.getvalue())
			ok = False
	for n, (name, cmd, sign, body, *family) in enumerate(PLANTS):
		d = plant(root, n, cmd, body, ref)
		args = types.SimpleNamespace(seed=SEED, start=0, only=cmd,
			family=family[0] if family else None, count=LIMIT, seconds=0, bin=d,
			ref=ref, timeout=10)
		found = _first(run, args, d, root, sign)
		print('%s - planted %s: %s' % ('ok' if found else 'not ok', name,
			found or 'not found in %d scenarios' % LIMIT))
		ok = ok and bool(found)
	return 0 if ok else 1


def _first(run, args, bindir, root, sign):
	"""The first scenario of ARGS.only where BINDIR diverges with a
	problem SIGN matches, as words."""
	import scenario
	n = index = 0
	while n < args.count:
		s = scenario.draw(args.seed, index)
		index += 1
		if s['cmd'] != args.only or args.family not in (None, s['family']):
			continue
		n += 1
		outcome, problems, _ = run.check(s, bindir, args.ref, root, args.timeout)
		hits = [p for p in problems if re.search(sign, p)]
		if outcome == 'divergence' and hits:
			return 'seed %d index %d (%s): %s' % (args.seed, s['index'],
				run.reproducer.summary(s), hits[0][:160])
	return None
