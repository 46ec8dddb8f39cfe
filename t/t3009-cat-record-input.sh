#!/bin/sh
# cat reading a socket that keeps records apart: a SOCK_SEQPACKET or
# SOCK_DGRAM stdin, where a read shorter than a record loses the rest
# of it.  GNU 9.1 reads 128 KiB at a time, plain or with options, so it
# gets every record up to 128 KiB whole; cat must get as much, and the
# longer records whole too, where GNU cuts them (SPATE).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"

# Around the sizes that cut a record: GNU's tee's read (8 KiB), a pipe
# (64 KiB, what one splice(2) into it took), cat's buffers (64 KiB with
# options, 128 KiB without), GNU's reads (128 KiB).
CAT_SIZES='8192 65535 65536 65537 100000 131071 131072'
CAT_LONGER='131073 200000'

test_expect_success 'setup: text and binary, to send in records' '
	{ seq 1 150000 && head -c 900000 /dev/urandom && seq 7 99999; } \
		>"$TRASH/data" &&
	test "$(test_file_size "$TRASH/data")" -gt $((200000 * 12 + 1234))
'

# cat_record_input KIND SIZE [OPTION...]: cat OPTION... reading 12
# records of SIZE bytes and a short one from a KIND stdin (see
# with_record_stdin) writes all of them (with an option, what GNU's cat
# OPTION... makes of them), and exits 0.
cat_record_input() {
	kind=$1 size=$2
	shift 2
	head -c $((size * 12 + 1234)) "$TRASH/data" >in &&
	if [ $# = 0 ]; then
		cp in expect
	else
		$GNU_CAT "$@" in >expect
	fi &&
	with_record_stdin "$kind" "$size" cat "$@" <in >actual &&
	cmp expect actual
}

for kind in seqpacket dgram; do
	test_path zc PYTHON3 "$kind stdin: plain cat reads records up to 128 KiB whole, as GNU" '
		for size in $CAT_SIZES; do
			cat_record_input '$kind' $size || return 1
		done
	'
	test_expect_success PYTHON3,GNU "$kind stdin: cat -n, -A read records up to 128 KiB whole, as GNU" '
		for size in $CAT_SIZES; do
			cat_record_input '$kind' $size -n &&
			cat_record_input '$kind' $size -A || return 1
		done
	'
	# GNU's reads of 128 KiB cut longer records.
	test_both_paths PYTHON3,SPATE "$kind stdin: plain cat reads records over 128 KiB whole" '
		for size in $CAT_LONGER; do
			cat_record_input '$kind' $size || return 1
		done
	'
	test_expect_success PYTHON3,GNU,SPATE "$kind stdin: cat -n, -A read records over 128 KiB whole" '
		for size in $CAT_LONGER; do
			cat_record_input '$kind' $size -n &&
			cat_record_input '$kind' $size -A || return 1
		done
	'
done

# What GNU does with a record over 128 KiB: its first 128 KiB, the rest
# lost (the difference cat.1 states).
test_expect_success PYTHON3,!SPATE 'seqpacket stdin: GNU cat cuts records over 128 KiB' '
	head -c $((131073 * 3)) "$TRASH/data" >in &&
	test_python3 -c "
import sys
d = open(\"in\", \"rb\").read()
sys.stdout.buffer.write(b\"\".join(d[i:i + 131072]
    for i in range(0, len(d), 131073)))
" >expect &&
	with_record_stdin seqpacket 131073 cat <in >actual &&
	cmp expect actual
'

# Records in, records out: plain cat writes each record it read, whole,
# as GNU writes what each of its reads returned.
test_both_paths PYTHON3,SPATE 'seqpacket stdin and stdout: each record over 128 KiB written whole' '
	head -c $((131073 * 12 + 1234)) "$TRASH/data" >in &&
	with_record_stdout seqpacket 0 "$(python3_path)" -I -S \
		-c "$RECORD_STDIN_PY" seqpacket 131073 cat <in >actual &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		echo 131073 || return 1
	done >expect &&
	echo 1234 >>expect &&
	test_cmp expect actual &&
	cmp in records &&
	echo 0 >expect.status &&
	test_cmp expect.status status
'

test_done
