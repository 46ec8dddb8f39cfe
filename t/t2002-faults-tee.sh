#!/bin/sh
# tee: the fault injection matrix.  Each system call tee makes fails on
# each path, at the first call and at a later one, on each side, with the
# errors the kernel really returns there; some calls return short counts.
# The paths and the calls each makes per chunk (once a first read(2) has
# shown a stream worth zero-copy):
#
#   pp	pipe -> stdout pipe		splice(0 -> 1): no copy needed
#   pf	pipe -> stdout pipe, f		splice(0 -> chunk pipe), tee(2)
#					into stdout, splice into f
#   pff	pipe -> stdout pipe, f1, f2	as pf, and f1 through the copy pipe:
#					tee(2) into it, splice out of it
#   fp	file -> stdout pipe, f		as pf from a file
#   fff	file -> stdout pipe, f1, f2	as pff from a file
#   pa	pipe -> stdout pipe, -a f	as pf, f by read(2) and write(2)
#   rw	pipe -> stdout pipe, f, SPATE_ZEROCOPY=0	read and write
#   rf	file -> stdout pipe, f, SPATE_ZEROCOPY=0
#
# The policy under test: a refusal (EINVAL, ENOSYS, ENOMEM: the call
# cannot serve this pair; t2013 has the sandbox's EPERM and EACCES), at
# the first call or a later one, falls back to read/write from the byte
# where it stopped, nothing lost; any other error is that side's error:
# the input's ("tee: read error: E") or one output's ("tee: NAME: E").
# The engine's own pipes failing costs only speed.
#
# The expectations:
#
#   exact		status 0, no message, every output is the input
#   fail:N:E		one message "tee: N: strerror(E)", status 1, output
#			N a strict prefix of the input, the others exact
#   read:E		"tee: read error: strerror(E)", status 1, every
#			output the same strict prefix of the input
#   skip:N:K		as exact, but output N lacks the first K bytes:
#			strace does not run a call it fakes with retval=K
#
# t1003 has the zero-copy refusals per input and output kind; this is the
# per-syscall, per-error matrix.  A case that fails one call among others
# of its kind names it by its descriptors and its place among the calls
# on them (with_inject: "the 3rd splice(2) into 4"), not by its number
# among all the calls of the run: that number depends on the start-up,
# and on timing, since a call asked not to wait says EAGAIN whenever its
# pipe is empty or full.  strace's when= fails the calls whose number
# does not: the write(2) calls of a read/write run (blocking, one an
# output, in the outputs' order), any call at all for an expectation
# that holds whichever it is.  So the script runs beside others (t/run);
# CI runs it again on CPUs kept busy (scripts/check-load).  Every run is
# bounded by timeout.  Cases whose expectation needs zero-copy calls are ZEROCOPY
# (spate, not the portable build); those where GNU 9.1 differs are
# SPATE.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fault.sh"

STDOUT="${SQ}standard output${SQ}"

# tee_outputs PATH: the files that catch PATH's outputs, as FILE:NAME.
tee_outputs() {
	case $1 in
	pp)	echo "out:stdout" ;;
	pf|fp|pa|rw|rf) echo "out:stdout f:f" ;;
	pff|fff) echo "out:stdout f1:f1 f2:f2" ;;
	esac
}

# tee_run_path PATH HOW ARG...: run `tee ARG... FILES` the way PATH says;
# stdout goes to out, stderr to err, the status to status (save_status).
# HOW is trace=SYSCALL (under strace, its SYSCALL calls logged to trace),
# faults=SPEC (under with_faults SPEC) or inject=SPEC (under with_inject
# SPEC).  Bounded by timeout.
tee_run_path() {
	p=$1 how=$2
	shift 2
	rm -f out f f1 f2 err status
	case $p in
	rw|rf)	SPATE_ZEROCOPY=0 && export SPATE_ZEROCOPY ;;
	*)	unset SPATE_ZEROCOPY ;;
	esac
	case $p in
	pp)	set -- "$@" ;;
	pf|fp|rw|rf) set -- "$@" f ;;
	pa)	set -- -a "$@" f ;;
	pff|fff) set -- "$@" f1 f2 ;;
	esac
	case $how in
	trace=*) set -- timeout 60 strace -qq -o trace -e "$how" tee "$@" ;;
	faults=*) set -- with_faults "${how#faults=}" tee "$@" ;;
	inject=*) set -- with_inject "${how#inject=}" tee "$@" ;;
	*)	echo "tee_run_path: no way $how" >&2; return 1 ;;
	esac
	case $p in
	fp|fff|rf)
		save_status "$@" <"$TRASH/in" 2>err | $SYS_CAT >out ;;
	*)
		$SYS_CAT "$TRASH/in" | save_status "$@" 2>err | $SYS_CAT >out ;;
	esac
}

# tee_call PATH SYSCALL REGEX K ARG...: the number, among the SYSCALL
# calls, of the K-th one whose trace line matches the extended REGEX, in
# a traced run of PATH (trace_call_number; the dynamic loader and
# setlocale make reads and opens before tee does).  For calls that no
# pipe's timing adds to: the openat(2) of an output.
tee_call() {
	cp_=$1 cs=$2 cre=$3 ck=$4
	shift 4
	tee_run_path $cp_ trace=$cs "$@" &&
	trace_call_number trace "$cs" "$cre" "$ck"
}

# tee_inject PATH SPEC ARG...: run PATH under with_faults SPEC.
tee_inject() {
	ip=$1 ispec=$2
	shift 2
	tee_run_path $ip faults="$ispec" "$@"
}

# tee_injected PATH SPEC ARG...: run PATH under with_inject SPEC; the
# first fault of SPEC must come.
tee_injected() {
	ip=$1 ispec=$2
	shift 2
	tee_run_path $ip inject="$ispec" "$@" &&
	ierr=${ispec%% *} &&
	test_injected ": ${ierr##*:}\$"
}

# tee_call_desc FDS: the descriptors that in= and out= ask for, as a
# title says them ("in=0:out=!1": "from 0 into not 1").
tee_call_desc() {
	echo "$1" | sed -e "s/in=/from /" -e "s/out=/into /" -e "s/:/ /g" \
		-e "s/!/not /g"
}

# tee_skipped FILE K: FILE is the input less K bytes somewhere: those a
# faked call claimed to move.
tee_skipped() {
	d=$(cmp "$TRASH/in" "$1" | awk '{ sub(",", "", $5); print $5 }') &&
	test -n "$d" &&
	{ head -c $((d - 1)) "$TRASH/in" && tail -c +$((d + $2)) "$TRASH/in"; } |
		cmp - "$1" && return 0
	echo "$1 is not the input less $2 bytes at byte ${d:-?}"
	return 1
}

# tee_msg_name NAME: NAME as tee's message shows it.
tee_msg_name() {
	if [ "$1" = stdout ]; then echo "$STDOUT"; else echo "$1"; fi
}

# tee_check PATH WHAT: the outputs of the last run against WHAT.
tee_check() {
	cp=$1 what=$2
	case $what in
	exact)
		test_status 0 &&
		test_must_be_empty err &&
		for o in $(tee_outputs $cp); do
			test_cmp "$TRASH/in" ${o%%:*} || return 1
		done ;;
	skip:*)
		k=${what##*:} who=${what#skip:}
		who=${who%:*}
		test_status 0 &&
		test_must_be_empty err &&
		for o in $(tee_outputs $cp); do
			if [ "${o#*:}" = "$who" ]; then
				tee_skipped ${o%%:*} $k || return 1
			else
				test_cmp "$TRASH/in" ${o%%:*} || return 1
			fi
		done ;;
	read:*)
		echo "tee: read error: $(strerror ${what#read:})" >expect.err &&
		test_cmp expect.err err &&
		test_status 1 &&
		set -- $(tee_outputs $cp) &&
		test_is_strict_prefix ${1%%:*} "$TRASH/in" &&
		for o in "$@"; do
			test_cmp ${1%%:*} ${o%%:*} || return 1
		done ;;
	maybe:*)
		if [ "$($SYS_CAT status)" = 0 ] && ! [ -s err ]; then
			tee_check $cp exact
		else
			tee_check $cp late:${what#maybe:}
		fi ;;
	fail:*|late:*)
		e=${what##*:} names=${what#*:}
		names=${names%:*}
		test_status 1 &&
		test "$(wc -l <err)" = 1 || { $SYS_CAT err; return 1; }
		who=
		for n in $(echo $names | tr , " "); do
			echo "tee: $(tee_msg_name $n): $(strerror $e)" >expect.err
			if cmp -s expect.err err; then who=$n; fi
		done
		[ -n "$who" ] || {
			echo "expected a message about $names, strerror($e):"
			$SYS_CAT err
			return 1
		}
		for o in $(tee_outputs $cp); do
			if [ "${o#*:}" = "$who" ]; then
				test_is_strict_prefix ${o%%:*} "$TRASH/in" || return 1
			else
				test_cmp "$TRASH/in" ${o%%:*} || return 1
			fi
		done ;;
	*)	echo "tee_check: unknown $what"; return 1 ;;
	esac
}

# tee_fault PREREQ PATH SPEC WHAT [ARG...]: one case.
tee_fault() {
	fq=$1 fp=$2 fs=$3 fw=$4
	shift 4
	fa="$*"
	test_expect_success "$fq" "$fp path${fa:+ (tee $fa)}, $fs: $fw" '
		tee_inject $fp "$fs" $fa &&
		tee_check $fp $fw
	'
}

test_expect_success 'setup: a 4 MiB input' '
	head -c 4194304 /dev/urandom >"$TRASH/in"
'

# EPIPE from a write-like call is only worth a message with
# --output-error=warn (GNU alike): those cases run with it.
WARN=--output-error=warn

REFUSE="EINVAL ENOSYS ENOMEM"
ERRORS="EIO ENOSPC EPIPE"

# tee_fault_at PREREQ PATH CALL FDS K ERR WHAT: one case: the K-th CALL
# on the descriptors FDS (with_inject's in= and out=, as "in=0:out=1")
# fails with ERR; expect WHAT.
tee_fault_at() {
	fq=$1 fp=$2 fs=$3 fd=$4 fk=$5 fe=$6 fw=$7
	fa=
	[ $fe = EPIPE ] && fa=$WARN
	test_expect_success "$fq" "$fp path, $fs call $fk $(tee_call_desc $fd) fails with $fe: $fw" '
		tee_injected '$fp' "'$fs:$fd:nth=$fk:error=$fe'" '$fa' &&
		tee_check '$fp' '$fw'
	'
}

# tee_fault_gnu PATH SYSCALL REGEX K ERR WHAT: tee_fault_at for GNU's
# tee (!SPATE, TEST_HOST=1), which writes its files by stdio, inside
# libc, where no preloaded library sees the call: the K-th SYSCALL call
# whose trace line matches REGEX fails, by strace's count, which no pipe
# changes there (GNU's tee reads and writes, and never asks not to wait).
tee_fault_gnu() {
	fp=$1 fs=$2 fre=$3 fk=$4 fe=$5 fw=$6
	fa=
	[ $fe = EPIPE ] && fa=$WARN
	test_expect_success STRACE,!SPATE "$fp path, $fs call $fk like /$fre/ fails with $fe: $fw" '
		when=$(tee_call '$fp' '$fs' "'"$fre"'" '$fk' '$fa') &&
		test -n "$when" &&
		tee_inject '$fp' '$fs':error='$fe':when=$when '$fa' &&
		tee_check '$fp' '$fw'
	'
}

# tee_side PATH CALL FDS WHO: the side of a call, for each error, at the
# first call and a later one: a refusal falls back (exact), any other
# error is WHO's.  WHO is an output name, or read for the input.
tee_side() {
	for e in $REFUSE; do
		tee_fault_at INJECT,ZEROCOPY $1 $2 "$3" 1 $e exact
	done
	for e in $ERRORS; do
		[ $4 = read ] && [ $e = EPIPE ] && continue
		if [ $4 = read ]; then w=read:$e; else w=fail:$4:$e; fi
		tee_fault_at INJECT,ZEROCOPY $1 $2 "$3" 1 $e $w
	done
	tee_fault_at INJECT,ZEROCOPY $1 $2 "$3" 3 EINVAL exact
	if [ $4 = read ]; then w=read:EIO; else w=fail:$4:EIO; fi
	tee_fault_at INJECT,ZEROCOPY $1 $2 "$3" 3 EIO $w
}

# One output: splice(2) straight from the input pipe to stdout.  A pipe
# fails only as a writer, so any error is stdout's.
tee_side pp splice in=0:out=1 stdout

# The input side: splice(2) into the chunk pipe, which cannot fail.
for p in pf pff fp fff pa; do
	tee_side $p splice in=0 read
done
# The outputs: tee(2) into stdout, splice(2) into f (or the last file).
for p in pf pff fp fff pa; do
	tee_side $p tee out=1 stdout
done
tee_side pf splice out=3 f
tee_side fp splice out=3 f
tee_side pff splice out=4 f2
tee_side fff splice out=4 f2
# f1 takes the chunk out of the copy pipe.
tee_side pff splice out=3 f1
tee_side fff splice out=3 f1

# tee(2) into the copy pipe: the engine's own pipe.  Whatever fails
# there, the chunk goes on from memory: exact.
for e in EINVAL EIO ENOMEM; do
	for k in 1 3; do
		tee_fault_at INJECT,ZEROCOPY pff tee 'out=!1' $k $e exact
		tee_fault_at INJECT,ZEROCOPY fff tee 'out=!1' $k $e exact
	done
done

# EAGAIN waits in poll, EINTR retries, on every call of every path.
for e in EAGAIN EINTR; do
	for p in pp pf pff fp fff pa; do
		tee_fault STRACE $p "splice:error=$e:when=1..4" exact
		tee_fault STRACE $p "tee:error=$e:when=2..5" exact
	done
done

# write(2): on the read/write path outputs are written in order, stdout
# first (GNU 9.1 alike); write errors are never refusals.  An -a file is
# written by write(2) beside zero-copy, and so is every output while the
# first read decides whether zero-copy is worth it.
WERR="EINVAL EIO ENOSPC EPIPE EBADF EFBIG EDQUOT"
for err in $WERR; do
	a=
	[ $err = EPIPE ] && a=$WARN
	tee_fault STRACE rw write:error=$err:when=1 fail:stdout:$err $a
	tee_fault STRACE rw write:error=$err:when=2 fail:f:$err $a
	tee_fault STRACE rw write:error=$err:when=3 fail:stdout:$err $a
	tee_fault STRACE rf write:error=$err:when=4 fail:f:$err $a
	tee_fault_at INJECT,SPATE pa write out=3 1 $err fail:f:$err
	tee_fault_at INJECT,SPATE pa write out=3 3 $err fail:f:$err
	tee_fault_gnu pa write '^write\(3,' 1 $err fail:f:$err
	tee_fault_gnu pa write '^write\(3,' 3 $err fail:f:$err
done
# GNU 9.1 tee gives up on EAGAIN and EINTR from write; spate retries.
for when in 1 2 3 1+3; do
	for err in EAGAIN EINTR; do
		tee_fault STRACE,SPATE rw write:error=$err:when=$when exact
		tee_fault STRACE,SPATE pa write:error=$err:when=$when exact
	done
done
# EPIPE in the default mode: the output is dropped without a word, and
# it is no error (GNU alike; a real EPIPE comes with SIGPIPE).
test_expect_success STRACE 'rw path, write:error=EPIPE:when=2, default mode: f dropped silently' '
	tee_inject rw write:error=EPIPE:when=2 &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out &&
	test_must_be_empty f
'

# Short counts.  A faked write(2) or tee(2) claims bytes that never went
# out: that output lacks them, the others are exact.  A faked splice(2)
# leaves its bytes where they were, for the next call.
for k in 1 7 4095 4096; do
	tee_fault STRACE rw write:retval=$k:when=1 skip:stdout:$k
	tee_fault STRACE rw write:retval=$k:when=2 skip:f:$k
	tee_fault STRACE pp splice:retval=$k:when=1 exact
	tee_fault STRACE pp splice:retval=$k:when=2 exact
	test_expect_success INJECT,ZEROCOPY "pf path, tee(2) into stdout claims $k bytes: stdout lacks them" '
		tee_injected pf tee:out=1:nth=1:retval='$k' &&
		tee_check pf skip:stdout:'$k'
	'
done

# read(2): the first failure ends tee with nothing written, a later one
# after every output got the same prefix.  On the zero-copy paths the
# input is read by read(2) only until the stream shows it is worth more.
for path in rw rf; do
	for err in EINVAL EIO EISDIR ENOMEM EFAULT; do
		test_expect_success INJECT "$path path, first read(0) fails with $err: read error" '
			tee_injected '$path' read:in=0:nth=1:error='$err' &&
			tee_check '$path' read:'$err'
		'
		test_expect_success INJECT "$path path, third read(0) fails with $err: read error" '
			tee_injected '$path' read:in=0:nth=3:error='$err' &&
			tee_check '$path' read:'$err'
		'
	done
	for err in EINTR EAGAIN; do
		[ $err = EAGAIN ] && q=INJECT,SPATE || q=INJECT
		test_expect_success $q "$path path, read(0) fails with $err: retried, exact" '
			tee_injected '$path' read:in=0:nth=1..4:error='$err' &&
			tee_check '$path' exact
		'
	done
done
for path in pf fp; do
	for err in EIO EFAULT; do
		test_expect_success INJECT "$path path, the first read(0) fails with $err: read error" '
			tee_injected '$path' read:in=0:nth=1:error='$err' &&
			tee_check '$path' read:'$err'
		'
	done
done

# The chunk pipe, tee's own, fails where the output written by write(2)
# (-a f) reads its chunk out of it: the input never failed, and tee does
# not say it did ("tee: read error" until 0.4), but names its own pipe.
# Each output has a prefix of the input.  The chunk pipe's read end is
# the descriptor after f's (4); its first read may come before the
# stream is on zero-copy, its second cannot.
test_expect_success SPATE,INJECT,ZEROCOPY "pa path, a read out of the chunk pipe fails: not a read error" '
	tee_injected pa read:in=4:nth=2:error=EIO &&
	echo "tee: internal pipe: $(strerror EIO)" >expect.err &&
	test_cmp expect.err err &&
	test_status 1 &&
	test_is_strict_prefix out "$TRASH/in" &&
	test_is_strict_prefix f "$TRASH/in"
'

# poll is only called after EAGAIN.  EINTR is retried.  The calls from
# the input pipe and into output pipes ask not to wait
# (SPLICE_F_NONBLOCK): after their EAGAIN tee waits in poll(2) for as
# long as it chooses, and if that poll fails, the call waits in the
# kernel instead.  After an EAGAIN tee did not ask for (a descriptor of
# O_NONBLOCK), a failed poll is that side's error: here f1's.
for p in pp pf pff; do
	tee_fault STRACE $p "splice:error=EAGAIN:when=1 poll,ppoll:error=EINTR:when=1..3" exact
done
for err in EFAULT EBADF; do
	tee_fault_poll() {
		test_expect_success INJECT,ZEROCOPY "$1 path, $2 call $3 $(tee_call_desc $5) EAGAIN, then poll fails with $err: $4" '
			tee_injected '$1' "'"$2:$5:nth=$3:error=EAGAIN poll:error=$err"'" &&
			test_injected "^poll.*: error='$err'\$" &&
			tee_check '$1' '$4'
		'
	}
	tee_fault_poll pf splice 3 exact in=0
	tee_fault_poll pf tee 3 exact out=1
	tee_fault_poll pff splice 3 fail:f1:$err out=3
done

# fcntl: F_GETFL, F_GETPIPE_SZ and F_SETPIPE_SZ refused anywhere only
# cost speed (EPERM is what pipe-max-size gives, ENOMEM the pipe quota).
for err in EPERM ENOMEM EINVAL; do
	for when in 1 2 3 5 1+; do
		for pth in pff fff pa; do
			tee_fault STRACE $pth fcntl:error=$err:when=$when exact
		done
	done
done

# pipe2: the private pipes.  Refused, tee reads and writes instead.
for err in EMFILE ENFILE ENOMEM EFAULT EINVAL; do
	for when in 1 2 1+; do
		for pth in pff fp fff; do
			tee_fault STRACE $pth pipe2:error=$err:when=$when exact
		done
	done
done

# openat: an output that cannot be opened is reported, by name, and the
# others are complete (GNU alike).
for err in EMFILE ENFILE ENOSPC EIO EPERM EACCES EROFS EDQUOT ENOMEM; do
	for path in pff rw fp; do
		test_expect_success STRACE "$path path, openat of the first FILE fails with $err" '
			name=$(tee_outputs '$path' | cut -d" " -f2) &&
			name=${name%%:*} &&
			when=$(tee_call '$path' openat "\"$name\"" 1) && test -n "$when" &&
			tee_inject '$path' openat:error='$err':when=$when &&
			test_status 1 &&
			echo "tee: $name: $(strerror '$err')" >expect.err &&
			test_cmp expect.err err &&
			! test -e $name &&
			for o in $(tee_outputs '$path'); do
				[ ${o%%:*} = $name ] ||
				test_cmp "$TRASH/in" ${o%%:*} || exit 1
			done
		'
	done
done

test_done
