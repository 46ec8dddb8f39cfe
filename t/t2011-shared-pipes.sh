#!/bin/sh
# Pipes that other processes write or read too: two `... | tee log`
# under one `| less`, `make -j` recipes that each run `cmd | tee log`,
# parallel jobs into one FIFO.  Every writer's bytes all reach the
# reader, every tee gives each of its outputs the whole stream, and none
# says a word or fails: what GNU's tee and cat guarantee there.  Across
# writers the order is the kernel's, so what is checked is each
# writer's count of a byte that only it writes.
. "$(dirname "$0")/test-lib.sh"

# A tee(2) that duplicates nothing is not an end when its input still
# holds bytes: the output pipe had room when the kernel looked and was
# full when it linked, since another writer filled it in between.  The
# same 0 is made at will by strace on the third tee(2), and on every
# other one: all of the stream, everywhere, and no message.
test_expect_success 'set-up: 8 MiB of random bytes' '
	head -c 8388608 /dev/urandom >"$TRASH/in" &&
	test $(test_file_size "$TRASH/in") = 8388608
'

for when in 3 2+2; do
	test_expect_success STRACE "tee(2) says 0 (call $when): tee FILE | reader gets it all" '
		$SYS_CAT "$TRASH/in" |
			save_status timeout 60 strace -f -qq -o /dev/null \
			-e trace=tee -e inject=tee:retval=0:when='$when' \
			tee f1 2>err | $SYS_CAT >got &&
		test_status 0 &&
		test_must_be_empty err &&
		cmp "$TRASH/in" got &&
		cmp "$TRASH/in" f1
	'

	test_expect_success STRACE "tee(2) says 0 (call $when): tee FIFO FILE | reader gets it all" '
		mkfifo fifo &&
		{ $SYS_CAT fifo >got2 & } &&
		$SYS_CAT "$TRASH/in" |
			save_status timeout 60 strace -f -qq -o /dev/null \
			-e trace=tee -e inject=tee:retval=0:when='$when' \
			tee fifo f1 2>err | $SYS_CAT >got &&
		wait &&
		test_status 0 &&
		test_must_be_empty err &&
		cmp "$TRASH/in" got &&
		cmp "$TRASH/in" got2 &&
		cmp "$TRASH/in" f1
	'
done

# stream LETTER BYTES: BYTES bytes of the lines "LETTER", from GNU's yes.
stream() {
	$GNU_YES "$1" | head -c "$2"
}

# count_of LETTER FILE: how many bytes LETTER FILE holds.
count_of() {
	tr -cd "$1" <"$2" | wc -c | tr -d ' '
}

# 128 MiB a writer: far past the 32 KiB read that starts zero-copy.
BYTES=134217728
HALF=$((BYTES / 2))

# teed LETTER: stream LETTER through `tee LETTER.log` into this stdout;
# LETTER.status is tee's exit status, LETTER.err what it said.
teed() {
	stream "$1" $BYTES | { tee "$1.log" 2>"$1.err"; echo $? >"$1.status"; }
}

# The writers' results: every LETTER's status 0, nothing said, its log
# whole, and all of its bytes (half its stream: "L\n" lines) in FILE.
check_writers() {
	f=$1
	shift
	for l in "$@"; do
		echo 0 >expect.status &&
		test_cmp expect.status "$l.status" &&
		test_must_be_empty "$l.err" &&
		stream "$l" $BYTES | cmp - "$l.log" &&
		echo $HALF >expect.count &&
		count_of "$l" "$f" >count &&
		test_cmp expect.count count || return 1
	done
}

test_expect_success 'two tees into one pipe: each stream whole in the reader' '
	{ teed A & teed B & wait; } | $SYS_CAT >all &&
	check_writers all A B &&
	echo $BYTES $BYTES | awk "{ print \$1 + \$2 }" >expect.size &&
	test_file_size all >size &&
	test_cmp expect.size size
'

# The FIFO's reader takes 64 KiB a read; a write end held here until the
# writers are done (fifo_reader's way) keeps it from an end of file
# between one writer's close and another's open.
test_expect_success 'three tees and a yes into one FIFO: each stream whole' '
	mkfifo fifo &&
	exec 9<>fifo 8<fifo &&
	{ dd bs=65536 status=none <&8 >all 8<&- 9>&- & } &&
	exec 8<&- &&
	( teed A >fifo & teed B >fifo & teed C >fifo &
	  stream Y $BYTES >fifo & wait ) 9>&- &&
	exec 9>&- &&
	wait &&
	check_writers all A B C &&
	echo $HALF >expect.count &&
	count_of Y all >count &&
	test_cmp expect.count count
'

# catted LETTER: stream LETTER through cat into this stdout; its status
# and words as teed's.
catted() {
	stream "$1" $BYTES >"$1.log" &&
	{ cat "$1.log" 2>"$1.err"; echo $? >"$1.status"; }
}

test_expect_success 'two cats and a tee into one pipe: each stream whole' '
	{ catted A & catted B & teed C & wait; } | $SYS_CAT >all &&
	check_writers all A B C
'

# The input pipe read by another reader too: each reader gets some of
# the stream, and tee gives each of its outputs the same part of it.
test_expect_success 'tee and another reader on one input: tee outputs agree' '
	stream A $BYTES |
		{ tee f1 <&3 >f2 & $SYS_CAT <&3 >other & wait; } 3<&0 &&
	cmp f1 f2 &&
	test_file_size f1 >a &&
	test_file_size other >b &&
	echo $BYTES >expect.size &&
	cat a b | awk "{ n += \$1 } END { print n }" >size &&
	test_cmp expect.size size
'

test_done
