#!/bin/sh
# cat A B C into an output that fills up: a small tmpfs (ENOSPC), or a
# file size limit with SIGXFSZ ignored (EFBIG).  Whichever way the bytes
# go (copy_file_range between files of one file system, splice from a
# pipe, read/write from another file system or with SPATE_ZEROCOPY=0,
# the -n transformation), cat says "cat: write error: E" once, stops,
# exits 1, and the output is an exact prefix of the whole.
#
# GNU 9.1 says so on its read/write path only: when copy_file_range
# fails it names the input file it was copying ("cat: B: No space left
# on device"), goes on, and names every later file too.  spate keeps
# one wording for one error of the output (man/cat.1 says so); the
# SPATE cases pin it, the !SPATE ones GNU's.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

# SMALL_TMPFS: a tmpfs can be mounted in a mount namespace of our own
# (root, and unshare(1) and mount(8) allowed: not so in many containers).
test_lazy_prereq SMALL_TMPFS '
	mkdir m &&
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs m"
'

test_expect_success 'setup: A, B and C of 40000 bytes, and all of them' '
	data_word 40000 >"$TRASH/A" &&
	head -c 40000 /dev/urandom >"$TRASH/B" &&
	data_word 39999 >"$TRASH/C" &&
	$SYS_CAT "$TRASH/A" "$TRASH/B" "$TRASH/C" >"$TRASH/ABC" &&
	$GNU_CAT -n "$TRASH/A" "$TRASH/B" "$TRASH/C" >"$TRASH/ABC.n"
'

# cat_on_small_tmpfs SCRIPT: run the shell SCRIPT in a mount namespace of
# its own, in a tmpfs of 256 KiB that holds A, B, C and 80 KiB of filler:
# some 60 KiB are left, and an output fills them partway through B.  The
# mount goes away with the namespace.  SCRIPT writes out there (copied
# to the case directory after it), and err and status (as save_status
# does) in the case directory, which is .. there; $1 is $TRASH.
cat_on_small_tmpfs() {
	mkdir m &&
	unshare -m sh -c '
		mount -t tmpfs -o size=256k tmpfs m && cd m &&
		cp "$1/A" "$1/B" "$1/C" . &&
		head -c 81920 /dev/zero >fill &&
		eval "$2" &&
		cp out ../out
	' sh "$TRASH" "$1"
}

# cat_wrote_error ERRNAME [WHOLE]: the run said "cat: write error: E"
# (E strerror(ERRNAME)) and nothing else, exited 1, and left in out a
# strict prefix of WHOLE (default all of A B C).
cat_wrote_error() {
	echo "cat: write error: $(strerror $1)" >expect.err &&
	test_cmp expect.err err &&
	test_status 1 &&
	test -s out &&
	test_is_strict_prefix out "${2:-$TRASH/ABC}"
}

# cat_named_inputs ERRNAME: GNU 9.1's copy_file_range failure: a
# message naming the file being copied when the output filled up and
# every one after it, status 1, and out a strict prefix of A B C.
cat_named_inputs() {
	size=$(test_file_size out) &&
	if [ $size -lt 40000 ]; then names="A B C"
	elif [ $size -lt 80000 ]; then names="B C"
	else names=C
	fi &&
	for f in $names; do
		echo "cat: $f: $(strerror $1)" || return 1
	done >expect.err &&
	test_cmp expect.err err &&
	test_status 1 &&
	test_is_strict_prefix out "$TRASH/ABC"
}

# Files of one file system: copy_file_range, which GNU 9.1 words apart.
test_both_paths SMALL_TMPFS,SPATE 'A B C on a full tmpfs: one write error, cat stops' '
	cat_on_small_tmpfs "cat A B C >out 2>../err; echo \$? >../status" &&
	cat_wrote_error ENOSPC
'
test_expect_success SMALL_TMPFS,!SPATE 'A B C on a full tmpfs: GNU 9.1 names the inputs' '
	cat_on_small_tmpfs "cat A B C >out 2>../err; echo \$? >../status" &&
	cat_named_inputs ENOSPC
'

# Ways GNU 9.1 words as spate does: splice from a pipe, read/write from
# another file system, cat -n.
test_both_paths SMALL_TMPFS 'a pipe into a full tmpfs: one write error, cat stops' '
	cat_on_small_tmpfs "$SYS_CAT A B C 2>/dev/null | cat >out 2>../err; echo \$? >../status" &&
	cat_wrote_error ENOSPC
'
test_both_paths SMALL_TMPFS 'files of another file system into a full tmpfs: one write error' '
	cat_on_small_tmpfs "cat \"\$1/A\" \"\$1/B\" \"\$1/C\" >out 2>../err; echo \$? >../status" &&
	cat_wrote_error ENOSPC
'
test_both_paths SMALL_TMPFS 'cat -n A B C on a full tmpfs: one write error, cat stops' '
	cat_on_small_tmpfs "cat -n A B C >out 2>../err; echo \$? >../status" &&
	cat_wrote_error ENOSPC "$TRASH/ABC.n"
'

# copy_file_range forbidden, as a seccomp filter forbids it (EPERM):
# cat falls back to read/write, as GNU 9.1 does, and then says what
# writing says.
test_expect_success SMALL_TMPFS,STRACE 'copy_file_range forbidden, a full tmpfs: the same write error' '
	cat_on_small_tmpfs "strace -f -qq -o /dev/null -e inject=copy_file_range:error=EPERM cat A B C >out 2>../err; echo \$? >../status" &&
	cat_wrote_error ENOSPC
'

# RLIMIT_FSIZE of 100 blocks (dash counts 512 bytes): past it write(2)
# and copy_file_range(2) fail with EFBIG, SIGXFSZ being ignored.
cat_limited() {
	with_ulimit -f 100 sh -c 'trap "" XFSZ; exec "$@"' sh "$@"
}

test_both_paths SPATE 'A B C past the file size limit: one write error, cat stops' '
	cp "$TRASH/A" "$TRASH/B" "$TRASH/C" . &&
	save_status cat_limited cat A B C >out 2>err &&
	cat_wrote_error EFBIG
'
test_expect_success !SPATE 'A B C past the file size limit: GNU 9.1 names the inputs' '
	cp "$TRASH/A" "$TRASH/B" "$TRASH/C" . &&
	save_status cat_limited cat A B C >out 2>err &&
	cat_named_inputs EFBIG
'
test_both_paths 'a pipe past the file size limit: one write error, cat stops' '
	$SYS_CAT "$TRASH/ABC" 2>/dev/null | save_status cat_limited cat >out 2>err &&
	cat_wrote_error EFBIG
'
test_both_paths 'cat -n A B C past the file size limit: one write error' '
	cp "$TRASH/A" "$TRASH/B" "$TRASH/C" . &&
	save_status cat_limited cat -n A B C >out 2>err &&
	cat_wrote_error EFBIG "$TRASH/ABC.n"
'

test_done
