#!/bin/sh
# tee reading a socket that keeps records apart: a SOCK_SEQPACKET or
# SOCK_DGRAM stdin, where a read shorter than a record loses the rest
# of it.  GNU's tee reads 8 KiB at a time and loses the rest of every
# longer record; tee reads each record whole, whatever its size, and
# every output gets all of it (SPATE: tee.1 says so).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"

# GNU's read (8 KiB), a pipe (64 KiB, what one splice(2) into it took),
# GNU's cat's reads and tee's buffer (128 KiB), and beyond.
TEE_SIZES='8192 65535 65536 65537 100000 131071 131072 131073 200000'

test_expect_success 'setup: text and binary, to send in records' '
	{ seq 1 150000 && head -c 900000 /dev/urandom && seq 7 99999; } \
		>"$TRASH/data" &&
	test "$(test_file_size "$TRASH/data")" -gt $((200000 * 12 + 1234))
'

# tee_record_input SIZE: the input, 12 records of SIZE bytes and a
# short one, in the file in.
tee_record_input() {
	head -c $(($1 * 12 + 1234)) "$TRASH/data" >in
}

for kind in seqpacket dgram; do
	test_both_paths PYTHON3,SPATE "$kind stdin: tee to stdout reads every record whole" '
		for size in $TEE_SIZES; do
			tee_record_input $size &&
			with_record_stdin '$kind' $size tee <in >actual &&
			cmp in actual || return 1
		done
	'
	test_both_paths PYTHON3,SPATE "$kind stdin: tee to stdout and two files, each gets every record" '
		for size in $TEE_SIZES; do
			tee_record_input $size &&
			with_record_stdin '$kind' $size tee f1 f2 <in >actual &&
			cmp in actual && cmp in f1 && cmp in f2 || return 1
		done
	'
	# Into a pipe, the records go out in chunks of the pipe's size.
	test_both_paths PYTHON3,SPATE "$kind stdin: tee to a pipe and a file, each gets every record" '
		for size in $TEE_SIZES; do
			tee_record_input $size &&
			{ save_status with_record_stdin '$kind' $size \
				tee f1 <in | $SYS_CAT >actual; } &&
			test_status 0 &&
			cmp in actual && cmp in f1 || return 1
		done
	'
done

# tee_record_sizes SIZE: the sizes, one a line, of the records tee writes
# of tee_record_input SIZE into an output that keeps writes apart: each
# record in GNU's 8 KiB writes.
tee_record_sizes() {
	test_python3 -c "
import sys
size = int(sys.argv[1])
for r in [size] * 12 + [1234]:
    while r > 0:
        print(min(r, 8192))
        r -= 8192
" "$1"
}

# Into a record socket, GNU's 8 KiB records (t1005): nothing lost.
test_both_paths PYTHON3,SPATE 'seqpacket stdin and stdout: every record in, in records of 8 KiB' '
	for size in 8192 100000 200000; do
		tee_record_input $size &&
		tee_record_sizes $size >expect &&
		with_record_stdout seqpacket 0 "$(python3_path)" -I -S \
			-c "$RECORD_STDIN_PY" seqpacket $size tee <in >actual &&
		test_cmp expect actual &&
		cmp in records &&
		echo 0 >expect.status &&
		test_cmp expect.status status &&
		with_record_stdout seqpacket 0 "$(python3_path)" -I -S \
			-c "$RECORD_STDIN_PY" seqpacket $size tee f1 <in >actual &&
		test_cmp expect actual &&
		cmp in records &&
		cmp in f1 &&
		test_cmp expect.status status || return 1
	done
'

# What GNU does: the first 8 KiB of each record, the rest lost (the
# difference tee.1 states).
test_expect_success PYTHON3,!SPATE 'seqpacket stdin: GNU tee cuts records over 8 KiB' '
	tee_record_input 100000 &&
	test_python3 -c "
import sys
d = open(\"in\", \"rb\").read()
sys.stdout.buffer.write(b\"\".join(d[i:i + 8192]
    for i in range(0, len(d), 100000)))
" >expect &&
	with_record_stdin seqpacket 100000 tee f1 <in >actual &&
	cmp expect actual &&
	cmp expect f1
'

test_done
