#!/bin/sh
# tee: copying to stdout and each FILE, the options, and the messages about
# files that cannot be opened.  Expectations are GNU coreutils 9.1's.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"

# GNU's curly quotes under a UTF-8 locale.
LQ=$(printf '\342\200\230')
RQ=$(printf '\342\200\231')

# Bytes that are not ASCII: a UTF-8 character, and a byte invalid in UTF-8.
EACUTE=$(printf '\303\251')
BYTE_FF=$(printf '\377')

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
	head -c 100000 /dev/urandom >"$TRASH/in" &&
	head -c 10485760 /dev/zero >"$TRASH/in10m"
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

test_expect_success 'a FILE that is a directory: message, others complete' '
	mkdir d &&
	test_expect_code 1 tee f1 d f2 <"$TRASH/in" >out 2>err &&
	echo "tee: d: Is a directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success 'a FILE under a missing directory: message, exit 1' '
	test_expect_code 1 tee f1 nodir/f f2 <"$TRASH/in" >out 2>err &&
	echo "tee: nodir/f: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success 'an empty FILE name' '
	test_expect_code 1 tee "" f <"$TRASH/in" >out 2>err &&
	echo "tee: ${SQ}${SQ}: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success 'several bad FILEs: one message each, in order' '
	mkdir d &&
	test_expect_code 1 tee nodir/a d f nodir/b <"$TRASH/in" >out 2>err &&
	printf "%s\n" "tee: nodir/a: No such file or directory" \
		"tee: d: Is a directory" \
		"tee: nodir/b: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success 'a FILE in a directory without write permission' '
	mkdir ro &&
	chmod 555 ro &&
	echo hi | save_status tee ro/f g >out 2>err &&
	chmod 755 ro &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect g &&
	if test_have_prereq ROOT
	then
		# Permission bits do not stop root.
		test_status 0 &&
		test_must_be_empty err &&
		test_cmp expect ro/f
	else
		test_status 1 &&
		echo "tee: ro/f: Permission denied" >expect.err &&
		test_cmp expect.err err &&
		! test -e ro/f
	fi
'

test_expect_success 'a read-only FILE' '
	echo old >f &&
	chmod 444 f &&
	echo hi | save_status tee f g >out 2>err &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect g &&
	if test_have_prereq ROOT
	then
		test_status 0 &&
		test_must_be_empty err &&
		test_cmp expect f
	else
		test_status 1 &&
		echo "tee: f: Permission denied" >expect.err &&
		test_cmp expect.err err &&
		echo old >expect.f &&
		test_cmp expect.f f
	fi
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

# Names that need shell quoting in messages, as GNU's quotef() writes them.
# tee_qtest TITLE NAME EXPECTED-QUOTED-NAME
tee_qtest() {
	qname=$2
	qexpect=$3
	test_expect_success "quoting in messages: $1" '
		test_expect_code 1 tee f "nodir/$qname" g <"$TRASH/in" \
			>out 2>err &&
		printf "tee: %s: No such file or directory\n" "$qexpect" \
			>expect &&
		test_cmp_v expect err &&
		test_cmp "$TRASH/in" out &&
		test_cmp "$TRASH/in" f &&
		test_cmp "$TRASH/in" g
	'
}

tee_qtest 'a space' 'a b' "'nodir/a b'"
tee_qtest 'a single quote' "a'b" "\"nodir/a'b\""
tee_qtest 'a double quote' 'a"b' "'nodir/a\"b'"
tee_qtest 'a dollar' 'a$b' "'nodir/a\$b'"
tee_qtest 'a single quote and a dollar' "x'\$y" "'nodir/x'\\''\$y'"
tee_qtest 'a newline' "$(printf 'n\nl')" "'nodir/n'\$'\\n''l'"
tee_qtest 'a tab' "$(printf 't\tb')" "'nodir/t'\$'\\t''b'"
tee_qtest 'a control character at the end' "$(printf 'q\001')" \
	"'nodir/q'\$'\\001'"
tee_qtest 'non-ASCII bytes in the C locale' "$EACUTE" \
	"'nodir/'\$'\\303\\251'"
tee_qtest 'a tilde inside the name needs none' 'a~b' 'nodir/a~b'

test_expect_success 'quoting in a UTF-8 locale: a valid character stands' '
	LC_ALL=C.UTF-8 &&
	export LC_ALL &&
	test_expect_code 1 tee "nodir/$EACUTE" <"$TRASH/in" >out 2>err &&
	echo "tee: nodir/$EACUTE: No such file or directory" >expect &&
	test_cmp_v expect err &&
	test_cmp "$TRASH/in" out
'

test_expect_success 'quoting in a UTF-8 locale: an invalid byte is escaped' '
	LC_ALL=C.UTF-8 &&
	export LC_ALL &&
	test_expect_code 1 tee "nodir/$BYTE_FF" <"$TRASH/in" >out 2>err &&
	printf "tee: %s: No such file or directory\n" \
		"${SQ}nodir/${SQ}\$${SQ}\\377${SQ}" >expect &&
	test_cmp_v expect err
'

test_expect_success 'a name with a newline is created as given' '
	name=$(printf "n\nl") &&
	echo hi | tee "$name" >out &&
	echo hi >expect &&
	test_cmp expect "$name"
'

test_done
