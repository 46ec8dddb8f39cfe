# lib-data.sh: test data, and the stream GNU's yes makes, which the
# expectations of yes and of tee fed by it are.  Source it after
# test-lib.sh.

# yes_ref LINE... : the expected stream of `yes LINE...`, from GNU yes.
yes_ref() {
	$GNU_YES "$@"
}

# yes_prefix FILE LINE...: FILE is `yes LINE...` or an exact prefix of
# it (a file is finite: it is always a prefix).
yes_prefix() {
	f=$1
	shift
	yes_ref "$@" | head -c "$(test_file_size "$f")" >prefix &&
	test_is_prefix "$f" prefix
}

# data_word LEN: print LEN bytes of letters and digits in a fixed order,
# no newline.  Varied, so that a stream shifted or reordered by a few
# bytes cannot compare equal to the original.
data_word() {
	yes_ref abcdefghijklmnopqrstuvwxyz0123456789 | tr -d '\n' |
		head -c "$1"
}
