#!/bin/sh
# cat: operands that cannot be read, input file is output file (its
# message; the rule is t3008's), write errors, closed descriptors,
# broken pipes.  Expectations are GNU coreutils 9.1's.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-fd.sh"
test_require_prereq GNU

test_expect_success 'setup: inputs' '
	printf "one\n" >"$TRASH/one" &&
	printf "two\n" >"$TRASH/two" &&
	head -c 3000000 /dev/urandom >"$TRASH/big"
'

# Each case runs with and without an option: cat without options and
# with them take different paths.
for opt in "" -n
do

test_expect_success "missing operand${opt:+ ($opt)}: message, the rest, status 1" '
	test_expect_code 1 cat $opt "$TRASH/one" nofile "$TRASH/two" \
		>out 2>err &&
	$GNU_CAT $opt "$TRASH/one" "$TRASH/two" >expect &&
	test_cmp expect out &&
	echo "cat: nofile: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success "a directory operand${opt:+ ($opt)}: Is a directory" '
	mkdir d &&
	test_expect_code 1 cat $opt "$TRASH/one" d "$TRASH/two" >out 2>err &&
	$GNU_CAT $opt "$TRASH/one" "$TRASH/two" >expect &&
	test_cmp expect out &&
	echo "cat: d: Is a directory" >expect &&
	test_cmp expect err
'

test_expect_success "a read error${opt:+ ($opt)}: reported, cat goes on" '
	test -r /proc/self/mem || exit 0
	test_expect_code 1 cat $opt "$TRASH/one" /proc/self/mem "$TRASH/two" \
		>out 2>err &&
	$GNU_CAT $opt "$TRASH/one" "$TRASH/two" >expect &&
	test_cmp expect out &&
	echo "cat: /proc/self/mem: $(strerror EIO)" >expect &&
	test_cmp expect err
'

test_expect_success DEVFULL "/dev/full${opt:+ ($opt)}: write error, status 1" '
	test_expect_code 1 cat $opt "$TRASH/one" >/dev/full 2>err &&
	echo "cat: write error: $(strerror ENOSPC)" >expect &&
	test_cmp expect err
'

test_expect_success DEVFULL "/dev/full${opt:+ ($opt)}: a large input" '
	test_expect_code 1 cat $opt - <"$TRASH/big" >/dev/full 2>err &&
	echo "cat: write error: $(strerror ENOSPC)" >expect &&
	test_cmp expect err
'

test_expect_success DEVFULL "/dev/full${opt:+ ($opt)}: nothing to write, status 0" '
	cat $opt /dev/null - </dev/null >/dev/full 2>err &&
	test_must_be_empty err
'

test_expect_success "closed stdout${opt:+ ($opt)}: message, status 1" '
	test_expect_code 1 cat $opt "$TRASH/one" >&- 2>err &&
	echo "cat: standard output: $(strerror EBADF)" >expect &&
	test_cmp expect err
'

test_expect_success "closed stdout${opt:+ ($opt)}, empty input: the same" '
	test_expect_code 1 cat $opt /dev/null >&- 2>err &&
	echo "cat: standard output: $(strerror EBADF)" >expect &&
	test_cmp expect err
'

test_expect_success "broken pipe${opt:+ ($opt)}: SIGPIPE kills cat silently" '
	save_status env --default-signal=PIPE cat $opt "$TRASH/big" 2>err |
		head -c 10 >/dev/null &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err
'

test_expect_success "broken pipe${opt:+ ($opt)}, SIGPIPE ignored: write error" '
	save_status env --ignore-signal=PIPE cat $opt "$TRASH/big" "$TRASH/one" \
		2>err | head -c 10 >/dev/null &&
	test_status 1 &&
	echo "cat: write error: $(strerror EPIPE)" >expect &&
	test_cmp expect err
'

# O_NONBLOCK belongs to the open file, shared with whoever set it: a
# pipe that is full or empty for now only means its other end is slow.
# cat waits in poll(2); GNU 9.1 (and 9.11) fail with EAGAIN.  The sleeps
# pace the other end, so that cat meets EAGAIN; the cases hold whether
# it does or not.
test_expect_success SPATE "non-blocking stdout${opt:+ ($opt)}: cat waits, exact" '
	save_status with_nonblock 1 cat $opt "$TRASH/big" 2>err |
		{ sleep 1 && $SYS_CAT; } >out &&
	test_status 0 &&
	test_must_be_empty err &&
	$GNU_CAT $opt "$TRASH/big" >expect &&
	cmp expect out
'

test_expect_success SPATE "non-blocking stdin${opt:+ ($opt)}: cat waits, exact" '
	{ sleep 1 && $SYS_CAT "$TRASH/big"; } |
		save_status with_nonblock 0 cat $opt >out 2>err &&
	test_status 0 &&
	test_must_be_empty err &&
	$GNU_CAT $opt "$TRASH/big" >expect &&
	cmp expect out
'

# GNU's failures, with a FIFO open for reading and writing as the pipe:
# no other end ever comes, so a pipe that is empty (stdin) or that fills
# (stdout) makes EAGAIN whatever runs when.
test_expect_success !SPATE "non-blocking stdout${opt:+ ($opt)}: GNU fails, EAGAIN" '
	mkfifo fifo &&
	test_expect_code 1 with_nonblock 1 cat $opt "$TRASH/big" 1<>fifo 2>err &&
	echo "cat: write error: $(strerror EAGAIN)" >expect &&
	test_cmp expect err
'

test_expect_success !SPATE "non-blocking stdin${opt:+ ($opt)}: GNU fails, EAGAIN" '
	mkfifo fifo &&
	test_expect_code 1 with_nonblock 0 cat $opt <>fifo >out 2>err &&
	echo "cat: -: $(strerror EAGAIN)" >expect &&
	test_cmp expect err &&
	test_must_be_empty out
'

test_expect_success "input file is output file${opt:+ ($opt)}: >>" '
	printf "abc\n" >f &&
	test_expect_code 1 cat $opt "$TRASH/one" f "$TRASH/two" >>f 2>err &&
	echo "cat: f: input file is output file" >expect &&
	test_cmp expect err &&
	{ printf "abc\n" && $GNU_CAT $opt "$TRASH/one" "$TRASH/two"; } >expect &&
	test_cmp expect f
'

done

test_expect_success 'the same message for "-" as stdin' '
	printf "abc\n" >f &&
	test_expect_code 1 cat - <f >>f 2>err &&
	echo "cat: -: input file is output file" >expect &&
	test_cmp expect err &&
	printf "abc\n" >expect &&
	test_cmp expect f
'

test_expect_success 'input file is output file: another name, a hard link' '
	printf "abc\n" >f &&
	ln f g &&
	test_expect_code 1 cat g >>f 2>err &&
	echo "cat: g: input file is output file" >expect &&
	test_cmp expect err
'

test_expect_success 'allowed: an empty input that is the output' '
	: >e &&
	cat e >>e 2>err &&
	test_must_be_empty err &&
	test_must_be_empty e &&
	cat -A e - e </dev/null >>e 2>err &&
	test_must_be_empty err
'

test_expect_success 'allowed: > truncates the file before cat sees it' '
	printf "abc\n" >f &&
	cat f >f 2>err &&
	test_must_be_empty err &&
	test_must_be_empty f
'

test_expect_success 'allowed: an input already read to its end' '
	printf "abc\n" >f &&
	sh -c "$SYS_CAT >/dev/null && cat -" <f >>f 2>err &&
	test_must_be_empty err &&
	printf "abc\n" >expect &&
	test_cmp expect f
'

test_expect_success 'allowed: the output is not a regular file' '
	cat /dev/null >/dev/null 2>err &&
	test_must_be_empty err &&
	mkfifo fifo &&
	printf "abc\n" >expect &&
	fifo_writer fifo expect &&
	save_status cat fifo >out
	fifo_writer_end fifo &&
	test_status 0 &&
	test_cmp expect out
'

test_expect_success 'closed stdin: "-" cannot be read, nor closed' '
	test_expect_code 1 cat "$TRASH/one" - <&- >out 2>err &&
	test_cmp "$TRASH/one" out &&
	printf "%s\n" "cat: -: $(strerror EBADF)" \
		"cat: closing standard input: $(strerror EBADF)" >expect &&
	test_cmp expect err
'

test_expect_success 'closed stdin, no operand: the same' '
	test_expect_code 1 cat <&- >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "cat: -: $(strerror EBADF)" \
		"cat: closing standard input: $(strerror EBADF)" >expect &&
	test_cmp expect err
'

test_expect_success 'closed stdin, operands only: no message' '
	cat "$TRASH/one" "$TRASH/two" <&- >out 2>err &&
	test_must_be_empty err &&
	$SYS_CAT "$TRASH/one" "$TRASH/two" >expect &&
	test_cmp expect out
'

test_expect_success 'an unreadable file: Permission denied (not for root)' '
	printf "secret\n" >f &&
	chmod 000 f &&
	save_status cat "$TRASH/one" f >out 2>err &&
	chmod 644 f &&
	if test_have_prereq ROOT
	then
		test_status 0 &&
		test_must_be_empty err
	else
		test_status 1 &&
		echo "cat: f: $(strerror EACCES)" >expect.err &&
		test_cmp expect.err err
	fi
'

test_expect_success 'an empty operand name' '
	test_expect_code 1 cat "" "$TRASH/one" >out 2>err &&
	echo "cat: ${SQ}${SQ}: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/one" out
'

test_expect_success 'several bad operands: one message each, in order' '
	mkdir d &&
	test_expect_code 1 cat a d "$TRASH/one" "b c" >out 2>err &&
	printf "%s\n" "cat: a: No such file or directory" \
		"cat: d: Is a directory" \
		"cat: ${SQ}b c${SQ}: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/one" out
'

# Names that need shell quoting, as GNU's quotef() writes them.
# cat_qtest TITLE NAME EXPECTED-QUOTED-NAME
cat_qtest() {
	qname=$2
	qexpect=$3
	test_expect_success "quoting in messages: $1" '
		test_expect_code 1 cat "nodir/$qname" >out 2>err &&
		printf "cat: %s: No such file or directory\n" "$qexpect" \
			>expect &&
		test_cmp_v expect err &&
		test_must_be_empty out
	'
}

cat_qtest 'a space' 'a b' "'nodir/a b'"
cat_qtest 'a single quote' "a'b" "\"nodir/a'b\""
cat_qtest 'a dollar' 'a$b' "'nodir/a\$b'"
cat_qtest 'a newline' "$(printf 'n\nl')" "'nodir/n'\$'\\n''l'"
cat_qtest 'a high byte in the C locale' "$(printf '\303\251')" \
	"'nodir/'\$'\\303\\251'"

test_expect_success 'quoting in a UTF-8 locale: a valid character stands' '
	LC_ALL=C.UTF-8 &&
	export LC_ALL &&
	name=$(printf "caf\303\251") &&
	test_expect_code 1 cat "nodir/$name" >out 2>err &&
	echo "cat: nodir/$name: No such file or directory" >expect &&
	test_cmp_v expect err
'

test_expect_success 'quoting in input file is output file' '
	printf "abc\n" >"a b" &&
	test_expect_code 1 cat "a b" >>"a b" 2>err &&
	echo "cat: ${SQ}a b${SQ}: input file is output file" >expect &&
	test_cmp expect err
'

test_expect_success 'the status is 1 when only the last operand fails' '
	test_expect_code 1 cat "$TRASH/one" nofile >out 2>/dev/null &&
	test_cmp "$TRASH/one" out
'

# With stdout and stderr in one file, the order says when cat wrote.
# GNU writes what it holds before each read that would wait, and an
# input's end is such a read: the output of an operand comes before the
# message about the next.
test_expect_success 'output and messages in order, in one file' '
	test_expect_code 1 cat -n "$TRASH/one" nofile "$TRASH/two" >out 2>&1 &&
	printf "%s\n" "     1	one" \
		"cat: nofile: No such file or directory" \
		"     2	two" >expect &&
	test_cmp expect out
'

test_expect_success DEVFULL 'a write error ends cat before the next operand' '
	test_expect_code 1 cat -n "$TRASH/one" nofile >/dev/full 2>err &&
	echo "cat: write error: $(strerror ENOSPC)" >expect &&
	test_cmp expect err
'

test_done
