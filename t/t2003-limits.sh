#!/bin/sh
# yes and tee at the edges of their resources: too few descriptors, pipe
# sizes refused, little address space, readers that stall or leave, and
# signals in the middle of a transfer.  Where GNU 9.1 is the reference,
# the same run of GNU's tee or yes (GNU_TEE, GNU_YES) gives the
# expectation.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-fault.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

MiB=1048576
# GNU's tee (test-lib's GNU_TEE) called by the name tee, as the tee
# under test is, so that the messages match.
tee_gnu="env PATH=$(dirname "$GNU_TEE"):$PATH tee"

# tee_run_fdlimit N OUT ERR STATUS TEE ARG...: run TEE ARG... with
# descriptors 3 to 9 closed (dash knows none above) and at most N of
# them, stdin the input file; stdout to OUT, stderr to ERR, the status
# to the file STATUS.  No python: lib-fd's with_fd_limit would make
# these cases need PYTHON3.
tee_run_fdlimit() {
	lim=$1 o=$2 e=$3 s=$4
	shift 4
	(
		for fd in 3 4 5 6 7 8 9; do eval "exec $fd>&-"; done
		ulimit -n "$lim" && exec "$@" <"$TRASH/in"
	) >"$o" 2>"$e"
	echo $? >"$s"
}

test_expect_success 'setup: inputs' '
	head -c $((8 * MiB + 5)) /dev/urandom >"$TRASH/in" &&
	head -c $((64 * MiB)) /dev/urandom >"$TRASH/big"
'

# The limit leaves room for fds 0-2 and some files, fewer than named.
for lim in 12 16 20; do
	test_expect_success "ulimit -n $lim, 30 FILEs: as GNU, per-file messages, the rest complete" '
		files=$(seq -f f%g 30) &&
		mkdir gnu &&
		(cd gnu && tee_run_fdlimit '$lim' out err status $tee_gnu $files) &&
		tee_run_fdlimit '$lim' out err status tee $files &&
		test_cmp gnu/status status &&
		test_status 1 &&
		test_cmp gnu/err err &&
		test -s err &&
		! grep -v "^tee: f[0-9]*: Too many open files\$" err &&
		test_cmp "$TRASH/in" out &&
		for f in $files; do
			if [ -e gnu/$f ]; then
				test_cmp "$TRASH/in" $f || exit 1
			else
				! [ -e $f ] || exit 1
			fi
		done
	'
done

test_expect_success 'ulimit -n 12, 30 FILEs, input from a pipe: as GNU' '
	files=$(seq -f f%g 30) &&
	mkdir gnu &&
	(cd gnu && $SYS_CAT "$TRASH/in" |
	 save_status with_ulimit -n 12 $tee_gnu $files 2>err >out) &&
	$SYS_CAT "$TRASH/in" | save_status with_ulimit -n 12 tee $files 2>err >out &&
	test_cmp gnu/status status &&
	test_status 1 &&
	test_cmp gnu/err err &&
	test -s err &&
	test_cmp "$TRASH/in" out &&
	for f in $files; do
		if [ -e gnu/$f ]; then
			test_cmp "$TRASH/in" $f || exit 1
		else
			! [ -e $f ] || exit 1
		fi
	done
'

# Pipe sizes refused, as past pipe-max-size or the per-user quota: the
# pipes keep their default size and every byte still goes through.
for err in EPERM ENOMEM; do
	test_expect_success STRACE "tee: F_SETPIPE_SZ refused ($err), 64 MiB to a pipe and 2 files" '
		$SYS_CAT "$TRASH/big" |
		save_status with_faults fcntl:error='$err':when=2+ \
			tee f1 f2 2>err | $SYS_CAT >out &&
		test_status 0 &&
		test_must_be_empty err &&
		test_cmp "$TRASH/big" out &&
		test_cmp "$TRASH/big" f1 &&
		test_cmp "$TRASH/big" f2
	'
	test_expect_success STRACE "yes: F_SETPIPE_SZ refused ($err), 64 MiB exact" '
		save_status with_faults fcntl:error='$err':when=2+ \
			yes abcdef 2>err | head -c $((64 * MiB)) >actual &&
		test_status $SIGPIPE_STATUS &&
		yes_ref abcdef | head -c $((64 * MiB)) >expect &&
		cmp expect actual &&
		test_must_be_empty err
	'
done

# Little address space.  6 MiB is too little for yes's 2 MiB buffer on
# a huge page (a 4 MiB mapping): it keeps its first one.  The sanitizer
# build reserves terabytes of shadow memory and cannot run under it, nor
# can qemu-user (NATIVE): the limit would count the emulator's memory.
if [ "${SPATE_SAN:-}" != 1 ]; then
	for kib in 6144 65536; do
		test_expect_success NATIVE "yes under ulimit -v $kib: exact" '
			save_status with_ulimit -v '$kib' \
				env --default-signal=PIPE yes abc 2>err |
				head -c $((64 * MiB)) >actual &&
			test_status $SIGPIPE_STATUS &&
			yes_ref abc | head -c $((64 * MiB)) >expect &&
			cmp expect actual &&
			test_must_be_empty err
		'
		test_expect_success NATIVE "yes under ulimit -v $kib, SPATE_ZEROCOPY=0: exact" '
			save_status with_ulimit -v '$kib' \
				env --default-signal=PIPE SPATE_ZEROCOPY=0 \
				yes abc 2>err | head -c $((16 * MiB)) >actual &&
			test_status $SIGPIPE_STATUS &&
			yes_ref abc | head -c $((16 * MiB)) >expect &&
			cmp expect actual &&
			test_must_be_empty err
		'
		test_expect_success NATIVE "tee under ulimit -v $kib, 64 MiB to a pipe, 2 files and -a: exact" '
			$SYS_CAT "$TRASH/big" |
			test_expect_code 0 with_ulimit -v '$kib' tee f1 f2 \
				2>err >out &&
			$SYS_CAT "$TRASH/big" |
			save_status with_ulimit -v '$kib' tee -a f3 2>>err |
				$SYS_CAT >out3 &&
			test_status 0 &&
			test_must_be_empty err &&
			for f in out f1 f2 out3 f3; do
				test_cmp "$TRASH/big" $f || exit 1
			done
		'
	done
fi

# stall SECS: copy stdin to stdout after SECS seconds of not reading.
stall() {
	sleep "$1" && $SYS_CAT
}

test_expect_success 'yes: a reader that stalls for 2 s, then reads on: exact' '
	{ env --default-signal=PIPE yes abc 2>err; } |
		stall 2 | head -c $((32 * MiB)) >actual &&
	yes_ref abc | head -c $((32 * MiB)) >expect &&
	cmp expect actual &&
	test_must_be_empty err
'

test_expect_success 'tee: stdout stalls for 2 s, then reads on: every output exact' '
	$SYS_CAT "$TRASH/big" | save_status tee f1 f2 2>err | stall 2 >out &&
	test_status 0 &&
	test_must_be_empty err &&
	for f in out f1 f2; do test_cmp "$TRASH/big" $f || exit 1; done
'

test_expect_success 'tee: a FIFO output stalls for 2 s, then reads on: exact' '
	mkfifo fo &&
	{ stall 2 <fo >fo.out & } &&
	$SYS_CAT "$TRASH/big" | save_status tee f1 fo 2>err | $SYS_CAT >out &&
	wait &&
	test_status 0 &&
	test_must_be_empty err &&
	for f in out f1 fo.out; do test_cmp "$TRASH/big" $f || exit 1; done
'

test_expect_success 'tee: the input stalls for 2 s, then goes on: exact' '
	{ head -c $MiB "$TRASH/big" && sleep 2 &&
	  tail -c +$((MiB + 1)) "$TRASH/big"; } |
		save_status tee f1 2>err | $SYS_CAT >out &&
	test_status 0 &&
	for f in out f1; do test_cmp "$TRASH/big" $f || exit 1; done
'

# A reader that leaves mid-stream: run TEE OPTION... f with stdout read
# by `head -c 1M`; the status, stderr and whether f is complete must be
# GNU's.  tee_run_close DIR TEE OPTION...: in DIR, f, err, status
# (save_status), out and f.state, complete or cut.
tee_run_close() {
	d=$1
	shift
	mkdir -p $d &&
	(cd $d && save_status env --default-signal=PIPE "$@" f \
		<"$TRASH/big" 2>err | head -c $MiB >out) &&
	if cmp -s "$TRASH/big" $d/f; then echo complete; else echo cut; fi \
		>$d/f.state
}

for opt in "" -p --output-error=warn --output-error=warn-nopipe \
	--output-error=exit --output-error=exit-nopipe; do
	test_expect_success "tee${opt:+ $opt}: stdout reader leaves after 1 MiB: as GNU" '
		tee_run_close gnu $tee_gnu '$opt' &&
		tee_run_close sl tee '$opt' &&
		test_cmp gnu/status sl/status &&
		test_cmp gnu/err sl/err &&
		test_cmp gnu/f.state sl/f.state &&
		test_cmp gnu/out sl/out
	'
done

test_expect_success 'yes: reader leaves mid-stream: killed by SIGPIPE, as GNU' '
	save_status env --default-signal=PIPE $GNU_YES 2>gnu.err |
		head -c $((5 * MiB + 3)) >/dev/null &&
	mv status gnu.status &&
	save_status env --default-signal=PIPE yes 2>err |
		head -c $((5 * MiB + 3)) >/dev/null &&
	test_cmp gnu.status status &&
	test_status $SIGPIPE_STATUS &&
	test_must_be_empty err
'

# signal_mid SIG CMD...: start CMD reading yes and writing to a reader
# that discards everything; once 8 MiB went through, send SIG, then
# SIGKILL.  A signal that kills decides the status when it is sent, so
# that CMD dies of SIG if SIG kills it, of SIGKILL ("alive") if not,
# whoever runs first.  The status goes to stdout.  NATIVE: under
# qemu-user the signal reaches the program through the emulator's
# handler, which catches every signal, so the kernel decides nothing
# when it is sent and the SIGKILL may come first.
signal_mid() {
	sig=$1
	shift
	rm -f flow started && mkfifo flow || return 1
	{ head -c $((8 * MiB)) >/dev/null && : >started &&
	  $SYS_CAT >/dev/null; } <flow &
	$GNU_YES | env --default-signal=INT "$@" >flow 2>>err &
	pid=$!
	i=0
	while ! [ -e started ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -$sig $pid &&
	kill -KILL $pid
	wait $pid
	st=$?
	if [ $st = 137 ]; then echo alive; fi
	echo $st
	wait
}

for sig in INT TERM; do
	for opt in "" -i; do
		test_expect_success NATIVE "tee${opt:+ $opt}: SIG$sig mid-transfer, as GNU" '
			signal_mid '$sig' $tee_gnu '$opt' /dev/null >expect &&
			signal_mid '$sig' tee '$opt' /dev/null >actual &&
			test_cmp expect actual &&
			case '$sig'/'$opt' in
			INT/-i)	printf "alive\n137\n" ;;
			INT/)	echo 130 ;;
			TERM/*)	echo 143 ;;
			esac >want &&
			test_cmp want actual &&
			test_must_be_empty err
		'
	done
	test_expect_success NATIVE "yes: SIG$sig mid-transfer, as GNU" '
		signal_mid '$sig' $GNU_YES >expect &&
		signal_mid '$sig' yes >actual &&
		test_cmp expect actual &&
		case '$sig' in INT) echo 130 ;; TERM) echo 143 ;; esac >want &&
		test_cmp want actual &&
		test_must_be_empty err
	'
done

test_done
