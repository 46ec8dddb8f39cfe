#!/bin/sh
# t/run, the runner CI calls: its last lines are all a truncated log
# keeps, so they name every test that failed, however it failed, ahead
# of the summary; a run where all passed names none.  (A script with
# no plan still counts the cases it passed.)

. "$(dirname "$0")/test-lib.sh"

RUN=$SRC_DIR/t/run

# fixture NAME BODY: a test script tree/t/NAME.sh beside a copy of t/run,
# which runs from tree/, the arguments naming tests from there.
fixture() {
	mkdir -p tree/t && cp "$RUN" tree/t/run &&
	printf '#!/bin/sh\n%s\n' "$2" >"tree/t/$1.sh"
}

test_expect_success 'the tail names each test that failed, in order' '
	fixture t0001-pass "echo 1..1; echo ok 1" &&
	fixture t0002-notok "echo 1..2; echo ok 1; echo not ok 2 - b" &&
	fixture t0003-noplan "echo ok 1" &&
	fixture t0004-bail "echo 1..1; echo Bail out! gone" &&
	fixture t0005-hung "echo 1..1; exec sleep 30" &&
	{ SPATE_TEST_TIMEOUT=2 BUILD=none sh tree/t/run t/t0001-pass.sh \
		t/t0002-notok.sh t/t0003-noplan.sh t/t0004-bail.sh \
		t/t0005-hung.sh >out 2>&1; echo $? >rc; } &&
	echo 1 >rc.want && test_cmp rc.want rc &&
	tail -2 out >tail &&
	cat >tail.want <<-\EOF &&
	failed in: t0002-notok.sh t0003-noplan.sh t0004-bail.sh t0005-hung.sh
	3 passed, 4 failed
	EOF
	test_cmp tail.want tail
'

test_expect_success 'a run where every test passed names none' '
	fixture t0001-pass "echo 1..1; echo ok 1" &&
	BUILD=none sh tree/t/run t/t0001-pass.sh >out 2>&1 &&
	! grep "^failed in" out &&
	tail -1 out >tail && echo "1 passed, 0 failed" >tail.want &&
	test_cmp tail.want tail
'

test_done
