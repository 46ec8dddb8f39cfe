/* What a descriptor is, and whether zero-copy may be tried on it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sluice.h"
#include "sys.h"

int
sl_fdkind(int fd, enum sl_kind *kind)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -1;
	if (S_ISFIFO(st.st_mode))
		*kind = SL_PIPE;
	else if (S_ISREG(st.st_mode))
		*kind = SL_FILE;
	else if (S_ISCHR(st.st_mode))
		*kind = SL_CHAR;
	else if (S_ISSOCK(st.st_mode))
		*kind = SL_SOCKET;
	else if (S_ISDIR(st.st_mode))
		*kind = SL_DIR;
	else
		*kind = SL_OTHER;
	return 0;
}

int
sl_zerocopy_allowed(void)
{
	const char *v = getenv("SLUICE_ZEROCOPY");

	/* A portable build has no zero-copy path to allow. */
	if (!sys_zerocopy())
		return 0;
	return v == NULL || strcmp(v, "0") != 0;
}
