#!/bin/sh
# man/cat.1: mandoc finds nothing wrong, and every option that cat --help
# prints is documented.
. "$(dirname "$0")/test-lib.sh"

PAGE=$SRC_DIR/man/cat.1

# documented OPTION...: each OPTION ("--name" or "-x") heads an item of
# a list in the page: an .It line that gives it to Fl.  mdoc writes
# --name as "Fl \-name", hence the \- undone first.
documented() {
	sed -n 's/\\-/-/g; /^\.It /p' "$PAGE" >items || return 1
	missing=0
	for o in "$@"; do
		grep -Eq "Fl ${o#-}([^a-zA-Z0-9-]|\$)" items || {
			echo "cat.1: $o is not documented"
			missing=1
		}
	done
	[ "$missing" = 0 ]
}

# A missing mandoc is a failure, not a skip: CI installs it.
test_expect_success 'cat.1: mandoc -Tlint is clean' '
	if ! command -v mandoc >/dev/null; then
		echo "mandoc not found: install it to check the man pages"
		exit 1
	fi
	mandoc -Tlint -W warning "$PAGE" >out 2>&1 &&
	test_must_be_empty out
'

test_expect_success SLUICE 'cat.1 documents every long option of cat --help' '
	cat --help >help &&
	grep -Eo -- "--[a-z][a-z-]*" help | sort -u >opts &&
	printf "%s\n" --help --number --number-nonblank --show-all \
		--show-ends --show-nonprinting --show-tabs --squeeze-blank \
		--version >expect &&
	test_cmp expect opts &&
	documented $(cat opts)
'

test_expect_success SLUICE 'cat.1 documents every short option of cat --help' '
	cat --help >help &&
	sed -n "s/^  \(-[a-zA-Z]\)[, ].*/\1/p" help | sort -u >opts &&
	printf "%s\n" -A -E -T -b -e -n -s -t -u -v | sort >expect &&
	test_cmp expect opts &&
	documented $(cat opts)
'

test_expect_success 'the SYNOPSIS names every short option' '
	sed -n "/^\.Sh SYNOPSIS/,/^\.Sh/p" "$PAGE" >synopsis &&
	grep -q "^\.Op Fl AbeEnstTuv\$" synopsis
'

test_expect_success 'cat.1 has the sections of the house style' '
	grep "^\.Sh " "$PAGE" >sections &&
	printf ".Sh %s\n" NAME SYNOPSIS DESCRIPTION ENVIRONMENT \
		"EXIT STATUS" EXAMPLES "SEE ALSO" STANDARDS >expect &&
	test_cmp expect sections
'

test_expect_success 'the page names no path of the build machine' '
	! grep -nE "/(work|home)/" "$PAGE"
'

test_done
