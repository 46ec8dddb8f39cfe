# shellcheck shell=sh
# cache.sh: caches keyed by content, sourced by scripts/check-gnu and
# scripts/proof.  An entry is a directory that holds what a step made,
# sealed for a key: .sums (the sha256 of each of its other files) and
# .key (the key), written last.  The key is the sha256 of a text that
# names everything the entry depends on (a source's hash, the files a
# proof covers, the tools' versions): never a time.  An entry is used
# only where its key is the one asked for and every file is as it was
# sealed; anything else (no entry, another key, a file changed, lost or
# added, a seal cut short) is no entry, and the step runs in full.

# cache_key: the key of the text on standard input.
cache_key() {
	sha256sum | cut -d ' ' -f 1
}

# cache_sums: the .sums of the current directory's files, .key and .sums
# left out, in a stable order.
cache_sums() {
	find . -type f ! -name .key ! -name .sums ! -name .sums.tmp -print0 |
		LC_ALL=C sort -z | xargs -0 -r sha256sum
}

# cache_ok DIR KEY: DIR is an entry sealed for KEY, its files unchanged.
cache_ok() {
	[ -f "$1/.key" ] && [ -f "$1/.sums" ] &&
		[ "$(cat "$1/.key")" = "$2" ] &&
		(cd "$1" && cache_sums | cmp -s - .sums)
}

# cache_seal DIR KEY: DIR, as it now is, is the entry for KEY.
cache_seal() {
	rm -f "$1/.key" "$1/.sums" &&
		(cd "$1" && cache_sums >.sums.tmp && mv .sums.tmp .sums) &&
		echo "$2" >"$1/.key"
}
