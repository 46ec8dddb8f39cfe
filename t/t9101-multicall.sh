#!/bin/sh
# The multi-call spate: its own options and errors, `spate CMD ...`,
# and links to it, with a directory or a login-style '-' before the name.
# Each command must be, to the byte, the separate program.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-man.sh"
. "$TEST_DIR/lib-nls.sh"

# SEPARATE: the separate yes, tee and cat that the build made, to hold
# spate's commands against; run as they are (NATIVE: a cross build's
# are the target's, which only the emulator runs, and then the commands
# under test are those separate ones).
MULTI_SEP=$SRC_DIR/${BUILD:-build}
test_lazy_prereq SEPARATE '
	test_have_prereq MULTICALL,NATIVE &&
	for c in yes tee cat; do
		test -x "$MULTI_SEP/$c" && ! test -L "$MULTI_SEP/$c" || exit 1
	done
'

# multi_link NAME: make ./d/NAME, a symbolic link to the spate under test.
multi_link() {
	mkdir -p d && ln -s "$BIN_DIR/spate" "d/$1"
}

test_expect_success MULTICALL '--list prints the commands, one a line' '
	spate --list >actual 2>err &&
	printf "%s\n" cat tee yes >expect &&
	test_cmp expect actual &&
	test_must_be_empty err
'

test_expect_success MULTICALL '--help says what it is and lists the commands' '
	spate --help >actual 2>err &&
	test_must_be_empty err &&
	head -n 1 actual >first &&
	echo "Usage: spate COMMAND [ARGUMENT]..." >expect &&
	test_cmp expect first &&
	grep -q -- "^      --list  " actual &&
	grep -qx "Commands: cat tee yes" actual
'

test_expect_success MULTICALL 'spate.1 documents the options of --help' '
	spate --help >help &&
	help_long_options help >opts &&
	printf "%s\n" --help --list --version >expect &&
	test_cmp expect opts &&
	man_documents spate.1 $($SYS_CAT opts)
'

test_expect_success MANDOC 'spate.1: mandoc -Tlint is clean' '
	man_lint spate.1
'

# Not GNU's --version (GNU has no multi-call binary, and names GNU
# coreutils): the first line comes from data, include/spate.h's
# version; the rest is the yes under test's, on purpose: spate must say
# there what its commands say.
test_expect_success MULTICALL '--version names spate, as the commands name themselves' '
	spate --version >actual 2>err &&
	test_must_be_empty err &&
	head -n 1 actual >first &&
	echo "spate (spate) $NLS_VERSION" >expect &&
	test_cmp expect first &&
	yes --version | sed "1s/^yes /spate /" >expect &&
	test_cmp expect actual
'

test_expect_success MULTICALL 'an unknown command: one line naming it, status 1' '
	test_expect_code 1 spate frob a b >out 2>err &&
	test_must_be_empty out &&
	echo "spate: unknown command '\''frob'\''" >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'spate is not a command of its own' '
	test_expect_code 1 spate spate --list >out 2>err &&
	test_must_be_empty out &&
	echo "spate: unknown command '\''spate'\''" >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'called by a path, spate names itself so' '
	test_expect_code 1 "$BIN_DIR/spate" "" 2>err &&
	echo "$BIN_DIR/spate: unknown command '\'''\''" >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'no command, or an unknown option: usage error, status 1' '
	test_expect_code 1 spate >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "spate: missing command" \
		"Try '\''spate --help'\'' for more information." >expect &&
	test_cmp expect err &&
	test_expect_code 1 spate --frob tee >out 2>err &&
	test_must_be_empty out &&
	printf "%s\n" "spate: unrecognized option '\''--frob'\''" \
		"Try '\''spate --help'\'' for more information." >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'spate yes: the stream, ended by SIGPIPE' '
	save_status env --default-signal=PIPE spate yes 2>err |
		head -n 2 >actual &&
	test_status $SIGPIPE_STATUS &&
	printf "y\ny\n" >expect &&
	test_cmp expect actual &&
	test_must_be_empty err
'

test_expect_success MULTICALL 'spate yes STRING' '
	save_status env --default-signal=PIPE spate yes a "b c" |
		head -n 2 >actual &&
	test_status $SIGPIPE_STATUS &&
	printf "a b c\na b c\n" >expect &&
	test_cmp expect actual
'

test_expect_success MULTICALL 'spate tee: standard input to each file and to stdout' '
	seq 1000 >expect &&
	spate tee f1 -a f2 <expect >actual &&
	test_cmp expect actual &&
	test_cmp expect f1 &&
	test_cmp expect f2
'

test_expect_success MULTICALL 'spate tee: an output it cannot open, named as tee would' '
	echo x >expect &&
	test_expect_code 1 spate tee nodir/f <expect >actual 2>err &&
	test_cmp expect actual &&
	echo "tee: nodir/f: No such file or directory" >expect.err &&
	test_cmp expect.err err
'

test_expect_success MULTICALL 'spate cat: files and standard input in order' '
	printf "a\n" >a && printf "b\n" >b &&
	printf "in\n" | spate cat a - b >actual &&
	printf "a\nin\nb\n" >expect &&
	test_cmp expect actual &&
	spate cat -n a b >actual &&
	printf "%6d\t%s\n" 1 a 2 b >expect &&
	test_cmp expect actual
'

test_expect_success MULTICALL 'spate cat: a missing file, status 1, the rest copied' '
	printf "a\n" >a &&
	test_expect_code 1 spate cat nofile a >actual 2>err &&
	test_cmp a actual &&
	echo "cat: nofile: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'spate CMD is CMD called by that name, even by a path' '
	test_expect_code 1 "$BIN_DIR/spate" tee --bogus </dev/null 2>err &&
	printf "%s\n" "tee: unrecognized option '\''--bogus'\''" \
		"Try '\''tee --help'\'' for more information." >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'spate CMD --help and --version are CMD'\''s' '
	for c in yes tee cat; do
		spate $c --help >actual &&
		$c --help >expect &&
		test_cmp expect actual &&
		spate $c --version >actual &&
		$c --version >expect &&
		test_cmp expect actual || return 1
	done
'

test_expect_success SEPARATE 'spate CMD --help and --version are the separate CMD'\''s' '
	for c in yes tee cat; do
		spate $c --help >actual &&
		(PATH=$MULTI_SEP:$PATH && $c --help) >expect &&
		test_cmp expect actual &&
		spate $c --version >actual &&
		"$MULTI_SEP/$c" --version >expect &&
		test_cmp expect actual || return 1
	done
'

test_expect_success MULTICALL 'a link with a directory: the command, named by that path' '
	multi_link tee &&
	echo x >expect &&
	d/tee f <expect >actual &&
	test_cmp expect actual &&
	test_cmp expect f &&
	test_expect_code 1 d/tee --bogus </dev/null 2>err &&
	printf "%s\n" "d/tee: unrecognized option '\''--bogus'\''" \
		"Try '\''d/tee --help'\'' for more information." >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'a link with a login-style "-": the command' '
	multi_link -cat &&
	multi_link -yes &&
	printf "a\n" >expect &&
	d/-cat <expect >actual &&
	test_cmp expect actual &&
	save_status env --default-signal=PIPE d/-yes | head -n 1 >actual &&
	test_status $SIGPIPE_STATUS &&
	echo y >expect &&
	test_cmp expect actual &&
	test_expect_code 1 d/-cat nofile 2>err &&
	echo "d/-cat: nofile: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success MULTICALL 'a link by any other name is spate itself' '
	multi_link box &&
	d/box --list >actual &&
	spate --list >expect &&
	test_cmp expect actual &&
	echo x | d/box tee >actual &&
	echo x >expect &&
	test_cmp expect actual
'

test_expect_success MULTICALL 'exit statuses are the commands'\'' own' '
	spate cat </dev/null &&
	spate tee </dev/null &&
	test_expect_code 1 spate yes --bogus 2>/dev/null &&
	test_expect_code 1 spate tee --bogus 2>/dev/null &&
	test_expect_code 1 spate cat -x 2>/dev/null &&
	test_expect_code 1 spate tee --output-error=bogus 2>/dev/null </dev/null &&
	spate yes --help >/dev/null &&
	spate --list >/dev/null
'

test_done
