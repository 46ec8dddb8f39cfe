# lib-man.sh: checks of the man pages in man/ against mandoc and against
# the commands' --help.  Source it after test-lib.sh.

MAN_DIR=$SRC_DIR/man

# MANDOC: mandoc is installed and runs (lints an empty page: errors
# only).  Without it the lint cases skip, and SPATE_NO_SKIP=1 (CI, which
# installs it) makes that a failure.
test_lazy_prereq MANDOC 'mandoc -Tlint -W error </dev/null'

# man_lint PAGE: mandoc -Tlint reports nothing at warning level or above
# in man/PAGE.  For cases that need MANDOC.
man_lint() {
	mandoc -Tlint -W warning "$MAN_DIR/$1" >lint.out 2>&1
	ml_rc=$?
	if [ "$ml_rc" != 0 ]; then
		$SYS_CAT lint.out
		echo "mandoc exited $ml_rc"
		return 1
	fi
	test_must_be_empty lint.out
}

# man_documents PAGE OPTION...: each OPTION ("--name" or "-x") heads an
# item of a list in man/PAGE: an .It line that gives it to Fl.  mdoc
# writes --name as "Fl \-name", hence the \- undone first.  Names every
# OPTION missing, then fails if any is.
man_documents() {
	md_page=$1
	shift
	sed -n 's/\\-/-/g; /^\.It /p' "$MAN_DIR/$md_page" >items || return 1
	md_missing=0
	for o in "$@"; do
		grep -Eq "Fl ${o#-}([^a-zA-Z0-9-]|\$)" items || {
			echo "$md_page: $o is not documented"
			md_missing=1
		}
	done
	[ "$md_missing" = 0 ]
}

# help_long_options HELP: print the long options named in the --help
# text in the file HELP, one a line, sorted.
help_long_options() {
	grep -Eo -- '--[a-z][a-z-]*' "$1" | sort -u
}

# help_short_options HELP: print the short options that begin a line of
# the --help text in the file HELP, one a line, sorted.
help_short_options() {
	sed -n 's/^  \(-[a-zA-Z]\)[, ].*/\1/p' "$1" | sort -u
}
