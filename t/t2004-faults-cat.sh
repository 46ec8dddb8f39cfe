#!/bin/sh
# cat: the fault injection matrix of the transfer layer.  On each path
# the zero-copy call fails, at its first call and at a later one, with a
# refusal (EINVAL, ENOSYS, ENOMEM: the call cannot serve this pair),
# which falls back to read/write from the byte where it stopped, or an
# error (what read(2) or write(2) would report too), which must be told
# as the side it belongs to: "cat: NAME: E" for the input, cat goes on
# and exits 1; "cat: write error: E" for the output, cat stops.  The
# paths, for a 4 MiB input (the first read(2) shows the stream is worth
# zero-copy, and the rest goes by it; between two files, all of it):
#
#   ff	file -> file		copy_file_range(2)
#   fp	file -> pipe		splice(2): a pipe fails only as a writer
#   pp	pipe -> pipe		splice(2)
#   pf	pipe -> file		splice(2)
#   fn	file -> /dev/null	splice(2) in and out of a private pipe
#   rw	file -> pipe, SPATE_ZEROCOPY=0	read(2) and write(2)
#   hf	cat -n file file -> pipe	past 4 MiB of output, vmsplice(2) of
#				fresh pages (handoff)
#   hp	pipe -> cat -n -> pipe		the same, flushing whenever the
#				input pipe is empty
#   hs	cat -n file small file -> pipe	hf with a flush of a few bytes
#				after the first file: copied by write(2)
#
# Expectations:
#   exact		status 0, no message, the output is the input
#   in:E		"cat: in: strerror(E)", status 1, the output a strict
#			prefix of the input
#   out:E		"cat: write error: strerror(E)", status 1, the output
#			a strict prefix of the input
# GNU 9.1 uses read/write only: its cases are the rw ones; the others
# need spate's zero-copy calls (ZEROCOPY).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fault.sh"
test_require_prereq GNU

test_expect_success 'setup: a 4 MiB input, and what cat -n makes of it twice' '
	head -c 4194304 /dev/urandom >"$TRASH/in" &&
	$GNU_CAT -n "$TRASH/in" "$TRASH/in" >"$TRASH/in.n" &&
	echo small-marker >"$TRASH/small" &&
	$GNU_CAT -n "$TRASH/in" "$TRASH/small" "$TRASH/in" >"$TRASH/in.ns"
'

# cat_run_path PATH WRAP...: run `WRAP cat in` as PATH says; the output
# goes to out (for fn: nowhere), stderr to err, the status to status
# (save_status).
cat_run_path() {
	rp=$1
	shift
	rm -f out err status
	cp "$TRASH/in" in
	WANT=$TRASH/in
	case $rp in
	h[fp])	WANT=$TRASH/in.n ;;
	hs)	WANT=$TRASH/in.ns && cp "$TRASH/small" small ;;
	esac
	case $rp in
	rw)	SPATE_ZEROCOPY=0 && export SPATE_ZEROCOPY ;;
	*)	unset SPATE_ZEROCOPY ;;
	esac
	case $rp in
	ff)	save_status "$@" cat in >out 2>err ;;
	fp|rw)	save_status "$@" cat in 2>err | $SYS_CAT >out ;;
	pp)	$SYS_CAT in | save_status "$@" cat 2>err | $SYS_CAT >out ;;
	pf)	$SYS_CAT in | save_status "$@" cat >out 2>err ;;
	fn)	save_status "$@" cat in >/dev/null 2>err && : >out ;;
	hf)	save_status "$@" cat -n in in 2>err | $SYS_CAT >out ;;
	hp)	$SYS_CAT in in | save_status "$@" cat -n 2>err | $SYS_CAT >out ;;
	hs)	save_status "$@" cat -n in small in 2>err | $SYS_CAT >out ;;
	esac
}

# cat_call PATH SYSCALL REGEX K: the number, among the SYSCALL calls of a
# traced run of PATH, of the K-th one whose trace line matches the
# extended REGEX (trace_call_number).
cat_call() {
	cat_run_path $1 strace -qq -o trace -e trace=$2 &&
	trace_call_number trace "$2" "$3" "$4"
}

# cat_check WHAT: the last run (cat_run_path) against WHAT; WANT is the
# output it should have made.
cat_check() {
	case $1 in
	exact)
		test_status 0 &&
		test_must_be_empty err &&
		if [ -s out ] || [ $rp != fn ]; then
			test_cmp "$WANT" out
		fi ;;
	in:*|out:*)
		e=${1#*:}
		if [ ${1%%:*} = in ]; then
			echo "cat: in: $(strerror $e)" >expect.err
		else
			echo "cat: write error: $(strerror $e)" >expect.err
		fi &&
		test_cmp expect.err err &&
		test_status 1 &&
		if [ $rp = fn ]; then
			test_is_prefix out "$WANT"
		else
			test_is_strict_prefix out "$WANT"
		fi ;;
	*)	echo "cat_check: unknown $1"; return 1 ;;
	esac
}

# cat_fault PATH SYSCALL REGEX K ERR WHAT [SPEC]: the K-th SYSCALL call
# matching REGEX fails with ERR (and the inject= SPEC too, if given).
cat_fault() {
	test_expect_success STRACE,ZEROCOPY "$1 path, $2 call $4 like /$3/ fails with $5${7:+ ($7)}: $6" '
		when=$(cat_call '$1' '$2' "'"$3"'" '$4') && test -n "$when" &&
		cat_run_path '$1' with_faults "'$2':error='$5':when=$when '"${7:-}"'" &&
		cat_check '$6'
	'
}

# cat_side PATH SYSCALL REGEX WHO [ERRORS]: refusals, at the first call
# or a later one, fall back from the byte where the call stopped; errors
# (ERRORS, by default EIO EBADF) are WHO's (in or out).
cat_side() {
	for e in EINVAL ENOSYS ENOMEM; do
		cat_fault $1 $2 "$3" 1 $e exact
	done
	for e in ${5:-EIO EBADF}; do
		cat_fault $1 $2 "$3" 1 $e $4:$e
	done
	cat_fault $1 $2 "$3" 2 EINVAL exact
	cat_fault $1 $2 "$3" 2 EIO $4:EIO
}

# copy_file_range: an error only writing can give is the output's; for
# another, a one-byte pread(2) of the input tells whether reading fails.
cat_side ff copy_file_range '^copy_file_range\(3,' out EIO
# copy_file_range refuses with EPERM and EACCES too (a seccomp filter),
# ETXTBSY and EBADF, as GNU 9.1 takes them: write(2) then tells what the
# output says.
for e in EPERM EACCES ETXTBSY EBADF; do
	cat_fault ff copy_file_range '^copy_file_range\(3,' 1 $e exact
done
for e in ENOSPC EDQUOT EFBIG; do
	cat_fault ff copy_file_range '^copy_file_range\(3,' 1 $e out:$e
	cat_fault ff copy_file_range '^copy_file_range\(3,' 2 $e out:$e
done
# The dynamic loader makes pread64 calls of its own: the probe's is the
# one after them.
for k in 1 2; do
	test_expect_success STRACE,ZEROCOPY "ff path, copy_file_range call $k and the pread64 after it fail with EIO: in" '
		when=$(cat_call ff copy_file_range "^copy_file_range\\(3," '$k') &&
		test -n "$when" &&
		cat_run_path ff strace -qq -o trace -e trace=pread64 &&
		probe=$(($(grep -c "^pread64(" trace) + 1)) &&
		cat_run_path ff with_faults "copy_file_range:error=EIO:when=$when pread64:error=EIO:when=$probe" &&
		cat_check in:EIO
	'
done

# splice between a file and a pipe: the pipe never is at fault but for
# EPIPE, so the file is.
cat_side fp splice '^splice\(3, NULL, 1,' in
cat_fault fp splice '^splice\(3, NULL, 1,' 2 EPIPE out:EPIPE
cat_side pf splice '^splice\(0, NULL, 1,' out
cat_side pp splice '^splice\(0, NULL, 1,' out

# Between two non-pipes: the call that fails tells the side.
cat_side fn splice '^splice\(3, NULL,' in
cat_side fn splice '^splice\([0-9]+, NULL, 1,' out

# The handoff: vmsplice(2) into the output pipe, which fails only as a
# writer; a refusal, first or later, goes on by write(2) from the first
# byte not handed over.
# (test_expect_success sets $p: the loop's variable is another.)
for hpath in hf hp; do
	test_expect_success STRACE,ZEROCOPY "$hpath path: cat -n hands its output over by vmsplice" '
		cat_run_path '$hpath' strace -qq -o trace -e trace=vmsplice &&
		cat_check exact &&
		grep -q "^vmsplice(1," trace
	'
	cat_side $hpath vmsplice '^vmsplice\(1,' out
	cat_fault $hpath vmsplice '^vmsplice\(1,' 1 EPIPE out:EPIPE
done

# Once cat hands off, a flush of a few bytes is copied by write(2): a
# failure of that write is the output's, whatever its errno (not a
# refusal of vmsplice to fall back from, which would write the bytes
# again).
for e in ENOMEM EINVAL EIO; do
	cat_fault hs write '^write\(1, .*small-marker' 1 $e out:$e
done

# EAGAIN waits, EINTR retries, on every path.
for p in ff fp pp pf fn hf hp; do
	s=splice
	[ $p = ff ] && s=copy_file_range
	case $p in h?) s=vmsplice ;; esac
	test_expect_success STRACE "$p path, $s fails with EINTR, then EAGAIN: exact" '
		cat_run_path '$p' with_faults "'$s':error=EINTR:when=1..3 '$s':error=EAGAIN:when=4..5" &&
		cat_check exact
	'
done

# read/write: a read error is the input's, a write error the output's.
# The dynamic loader reads fd 3 as well: cat's reads are of 128 KiB.
test_expect_success STRACE 'rw path, the first read(3) fails with EIO: in' '
	when=$(cat_call rw read "^read\\(3, .*, 131072\\)" 1) && test -n "$when" &&
	cat_run_path rw with_faults read:error=EIO:when=$when &&
	cat_check in:EIO
'
test_expect_success STRACE 'rw path, the third read(3) fails with EIO: in' '
	when=$(cat_call rw read "^read\\(3, .*, 131072\\)" 3) && test -n "$when" &&
	cat_run_path rw with_faults read:error=EIO:when=$when &&
	cat_check in:EIO
'
for e in EIO ENOSPC EBADF; do
	for k in 1 3; do
		test_expect_success STRACE "rw path, write $k to stdout fails with $e: out" '
			when=$(cat_call rw write "^write\\(1," '$k') && test -n "$when" &&
			cat_run_path rw with_faults write:error='$e':when=$when &&
			cat_check out:'$e'
		'
	done
done

# A write that takes nothing and says no error (strace fakes the 0): the
# output is full, ENOSPC, as GNU's full_write takes it; not a call to
# make again.  The same for a vmsplice(2) of cat's handoff.
test_expect_success STRACE 'rw path, write 1 to stdout returns 0: out ENOSPC' '
	when=$(cat_call rw write "^write\\(1," 1) && test -n "$when" &&
	cat_run_path rw with_faults write:retval=0:when=$when &&
	cat_check out:ENOSPC
'
test_expect_success STRACE,ZEROCOPY 'hf path, vmsplice 1 returns 0: out ENOSPC' '
	when=$(cat_call hf vmsplice "^vmsplice\\(1," 1) && test -n "$when" &&
	cat_run_path hf with_faults vmsplice:retval=0:when=$when &&
	cat_check out:ENOSPC
'

test_done
