#!/bin/sh
# yes: every way zero-copy can fail, forced with strace's fault injection.
# A failure before any byte went out falls back to write(2) and loses
# nothing; a failure after it is a real error, reported once, and what
# went out before is an exact prefix of the stream.
#
# GNU yes never calls vmsplice, so injecting faults into it is a no-op
# there and its output must simply stay exact.  Note that strace does not
# run a call it fakes: `inject=write:retval=1` makes write(2) claim one
# byte that never reached the pipe, so the stream then lacks that byte.
. "$(dirname "$0")/test-lib.sh"

MiB=1048576

# run_inject N SPEC ARG...: run `yes ARG...` under strace with the
# faults SPEC (inject= specs separated by spaces); the first N bytes of
# its output go to actual, its stderr to err, its status to status.
run_inject() {
	n=$1
	spec=$2
	shift 2
	{
		env --default-signal=PIPE strace -f -qq -o /dev/null \
			$(for s in $spec; do printf " -e inject=%s" "$s"; done) \
			yes "$@" 2>err
		echo $? >status
	} | head -c "$n" >actual
}

# check_stream N ARG...: actual is the first N bytes of `yes ARG...`,
# yes said nothing and was stopped by SIGPIPE.
check_stream() {
	n=$1
	shift
	yes_ref "$@" | head -c "$n" >expect &&
	cmp expect actual &&
	test_must_be_empty err &&
	sigpipe_code >expect.status &&
	test_cmp expect.status status
}

# check_exact SPEC: under the faults SPEC, yes still gives exactly its
# stream, for short and long lines.
check_exact() {
	w=$(yes_ref abcdefghijklmnopqrstuvwxyz | head -c 131071 | tr -d "\n")
	run_inject $((3 * MiB + 7)) "$1" &&
	check_stream $((3 * MiB + 7)) &&
	run_inject $((3 * MiB + 7)) "$1" "" &&
	check_stream $((3 * MiB + 7)) "" &&
	run_inject $((2 * MiB + 1)) "$1" abc &&
	check_stream $((2 * MiB + 1)) abc &&
	run_inject $((3 * MiB)) "$1" "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w" &&
	check_stream $((3 * MiB)) "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w"
}

# check_error MESSAGE ARG...: yes stopped with status 1 and MESSAGE
# only, after an exact and non-empty prefix of its stream.
check_error() {
	msg=$1
	shift
	echo "$msg" >expect.err &&
	test_cmp expect.err err &&
	echo 1 >expect.status &&
	test_cmp expect.status status &&
	test -s actual &&
	yes_prefix actual "$@"
}

for err in EINVAL ENOSYS ENOMEM; do
	test_expect_success STRACE "first vmsplice fails with $err: falls back" '
		check_exact vmsplice:error=$err:when=1
	'
done

test_expect_success STRACE 'every vmsplice fails with EINVAL: falls back' '
	check_exact vmsplice:error=EINVAL
'

test_expect_success STRACE 'fcntl refused (F_GETPIPE_SZ too): still exact' '
	check_exact fcntl:error=EPERM
'

test_expect_success STRACE 'F_SETPIPE_SZ refused at every size: still exact' '
	check_exact fcntl:error=EPERM:when=2+
'

test_expect_success STRACE 'F_SETPIPE_SZ refused once, then granted: exact' '
	check_exact fcntl:error=EPERM:when=2
'

test_expect_success STRACE 'F_SETPIPE_SZ ENOMEM: still exact' '
	check_exact fcntl:error=ENOMEM:when=2+
'

test_expect_success STRACE 'first vmsplice calls fail with EAGAIN: retried' '
	check_exact vmsplice:error=EAGAIN:when=1..3
'

test_expect_success STRACE 'later vmsplice calls fail with EAGAIN: retried' '
	check_exact vmsplice:error=EAGAIN:when=4+5
'

test_expect_success STRACE 'madvise refused: still exact' '
	check_exact madvise:error=EINVAL
'

# The buffer sluice maps once zero-copy runs; if it cannot be had, the
# first one carries on.  The call to fail is found in a first run.
test_expect_success STRACE,ZEROCOPY 'a buffer mapped while running fails: exact' '
	strace -qq -o trace -e trace=mmap,vmsplice yes abc |
		head -c $((4 * MiB)) >/dev/null &&
	when=$(awk "/^vmsplice/ { v = 1 }
		/^mmap\\(/ { n++; if (v) { print n; exit } }" trace) &&
	test -n "$when" &&
	run_inject $((5 * MiB)) mmap:error=ENOMEM:when=$when abc &&
	check_stream $((5 * MiB)) abc
'

test_expect_success STRACE 'vmsplice fallback, then write EINTR: exact' '
	check_exact "vmsplice:error=EINVAL write:error=EINTR:when=1..3"
'

test_expect_success STRACE 'fcntl refused and vmsplice EINVAL: exact' '
	check_exact "fcntl:error=EPERM vmsplice:error=ENOSYS:when=1"
'

test_expect_success STRACE,SLUICE 'vmsplice fallback, then write EAGAIN: polls' '
	check_exact "vmsplice:error=EINVAL:when=1 write:error=EAGAIN:when=1..2"
'

test_expect_success STRACE,SLUICE 'SLUICE_ZEROCOPY=0: write EAGAIN: polls' '
	SLUICE_ZEROCOPY=0 &&
	export SLUICE_ZEROCOPY &&
	check_exact write:error=EAGAIN:when=1..3
'

test_expect_success STRACE 'SLUICE_ZEROCOPY=0: write EINTR every 7th call' '
	SLUICE_ZEROCOPY=0 &&
	export SLUICE_ZEROCOPY &&
	check_exact write:error=EINTR:when=2+7
'

# A short count at the first write: the next write starts at byte 1.
test_expect_success STRACE 'SLUICE_ZEROCOPY=0: first write moves 1 byte: resumes at byte 1' '
	SLUICE_ZEROCOPY=0 &&
	export SLUICE_ZEROCOPY &&
	run_inject $((2 * MiB)) write:retval=1:when=1 abc &&
	yes_ref abc | tail -c +2 | head -c $((2 * MiB)) >expect &&
	cmp expect actual &&
	test_must_be_empty err &&
	sigpipe_code >expect.status &&
	test_cmp expect.status status
'

test_expect_success STRACE 'vmsplice fallback: first write moves 1 byte: resumes at byte 1' '
	run_inject $((2 * MiB)) \
		"vmsplice:error=EINVAL write:retval=1:when=1" abcd &&
	yes_ref abcd | tail -c +2 | head -c $((2 * MiB)) >expect &&
	cmp expect actual &&
	test_must_be_empty err &&
	sigpipe_code >expect.status &&
	test_cmp expect.status status
'

test_expect_success STRACE,ZEROCOPY 'first vmsplice moves 1 byte: resumes at byte 1' '
	run_inject $((2 * MiB)) vmsplice:retval=1:when=1 abcd &&
	yes_ref abcd | tail -c +2 | head -c $((2 * MiB)) >expect &&
	cmp expect actual &&
	test_must_be_empty err &&
	sigpipe_code >expect.status &&
	test_cmp expect.status status
'

test_expect_success STRACE 'vmsplice fallback, then write EIO: one error' '
	run_inject $MiB "vmsplice:error=EINVAL write:error=EIO:when=1" abc &&
	echo "yes: standard output: Input/output error" >expect.err &&
	test_cmp expect.err err &&
	echo 1 >expect.status &&
	test_cmp expect.status status &&
	test_must_be_empty actual
'

test_expect_success STRACE 'SLUICE_ZEROCOPY=0: a later write ENOSPC' '
	SLUICE_ZEROCOPY=0 &&
	export SLUICE_ZEROCOPY &&
	run_inject $((4 * MiB)) write:error=ENOSPC:when=3 abc &&
	check_error "yes: standard output: No space left on device" abc
'

# What follows are sluice's own failures after data went out: GNU never
# calls vmsplice.  Whatever the writer, the output read is exact.
test_expect_success STRACE 'a later vmsplice failure: output stays exact' '
	run_inject $((3 * MiB)) vmsplice:error=EIO:when=3+ abc &&
	yes_prefix actual abc
'

test_expect_success STRACE,ZEROCOPY 'a later vmsplice EIO is a real error' '
	run_inject $((64 * MiB)) vmsplice:error=EIO:when=3+ abc &&
	check_error "yes: standard output: Input/output error" abc
'

test_expect_success STRACE,ZEROCOPY 'a later vmsplice EINVAL: no fallback' '
	run_inject $((64 * MiB)) vmsplice:error=EINVAL:when=3 abc &&
	check_error "yes: standard output: Invalid argument" abc
'

test_expect_success STRACE,ZEROCOPY 'a later vmsplice ENOMEM: no fallback' '
	run_inject $((64 * MiB)) vmsplice:error=ENOMEM:when=2 &&
	check_error "yes: standard output: Cannot allocate memory"
'

test_done
