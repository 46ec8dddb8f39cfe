# lib-data.sh: test data.  Source it after test-lib.sh.

# data_word LEN: print LEN bytes of letters and digits in a fixed order,
# no newline.  Varied, so that a stream shifted or reordered by a few
# bytes cannot compare equal to the original.
data_word() {
	yes_ref abcdefghijklmnopqrstuvwxyz0123456789 | tr -d '\n' |
		head -c "$1"
}
