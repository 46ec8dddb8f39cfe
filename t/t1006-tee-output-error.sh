#!/bin/sh
# tee: -p and --output-error: what each MODE does with a broken stdout
# pipe and with a FILE that cannot be opened, their abbreviations, and
# the messages for a bad MODE.  Expectations are GNU coreutils 9.1's.
. "$(dirname "$0")/test-lib.sh"

# GNU's curly quotes under a UTF-8 locale.
LQ=$(printf '\342\200\230')
RQ=$(printf '\342\200\231')

# tee_mode_error KIND ARG: GNU's message for a bad --output-error argument, in
# LC_ALL=C; KIND is "invalid" or "ambiguous".
tee_mode_error() {
	printf "tee: %s argument '%s' for '--output-error'\n" "$1" "$2"
	echo "Valid arguments are:"
	for m in warn warn-nopipe exit exit-nopipe; do
		echo "  - '$m'"
	done
	echo "Try 'tee --help' for more information."
}

test_expect_success 'setup: inputs' '
	head -c 10485760 /dev/zero >"$TRASH/in10m"
'

# A stdout pipe that breaks early: tee's status and stderr tell the mode.
# tee_broken_stdout OPTION...: run tee with 10 MiB into f, stdout read by
# `head -c 1`; leave the status in status (save_status) and stderr in err.
tee_broken_stdout() {
	save_status tee "$@" f <"$TRASH/in10m" 2>err | head -c 1 >/dev/null
}

test_expect_success '-p: a broken pipe is not diagnosed, status 0' '
	tee_broken_stdout -p &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success '--output-error without MODE is warn-nopipe' '
	tee_broken_stdout --output-error &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success '--output-error=warn: a broken pipe is diagnosed' '
	tee_broken_stdout --output-error=warn &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success '--output-error=warn-nopipe and the abbreviation warn-n' '
	tee_broken_stdout --output-error=warn-nopipe &&
	test_status 0 &&
	test_must_be_empty err &&
	tee_broken_stdout --output-error=warn-n &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f
'

test_expect_success 'abbreviations: --out=warn, --output-error=warn-' '
	tee_broken_stdout --out=warn &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err &&
	tee_broken_stdout --output-error=warn- &&
	test_status 0 &&
	test_must_be_empty err
'

test_expect_success '--output-error=exit and the abbreviation exi' '
	tee_broken_stdout --output-error=exit &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err &&
	tee_broken_stdout --output-error=exi &&
	test_status 1
'

test_expect_success '--output-error=exit-nopipe and the abbreviation exit-' '
	tee_broken_stdout --output-error=exit-nopipe &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in10m" f &&
	tee_broken_stdout --output-error=exit- &&
	test_status 0 &&
	test_must_be_empty err
'

test_expect_success 'the last of -p and --output-error wins' '
	tee_broken_stdout --output-error=warn -p &&
	test_status 0 &&
	test_must_be_empty err &&
	tee_broken_stdout -p --output-error=warn &&
	test_status 1 &&
	echo "tee: ${SQ}standard output${SQ}: Broken pipe" >expect &&
	test_cmp expect err
'

test_expect_success 'invalid MODE: message, exit 1, nothing read or written' '
	echo hi >f &&
	echo data | test_expect_code 1 tee --output-error=bogus f >out 2>err &&
	test_must_be_empty out &&
	tee_mode_error invalid bogus >expect &&
	test_cmp expect err &&
	echo hi >expect &&
	test_cmp expect f
'

test_expect_success 'invalid MODE: a longer word than any MODE' '
	test_expect_code 1 tee --output-error=warn-nopipes </dev/null \
		>out 2>err &&
	test_must_be_empty out &&
	tee_mode_error invalid warn-nopipes >expect &&
	test_cmp expect err
'

test_expect_success 'ambiguous MODE "e"' '
	test_expect_code 1 tee --output-error=e </dev/null >out 2>err &&
	test_must_be_empty out &&
	tee_mode_error ambiguous e >expect &&
	test_cmp expect err
'

test_expect_success 'ambiguous MODE "w" and "warn" is exact' '
	test_expect_code 1 tee --output-error=w </dev/null >out 2>err &&
	tee_mode_error ambiguous w >expect &&
	test_cmp expect err &&
	tee --output-error=warn </dev/null >out 2>err &&
	test_must_be_empty err
'

test_expect_success 'ambiguous MODE: the empty string' '
	test_expect_code 1 tee --output-error= </dev/null >out 2>err &&
	test_must_be_empty out &&
	tee_mode_error ambiguous "" >expect &&
	test_cmp expect err
'

test_expect_success 'invalid MODE in a UTF-8 locale: curly quotes' '
	LC_ALL=C.UTF-8 &&
	export LC_ALL &&
	test_expect_code 1 tee --output-error=x </dev/null >out 2>err &&
	{
		echo "tee: invalid argument ${LQ}x${RQ} for ${LQ}--output-error${RQ}" &&
		echo "Valid arguments are:" &&
		for m in warn warn-nopipe exit exit-nopipe; do
			echo "  - ${LQ}$m${RQ}"
		done &&
		echo "Try ${SQ}tee --help${SQ} for more information."
	} >expect &&
	test_cmp_v expect err
'

test_expect_success '--output-error=exit: an unopenable FILE exits at once' '
	echo hi | test_expect_code 1 tee --output-error=exit g nodir/f h \
		>out 2>err &&
	echo "tee: nodir/f: No such file or directory" >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	test_must_be_empty g &&
	! test -e h
'

test_expect_success '--output-error=exit-nopipe: an unopenable FILE exits' '
	echo hi | test_expect_code 1 tee --output-error=exit-nopipe nodir/f h \
		>out 2>err &&
	echo "tee: nodir/f: No such file or directory" >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	! test -e h
'

test_expect_success '--output-error=warn: an unopenable FILE warns, goes on' '
	echo hi | test_expect_code 1 tee --output-error=warn nodir/f h \
		>out 2>err &&
	echo "tee: nodir/f: No such file or directory" >expect &&
	test_cmp expect err &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect h
'

# Where an error stops tee, no output has had more than GNU's: tee reads
# and writes GNU's 8 KiB at a time.  The outputs after /dev/full, and
# those before it, hold what GNU's hold, from a pipe and from a file.
test_expect_success DEVFULL,GNU '--output-error=exit: every output holds what GNU gives it' '
	head -c 1048576 /dev/urandom >in &&
	for m in exit exit-nopipe; do
		for how in pipe file; do
			for t in gnu:$GNU_TEE sut:tee; do
				rm -f f1 f2 out &&
				if [ $how = pipe ]; then
					$SYS_CAT in | ${t#*:} --output-error=$m f1 \
						/dev/full f2 >out 2>/dev/null
				else
					${t#*:} --output-error=$m f1 /dev/full f2 \
						<in >out 2>/dev/null
				fi
				echo $? >status.${t%%:*} &&
				for f in out f1 f2; do
					test_file_size $f || exit 1
				done >sizes.${t%%:*} || exit 1
			done &&
			test_cmp status.gnu status.sut &&
			test_cmp sizes.gnu sizes.sut || exit 1
		done || exit 1
	done
'

# GNU 9.2's tee: in the nopipe modes, while the input has nothing to
# read, an output pipe whose reader left is dropped, and a tee whose
# outputs are all such pipes ends at once, status 0.  GNU 9.1 waits for
# input, hence SPATE.  The input is a FIFO held open here and never
# written: a tee that waited would be ended by timeout (status 124).
for mode in -p --output-error=warn-nopipe --output-error=exit-nopipe; do
	test_expect_success SPATE "tee $mode, every output a broken pipe, no input: ends at once" "
		mkfifo fin &&
		exec 3<>fin &&
		test_when_finished 'exec 3>&-' &&
		save_status timeout 60 tee $mode <fin 2>err | true &&
		test_status 0 &&
		test_must_be_empty err &&
		save_status timeout 60 tee $mode /dev/fd/4 4>&1 <fin 2>err |
			true &&
		test_status 0 &&
		test_must_be_empty err
	"
done

# The same once the stream has gone fast (tee's own pipes in use): both
# readers take the first MiB and leave.
test_expect_success SPATE 'tee -p, two output pipes that break while the input is idle: ends at once' '
	head -c 1048576 /dev/urandom >in &&
	mkfifo fin P &&
	exec 3<>fin &&
	test_when_finished "exec 3>&-" &&
	{ head -c 1048576 P >gotP & } &&
	{ save_status timeout 60 tee -p P <fin 2>err |
		head -c 1048576 >got & } &&
	$SYS_CAT in >&3 &&
	wait &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp in got &&
	test_cmp in gotP
'

# A file among the outputs still wants the input: tee -p goes on after
# its stdout pipe broke, as GNU 9.2's does, and the file gets it all.
test_expect_success '-p, stdout broken while the input is idle, a file output: the file gets it all' '
	mkfifo fin &&
	{ save_status timeout 60 tee -p f <fin 2>err | true & } &&
	last=$! &&
	exec 3>fin &&
	test_when_finished "exec 3>&-" &&
	while kill -0 $last 2>/dev/null; do sleep 0.1; done &&
	echo more >&3 &&
	exec 3>&- &&
	wait &&
	test_status 0 &&
	test_must_be_empty err &&
	echo more >expect &&
	test_cmp expect f
'

test_done
