#!/bin/sh
# yes: --help, --version, their abbreviations, option permutation, and
# GNU's messages for bad options.
. "$(dirname "$0")/test-lib.sh"

# help_head NAME: the usage and option lines of `NAME --help`, which GNU
# and spate share; only the footer after them differs.
help_head() {
	$SYS_CAT <<-EOF
	Usage: $1 [STRING]...
	  or:  $1 OPTION
	Repeatedly output a line with all specified STRING(s), or 'y'.

	      --help        display this help and exit
	      --version     output version information and exit

	EOF
}

# check_help: out holds a --help text, and err nothing.
check_help() {
	help_head yes >expect &&
	head -n 7 out >actual &&
	test_cmp expect actual &&
	test "$(wc -l <out)" -gt 7 &&
	test_must_be_empty err
}

# check_version: out is a --version text, and err nothing.
check_version() {
	head -n 1 out >first &&
	grep "^yes (.*) [0-9]" first &&
	test "$(wc -l <out)" -gt 1 &&
	test_must_be_empty err
}

# check_bad MESSAGE: err holds MESSAGE and GNU's hint, and out nothing.
check_bad() {
	printf "%s\n" "$1" "Try 'yes --help' for more information." >expect &&
	test_cmp expect err &&
	test_must_be_empty out
}

test_expect_success '--help: usage and options as GNU prints them' '
	test_expect_code 0 yes --help >out 2>err &&
	check_help
'

test_expect_success '--help names the program as it was called' '
	"$BIN_DIR/yes" --help >out 2>err &&
	help_head "$BIN_DIR/yes" | head -n 2 >expect &&
	head -n 2 out >actual &&
	test_cmp expect actual
'

for opt in --he --h --hel; do
	test_expect_success "$opt abbreviates --help" '
		test_expect_code 0 yes $opt >out 2>err &&
		check_help
	'
done

test_expect_success '--version: first line and status' '
	test_expect_code 0 yes --version >out 2>err &&
	check_version
'

for opt in --vers --v --versio; do
	test_expect_success "$opt abbreviates --version" '
		test_expect_code 0 yes $opt >out 2>err &&
		check_version
	'
done

test_expect_success 'options are found after operands: yes a --help' '
	test_expect_code 0 yes a --help >out 2>err &&
	check_help
'

test_expect_success 'yes a b --version c prints the version' '
	test_expect_code 0 yes a b --version c >out 2>err &&
	check_version
'

test_expect_success 'the first option wins: --help --version' '
	test_expect_code 0 yes --help --version >out 2>err &&
	check_help
'

test_expect_success 'the first option wins: --version --help' '
	test_expect_code 0 yes --version --help >out 2>err &&
	check_version
'

test_expect_success 'yes -- --help repeats --help' '
	yes -- --help | head -n 3 >actual &&
	printf "%s\n" --help --help --help >expect &&
	test_cmp expect actual
'

test_expect_success 'yes a -- --version repeats a --version' '
	yes a -- --version | head -n 2 >actual &&
	printf "%s\n" "a --version" "a --version" >expect &&
	test_cmp expect actual
'

test_expect_success 'yes -- alone repeats y' '
	yes -- | head -n 2 >actual &&
	printf "y\ny\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'yes -- -- repeats --' '
	yes -- -- | head -n 2 >actual &&
	printf -- "--\n--\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a lone - is an operand' '
	yes - | head -n 2 >actual &&
	printf -- "-\n-\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'POSIXLY_CORRECT: options stop at the first operand' '
	POSIXLY_CORRECT=1 yes a --help | head -n 2 >actual &&
	printf "%s\n" "a --help" "a --help" >expect &&
	test_cmp expect actual
'

test_expect_success 'POSIXLY_CORRECT: yes a -x repeats a -x' '
	POSIXLY_CORRECT=1 yes a -x | head -n 1 >actual &&
	echo "a -x" >expect &&
	test_cmp expect actual
'

test_expect_success 'POSIXLY_CORRECT: a leading --help is still an option' '
	test_expect_code 0 env POSIXLY_CORRECT=1 yes --help >out 2>err &&
	check_help
'

test_expect_success 'unknown long option' '
	test_expect_code 1 yes --bogus >out 2>err &&
	check_bad "yes: unrecognized option '\''--bogus'\''"
'

test_expect_success 'unknown long option after --help is not looked at' '
	test_expect_code 0 yes --help --bogus >out 2>err &&
	check_help
'

test_expect_success 'unknown long option before --help' '
	test_expect_code 1 yes --bogus --help >out 2>err &&
	check_bad "yes: unrecognized option '\''--bogus'\''"
'

test_expect_success 'unknown long option after an operand' '
	test_expect_code 1 yes a --nope >out 2>err &&
	check_bad "yes: unrecognized option '\''--nope'\''"
'

test_expect_success 'an abbreviation that matches nothing' '
	test_expect_code 1 yes --x >out 2>err &&
	check_bad "yes: unrecognized option '\''--x'\''"
'

test_expect_success 'unknown short option -a' '
	test_expect_code 1 yes -a >out 2>err &&
	check_bad "yes: invalid option -- '\''a'\''"
'

test_expect_success 'unknown short options: only the first is named' '
	test_expect_code 1 yes -qz >out 2>err &&
	check_bad "yes: invalid option -- '\''q'\''"
'

test_expect_success 'unknown short option after an operand' '
	test_expect_code 1 yes a -n >out 2>err &&
	check_bad "yes: invalid option -- '\''n'\''"
'

test_expect_success '-h is not --help' '
	test_expect_code 1 yes -h >out 2>err &&
	check_bad "yes: invalid option -- '\''h'\''"
'

test_expect_success '--help takes no argument' '
	test_expect_code 1 yes --help=x >out 2>err &&
	check_bad "yes: option '\''--help'\'' doesn'\''t allow an argument"
'

test_expect_success '--version takes no argument' '
	test_expect_code 1 yes --vers=1 >out 2>err &&
	check_bad "yes: option '\''--version'\'' doesn'\''t allow an argument"
'

test_expect_success 'the hint names the program as it was called' '
	test_expect_code 1 "$BIN_DIR/yes" --bogus >out 2>err &&
	printf "%s\n" "$BIN_DIR/yes: unrecognized option '\''--bogus'\''" \
		"Try '\''$BIN_DIR/yes --help'\'' for more information." >expect &&
	test_cmp expect err
'

test_expect_success DEVFULL '--help to /dev/full: write error, exit 1' '
	test_expect_code 1 yes --help >/dev/full 2>err &&
	echo "yes: write error: No space left on device" >expect &&
	test_cmp expect err
'

test_expect_success DEVFULL '--version to /dev/full: write error, exit 1' '
	test_expect_code 1 yes --version >/dev/full 2>err &&
	echo "yes: write error: No space left on device" >expect &&
	test_cmp expect err
'

test_expect_success '--help to a closed stdout: write error, exit 1' '
	test_expect_code 1 yes --help >&- 2>err &&
	echo "yes: write error: Bad file descriptor" >expect &&
	test_cmp expect err
'

test_done
