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
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-fault.sh"
. "$TEST_DIR/lib-yes.sh"
test_require_prereq GNU

MiB=1048576

# yes_exact_under SPEC: under the faults SPEC, yes still gives exactly its
# stream, for short, empty and long (1 MiB) lines.
yes_exact_under() {
	w=$(data_word 131071)
	yes_faulted $((3 * MiB + 7)) "$1" &&
	test_yes_run exact $((3 * MiB + 7)) &&
	yes_faulted $((3 * MiB + 7)) "$1" "" &&
	test_yes_run exact $((3 * MiB + 7)) "" &&
	yes_faulted $((2 * MiB + 1)) "$1" abc &&
	test_yes_run exact $((2 * MiB + 1)) abc &&
	yes_faulted $((3 * MiB)) "$1" "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w" &&
	test_yes_run exact $((3 * MiB)) "$w" "$w" "$w" "$w" "$w" "$w" "$w" "$w"
}

for err in EINVAL ENOSYS ENOMEM; do
	test_expect_success STRACE "first vmsplice fails with $err: falls back" '
		yes_exact_under vmsplice:error=$err:when=1
	'
done

test_expect_success STRACE 'every vmsplice fails with EINVAL: falls back' '
	yes_exact_under vmsplice:error=EINVAL
'

test_expect_success STRACE 'fcntl refused (F_GETPIPE_SZ too): still exact' '
	yes_exact_under fcntl:error=EPERM
'

test_expect_success STRACE 'F_SETPIPE_SZ refused at every size: still exact' '
	yes_exact_under fcntl:error=EPERM:when=2+
'

test_expect_success STRACE 'F_SETPIPE_SZ refused once, then granted: exact' '
	yes_exact_under fcntl:error=EPERM:when=2
'

test_expect_success STRACE 'F_SETPIPE_SZ ENOMEM: still exact' '
	yes_exact_under fcntl:error=ENOMEM:when=2+
'

test_expect_success STRACE 'first vmsplice calls fail with EAGAIN: retried' '
	yes_exact_under vmsplice:error=EAGAIN:when=1..3
'

test_expect_success STRACE 'later vmsplice calls fail with EAGAIN: retried' '
	yes_exact_under vmsplice:error=EAGAIN:when=4+5
'

test_expect_success STRACE 'madvise refused: still exact' '
	yes_exact_under madvise:error=EINVAL
'

# The buffer spate maps once zero-copy runs; if it cannot be had, the
# first one carries on.  The call to fail is found in a first run.
test_expect_success STRACE,ZEROCOPY 'a buffer mapped while running fails: exact' '
	when=$(yes_big_mmap abc) &&
	yes_faulted $((5 * MiB)) mmap:error=ENOMEM:when=$when abc &&
	test_yes_run exact $((5 * MiB)) abc
'

test_expect_success STRACE 'vmsplice fallback, then write EINTR: exact' '
	yes_exact_under "vmsplice:error=EINVAL write:error=EINTR:when=1..3"
'

test_expect_success STRACE 'fcntl refused and vmsplice EINVAL: exact' '
	yes_exact_under "fcntl:error=EPERM vmsplice:error=ENOSYS:when=1"
'

test_expect_success STRACE,SPATE 'vmsplice fallback, then write EAGAIN: polls' '
	yes_exact_under "vmsplice:error=EINVAL:when=1 write:error=EAGAIN:when=1..2"
'

test_path rw STRACE,SPATE 'write EAGAIN: polls' '
	yes_exact_under write:error=EAGAIN:when=1..3
'

test_path rw STRACE 'write EINTR every 7th call' '
	yes_exact_under write:error=EINTR:when=2+7
'

# A short count at the first write: the next write starts at byte 1.
test_path rw STRACE 'first write moves 1 byte: resumes at byte 1' '
	yes_faulted $((2 * MiB)) write:retval=1:when=1 abc &&
	test_yes_run skip:1 $((2 * MiB)) abc
'

test_expect_success STRACE 'vmsplice fallback: first write moves 1 byte: resumes at byte 1' '
	yes_faulted $((2 * MiB)) \
		"vmsplice:error=EINVAL write:retval=1:when=1" abcd &&
	test_yes_run skip:1 $((2 * MiB)) abcd
'

test_expect_success STRACE,ZEROCOPY 'first vmsplice moves 1 byte: resumes at byte 1' '
	yes_faulted $((2 * MiB)) vmsplice:retval=1:when=1 abcd &&
	test_yes_run skip:1 $((2 * MiB)) abcd
'

test_expect_success STRACE 'vmsplice fallback, then write EIO: one error' '
	yes_faulted $MiB "vmsplice:error=EINVAL write:error=EIO:when=1" abc &&
	test_yes_run error:EIO $MiB abc
'

test_path rw STRACE 'a later write ENOSPC' '
	yes_faulted $((4 * MiB)) write:error=ENOSPC:when=3 abc &&
	test_yes_run late:ENOSPC $((4 * MiB)) abc
'

# What follows are spate's own failures after data went out: GNU never
# calls vmsplice.  Whatever the writer, the output read is exact.
test_expect_success STRACE 'a later vmsplice failure: output stays exact' '
	yes_faulted $((3 * MiB)) vmsplice:error=EIO:when=3+ abc &&
	yes_prefix actual abc
'

test_expect_success STRACE,ZEROCOPY 'a later vmsplice EIO is a real error' '
	yes_faulted $((64 * MiB)) vmsplice:error=EIO:when=3+ abc &&
	test_yes_run late:EIO $((64 * MiB)) abc
'

# A refusal after vmsplice moved bytes (a sandbox's filter, a kernel
# that cannot pin the pages) is a route, as the first one is: write(2)
# from the byte where it stopped, and the stream is whole.
for err in EINVAL ENOMEM EPERM EACCES ENOSYS; do
	test_expect_success STRACE,ZEROCOPY "a later vmsplice $err: falls back, the stream exact" '
		yes_faulted $((64 * MiB)) vmsplice:error='$err':when=3+ abc &&
		test_yes_run exact $((64 * MiB)) abc
	'
done

test_done
