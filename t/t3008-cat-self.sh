#!/bin/sh
# cat: an input that is the output file.  It is refused ("input file is
# output file", status 1, the other operands copied) when copying it
# would read back what cat writes: the output is O_APPEND, or its
# offset is past the input's, or an option writes more than it reads.
# Otherwise it is copied onto itself, as GNU 9.7 and later do (9.6 began
# it, 9.7 fixed an O_APPEND output at the input's end); GNU 9.1 refuses
# every such input that still has data ahead: those cases are SPATE,
# each paired with 9.1's.  Every case of GNU's tests/cat/cat-self.sh is
# here, in its own words: the comments say which.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-proc.sh"

test_expect_success 'setup: inputs' '
	printf "x\n" >"$TRASH/x" &&
	printf "y\n" >"$TRASH/y" &&
	printf "x\ny\n" >"$TRASH/xy" &&
	data_word 3000000 >"$TRASH/big"
'

# A refusal that fails would copy for ever: each runs under a file size
# limit of 10 MB (20000 blocks of 512 bytes), which ends it by SIGXFSZ.
#
# cat_self_refused NAME FILE EXPECT: the message for operand NAME, status
# 1 (already checked by the caller), and FILE holding what EXPECT does.
cat_self_refused() {
	echo "cat: $1: input file is output file" >expect.err &&
	test_cmp expect.err err &&
	test_cmp "$3" "$2"
}

# GNU's second, POSIX's example: > empties the file before cat runs.
test_expect_success 'allowed: cat F G >F, F emptied by >' '
	$SYS_CAT "$TRASH/x" >f &&
	cat f "$TRASH/y" >f 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/y" f
'

# GNU 9.6 and later: stdin and stdout open on F at offset 0; each byte
# is written where it was read, after it was read, and the copy ends.
test_expect_success SPATE 'copied onto itself: cat - G <F 1<>F' '
	$SYS_CAT "$TRASH/x" >f &&
	cat - "$TRASH/y" <f 1<>f 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/xy" f
'

test_expect_success SPATE 'copied onto itself: cat F G 1<>F' '
	$SYS_CAT "$TRASH/x" >f &&
	cat f "$TRASH/y" 1<>f 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/xy" f
'

# GNU 9.1 refuses both, and G's bytes overwrite F's: x is lost.
test_expect_success !SPATE 'GNU 9.1 refuses cat - G <F 1<>F and cat F G 1<>F' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 cat - "$TRASH/y" <f 1<>f 2>err &&
	cat_self_refused - f "$TRASH/y" &&
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 cat f "$TRASH/y" 1<>f 2>err &&
	cat_self_refused f f "$TRASH/y"
'

# GNU's refusals: F is reached once cat has written before it, or the
# output is O_APPEND.  In each F holds the x it held (written over by
# the x of the first operand where there is one).
test_expect_success 'refused: cat G F 1<>F, the output past F'"'"'s offset' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 with_ulimit -f 20000 cat "$TRASH/x" f 1<>f \
		2>err &&
	cat_self_refused f f "$TRASH/x"
'

test_expect_success 'refused: cat - F <G 1<>F, the same' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 with_ulimit -f 20000 cat - f <"$TRASH/x" 1<>f \
		2>err &&
	cat_self_refused f f "$TRASH/x"
'

# GNU's first case, and its fx5.
test_expect_success 'refused: cat F >>F' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 with_ulimit -f 20000 cat f >>f 2>err &&
	cat_self_refused f f "$TRASH/x"
'

test_expect_success 'refused: cat <F >>F, standard input' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 with_ulimit -f 20000 cat <f >>f 2>err &&
	cat_self_refused - f "$TRASH/x"
'

# GNU 9.6 refused this (an O_APPEND output, as a terminal may be), 9.7
# fixed it; 9.1 never refused it: at its end, the input has nothing left.
test_expect_success 'allowed: stdin at the end of F, stdout F with O_APPEND' '
	printf "foo\n" >f &&
	printf "foo\n" >expect &&
	exec 3<f &&
	$SYS_CAT <&3 >/dev/null &&
	exec 4>>f &&
	cat <&3 >&4 2>err &&
	exec 3<&- 4>&- &&
	test_must_be_empty err &&
	test_cmp expect f
'

# Past GNU's cases.  GNU 9.11 refuses this (the output's offset is past
# the input's), though there is nothing left to read; 9.1 lets it pass,
# as cat does.
test_expect_success 'allowed: stdin at the end of F, stdout F further on' '
	printf "foo\n" >f &&
	printf "foo\n" >expect &&
	exec 3<f &&
	$SYS_CAT <&3 >/dev/null &&
	exec 4<>f &&
	dd bs=1 seek=10 count=0 conv=notrunc </dev/null >&4 2>/dev/null &&
	cat <&3 >&4 2>err &&
	exec 3<&- 4>&- &&
	test_must_be_empty err &&
	test_cmp expect f
'

# An option that writes more than it reads would overtake the reads:
# `cat -n F 1<>F` never ends in GNU 9.11 (each line read comes back
# longer, ahead of the reader, until the disk is full).  GNU 9.1 refuses
# it, and so does cat, with any such option.
test_expect_success 'refused: cat -n F 1<>F (GNU 9.11 never ends)' '
	for opt in -n -b -E -T -v -A; do
		$SYS_CAT "$TRASH/x" >f &&
		test_expect_code 1 with_ulimit -f 20000 cat $opt f 1<>f \
			2>err &&
		cat_self_refused f f "$TRASH/x" || return 1
	done
'

test_expect_success 'refused: cat -n - G <F 1<>F, G numbered over F' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 with_ulimit -f 20000 cat -n - "$TRASH/y" \
		<f 1<>f 2>err &&
	printf "     1\ty\n" >expect &&
	cat_self_refused - f expect
'

# -s writes at most what it reads: the writes stay behind the reads.
# The file is not truncated: what the squeezed copy did not cover stays.
test_expect_success SPATE 'copied onto itself: cat -s F 1<>F' '
	printf "a\n\n\n\nb\n" >f &&
	cat -s f 1<>f 2>err &&
	test_must_be_empty err &&
	printf "a\n\nb\nb\n" >expect &&
	test_cmp expect f
'

test_expect_success !SPATE 'GNU 9.1 refuses cat -s F 1<>F' '
	printf "a\n\n\n\nb\n" >f &&
	printf "a\n\n\n\nb\n" >expect &&
	test_expect_code 1 cat -s f 1<>f 2>err &&
	cat_self_refused f f expect
'

test_expect_success 'refused: cat -s F >>F' '
	$SYS_CAT "$TRASH/x" >f &&
	test_expect_code 1 with_ulimit -f 20000 cat -s f >>f 2>err &&
	cat_self_refused f f "$TRASH/x"
'

# Megabytes, so that the zero-copy path is reached: copy_file_range(2)
# refuses ranges of one file that overlap, which read/write then copies.
test_both_paths SPATE 'copied onto itself, 3 MB: cat - G <F 1<>F' '
	$SYS_CAT "$TRASH/big" >f &&
	cat - "$TRASH/y" <f 1<>f 2>err &&
	test_must_be_empty err &&
	$SYS_CAT "$TRASH/big" "$TRASH/y" >expect &&
	cmp expect f
'

# The reader K bytes ahead of the writer: F's bytes from K on move to
# its start, and its last K bytes stay.  K is 2 MB of 3: the ranges do
# not overlap, and copy_file_range(2) copies within F.
test_both_paths SPATE 'copied onto itself, stdin ahead: F shifted left' '
	$SYS_CAT "$TRASH/big" >f &&
	{ head -c 2000000 >/dev/null && cat 2>err; } <f 1<>f &&
	test_must_be_empty err &&
	{ tail -c +2000001 "$TRASH/big" && tail -c 2000000 "$TRASH/big"; } \
		>expect &&
	cmp expect f
'

test_expect_success !SPATE 'GNU 9.1 refuses stdin ahead of stdout' '
	$SYS_CAT "$TRASH/big" >f &&
	{ head -c 1000000 >/dev/null && test_expect_code 1 cat 2>err; } \
		<f 1<>f &&
	cat_self_refused - f "$TRASH/big"
'

# The writer ahead of the reader would read its own bytes back.
test_expect_success 'refused: stdout ahead of stdin' '
	$SYS_CAT "$TRASH/big" >f &&
	{
		head -c 1000000 <&1 >/dev/null &&
		test_expect_code 1 with_ulimit -f 20000 cat 2>err
	} <f 1<>f &&
	cat_self_refused - f "$TRASH/big"
'

test_done
