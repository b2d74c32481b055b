/* process_exit.c: the end of a command that used the GPU.
 *
 * When a process that opened the GPU ends, the driver releases its context and memory as
 * the process's device file descriptors close, after the output is complete, while the
 * caller (a shell, a workflow) still waits. Ending with _exit does not avoid it (the
 * kernel closes the descriptors either way). So the process starts a helper that shares
 * its memory (clone with CLONE_VM: nothing is copied) and has a copy of its descriptor
 * table; the helper closes every descriptor but the device's (stdin, stdout, stderr, any
 * pipe a caller waits on) and waits for its parent to end (PR_SET_PDEATHSIG). The parent
 * ends at once: the memory and the device's descriptors, still the helper's, are not
 * released then, but when the helper ends, after the caller has its status. The output,
 * the status and every message are the parent's, as before; only the device is released a
 * moment later, by the helper.
 *
 * The helper runs on a stack of its own in the parent's memory, which the parent no longer
 * touches, and makes system calls only: it closes the descriptors listed before the clone,
 * sets its signal and waits.
 */
#define _GNU_SOURCE /* clone */
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "nwalign.h"

/* The descriptors the helper closes: every open one but the device's (/dev/nvidia*). */
enum { MAX_CLOSE = 1024 };

static int list_other_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	const int own = dirfd(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		const int fd = atoi(e->d_name);
		char path[64], target[PATH_MAX];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		const ssize_t len = readlink(path, target, sizeof target - 1);
		if (fd == own || len < 0)
			continue;
		target[len] = '\0';
		if (strncmp(target, "/dev/nvidia", 11) == 0)
			continue;
		if (n == max) {
			closedir(d);
			return -1;
		}
		fds[n++] = fd;
	}
	closedir(d);
	return n;
}

/* The helper's stack and its list of descriptors to close. */
static _Alignas(64) char helper_stack[64 * 1024];
static int close_fds[MAX_CLOSE], n_close;
static pid_t parent_pid;

static int helper(void *arg)
{
	(void)arg;
	for (int k = 0; k < n_close; k++)
		close(close_fds[k]);
	/* SIGKILL when the parent ends; if it ended before this took effect, end now */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent_pid)
		_exit(0);
	for (;;)
		pause();
	return 0;
}

void nw_exit_leaving_device(int status)
{
	if (fflush(NULL) != 0 && status == 0)
		status = 2;
	n_close = list_other_fds(close_fds, MAX_CLOSE);
	parent_pid = getpid();
	/* with no list (no /proc) or no helper, the process ends as any other: the release is
	 * then waited for, as it was without the helper */
	if (n_close >= 0)
		clone(helper, helper_stack + sizeof helper_stack, CLONE_VM | SIGCHLD, NULL);
	_exit(status);
}
