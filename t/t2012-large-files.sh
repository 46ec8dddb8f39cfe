#!/bin/sh
# Files past 2 GiB and 4 GiB, where a 32-bit build without large-file
# support (an off_t of 32 bits) fails: cat cannot open or fstat such a
# file ("Value too large for defined data type") nor tell an offset
# past 2 GiB, tee cannot open one to append to, and an offset or size
# kept in 32 bits wraps.  The files are sparse, so that they take no
# room: zeros, with a marker at the start, across the 2 GiB and 4 GiB
# lines and at the end, so that a stream that wrapped or lost a piece
# differs.  What cat and tee give out is compared by checksum with the
# file's own, which is what GNU's cat gives out for it.  The 32-bit
# builds of `make check-cross` (i386, armhf) run this under qemu-user.
. "$(dirname "$0")/test-lib.sh"

# SPARSE: a file of 5 GiB can be made here and takes no room: the file
# system has sparse files and allows the size.
test_lazy_prereq SPARSE '
	truncate -s 5G f &&
	test "$(du -k f | cut -f1)" -lt 1024
'

# large_mark FILE OFFSET TEXT: write TEXT into FILE at byte OFFSET,
# leaving the rest as it is (a hole stays a hole).
large_mark() {
	printf "%s" "$3" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

G=1073741824
M=1048576
# big2 ends 1 MiB past the 2 GiB line, big4 1 MiB past the 4 GiB line:
# what is past the line is what a 32-bit offset or count loses, and the
# bytes before it are the time the case takes.
test_expect_success SPARSE 'setup: sparse files past 2 GiB and past 4 GiB' '
	for f in big2 big4; do
		large_mark "$TRASH/$f" 0 "start of $f" &&
		large_mark "$TRASH/$f" $((2 * G - 5)) "the 2 GiB line" ||
		return 1
	done &&
	large_mark "$TRASH/big2" $((2 * G + M)) "end of big2" &&
	large_mark "$TRASH/big4" $((4 * G - 5)) "the 4 GiB line" &&
	large_mark "$TRASH/big4" $((4 * G + M)) "end of big4" &&
	cksum <"$TRASH/big2" >"$TRASH/big2.sum" &&
	cksum <"$TRASH/big4" >"$TRASH/big4.sum"
'

# The zero-copy path (copy_file_range, splice) and SPATE_ZEROCOPY=0
# (read, write): each keeps its own count of what an input holds.
test_both_paths SPARSE 'cat FILE past 2 GiB into a pipe: every byte' '
	save_status cat "$TRASH/big2" 2>err | cksum >actual &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/big2.sum" actual
'

test_both_paths SPARSE 'cat <FILE past 4 GiB into a pipe: every byte' '
	save_status cat <"$TRASH/big4" 2>err | cksum >actual &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/big4.sum" actual
'

test_path zc SPARSE 'tee <FILE past 2 GiB: every byte' '
	save_status tee <"$TRASH/big2" 2>err | cksum >actual &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/big2.sum" actual
'

test_path rw SPARSE 'tee <FILE past 4 GiB: every byte' '
	save_status tee <"$TRASH/big4" 2>err | cksum >actual &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/big4.sum" actual
'

# A standard input whose offset is already past 4 GiB: cat asks where it
# is (lseek) and what the file holds (fstat), and copies the rest.
test_both_paths SPARSE 'cat <FILE from an offset past 4 GiB: the rest' '
	{
		dd bs=1 skip=$((4 * G)) count=0 status=none &&
		save_status cat
	} <"$TRASH/big4" >actual 2>err &&
	test_status 0 &&
	test_must_be_empty err &&
	tail -c +$((4 * G + 1)) "$TRASH/big4" >expect &&
	test_cmp expect actual
'

# The output a file of 5 GiB: cat fstats it (is it an input too?), tee
# opens it to append; the bytes go past 5 GiB.
test_expect_success SPARSE 'cat >>FILE of 5 GiB: appended at its end' '
	truncate -s 5G out &&
	printf "more\n" >in &&
	cat in >>out 2>err &&
	test_must_be_empty err &&
	test "$(test_file_size out)" = $((5 * G + 5)) &&
	tail -c 5 out >actual &&
	test_cmp in actual
'

test_expect_success SPARSE 'tee -a FILE of 5 GiB: appended at its end' '
	truncate -s 5G out &&
	printf "more\n" >in &&
	tee -a out <in >stdout 2>err &&
	test_must_be_empty err &&
	test_cmp in stdout &&
	test "$(test_file_size out)" = $((5 * G + 5)) &&
	tail -c 5 out >actual &&
	test_cmp in actual
'

test_done
