#!/bin/sh
# Soak: spate tee and yes at full speed for a long time, every byte
# checked on the fly, memory sampled each second.  Not part of make check.
#
#   t/soak.sh			SOAK_GIB GiB (default 50) through tee to a
#				pipe, two FIFOs and /dev/null; then yes for
#				SOAK_YES_SECONDS (default 30) s
#
# The input comes from a deterministic generator; each output is read by
# a checker that regenerates the stream and compares every byte, so no
# output has to be stored.  tee's and yes's VmRSS is read from
# /proc/PID/status every second: max - min must stay under SOAK_RSS_KIB
# (default 16384).  BUILD names the build tree (default build).
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=$(pwd)/${BUILD:-build}
GIB=${SOAK_GIB:-50}
YES_SECONDS=${SOAK_YES_SECONDS:-30}
RSS_KIB=${SOAK_RSS_KIB:-16384}
CC=${CC:-cc}
LC_ALL=C
export LC_ALL
unset SPATE_ZEROCOPY

for c in tee yes; do
	[ -x "$BIN/$c" ] || { echo "soak: no $BIN/$c: run make first"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spate-soak.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The generator and checker: "gen N" writes N bytes of the stream,
# "check N" reads stdin and exits 0 only if it is exactly those N bytes,
# "lines LINE" reads stdin and exits 0 only if it is LINE repeated (the
# last copy may be cut short) and not empty.  Each prints what it read.
cat >"$tmp/soakio.c" <<'CEOF'
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLK	65536u		/* each block starts with its number */
#define BASE	(1u << 20)	/* the pseudo-random bytes they share */
#define IOSZ	(1u << 20)

static unsigned char base[BASE], io[IOSZ];

static void
fill_base(void)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	size_t i;

	for (i = 0; i < BASE; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		base[i] = x >> 24;
	}
}

/* The stream's bytes [POS, POS + LEN) into BUF. */
static void
stream(unsigned char *buf, uint64_t pos, size_t len)
{
	while (len > 0) {
		size_t off = pos % BLK, k;

		if (off < 8) {
			*buf++ = (pos / BLK) >> (8 * off);
			pos++, len--;
			continue;
		}
		k = BLK - off < len ? BLK - off : len;
		memcpy(buf, base + pos % BASE, k);
		buf += k, pos += k, len -= k;
	}
}

static int
gen(uint64_t n)
{
	uint64_t pos = 0;

	while (pos < n) {
		size_t k = n - pos < IOSZ ? n - pos : IOSZ, done = 0;

		stream(io, pos, k);
		while (done < k) {
			ssize_t w = write(1, io + done, k - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				perror("soakio: write");
				return 1;
			}
			done += w;
		}
		pos += k;
	}
	return 0;
}

/* Read stdin, comparing with WANT(pos, len); return the bytes read or
 * -1 at the first difference. */
static int64_t
consume(const unsigned char *rep, size_t replen)
{
	static unsigned char exp[IOSZ];
	uint64_t pos = 0;

	for (;;) {
		ssize_t n = read(0, io, IOSZ);
		const unsigned char *want = exp;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("soakio: read");
			return -1;
		}
		if (n == 0)
			return pos;
		if (rep != NULL)
			want = rep + pos % replen;
		else
			stream(exp, pos, n);
		if (memcmp(io, want, n) != 0) {
			size_t i = 0;

			while (io[i] == want[i])
				i++;
			fprintf(stderr, "soakio: byte %llu differs\n",
			    (unsigned long long)(pos + i));
			return -1;
		}
		pos += n;
	}
}

int
main(int argc, char **argv)
{
	int64_t got;

	if (argc != 3)
		return 2;
	fill_base();
	if (strcmp(argv[1], "gen") == 0)
		return gen(strtoull(argv[2], NULL, 10));
	if (strcmp(argv[1], "check") == 0) {
		got = consume(NULL, 0);
		printf("%lld\n", (long long)got);
		return got >= 0 &&
		    (uint64_t)got == strtoull(argv[2], NULL, 10) ? 0 : 1;
	}
	if (strcmp(argv[1], "lines") == 0) {
		size_t len = strlen(argv[2]) + 1, i;
		size_t replen = (IOSZ / len + 2) * len;
		unsigned char *rep = malloc(replen);

		if (rep == NULL)
			return 2;
		for (i = 0; i < replen; i++)
			rep[i] = i % len == len - 1 ? '\n' : argv[2][i % len];
		got = consume(rep, len);
		printf("%lld\n", (long long)got);
		return got > 0 ? 0 : 1;
	}
	return 2;
}
CEOF
$CC -O2 -o "$tmp/soakio" "$tmp/soakio.c" || exit 1
IO=$tmp/soakio

# sample PID FILE: append PID's VmRSS (KiB) to FILE each second while
# PID lives.
sample() {
	while kill -0 "$1" 2>/dev/null; do
		awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null >>"$2"
		sleep 1
	done
}

# flat NAME FILE: the samples in FILE vary by less than RSS_KIB.
flat() {
	sort -n "$2" | awk -v name="$1" -v lim="$RSS_KIB" '
		NR == 1 { min = $1 } { max = $1; n++ }
		END {
			printf "soak: %s VmRSS %d samples, %d..%d KiB\n",
			    name, n, min, max
			exit !(n > 0 && max - min < lim)
		}'
}

fail=0
n=$((GIB * 1073741824))

# tee: stdout a pipe, two FIFOs, /dev/null.
mkfifo "$tmp/fo1" "$tmp/fo2" || exit 1
"$IO" check $n <"$tmp/fo1" >"$tmp/c1" & c1=$!
"$IO" check $n <"$tmp/fo2" >"$tmp/c2" & c2=$!
mkfifo "$tmp/fo0" || exit 1
"$IO" check $n <"$tmp/fo0" >"$tmp/c0" & c0=$!
start=$(date +%s)
"$IO" gen $n | "$BIN/tee" "$tmp/fo1" "$tmp/fo2" /dev/null >"$tmp/fo0" &
tee_pid=$!
sample $tee_pid "$tmp/tee.rss" &
wait $tee_pid
tee_status=$?
for c in $c0 $c1 $c2; do
	wait $c || fail=1
done
end=$(date +%s)
secs=$((end - start))
[ $secs -gt 0 ] || secs=1
echo "soak: tee: $GIB GiB to 3 checked outputs and /dev/null in $secs s" \
	"($((GIB * 1024 / secs)) MiB/s), status $tee_status," \
	"checked $(cat "$tmp/c0") $(cat "$tmp/c1") $(cat "$tmp/c2") bytes"
[ $tee_status = 0 ] || fail=1
flat tee "$tmp/tee.rss" || fail=1

# yes: a long line, for YES_SECONDS, every line checked.
line="spate soak: every line must be exactly this one"
rm -f "$tmp/fo0" && mkfifo "$tmp/fo0" || exit 1
"$IO" lines "$line" <"$tmp/fo0" >"$tmp/cy" & cy=$!
"$BIN/yes" "$line" >"$tmp/fo0" &
yes_pid=$!
sample $yes_pid "$tmp/yes.rss" &
sleep "$YES_SECONDS"
kill $yes_pid
wait $yes_pid 2>/dev/null
wait $cy || fail=1
echo "soak: yes: $(cat "$tmp/cy") bytes in $YES_SECONDS s, every line exact"
flat yes "$tmp/yes.rss" || fail=1

wait
if [ $fail = 0 ]; then echo "soak: ok"; else echo "soak: FAILED"; fi
[ $fail = 0 ]
