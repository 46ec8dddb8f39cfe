#!/bin/sh
# Whether a seccomp filter is in force, as tee's --lag shows it: refused
# under a filter (it needs a thread an output), with a message naming
# SPATE_SECCOMP, before any file is opened; made under a filter with
# SPATE_SECCOMP=trust, and without one.  The status file is read whole:
# 400 supplementary groups (an LDAP or AD user's) put its Seccomp line
# past 2 KiB.  Without /proc (unshare -m, /proc unmounted), prctl(2)
# tells: no filter is assumed where none is, and a filter is seen where
# one is.  The filters are t/callfilter.c's (acct refused, a harmless
# one as every container has).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-calls.sh"
test_require_prereq GNU

IN=$TRASH/in
HARMLESS="$CALLFILTER -e $(call_numbers acct) --"

# GROUPS400: root can give a process 400 supplementary groups.
test_lazy_prereq GROUPS400 '
	test_have_prereq ROOT &&
	setpriv --groups="$(seq -s, 20000 20399)" -- true
'

# UNFILTERED: this test runs under no seccomp filter (not in a
# container): a command it starts has none unless a case puts one.
test_lazy_prereq UNFILTERED '
	grep -q "^Seccomp:[[:space:]]*0" /proc/self/status
'

# NOPROC: root can run a process with /proc unmounted, in a mount
# namespace of its own; natively (qemu-user finds its program there).
test_lazy_prereq NOPROC '
	test_have_prereq ROOT,NATIVE &&
	unshare -m sh -c "umount -l /proc && test ! -e /proc/self/status"
'

test_expect_success 'setup: an input' '
	seq 1 200000 >"$IN"
'

# lag_run [WRAP...]: tee --lag=1M f1 f2 <in >out under WRAP; its status
# in st, its stderr in err.
lag_run() {
	rm -f f1 f2 out st err
	"$@" "$BIN_DIR/tee" --lag=1M --slow-output=wait f1 f2 <"$IN" >out 2>err
	echo $? >st
}

# lag_made: the run made the copy, whole, and said nothing.
lag_made() {
	test_cmp "$IN" out && test_cmp "$IN" f1 && test_cmp "$IN" f2 &&
	test_must_be_empty err && echo 0 >expect && test_cmp expect st
}

# lag_refused: the run refused, status 1, naming SPATE_SECCOMP, and
# opened no file.
lag_refused() {
	grep -q "SPATE_SECCOMP=trust" err && echo 1 >expect &&
	test_cmp expect st && test ! -e f1 && test ! -e f2 &&
	test_must_be_empty out
}

if test_have_prereq UNFILTERED; then
	test_expect_success SPATE 'no filter: --lag made' '
		lag_run env &&
		lag_made
	'
else
	test_expect_success SPATE 'the filter this test runs under: refused' '
		lag_run env &&
		lag_refused
	'
fi

test_expect_success SPATE,CALLFILTER 'a harmless filter: --lag refused' '
	lag_run $HARMLESS &&
	lag_refused
'

test_expect_success SPATE,CALLFILTER 'SPATE_SECCOMP=trust: --lag made' '
	lag_run env SPATE_SECCOMP=trust $HARMLESS &&
	lag_made
'

test_expect_success SPATE,CALLFILTER 'SPATE_SECCOMP other than trust' '
	lag_run env SPATE_SECCOMP=yes $HARMLESS &&
	lag_refused
'

test_expect_success SPATE,CALLFILTER,GROUPS400 \
	'400 groups, a filter: the Seccomp line found past them' '
	lag_run setpriv --groups="$(seq -s, 20000 20399)" -- $HARMLESS &&
	lag_refused
'

test_expect_success SPATE,GROUPS400,UNFILTERED \
	'400 groups, no filter: none assumed' '
	lag_run setpriv --groups="$(seq -s, 20000 20399)" -- &&
	lag_made
'

# noproc CMD...: run CMD with 400 groups in a mount namespace whose /proc
# is unmounted.
noproc() {
	unshare -m sh -c 'umount -l /proc && exec "$@"' sh \
		setpriv --groups="$(seq -s, 20000 20399)" -- "$@"
}

# The sanitizer build's runtime needs /proc (its leak check reads the
# threads there): no such case in it (a skip would fail SPATE_NO_SKIP).
if test_have_prereq PLAIN_BUILD; then
	test_expect_success SPATE,NOPROC,GROUPS400,UNFILTERED \
		'no /proc, 400 groups, no filter: none assumed' '
		lag_run noproc &&
		lag_made
	'

	test_expect_success SPATE,NOPROC,GROUPS400,CALLFILTER \
		'no /proc, 400 groups, a filter: prctl(2) tells' '
		lag_run noproc $HARMLESS &&
		lag_refused
	'

	test_expect_success SPATE,NOPROC,GROUPS400 \
		'no /proc: cat, tee and yes whole' '
		noproc "$BIN_DIR/cat" "$IN" >out &&
		test_cmp "$IN" out &&
		noproc "$BIN_DIR/tee" f1 <"$IN" >out &&
		test_cmp "$IN" out && test_cmp "$IN" f1 &&
		{ noproc "$BIN_DIR/yes" || :; } | head -c 100000 >out &&
		{ $GNU_YES || :; } | head -c 100000 >expect &&
		test_cmp expect out
	'
fi

test_done
