"""The bytes of a data spec: {'style': STYLE, 'size': N, 'seed': S}.

The same spec always gives the same bytes, so a scenario names its data
by spec and both runs, and a replay, make it again.  Text styles are made
as one block of at most 64 KiB and tiled: long inputs still cross every
buffer boundary with lines of every shape, at C speed.

Style 'tiled' (not among STYLES: the shared family's) is random bytes,
a block of a prime length (no buffer or page size divides it) tiled,
so that hundreds of MiB are made at C speed; with 'class': C, every byte
is in [64 C, 64 C + 63] (a byte's class is its top two bits), so that
the bytes of several writers into one pipe can be told apart.
"""

import functools
import random

STYLES = ('binary', 'text', 'tabs', 'crlf', 'cr', 'blank', 'high', 'nul',
	'longline', 'mixed')

BLOCK = 1 << 16
TILE = 1048573		# a prime below 1 MiB


def make(spec):
	"""Return the bytes SPEC describes."""
	size, style = spec['size'], spec['style']
	if style == 'tiled':
		return _tiled(size, spec['seed'], spec.get('class'))
	rng = random.Random('data:%s' % spec['seed'])
	if style == 'binary':
		return rng.randbytes(size)
	block = _block(rng, style, min(size, BLOCK))
	if not block:
		return b''
	n, rest = divmod(size, len(block))
	return block * n + block[:rest]


def forget():
	"""Let the tiled data kept go: its scenario is judged."""
	_tiled.cache_clear()


def in_class(b, c):
	"""B with each byte moved into class C (its low six bits kept)."""
	return b.translate(bytes((x & 63) | c << 6 for x in range(256)))


@functools.lru_cache(maxsize=12)
def _tiled(size, seed, c):
	"""Kept (till forget): a scenario's run, its reference run and its
	verdict ask for the same hundred MiB."""
	block = random.Random('data:%s' % seed).randbytes(min(size, TILE))
	if c is not None:
		block = in_class(block, c)
	if not block:
		return b''
	n, rest = divmod(size, len(block))
	return block * n + block[:rest]


def _block(rng, style, size):
	"""A block of SIZE bytes of STYLE, built from lines."""
	out = bytearray()
	while len(out) < size:
		out += _line(rng, style)
	return bytes(out[:size])


def _line(rng, style):
	"""One line (or run of lines) of STYLE, with its end."""
	if style == 'mixed':
		style = rng.choice(STYLES[1:-1])
	word = bytes(rng.choice(b'abcdefghij klm') for _ in range(rng.randint(0, 40)))
	if style == 'text':
		return word + b'\n'
	if style == 'tabs':
		return word.replace(b' ', b'\t') + rng.choice([b'\t\n', b'\n', b'\t\t'])
	if style == 'crlf':
		return word + rng.choice([b'\r\n', b'\r\n', b'\r', b'\n'])
	if style == 'cr':
		return word + b'\r'
	if style == 'blank':
		return word + b'\n' * rng.choice([1, 1, 2, 3, 5, 20])
	if style == 'high':
		return bytes(rng.choice([rng.randint(128, 255), rng.randint(0, 31), 127, 32])
			for _ in range(rng.randint(0, 30))) + b'\n'
	if style == 'nul':
		return word.replace(b' ', b'\0') + rng.choice([b'\0', b'\n', b'\0\n'])
	if style == 'longline':
		return word * 50
	raise ValueError(style)
