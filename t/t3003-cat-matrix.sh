#!/bin/sh
# cat: integrity matrix.  Every kind of input (regular file, sparse file,
# pipe, FIFO, unix socket, a character device, /proc files that say they
# are empty) to every kind of output (pipe, regular file, >> after prior
# content, /dev/null, unix socket; /dev/full and a closed stdout for the
# errors), at sizes around page and pipe boundaries, without options and
# with -nA.  The output must be exactly what GNU's cat makes of the
# input: not one byte lost, added or reordered.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

SIZES="0 1 4095 4096 4097 65535 65536 65537 1048577"
PRIOR="prior content
"

# A socket stdout: sockout.py CMD..., lib-fd.sh's SOCKET_STDOUT_PY, run
# as "$(python3_path)" -I -S "$TRASH/sockout.py" CMD...
printf '%s\n' "$SOCKET_STDOUT_PY" >"$TRASH/sockout.py"

# The command in front of cat: sockout.py for a socket stdout, or nothing.
OUTWRAP=

# cat_run_in SRC SIZE OPT: cat [OPT] with input SRC of SIZE bytes on
# stdout; leave the status in status (save_status) and stderr in err.
# $OUTWRAP goes in front of cat (the socket output).
cat_run_in() {
	src=$1 size=$2 opt=$3
	case $src in
	file)	save_status $OUTWRAP cat $opt "$TRASH/in.$size" 2>err ;;
	sparse)	save_status $OUTWRAP cat $opt "$TRASH/sparse.$size" 2>err ;;
	pipe)	$GNU_CAT "$TRASH/in.$size" |
			save_status $OUTWRAP cat $opt 2>err ;;
	fifo)
		rm -f fifo && mkfifo fifo &&
		fifo_writer fifo "$TRASH/in.$size" &&
		save_status $OUTWRAP cat $opt fifo 2>err
		fifo_writer_end fifo ;;
	socket)	$GNU_CAT "$TRASH/in.$size" |
			save_status with_socket_stdin $OUTWRAP cat $opt 2>err ;;
	esac
	wait
}

# cat_source_of SRC SIZE: the file that holds what SRC carries.
cat_source_of() {
	case $1 in
	sparse)	echo "$TRASH/sparse.$2" ;;
	*)	echo "$TRASH/in.$2" ;;
	esac
}

# cat_matrix_check SRC OUT SIZE OPT: cat [OPT] from SRC to OUT gives
# GNU's output.
cat_matrix_check() {
	src=$1 out=$2 size=$3 opt=$4
	rm -f out status err
	OUTWRAP=
	case $out in
	pipe)	{ cat_run_in $src $size "$opt"; } | $GNU_CAT >out ;;
	file)	cat_run_in $src $size "$opt" >out ;;
	append)	printf "$PRIOR" >out && cat_run_in $src $size "$opt" >>out ;;
	null)	cat_run_in $src $size "$opt" >/dev/null ;;
	socket)	OUTWRAP="$(python3_path) -I -S $TRASH/sockout.py" &&
		cat_run_in $src $size "$opt" >out ;;
	esac
	in=$(cat_source_of $src $size)
	{
		if [ $out = append ]; then printf "$PRIOR"; fi
		$GNU_CAT $opt "$in"
	} >expect
	if ! test_status 0 || ! test_must_be_empty err; then
		echo "cat_matrix_check: $src to $out, $size bytes, cat $opt"
		return 1
	fi
	[ $out = null ] && return 0
	if ! cmp -s expect out; then
		echo "cat_matrix_check: $src to $out, $size bytes, cat $opt: output differs"
		cmp expect out
		return 1
	fi
}

test_expect_success 'setup: inputs of every size, sparse files' '
	head -c 1048577 /dev/urandom >"$TRASH/rand" &&
	for size in $SIZES; do
		head -c $size "$TRASH/rand" >"$TRASH/in.$size" &&
		truncate -s $size "$TRASH/sparse.$size" || exit 1
		if [ $size -gt 2 ]; then
			printf "a\nb" | dd of="$TRASH/sparse.$size" bs=1 \
				seek=$((size / 2)) conv=notrunc 2>/dev/null &&
			printf "z" | dd of="$TRASH/sparse.$size" bs=1 \
				seek=$((size - 1)) conv=notrunc 2>/dev/null ||
			exit 1
		fi
	done &&
	test $(test_file_size "$TRASH/sparse.1048577") = 1048577
'

for opt in "" -nA; do
	for src in file sparse pipe fifo socket; do
		for out in pipe file append null socket; do
			title="$src to $out, every size, cat ${opt:-(no option)}"
			case $src$out in
			*socket*) prereq=PYTHON3 ;;
			*) prereq= ;;
			esac
			test_expect_success $prereq "$title" '
				for size in $SIZES; do
					cat_matrix_check $src $out $size "$opt" || exit 1
				done
			'
		done
	done
done

for opt in "" -nA; do
	for src in file pipe fifo; do
		test_expect_success DEVFULL "$src to /dev/full, cat ${opt:-(no option)}" '
			for size in 0 1 65537; do
				rm -f status err &&
				cat_run_in $src $size "$opt" >/dev/full || exit 1
				if [ $size = 0 ]; then
					test_status 0 &&
					test_must_be_empty err || exit 1
				else
					test_status 1 &&
					echo "cat: write error: $(strerror ENOSPC)" \
						>expect.err &&
					test_cmp expect.err err || exit 1
				fi
			done
		'

		test_expect_success "$src to a closed stdout, cat ${opt:-(no option)}" '
			for size in 0 65537; do
				rm -f status err &&
				cat_run_in $src $size "$opt" >&- &&
				test_status 1 &&
				echo "cat: standard output: $(strerror EBADF)" \
					>expect.err &&
				test_cmp expect.err err || exit 1
			done
		'
	done
done

test_expect_success 'a character device: /dev/zero until the reader leaves' '
	save_status env --default-signal=PIPE cat /dev/zero 2>err |
		head -c 1048577 >out &&
	head -c 1048577 /dev/zero >expect &&
	test_cmp expect out &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err
'

test_expect_success 'a character device: /dev/zero through -v, to a pipe' '
	save_status env --default-signal=PIPE cat -v /dev/zero 2>err |
		head -c 65537 >out &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err &&
	head -c 65536 /dev/zero | $GNU_CAT -v | head -c 65537 >expect &&
	test_cmp expect out
'

# NATIVE: under qemu-user /proc/self/status is the emulator's, named
# after it, not cat.
test_expect_success NATIVE '/proc files that report size 0 are read whole' '
	test -r /proc/self/status || exit 0
	test "$(stat -c %s /proc/self/status)" = 0 &&
	cat /proc/self/status >out &&
	grep "^Name:	cat\$" out &&
	tail -c 1 out | od -c | grep -q "\\\\n" &&
	cat /proc/cpuinfo >cpu &&
	$GNU_CAT /proc/cpuinfo >expect &&
	test -s cpu &&
	test $(wc -l <cpu) = $(wc -l <expect) &&
	cat -n /proc/version >version &&
	$GNU_CAT -n /proc/version >expect &&
	test_cmp expect version
'

test_expect_success '/proc files among regular ones, to a file' '
	test -r /proc/version || exit 0
	cat "$TRASH/in.4097" /proc/version "$TRASH/in.1" >out &&
	$GNU_CAT "$TRASH/in.4097" /proc/version "$TRASH/in.1" >expect &&
	test_cmp expect out
'

test_expect_success 'many operands of every kind, one after another' '
	rm -f fifo && mkfifo fifo &&
	fifo_writer fifo "$TRASH/in.65537" &&
	$GNU_CAT "$TRASH/in.4097" |
		save_status cat "$TRASH/in.1" "$TRASH/sparse.65536" - fifo /dev/null \
			"$TRASH/in.0" "$TRASH/in.4095" >out
	fifo_writer_end fifo &&
	test_status 0 &&
	$GNU_CAT "$TRASH/in.1" "$TRASH/sparse.65536" "$TRASH/in.4097" \
		"$TRASH/in.65537" "$TRASH/in.4095" >expect &&
	test_cmp expect out
'

test_expect_success 'the same, numbered and shown: one line count throughout' '
	rm -f fifo && mkfifo fifo &&
	fifo_writer fifo "$TRASH/in.65537" &&
	$GNU_CAT "$TRASH/in.4097" |
		save_status cat -nA "$TRASH/in.1" "$TRASH/sparse.65536" - fifo /dev/null \
			"$TRASH/in.0" "$TRASH/in.4095" >out
	fifo_writer_end fifo &&
	test_status 0 &&
	$GNU_CAT -nA "$TRASH/in.1" "$TRASH/sparse.65536" "$TRASH/in.4097" \
		"$TRASH/in.65537" "$TRASH/in.4095" >expect &&
	test_cmp expect out
'

test_done
