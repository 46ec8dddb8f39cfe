#!/bin/sh
# man/yes.1 and man/tee.1: mandoc finds nothing wrong, and every option
# that --help prints is documented.
. "$(dirname "$0")/test-lib.sh"

MAN_DIR=$SRC_DIR/man

# lint PAGE: mandoc -Tlint reports nothing at warning level or above.
# A missing mandoc is a failure, not a skip: CI installs it.
lint() {
	if ! command -v mandoc >/dev/null; then
		echo "mandoc not found: install it to check the man pages"
		return 1
	fi
	mandoc -Tlint -W warning "$MAN_DIR/$1" >out 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		cat out
		echo "mandoc exited $rc"
		return 1
	fi
	test_must_be_empty out
}

# documented PAGE OPTION...: each OPTION ("--name" or "-x") heads an item
# of a list in PAGE: an .It line that gives it to Fl.  mdoc writes --name
# as "Fl \-name", hence the \- undone first.
documented() {
	page=$1
	shift
	sed -n 's/\\-/-/g; /^\.It /p' "$MAN_DIR/$page" >items || return 1
	missing=0
	for o in "$@"; do
		grep -Eq "Fl ${o#-}([^a-zA-Z0-9-]|\$)" items || {
			echo "$page: $o is not documented"
			missing=1
		}
	done
	[ "$missing" = 0 ]
}

# long_options HELP: the long options named in the --help text HELP.
long_options() {
	grep -Eo -- '--[a-z][a-z-]*' "$1" | sort -u
}

# short_options HELP: the short options that begin a line of HELP.
short_options() {
	sed -n 's/^  \(-[a-zA-Z]\)[, ].*/\1/p' "$1" | sort -u
}

test_expect_success 'yes.1: mandoc -Tlint is clean' '
	lint yes.1
'

test_expect_success 'tee.1: mandoc -Tlint is clean' '
	lint tee.1
'

test_expect_success SLUICE 'yes.1 documents every long option of yes --help' '
	yes --help >help &&
	long_options help >opts &&
	test -s opts &&
	documented yes.1 $(cat opts)
'

test_expect_success SLUICE 'tee.1 documents every long option of tee --help' '
	tee --help >help &&
	long_options help >opts &&
	grep -qx -- --output-error opts &&
	documented tee.1 $(cat opts)
'

test_expect_success SLUICE 'tee.1 documents every short option of tee --help' '
	tee --help >help &&
	short_options help >opts &&
	printf "%s\n" -a -i -p >expect &&
	test_cmp expect opts &&
	documented tee.1 $(cat opts)
'

test_expect_success SLUICE 'tee.1 documents every MODE of tee --help' '
	tee --help >help &&
	sed -n "/^MODE determines/,/^The default/s/^  \([a-z-]*\)  .*/\1/p" \
		help >modes &&
	test -s modes &&
	missing=0 &&
	for m in $(cat modes); do
		grep -Eq "^\.It Cm $m\$" "$MAN_DIR/tee.1" || {
			echo "tee.1: MODE $m is not documented"
			missing=1
		}
	done &&
	test "$missing" = 0
'

test_expect_success 'the pages name no path of the build machine' '
	! grep -nE "/(work|home)/" "$MAN_DIR/yes.1" "$MAN_DIR/tee.1"
'

test_done
