#!/bin/sh
# cat of many small files: each costs no more system calls than GNU
# 9.1's (openat, fstat, fadvise64, two copy_file_range and close into a
# file), and the end of each is found without losing a byte, whatever
# the file says its size is: a read of a regular file comes short only
# at its end, so once a file has given the size fstat(2) told, a short
# read ends it; a /sys file (which says 4096 and holds less) or a /proc
# file (which says 0) is read until read(2) says 0.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"

test_expect_success 'setup: 21 files of 2 KB, and odd sizes' '
	i=1 &&
	while [ $i -le 21 ]; do
		data_word 2000 >"$TRASH/s$i" && i=$((i + 1)) || return 1
	done &&
	: >"$TRASH/empty" &&
	data_word 1 >"$TRASH/one" &&
	data_word 131072 >"$TRASH/full" &&
	data_word 131073 >"$TRASH/full1" &&
	data_word 40000 >"$TRASH/mid" &&
	data_word 3000000 >"$TRASH/big"
'

# cat_calls OUT FILE...: the number of system calls `cat FILE...` makes
# (from the trace strace writes) into a file (OUT file) or a pipe (OUT
# pipe); its output must be the files' and its status 0.
cat_calls() {
	co=$1
	shift
	(cd "$TRASH" && $SYS_CAT "$@") >expect &&
	if [ "$co" = file ]; then
		(cd "$TRASH" && strace -qq -o "$OLDPWD/trace" cat "$@") >actual
	else
		(cd "$TRASH" && save_status strace -qq -o "$OLDPWD/trace" \
			cat "$@" | $SYS_CAT) >actual &&
		mv "$TRASH/status" status &&
		test_status 0
	fi &&
	cmp expect actual &&
	wc -l <trace
}

# cat_calls_per_file OUT DIR: the calls DIR's cat makes for each file
# past the first, of 20 more files of 2 KB.
cat_calls_per_file() {
	one=$(PATH=$2:$PATH cat_calls $1 s1) &&
	all=$(PATH=$2:$PATH cat_calls $1 s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 \
		s12 s13 s14 s15 s16 s17 s18 s19 s20 s21) &&
	echo $(((all - one) / 20))
}

for out in file pipe; do
	test_both_paths STRACE,GNU "small files into a $out: no more calls a file than GNU 9.1" '
		gnu=$(cat_calls_per_file '$out' "$(dirname "$GNU_CAT")") &&
		ours=$(cat_calls_per_file '$out' "$BIN_DIR") &&
		echo "calls a file: GNU 9.1 $gnu, cat $ours" &&
		test "$ours" -le "$gnu"
	'
done

# cat_every_byte FILE...: cat FILE... into a file and into a pipe gives
# what the system's cat does (every byte of the files, which any cat
# gives), status 0.
cat_every_byte() {
	$SYS_CAT "$@" >expect &&
	cat "$@" >actual &&
	cmp expect actual &&
	save_status cat "$@" | $SYS_CAT >actual &&
	test_status 0 &&
	cmp expect actual
}

test_both_paths 'files empty, of 1 byte, of a full buffer and one more: every byte' '
	cd "$TRASH" &&
	cat_every_byte empty one empty full full1 one mid big s1 empty &&
	cat_every_byte full full full1 full1 empty
'

# /sys files say 4096 bytes and hold fewer; /proc files say 0.
test_both_paths '/proc and /sys files between small ones: every byte' '
	cd "$TRASH" &&
	cat_every_byte s1 /proc/version s2 /proc/version &&
	if [ -r /sys/devices/system/cpu/online ]; then
		cat_every_byte s1 /sys/devices/system/cpu/online s2 \
			/sys/devices/system/cpu/online
	fi
'

# Standard input, a regular file read from an offset: the size fstat
# gives is not what is left.
test_both_paths 'stdin a file at an offset, between small files: the rest of it' '
	cd "$TRASH" &&
	{ dd bs=100 count=1 of=/dev/null 2>/dev/null &&
		$SYS_CAT s1 - s2; } <full1 >expect &&
	{ dd bs=100 count=1 of=/dev/null 2>/dev/null &&
		cat s1 - s2; } <full1 >actual &&
	cmp expect actual &&
	{ dd bs=100 count=1 of=/dev/null 2>/dev/null &&
		cat s1 - s2 -; } <s3 >actual &&
	{ dd bs=100 count=1 of=/dev/null 2>/dev/null &&
		$SYS_CAT s1 - s2 -; } <s3 >expect &&
	cmp expect actual
'

test_done
