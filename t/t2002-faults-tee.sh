#!/bin/sh
# tee: the fault injection matrix.  Each syscall tee makes (splice, tee,
# write, read, poll, fcntl, pipe2, openat) fails on each path with the
# errors the kernel really returns there, at the first call and at later
# ones, and some calls return short counts.  The paths:
#
#   pp	pipe -> stdout pipe			splice only
#   pf	pipe -> stdout pipe, f			tee(2) to stdout, splice to f
#   pff	pipe -> stdout pipe, f1, f2		tee(2) into the private pipe
#   fp	file -> stdout pipe, f			splice into a private pipe first
#   fff	file -> stdout pipe, f1, f2		both private pipes
#   pa	pipe -> stdout pipe, -a f		tee(2) to stdout, write to f
#   rw	pipe -> stdout pipe, f, SLUICE_ZEROCOPY=0	read and write
#   rf	file -> stdout pipe, f, SLUICE_ZEROCOPY=0
#
# The expectations:
#
#   exact		status 0, no message, every output is the input
#   fail:N:E		one message "tee: N: strerror(E)", status 1, output
#			N a strict prefix of the input, the others exact
#   late:N1,N2:E	fail:Ni:E for one of the outputs listed
#   maybe:N1,N2:E	exact, or late:N1,N2:E (the call may have been a
#			first one, where tee falls back)
#   read:E		"tee: read error: strerror(E)", status 1, every
#			output the same strict prefix of the input
#   skip:N:K		as exact, but output N lacks the first K bytes:
#			strace does not run a call it fakes with retval=K
#
# t1003 has the zero-copy refusals per input and output kind; this is the
# per-syscall, per-error matrix.  Every run is bounded by timeout.  Cases
# whose expectation needs zero-copy calls are ZEROCOPY (sluice, not the
# portable build); those where GNU 9.1 differs are SLUICE.
. "$(dirname "$0")/test-lib.sh"

SQ="'"
STDOUT="${SQ}standard output${SQ}"

# outputs PATH: the files that catch PATH's outputs, as FILE:NAME.
outputs() {
	case $1 in
	pp)	echo "out:stdout" ;;
	pf|fp|pa|rw|rf) echo "out:stdout f:f" ;;
	pff|fff) echo "out:stdout f1:f1 f2:f2" ;;
	esac
}

# run_path PATH WRAP ARG...: run `WRAP tee ARG... FILES` the way PATH
# says; stdout goes to out, stderr to err, the status to status.
run_path() {
	p=$1 wrap=$2
	shift 2
	rm -f out f f1 f2 err status
	case $p in
	rw|rf)	SLUICE_ZEROCOPY=0 && export SLUICE_ZEROCOPY ;;
	*)	unset SLUICE_ZEROCOPY ;;
	esac
	case $p in
	pp)	set -- "$@" ;;
	pf|fp|rw|rf) set -- "$@" f ;;
	pa)	set -- -a "$@" f ;;
	pff|fff) set -- "$@" f1 f2 ;;
	esac
	case $p in
	fp|fff|rf)
		{ timeout 60 $wrap tee "$@" <"$TRASH/in" 2>err
		  echo $? >status; } | cat >out ;;
	*)
		cat "$TRASH/in" |
		{ timeout 60 $wrap tee "$@" 2>err; echo $? >status; } |
		cat >out ;;
	esac
}

# nth PATH SYSCALL TEXT ARG...: the number of the first SYSCALL call that
# holds TEXT in a traced run of PATH (the dynamic loader and setlocale
# make reads and opens before tee does).
nth() {
	np=$1 ns=$2 nre=$3
	shift 3
	run_path $np "strace -qq -o trace -e trace=$ns" "$@" &&
	NRE=$nre NS=$ns awk '
		index($0, ENVIRON["NS"] "(") == 1 {
			n++
			if (index($0, ENVIRON["NRE"])) { print n; exit }
		}
	' trace
}

# inject PATH SPEC ARG...: run PATH under strace with the faults SPEC.
inject() {
	ip=$1 ispec=$2
	shift 2
	if [ -n "${SLUICE_INJECT_LOG:-}" ]; then
		echo "tee $ip $ispec" >>"$SLUICE_INJECT_LOG"
	fi
	run_path $ip "strace -f -qq -o /dev/null $(
		for s in $ispec; do printf " -e inject=%s" "$s"; done)" "$@"
}

# strict_prefix FILE: FILE is a strict prefix of the input.
strict_prefix() {
	n=$(test_file_size "$1") &&
	head -c "$n" "$TRASH/in" | cmp -s - "$1" &&
	test "$n" -lt "$(test_file_size "$TRASH/in")" && return 0
	echo "$1 ($n bytes) is not a strict prefix of the input"
	return 1
}

# msg_name NAME: NAME as tee's message shows it.
msg_name() {
	if [ "$1" = stdout ]; then echo "$STDOUT"; else echo "$1"; fi
}

# check PATH WHAT: the outputs of the last run against WHAT.
check() {
	cp=$1 what=$2
	case $what in
	exact)
		echo 0 >expect.status &&
		test_cmp expect.status status &&
		test_must_be_empty err &&
		for o in $(outputs $cp); do
			test_cmp "$TRASH/in" ${o%%:*} || return 1
		done ;;
	skip:*)
		k=${what##*:} who=${what#skip:}
		who=${who%:*}
		echo 0 >expect.status &&
		test_cmp expect.status status &&
		test_must_be_empty err &&
		tail -c +$((k + 1)) "$TRASH/in" >skipped &&
		for o in $(outputs $cp); do
			if [ "${o#*:}" = "$who" ]; then
				test_cmp skipped ${o%%:*} || return 1
			else
				test_cmp "$TRASH/in" ${o%%:*} || return 1
			fi
		done ;;
	read:*)
		echo "tee: read error: $(strerror ${what#read:})" >expect.err &&
		test_cmp expect.err err &&
		echo 1 >expect.status &&
		test_cmp expect.status status &&
		set -- $(outputs $cp) &&
		strict_prefix ${1%%:*} &&
		for o in "$@"; do
			test_cmp ${1%%:*} ${o%%:*} || return 1
		done ;;
	maybe:*)
		if [ "$(cat status)" = 0 ] && ! [ -s err ]; then
			check $cp exact
		else
			check $cp late:${what#maybe:}
		fi ;;
	fail:*|late:*)
		e=${what##*:} names=${what#*:}
		names=${names%:*}
		echo 1 >expect.status &&
		test_cmp expect.status status &&
		test "$(wc -l <err)" = 1 || { cat err; return 1; }
		who=
		for n in $(echo $names | tr , " "); do
			echo "tee: $(msg_name $n): $(strerror $e)" >expect.err
			if cmp -s expect.err err; then who=$n; fi
		done
		[ -n "$who" ] || {
			echo "expected a message about $names, strerror($e):"
			cat err
			return 1
		}
		for o in $(outputs $cp); do
			if [ "${o#*:}" = "$who" ]; then
				strict_prefix ${o%%:*} || return 1
			else
				test_cmp "$TRASH/in" ${o%%:*} || return 1
			fi
		done ;;
	*)	echo "check: unknown $what"; return 1 ;;
	esac
}

# fault PREREQ PATH SPEC WHAT [ARG...]: one case.
fault() {
	fq=$1 fp=$2 fs=$3 fw=$4
	shift 4
	fa="$*"
	test_expect_success "$fq" "$fp path${fa:+ (tee $fa)}, $fs: $fw" '
		inject $fp "$fs" $fa &&
		check $fp $fw
	'
}

test_expect_success 'setup: a 4 MiB input' '
	head -c 4194304 /dev/urandom >"$TRASH/in"
'

# EPIPE from a write-like call is only worth a message with
# --output-error=warn (GNU alike): those cases run with it.
WARN=--output-error=warn

REAL="EINVAL ENOSYS ENOMEM EIO ENOSPC EPIPE"

# splice: the first call to each output falls back to write(2), whatever
# the error.  A later one is that output's error.  EAGAIN waits in poll,
# EINTR retries.  For a file input, splice into the private pipe failing
# moves nothing: read(2) takes over, exact.
for err in $REAL EAGAIN EINTR; do
	a=
	[ $err = EPIPE ] && a=$WARN
	for pth in pp pf pff fp fff pa; do
		fault STRACE $pth splice:error=$err:when=1 exact $a
	done
	fault STRACE pff splice:error=$err:when=1..3 exact $a
done
for err in $REAL; do
	a=
	[ $err = EPIPE ] && a=$WARN
	fault STRACE,ZEROCOPY pp splice:error=$err:when=3 late:stdout:$err $a
	fault STRACE,ZEROCOPY pf splice:error=$err:when=3 late:f:$err $a
	fault STRACE,ZEROCOPY pff splice:error=$err:when=5 \
		maybe:stdout,f1,f2:$err $a
	fault STRACE,ZEROCOPY fp splice:error=$err:when=4 maybe:f:$err $a
	fault STRACE,ZEROCOPY fff splice:error=$err:when=6 \
		maybe:stdout,f1,f2:$err $a
done
for err in EAGAIN EINTR; do
	for pth in pp pf pff fp fff pa; do
		fault STRACE $pth splice:error=$err:when=3+2 exact
	done
done

# tee(2): into the stdout pipe, the first failure falls back, a later one
# is stdout's error; into the private pipe (pff, fff) it never moved a
# byte, so any failure falls back to read/write, exact.
for err in $REAL EAGAIN EINTR; do
	a=
	[ $err = EPIPE ] && a=$WARN
	for pth in pf fp pa pff fff; do
		fault STRACE $pth tee:error=$err:when=1 exact $a
	done
	for pth in pff fff; do
		fault STRACE $pth tee:error=$err:when=3 exact $a
		fault STRACE $pth tee:error=$err:when=4..9 exact $a
	done
done
for err in $REAL; do
	a=
	[ $err = EPIPE ] && a=$WARN
	for pth in pf fp pa; do
		fault STRACE,ZEROCOPY $pth tee:error=$err:when=3 late:stdout:$err $a
	done
done
for err in EAGAIN EINTR; do
	for pth in pf fp pa; do
		fault STRACE $pth tee:error=$err:when=2+2 exact
	done
done

# write(2): on the read/write path outputs are written in order, stdout
# first (GNU 9.1 alike).  An -a file is written by write(2) beside
# zero-copy.  Where zero-copy carries every output, write is not called.
WERR="EINVAL EIO ENOSPC EPIPE EBADF EFBIG EDQUOT"
for err in $WERR; do
	a=
	[ $err = EPIPE ] && a=$WARN
	fault STRACE rw write:error=$err:when=1 fail:stdout:$err $a
	fault STRACE rw write:error=$err:when=2 fail:f:$err $a
	fault STRACE rw write:error=$err:when=3 fail:stdout:$err $a
	fault STRACE rf write:error=$err:when=4 fail:f:$err $a
	fault STRACE,ZEROCOPY pa write:error=$err:when=1 fail:f:$err $a
	fault STRACE,ZEROCOPY pa write:error=$err:when=3 fail:f:$err $a
	fault STRACE,ZEROCOPY pff write:error=$err exact $a
done
# GNU 9.1 tee gives up on EAGAIN and EINTR from write; sluice retries.
for when in 1 2 3 1+3; do
	for err in EAGAIN EINTR; do
		fault STRACE,SLUICE rw write:error=$err:when=$when exact
		fault STRACE,SLUICE pa write:error=$err:when=$when exact
	done
done
# EPIPE in the default mode: the output is dropped without a word, and
# it is no error (GNU alike; a real EPIPE comes with SIGPIPE).
test_expect_success STRACE 'rw path, write:error=EPIPE:when=2, default mode: f dropped silently' '
	inject rw write:error=EPIPE:when=2 &&
	echo 0 >expect.status &&
	test_cmp expect.status status &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out &&
	test_must_be_empty f
'
for k in 1 7 4095 4096; do
	fault STRACE rw write:retval=$k:when=1 skip:stdout:$k
	fault STRACE rw write:retval=$k:when=2 skip:f:$k
	fault STRACE,ZEROCOPY pa write:retval=$k:when=1 skip:f:$k
done

# Short counts from zero-copy: a faked splice leaves the bytes in the
# input pipe for the next call; a faked tee(2) to stdout then has its
# bytes moved on to f without stdout having had them.
for k in 1 7 4095 4096; do
	fault STRACE pp splice:retval=$k:when=1 exact
	fault STRACE pp splice:retval=$k:when=2 exact
	fault STRACE,ZEROCOPY pf tee:retval=$k:when=1 skip:stdout:$k
done

# read(2): the first failure ends tee with nothing written, a later one
# after every output got the same prefix.  The read to fail is found in
# a traced run, past the dynamic loader's and setlocale's reads.
for path in rw rf; do
	for err in EINVAL EIO EISDIR ENOMEM EFAULT; do
		test_expect_success STRACE "$path path, first read(0) fails with $err: read error" '
			when=$(nth '$path' read "read(0,") && test -n "$when" &&
			inject '$path' read:error='$err':when=$when &&
			check '$path' read:'$err'
		'
		test_expect_success STRACE "$path path, third read(0) fails with $err: read error" '
			when=$(nth '$path' read "read(0,") && test -n "$when" &&
			inject '$path' read:error='$err':when=$((when + 2)) &&
			check '$path' read:'$err'
		'
	done
	for err in EINTR EAGAIN; do
		[ $err = EAGAIN ] && q=STRACE,SLUICE || q=STRACE
		test_expect_success $q "$path path, read(0) fails with $err: retried, exact" '
			when=$(nth '$path' read "read(0,") && test -n "$when" &&
			inject '$path' read:error='$err':when=$when..$((when + 3)) &&
			check '$path' exact
		'
	done
done
# With -a f beside a stdout pipe, stdout has each chunk by tee(2) before
# f's read(2) of it: after a read error stdout may hold more than f.
for err in EIO EINVAL EFAULT; do
	test_expect_success STRACE,SLUICE "pa path, a read from the input pipe fails with $err: read error" '
		when=$(nth pa read "read(0,") && test -n "$when" &&
		inject pa read:error='$err':when=$((when + 1)) &&
		echo "tee: read error: $(strerror '$err')" >expect.err &&
		test_cmp expect.err err &&
		echo 1 >expect.status &&
		test_cmp expect.status status &&
		strict_prefix out &&
		strict_prefix f &&
		test $(test_file_size f) -le $(test_file_size out)
	'
done

# poll is only called after EAGAIN.  EINTR is retried; a failure while
# waiting on the first zero-copy call is a refusal, and tee falls back;
# later it is the output's error, or a read error when reading.
for err in ENOMEM EINVAL EFAULT EINTR; do
	w=
	[ $err = EINTR ] && w=:when=1..3
	fault STRACE pp "splice:error=EAGAIN:when=1 poll:error=$err$w" exact
	fault STRACE pf "tee:error=EAGAIN:when=1 poll:error=$err$w" exact
	fault STRACE pff "tee:error=EAGAIN:when=2 poll:error=$err$w" exact
	fault STRACE pp "splice:error=EAGAIN:when=1 poll:error=$err:when=1" exact
done
for err in ENOMEM EINVAL EFAULT; do
	fault STRACE,ZEROCOPY pp "splice:error=EAGAIN:when=3 poll:error=$err" \
		late:stdout:$err
	fault STRACE,SLUICE rw "write:error=EAGAIN:when=1 poll:error=$err" \
		fail:stdout:$err
	test_expect_success STRACE,SLUICE "rw path, read(0) EAGAIN, then poll fails with $err: read error" '
		when=$(nth rw read "read(0,") && test -n "$when" &&
		inject rw "read:error=EAGAIN:when=$((when + 1)) poll:error='$err'" &&
		check rw read:'$err'
	'
done

# fcntl: F_GETPIPE_SZ, F_SETPIPE_SZ and F_GETFL refused anywhere only cost
# speed (EPERM is what pipe-max-size gives, ENOMEM the pipe quota).
for err in EPERM ENOMEM EINVAL; do
	for when in 1 2 3 5 1+; do
		for pth in pff fff pa; do
			fault STRACE $pth fcntl:error=$err:when=$when exact
		done
	done
done

# pipe2: the private pipes.  Refused, tee reads and writes instead.
for err in EMFILE ENFILE ENOMEM EFAULT EINVAL; do
	for when in 1 2 1+; do
		for pth in pff fp fff; do
			fault STRACE $pth pipe2:error=$err:when=$when exact
		done
	done
done

# openat: an output that cannot be opened is reported, by name, and the
# others are complete (GNU alike).
for err in EMFILE ENFILE ENOSPC EIO EPERM EACCES EROFS EDQUOT ENOMEM; do
	for path in pff rw fp; do
		test_expect_success STRACE "$path path, openat of the first FILE fails with $err" '
			name=$(outputs '$path' | cut -d" " -f2) &&
			name=${name%%:*} &&
			when=$(nth '$path' openat "\"$name\"") && test -n "$when" &&
			inject '$path' openat:error='$err':when=$when &&
			echo 1 >expect.status &&
			test_cmp expect.status status &&
			echo "tee: $name: $(strerror '$err')" >expect.err &&
			test_cmp expect.err err &&
			! test -e $name &&
			for o in $(outputs '$path'); do
				[ ${o%%:*} = $name ] ||
				test_cmp "$TRASH/in" ${o%%:*} || exit 1
			done
		'
	done
done

test_done
