/*
 * io.c: inject.so's data calls (inject.h): read(2) (and glibc's
 * __read_chk, which _FORTIFY_SOURCE calls for it), write(2), splice(2),
 * tee(2), vmsplice(2), copy_file_range(2) and sendfile(2).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_read_chk)(int, void *, size_t, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_splice)(int, loff_t *, int, loff_t *, size_t,
    unsigned int);
static ssize_t (*real_tee)(int, int, size_t, unsigned int);
static ssize_t (*real_vmsplice)(int, const struct iovec *, size_t,
    unsigned int);
static ssize_t (*real_copy_range)(int, loff_t *, int, loff_t *, size_t,
    unsigned int);
static ssize_t (*real_sendfile)(int, int, off_t *, size_t);

int
io_resolve(void)
{
	real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	real_read_chk = (ssize_t (*)(int, void *, size_t, size_t))
	    dlsym(RTLD_NEXT, "__read_chk");
	real_write = (ssize_t (*)(int, const void *, size_t))
	    dlsym(RTLD_NEXT, "write");
	real_splice = (ssize_t (*)(int, loff_t *, int, loff_t *, size_t,
	    unsigned int))dlsym(RTLD_NEXT, "splice");
	real_tee = (ssize_t (*)(int, int, size_t, unsigned int))
	    dlsym(RTLD_NEXT, "tee");
	real_vmsplice = (ssize_t (*)(int, const struct iovec *, size_t,
	    unsigned int))dlsym(RTLD_NEXT, "vmsplice");
	real_copy_range = (ssize_t (*)(int, loff_t *, int, loff_t *, size_t,
	    unsigned int))dlsym(RTLD_NEXT, "copy_file_range");
	real_sendfile = (ssize_t (*)(int, int, off_t *, size_t))
	    dlsym(RTLD_NEXT, "sendfile");
	return real_read == NULL || real_write == NULL ||
	    real_splice == NULL || real_tee == NULL ||
	    real_vmsplice == NULL || real_copy_range == NULL ||
	    real_sendfile == NULL ? -1 : 0;
}

ssize_t
read(int fd, void *buf, size_t len)
{
	unsigned matched;
	struct fault *f = before_call(C_READ, fd, -1, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_read(fd, buf, len);
	after_call(matched, r);
	return r;
}

ssize_t
__read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	unsigned matched;
	struct fault *f = before_call(C_READ, fd, -1, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_read_chk(fd, buf, len, buflen);
	after_call(matched, r);
	return r;
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	unsigned matched;
	struct fault *f = before_call(C_WRITE, -1, fd, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_write(fd, buf, len);
	after_call(matched, r);
	return r;
}

ssize_t
splice(int in, loff_t *in_off, int out, loff_t *out_off, size_t len,
    unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_SPLICE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_splice(in, in_off, out, out_off, len, flags);
	after_call(matched, r);
	return r;
}

ssize_t
tee(int in, int out, size_t len, unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_TEE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_tee(in, out, len, flags);
	after_call(matched, r);
	return r;
}

ssize_t
vmsplice(int fd, const struct iovec *iov, size_t n, unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_VMSPLICE, -1, fd, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_vmsplice(fd, iov, n, flags);
	after_call(matched, r);
	return r;
}

ssize_t
copy_file_range(int in, loff_t *in_off, int out, loff_t *out_off,
    size_t len, unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_COPY_RANGE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_copy_range(in, in_off, out, out_off, len, flags);
	after_call(matched, r);
	return r;
}

ssize_t
sendfile(int out, int in, off_t *off, size_t len)
{
	unsigned matched;
	struct fault *f = before_call(C_SENDFILE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_sendfile(out, in, off, len);
	after_call(matched, r);
	return r;
}
