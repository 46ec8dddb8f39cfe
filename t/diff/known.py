"""Divergences that are understood: deliberate differences (ALLOWED) and
known defects (KNOWN), each with its reason.  A divergence all of whose
problems one entry matches is counted and printed under that entry's
label but does not fail the run.  A KNOWN entry goes once its defect is
fixed; an ALLOWED one is documented where the user reads it.
"""

FORMAT = set('AbeEnstTv')
RECORDS = ('seqpacket', 'dgram')


def _formats(s):
	"""Whether cat is given an option that transforms its output."""
	for a in s['args']:
		if a == '--':
			break
		if a.startswith('--') and a != '--':
			return True
		if a.startswith('-') and a != '-' and FORMAT & set(a[1:]):
			return True
	return False


def _record_sizes(s, problem):
	"""Other bytes on stdout; or a record too long for the socket
	(EMSGSIZE), where GNU's fit."""
	o = s['stdout']
	return (o['kind'] in RECORDS and (s['cmd'] == 'yes' or (s['cmd'] == 'cat' and _formats(s)))
		and (problem.startswith('stdout') or 'Message too long' in problem
		or problem.startswith('status')))


def _input_pipe_grown(s, problem):
	return problem.startswith('stdin pipe resized')


ALLOWED = []

KNOWN = [
	('record sizes', 'yes and formatted cat write other record sizes than GNU '
		'to a socket that keeps records apart (issue 17, item 1)', _record_sizes),
	('input pipe grown', 'cat and tee raise their input pipe to 1 MiB, GNU '
		'never resizes it (issue 17, item 5)', _input_pipe_grown),
]


def classify(s, problems):
	"""('allowed' or 'known' or 'divergence', label) for PROBLEMS of S."""
	for kind, table in (('allowed', ALLOWED), ('known', KNOWN)):
		for label, reason, match in table:
			if all(match(s, p) for p in problems):
				return kind, label
	return 'divergence', None
