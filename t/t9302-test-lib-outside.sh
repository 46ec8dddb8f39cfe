#!/bin/sh
# test-lib.sh serves a script outside t/ too: bench/check, the bench's
# byte-exact pre-check, sources it from bench/, where what test-lib.sh
# sources in turn is not.  A copy of the two files in a scratch tree
# of the same shape, and a script in its bench/, stands for it.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'a script in bench/ runs its cases on test-lib.sh' '
	mkdir -p tree/t tree/bench &&
	cp "$TEST_DIR/test-lib.sh" "$TEST_DIR/lib-strace.sh" tree/t/ &&
	cat >tree/bench/check <<-\SCRIPT &&
	. "$(dirname "$0")/../t/test-lib.sh"
	test_expect_success "a case" "true"
	test_done
	SCRIPT
	TEST_HOST=1 sh tree/bench/check >out 2>err &&
	test_must_be_empty err &&
	grep "^ok 1 - a case$" out
'

test_done
