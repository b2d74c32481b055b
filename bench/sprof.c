/* sprof.c: a sampling profiler of the host side, as an LD_PRELOAD library, for hosts
 * without perf (the GPU hosts).
 *
 *   gcc -O2 -shared -fPIC -o sprof.so bench/sprof.c -ldl
 *   NWALIGN_WAIT_RELEASE=1 SPROF_OUT=s.txt LD_PRELOAD=./sprof.so ./nwalign ...
 *   python3 bench/sprof_report.py ./nwalign s.txt
 *
 * SIGPROF every SPROF_US microseconds of the process's CPU time (the kernel's tick bounds
 * the rate); each sample keeps the interrupted instruction and 9 frames above it. At exit
 * (atexit: NWALIGN_WAIT_RELEASE=1 makes nwalign return from main), one line a sample is
 * appended to SPROF_OUT: "symbol or dso+offset;..." innermost first. Samples count CPU
 * time on any thread, not the critical path: read them beside -vv's timeline. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <stdatomic.h>
#define MAXS 400000 /* samples kept */
#define DEPTH 10
static void *stk[MAXS][DEPTH];
static atomic_int ns;
static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si;
	int k = atomic_fetch_add(&ns, 1);
	if (k >= MAXS) return;
	ucontext_t *u = uc;
	void *b[DEPTH + 2];
	int n = backtrace(b, DEPTH + 2);
	stk[k][0] = (void *)u->uc_mcontext.gregs[REG_RIP];
	for (int i = 1; i < DEPTH; i++) stk[k][i] = i + 2 < n ? b[i + 2] : 0;
}
static void dump(void)
{
	struct itimerval z = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &z, NULL);
	const char *o = getenv("SPROF_OUT");
	FILE *f = fopen(o ? o : "/tmp/sprof.txt", "a");
	if (!f) return;
	int n = ns < MAXS ? ns : MAXS;
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < DEPTH && stk[k][i]; i++) {
			Dl_info d;
			if (dladdr(stk[k][i], &d) && d.dli_fname) {
				const char *b = strrchr(d.dli_fname, '/');
				if (d.dli_sname) fprintf(f, "%s%s", i ? ";" : "", d.dli_sname);
				else fprintf(f, "%s%s+0x%lx", i ? ";" : "", b ? b + 1 : d.dli_fname, (unsigned long)((char *)stk[k][i] - (char *)d.dli_fbase));
			} else fprintf(f, "%s?", i ? ";" : "");
		}
		fputc('\n', f);
	}
	fclose(f);
}
__attribute__((constructor)) static void start(void)
{
	void *b[4];
	backtrace(b, 4); /* load the unwinder outside the handler */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	const char *e = getenv("SPROF_US");
	long us = e ? atol(e) : 500;
	struct itimerval t = {{0, us}, {0, us}};
	setitimer(ITIMER_PROF, &t, NULL);
	atexit(dump);
}
