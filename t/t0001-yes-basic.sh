#!/bin/sh
# yes: the lines it repeats, and its options.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'no operand repeats y' '
	yes | head -n 3 >actual &&
	printf "y\ny\ny\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'operands are joined by single spaces' '
	yes a "b  c" d | head -n 2 >actual &&
	printf "a b  c d\na b  c d\n" >expect &&
	test_cmp expect actual
'

test_expect_success '-- ends the options' '
	yes -- -x | head -n 1 >actual &&
	echo -x >expect &&
	test_cmp expect actual
'

test_expect_success 'an empty operand prints empty lines' '
	yes "" | head -n 3 >actual &&
	printf "\n\n\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'unknown option: message, exit 1' '
	test_expect_code 1 yes -x >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "yes: invalid option -- '\''x'\''" \
		"Try '\''yes --help'\'' for more information." >expect &&
	test_cmp expect err
'
test_done
