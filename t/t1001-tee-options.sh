#!/bin/sh
# tee: copying to stdout and each FILE, the options, -i, and the messages
# of bad options, --help and --version.  Expectations are GNU coreutils
# 9.1's.  --output-error is t1006's, FILEs that cannot be opened t1007's.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"

test_expect_success 'setup: inputs' '
	head -c 100000 /dev/urandom >"$TRASH/in"
'

test_expect_success 'copies stdin to stdout and each FILE' '
	tee f1 f2 f3 <"$TRASH/in" >out 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2 &&
	test_cmp "$TRASH/in" f3
'

test_expect_success 'no FILE: copies stdin to stdout' '
	$SYS_CAT "$TRASH/in" | tee >out 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in" out
'

test_expect_success 'text lines, from a pipe, to a pipe' '
	printf "one\ntwo\n\nthree" >expect &&
	printf "one\ntwo\n\nthree" | save_status tee f | $SYS_CAT >out &&
	test_status 0 &&
	test_cmp expect out &&
	test_cmp expect f
'

test_expect_success 'empty input: files are created empty' '
	tee f g </dev/null >out &&
	test_must_be_empty out &&
	test_must_be_empty f &&
	test_must_be_empty g
'

test_expect_success 'without -a an existing file is truncated' '
	$SYS_CAT "$TRASH/in" "$TRASH/in" >f &&
	echo new | tee f >out &&
	echo new >expect &&
	test_cmp expect out &&
	test_cmp expect f &&
	echo old >g &&
	tee g </dev/null &&
	test_must_be_empty g
'

test_expect_success '-a appends to prior content' '
	echo old >f &&
	echo new | tee -a f >out &&
	echo new >expect.out &&
	printf "old\nnew\n" >expect &&
	test_cmp expect.out out &&
	test_cmp expect f
'

test_expect_success '--append and its abbreviation --app' '
	echo 1 >f &&
	echo 2 | tee --append f >/dev/null &&
	echo 3 | tee --app f >/dev/null &&
	printf "1\n2\n3\n" >expect &&
	test_cmp expect f
'

test_expect_success '-a creates a missing file' '
	tee -a f <"$TRASH/in" >out &&
	test_cmp "$TRASH/in" f &&
	test_cmp "$TRASH/in" out
'

test_expect_success '-a with a large input appends it all' '
	printf prior >f &&
	tee -a f <"$TRASH/in" >/dev/null &&
	{ printf prior && $SYS_CAT "$TRASH/in"; } >expect &&
	test_cmp expect f
'

test_expect_success 'the same file named twice' '
	echo hi | tee f f >out &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect f
'

test_expect_success 'the same file named twice with -a gets the data twice' '
	echo old >f &&
	echo hi | tee -a f f >out &&
	printf "old\nhi\nhi\n" >expect &&
	test_cmp expect f
'

test_expect_success '"-" is a file named "-", not stdout' '
	echo hi | tee - >out &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect ./-
'

test_expect_success '-- ends the options' '
	echo hi | tee -- -a >out &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect ./-a
'

test_expect_success 'options may follow operands' '
	echo old >f &&
	echo hi | tee f -a >out &&
	printf "old\nhi\n" >expect &&
	test_cmp expect f
'

test_expect_success 'new files get mode 0666 & ~umask' '
	(umask 022 && tee f022 </dev/null) &&
	(umask 027 && tee f027 </dev/null) &&
	(umask 077 && tee f077 </dev/null) &&
	(umask 000 && tee f000 </dev/null) &&
	(umask 002 && tee -a a002 </dev/null) &&
	stat -c "%a %n" f022 f027 f077 f000 a002 >actual &&
	printf "%s\n" "644 f022" "640 f027" "600 f077" "666 f000" \
		"664 a002" >expect &&
	test_cmp expect actual
'

test_expect_success 'an existing file keeps its mode' '
	echo old >f &&
	chmod 604 f &&
	(umask 077 && echo new | tee f >/dev/null) &&
	stat -c %a f >actual &&
	echo 604 >expect &&
	test_cmp expect actual
'

for opt in -i --ignore-interrupts; do
	test_expect_success "$opt: SIGINT is ignored" '
	mkfifo fifo || exit 1
	env --default-signal=INT tee $opt f <fifo >out 2>err &
	pid=$! &&
	exec 3>fifo &&
	printf a >&3 &&
	wait_for_content f a &&
	kill -INT $pid &&
	(trap "" PIPE && printf b >&3) &&
	exec 3>&- &&
	test_expect_code 0 wait $pid &&
	test_must_be_empty err &&
	printf ab >expect &&
	test_cmp expect f &&
	test_cmp expect out
'
done

test_expect_success 'without -i SIGINT kills tee' '
	mkfifo fifo || exit 1
	env --default-signal=INT tee f <fifo >out &
	pid=$! &&
	exec 3>fifo &&
	printf a >&3 &&
	wait_for_content f a &&
	kill -INT $pid &&
	test_expect_code 130 wait $pid &&
	exec 3>&- &&
	printf a >expect &&
	test_cmp expect f
'

test_expect_success 'unknown short option' '
	echo hi | test_expect_code 1 tee -x f >out 2>err &&
	test_must_be_empty out &&
	! test -e f &&
	printf "%s\n" "tee: invalid option -- ${SQ}x${SQ}" \
		"Try ${SQ}tee --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success 'unknown long option' '
	echo hi | test_expect_code 1 tee --foo >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "tee: unrecognized option ${SQ}--foo${SQ}" \
		"Try ${SQ}tee --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success 'a long option that takes no argument' '
	echo hi | test_expect_code 1 tee --append=x >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" \
		"tee: option ${SQ}--append${SQ} doesn${SQ}t allow an argument" \
		"Try ${SQ}tee --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success '--help: GNU text up to the MODE block, exit 0' '
	tee --help f </dev/null >out 2>err &&
	test_must_be_empty err &&
	! test -e f &&
	$SYS_CAT >expect <<-\EOF &&
	Usage: tee [OPTION]... [FILE]...
	Copy standard input to each FILE, and also to standard output.

	  -a, --append              append to the given FILEs, do not overwrite
	  -i, --ignore-interrupts   ignore interrupt signals
	  -p                        diagnose errors writing to non pipes
	      --output-error[=MODE]   set behavior on write error.  See MODE below
	      --help        display this help and exit
	      --version     output version information and exit

	MODE determines behavior with write errors on the outputs:
	  warn           diagnose errors writing to any output
	  warn-nopipe    diagnose errors writing to any output not a pipe
	  exit           exit on error writing to any output
	  exit-nopipe    exit on error writing to any output not a pipe
	The default MODE for the -p option is ${SQ}warn-nopipe${SQ}.
	The default operation when --output-error is not specified, is to
	exit immediately on error writing to a pipe, and diagnose errors
	writing to non pipe outputs.

	EOF
	sed "s/\${SQ}/$SQ/g" expect >expect.q &&
	head -n 20 out >actual &&
	test_cmp expect.q actual &&
	test $(wc -l <out) -gt 20
'

test_expect_success DEVFULL '--help to a full stdout: error, exit 1' '
	test_expect_code 1 tee --help >/dev/full 2>err &&
	test -s err
'

test_expect_success '--version: first line, exit 0, stdin untouched' '
	echo data >in &&
	tee --version f <in >out 2>err &&
	test_must_be_empty err &&
	! test -e f &&
	head -n 1 out >first &&
	grep "^tee (.*) [0-9]" first
'

test_done
