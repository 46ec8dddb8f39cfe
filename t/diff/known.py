"""Divergences that are understood: deliberate differences (ALLOWED) and
known defects (KNOWN), each with its reason.  A divergence all of whose
problems one entry matches is counted and printed under that entry's
label but does not fail the run.  A KNOWN entry goes once its defect is
fixed; an ALLOWED one is documented where the user reads it.
"""

ALLOWED = []

KNOWN = []


def classify(s, problems):
	"""('allowed' or 'known' or 'divergence', label) for PROBLEMS of S."""
	for kind, table in (('allowed', ALLOWED), ('known', KNOWN)):
		for label, reason, match in table:
			if all(match(s, p) for p in problems):
				return kind, label
	return 'divergence', None
