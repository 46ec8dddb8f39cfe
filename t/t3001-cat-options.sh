#!/bin/sh
# cat: operands, "-", every option in its short, long and abbreviated
# forms, how the options combine, and every byte value through each of
# them.  Expectations are GNU coreutils 9.1's: where a case compares with
# /usr/bin/cat, under TEST_HOST=1 it checks GNU against itself.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

# The text of most cases: empty lines at the start, in runs and at the
# end, tabs, a control byte, DEL, bytes of the high half, CR LF, and a
# last line without LF.
text() {
	printf '\n\n\nfirst\tline\n\n\n\nsecond \001\177\200\377 line\r\n'
	printf '\n\t\n\nlast line\r'
}

# test_like_gnu ARG...: cat ARG... gives what GNU's cat gives, status 0
# and nothing on stderr.  Standard input is /dev/null, or the file $IN.
test_like_gnu() {
	"$GNU_CAT" "$@" <"${IN:-/dev/null}" >expect 2>/dev/null &&
	cat "$@" <"${IN:-/dev/null}" >actual 2>err &&
	test_must_be_empty err &&
	test_cmp expect actual
}

test_expect_success 'setup: inputs' '
	text >"$TRASH/text" &&
	head -c 300000 /dev/urandom >"$TRASH/rand" &&
	printf "a\nb\n" >"$TRASH/ab" &&
	printf "no newline" >"$TRASH/nonl" &&
	: >"$TRASH/empty" &&
	awk "BEGIN { for (i = 0; i < 256; i++) printf \"%c\", i }" \
		>"$TRASH/bytes" &&
	test $(test_file_size "$TRASH/bytes") = 256 &&
	# Every byte alone on a line, after a letter, and in one run.
	awk "BEGIN { for (i = 0; i < 256; i++) printf \"x%c\\n\", i }" \
		>"$TRASH/lines" &&
	$SYS_CAT "$TRASH/bytes" >>"$TRASH/lines"
'

test_expect_success 'no option, no operand: stdin to stdout, unchanged' '
	cat <"$TRASH/rand" >out 2>err &&
	test_must_be_empty err &&
	test_cmp "$TRASH/rand" out
'

test_expect_success 'operands in order, "-" as stdin' '
	cat "$TRASH/ab" - "$TRASH/nonl" <"$TRASH/text" >out &&
	$SYS_CAT "$TRASH/ab" >expect &&
	$SYS_CAT "$TRASH/text" >>expect &&
	$SYS_CAT "$TRASH/nonl" >>expect &&
	test_cmp expect out
'

test_expect_success '"-" twice: the second finds stdin at its end' '
	cat - "$TRASH/ab" - <"$TRASH/text" >out &&
	{ $SYS_CAT "$TRASH/text" && $SYS_CAT "$TRASH/ab"; } >expect &&
	test_cmp expect out
'

test_expect_success '"-" twice on a terminal-like stream: each reads on' '
	{ printf "one\n"; } | cat - - >out &&
	echo one >expect &&
	test_cmp expect out
'

test_expect_success 'the same file twice' '
	cat "$TRASH/ab" "$TRASH/ab" >out &&
	printf "a\nb\na\nb\n" >expect &&
	test_cmp expect out
'

test_expect_success 'empty inputs and /dev/null add nothing' '
	cat "$TRASH/empty" /dev/null - "$TRASH/empty" </dev/null >out &&
	test_must_be_empty out
'

test_expect_success '-- ends the options; a file named -n' '
	printf "dash n\n" >./-n &&
	cat -- -n >out &&
	test_cmp ./-n out
'

test_expect_success 'options may follow operands' '
	test_like_gnu "$TRASH/ab" -n
'

test_expect_success 'POSIXLY_CORRECT: options only before the operands' '
	test_expect_code 1 env POSIXLY_CORRECT=1 cat "$TRASH/ab" -n \
		>out 2>err &&
	test_cmp "$TRASH/ab" out &&
	echo "cat: -n: No such file or directory" >expect &&
	test_cmp expect err
'

# Each option alone, in every spelling, on the text.
for spec in \
	"-A --show-all --show-a --show-al" \
	"-b --number-nonblank --number-n" \
	"-e" \
	"-E --show-ends --show-e" \
	"-n --number" \
	"-s --squeeze-blank --squeeze --sq" \
	"-t" \
	"-T --show-tabs --show-t" \
	"-u" \
	"-v --show-nonprinting --show-n"
do
	test_expect_success "option ${spec%% *}: every spelling as GNU's" '
		for o in $spec; do
			test_like_gnu $o "$TRASH/text" || exit 1
		done
	'
done

test_expect_success '-u changes nothing' '
	cat -u "$TRASH/rand" >out &&
	test_cmp "$TRASH/rand" out
'

test_expect_success 'the equivalences: -A -vET, -e -vE, -t -vT' '
	cat -vET "$TRASH/text" >vet &&
	cat -A "$TRASH/text" >a &&
	test_cmp vet a &&
	cat -vE "$TRASH/text" >ve &&
	cat -e "$TRASH/text" >e &&
	test_cmp ve e &&
	cat -vT "$TRASH/text" >vt &&
	cat -t "$TRASH/text" >t &&
	test_cmp vt t
'

test_expect_success '-n, -b, -s, -E, -T, -v on known text' '
	printf "a\n\n\n\tb\001\r\n" >in &&
	cat -n in >out &&
	printf "     1\ta\n     2\t\n     3\t\n     4\t\tb\001\r\n" >expect &&
	test_cmp expect out &&
	cat -b in >out &&
	printf "     1\ta\n\n\n     2\t\tb\001\r\n" >expect &&
	test_cmp expect out &&
	cat -s in >out &&
	printf "a\n\n\tb\001\r\n" >expect &&
	test_cmp expect out &&
	cat -E in >out &&
	printf "a\$\n\$\n\$\n\tb\001^M\$\n" >expect &&
	test_cmp expect out &&
	cat -T in >out &&
	printf "a\n\n\n^Ib\001\r\n" >expect &&
	test_cmp expect out &&
	cat -v in >out &&
	printf "a\n\n\n\tb^A^M\n" >expect &&
	test_cmp expect out
'

test_expect_success '-b overrides -n, in either order' '
	test_like_gnu -b -n "$TRASH/text" &&
	cat -b "$TRASH/text" >b &&
	test_cmp b actual &&
	test_like_gnu -n -b "$TRASH/text" &&
	test_cmp b actual &&
	test_like_gnu -nb "$TRASH/text"
'

# Combinations of the six, grouped and spread.
for opts in -ns -bs -nE -bE -sE -nT -nv -sv -Tv -ET -nsE -bsA -nsvET \
	-nbsETv "-n -s -A" "-b --squeeze-blank --show-all" -et -An
do
	test_expect_success "combination $opts as GNU's" '
		test_like_gnu $opts "$TRASH/text"
	'
done

# Every byte value through each option, compared with GNU's cat.
for o in "" -A -b -e -E -n -s -t -T -v -nA -sbt
do
	test_expect_success "every byte value through cat ${o:-(no option)}" '
		test_like_gnu $o "$TRASH/bytes" &&
		test_like_gnu $o "$TRASH/lines" &&
		test_like_gnu $o "$TRASH/lines" "$TRASH/bytes" "$TRASH/lines"
	'
done

test_expect_success '-v shows each byte as GNU documents it' '
	cat -v "$TRASH/bytes" >out &&
	{
		printf "^@^A^B^C^D^E^F^G^H\t\n^K^L^M^N^O^P^Q^R^S^T^U^V^W^X^Y^Z"
		printf "^[^\\\\^]^^^_"
		printf " !\"#\$%%&%s()*+,-./0123456789:;<=>?@" "$SQ"
		printf "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_\`"
		printf "abcdefghijklmnopqrstuvwxyz{|}~^?"
		for c in @ A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
			"[" "\\" "]" "^" _
		do
			printf "M-^%s" "$c"
		done
		printf "M- M-!M-\"M-#M-\$M-%%M-&M-%sM-(M-)M-*M-+M-,M--M-.M-/" "$SQ"
		for c in 0 1 2 3 4 5 6 7 8 9 : ";" "<" = ">" "?" @ \
			A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
			"[" "\\" "]" "^" _ "\`" \
			a b c d e f g h i j k l m n o p q r s t u v w x y z \
			"{" "|" "}" "~"
		do
			printf "M-%s" "$c"
		done
		printf "M-^?"
	} >expect &&
	test_cmp expect out
'

test_expect_success '-v does not depend on the locale' '
	printf "caf\303\251\n" >in &&
	LC_ALL=C.UTF-8 cat -v in >out &&
	echo "cafM-CM-)" >expect &&
	test_cmp expect out
'

test_expect_success 'numbering goes on across operands' '
	printf "a" >na &&
	printf "\n\nb\n" >nb &&
	test_like_gnu -n na nb na nb &&
	printf "     1\ta\n     2\t\n     3\tb\n     4\ta\n     5\t\n     6\tb\n" \
		>expect &&
	test_cmp expect actual
'

test_expect_success 'a line without LF goes on in the next operand' '
	IN=$TRASH/nonl test_like_gnu -b "$TRASH/nonl" "$TRASH/ab" - &&
	test_like_gnu -nE "$TRASH/nonl" "$TRASH/nonl" "$TRASH/ab"
'

test_expect_success '-s squeezes a run of empty lines across operands' '
	printf "x\n\n" >e1 &&
	printf "\n\ny\n\n" >e2 &&
	printf "\n" >e3 &&
	test_like_gnu -s e1 e2 e3 e3 e1 &&
	printf "x\n\ny\n\nx\n\n" >expect &&
	test_cmp expect actual &&
	test_like_gnu -sn e3 e3 e2 &&
	test_like_gnu -sb e1 e3 - e2
'

test_expect_success '-s: empty lines at the start squeeze to one' '
	printf "\n\n\n\na\n" | cat -s >out &&
	printf "\na\n" >expect &&
	test_cmp expect out
'

# GNU 9.1 and 9.11 agree here (9.11 only says so in --help).
test_expect_success '-E: CR LF shows as ^M$, a lone CR stands' '
	printf "a\r\nb\rc\r\r\n\r" >in &&
	test_like_gnu -E in &&
	printf "a^M\$\nb\rc\r^M\$\n\r" >expect &&
	test_cmp expect actual
'

test_expect_success '-E: a CR at the end of an operand, LF in the next' '
	printf "a\r" >cr &&
	printf "\nb\n" >lf &&
	test_like_gnu -E cr lf &&
	printf "a^M\$\nb\$\n" >expect &&
	test_cmp expect actual &&
	test_like_gnu -E cr cr lf &&
	IN=cr test_like_gnu -nE cr - lf &&
	test_like_gnu -TE lf cr
'

test_expect_success '-E: a CR LF split between two reads of a pipe' '
	{ printf "x\r"; sleep 0.3; printf "\ny\n"; } | cat -E >out &&
	printf "x^M\$\ny\$\n" >expect &&
	test_cmp expect out
'

test_expect_success '-n: six columns, then wider after 999999 lines' '
	awk "BEGIN { for (i = 0; i < 1000002; i++) print \"\" }" >many &&
	cat -n many >out &&
	sed -n "999999p;1000000p;1000002p" out >tail &&
	printf "%s\t\n" "999999" "1000000" "1000002" >expect &&
	test_cmp expect tail &&
	sed -n "1p;9p;10p" out >head &&
	printf "%6d\t\n" 1 9 10 >expect &&
	test_cmp expect head
'

test_expect_success '-n -s -v on a large random input as GNU' '
	IN=$TRASH/rand test_like_gnu -nsv "$TRASH/rand" - "$TRASH/rand" &&
	test_like_gnu -A "$TRASH/rand" &&
	test_like_gnu -b "$TRASH/rand"
'

# line_comes CMD...: CMD (cat -n, maybe behind strace) reads a FIFO
# whose writer sends one line and holds it open: the line must come out
# before the writer closes it.
line_comes() {
	mkfifo fifo &&
	{ "$@" <fifo >out & } &&
	exec 3>fifo &&
	printf "one\n" >&3 &&
	wait_for_match out one &&
	exec 3>&- &&
	wait &&
	printf "     1\tone\n" >expect &&
	test_cmp expect out
}

test_expect_success 'output goes out as lines come, from a slow pipe' '
	line_comes cat -n
'

# A look at the input that a signal interrupts (EINTR, made by strace)
# is no answer: looked at again, the input has nothing, the line goes out.
test_expect_success STRACE 'output goes out as lines come, the look interrupted' '
	line_comes strace -f -qq -o /dev/null -e trace=poll,ppoll \
		-e inject=poll,ppoll:error=EINTR:when=1 cat -n
'

test_expect_success 'unknown short option: message, status 1, nothing out' '
	test_expect_code 1 cat -x "$TRASH/ab" >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "cat: invalid option -- ${SQ}x${SQ}" \
		"Try ${SQ}cat --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success 'unknown long option' '
	test_expect_code 1 cat --foo "$TRASH/ab" >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "cat: unrecognized option ${SQ}--foo${SQ}" \
		"Try ${SQ}cat --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success 'a long option given an argument' '
	test_expect_code 1 cat --number=3 "$TRASH/ab" >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" \
		"cat: option ${SQ}--number${SQ} doesn${SQ}t allow an argument" \
		"Try ${SQ}cat --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success 'ambiguous abbreviations list the candidates in order' '
	test_expect_code 1 cat --n </dev/null >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "cat: option ${SQ}--n${SQ} is ambiguous; possibilities: ${SQ}--number-nonblank${SQ} ${SQ}--number${SQ}" \
		"Try ${SQ}cat --help${SQ} for more information." >expect &&
	test_cmp expect err &&
	test_expect_code 1 cat --show </dev/null 2>err &&
	printf "%s\n" "cat: option ${SQ}--show${SQ} is ambiguous; possibilities: ${SQ}--show-nonprinting${SQ} ${SQ}--show-ends${SQ} ${SQ}--show-tabs${SQ} ${SQ}--show-all${SQ}" \
		"Try ${SQ}cat --help${SQ} for more information." >expect &&
	test_cmp expect err
'

test_expect_success '--number is exact, not ambiguous with --number-nonblank' '
	test_like_gnu --number "$TRASH/text"
'

# GNU 9.11 words -E "display $ or ^M$ at end of each line", drops the
# empty line before the options and wraps each option in a hyperlink;
# 9.1's text is the one followed.
test_expect_success '--help: GNU text up to the examples, status 0' '
	cat --help "$TRASH/ab" </dev/null >out 2>err &&
	test_must_be_empty err &&
	$SYS_CAT >expect <<-\EOF &&
	Usage: cat [OPTION]... [FILE]...
	Concatenate FILE(s) to standard output.

	With no FILE, or when FILE is -, read standard input.

	  -A, --show-all           equivalent to -vET
	  -b, --number-nonblank    number nonempty output lines, overrides -n
	  -e                       equivalent to -vE
	  -E, --show-ends          display $ at end of each line
	  -n, --number             number all output lines
	  -s, --squeeze-blank      suppress repeated empty output lines
	  -t                       equivalent to -vT
	  -T, --show-tabs          display TAB characters as ^I
	  -u                       (ignored)
	  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB
	      --help        display this help and exit
	      --version     output version information and exit

	Examples:
	  cat f - g  Output f${SQ}s contents, then standard input, then g${SQ}s contents.
	  cat        Copy standard input to standard output.

	EOF
	sed "s/\${SQ}/$SQ/g" expect >expect.q &&
	head -n 22 out >actual &&
	test_cmp expect.q actual &&
	test $(wc -l <out) -gt 22
'

test_expect_success '--help and the abbreviation --he win over other options' '
	cat --he -n </dev/null >out 2>err &&
	test_must_be_empty err &&
	head -n 1 out >first &&
	echo "Usage: cat [OPTION]... [FILE]..." >expect &&
	test_cmp expect first
'

test_expect_success DEVFULL '--help to a full stdout: write error, status 1' '
	test_expect_code 1 cat --help >/dev/full 2>err &&
	echo "cat: write error: $(strerror ENOSPC)" >expect &&
	test_cmp expect err
'

test_expect_success '--version: first line, status 0, no input read' '
	echo data >in &&
	cat --version in <in >out 2>err &&
	test_must_be_empty err &&
	head -n 1 out >first &&
	grep "^cat (.*) [0-9]" first
'

test_expect_success SPATE '--version names spate and its version' '
	cat --version >out &&
	v=$(sed -n "s/^#define SPATE_VERSION \"\(.*\)\"\$/\1/p" \
		"$SRC_DIR/include/spate.h") &&
	test -n "$v" &&
	echo "cat (spate) $v" >expect &&
	head -n 1 out >first &&
	test_cmp expect first
'

# GNU 9.11 names itself "cat" in the messages about files, whatever
# argv[0] says (but not in getopt's); 9.1 says argv[0] in both.
test_expect_success 'the program name in messages is argv[0] as given' '
	test_expect_code 1 "$BIN_DIR/cat" -x </dev/null 2>err &&
	head -n 1 err >first &&
	echo "$BIN_DIR/cat: invalid option -- ${SQ}x${SQ}" >expect &&
	test_cmp expect first &&
	test_expect_code 1 "$BIN_DIR/cat" nofile 2>err &&
	echo "$BIN_DIR/cat: nofile: No such file or directory" >expect &&
	test_cmp expect err
'

test_done
