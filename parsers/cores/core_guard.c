/*
 * core_guard.c -- SIGBUS containment for a core read from a mapping (see
 * core_guard.h). A thread-local pointer names the guard armed on this
 * thread; the handler (SA_SIGINFO) jumps to it when the faulting address
 * lies in its range, and otherwise restores the default action and
 * returns, so that the faulting access is retried and kills the process
 * as an unguarded SIGBUS would. The process-wide handler is installed by
 * the first armed guard and the previous disposition restored by the last
 * disarm (a count under a mutex), so that readers on several threads
 * share one installation.
 */
#include "parsers/cores/core_guard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static _Thread_local struct core_guard *current;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned users;
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct core_guard *g = current;
	const unsigned char *a = si ? (const unsigned char *)si->si_addr : NULL;

	(void)uc;
	if (g && g->armed && a && a >= g->base && (size_t)(a - g->base) < g->len) {
		g->fault_off = (uint64_t)(a - g->base);
		g->armed = 0;          /* one jump per arming */
		siglongjmp(g->jb, 1);
	}
	/* not ours: the default action, on the retried access */
	signal(sig, SIG_DFL);
}

int core_guard_arm(struct core_guard *g, const void *base, size_t len)
{
	struct sigaction sa;
	int r = 0;

	g->base = base;
	g->len = len;
	g->fault_off = 0;
	g->armed = 0;
	if (current)
		return -1;
	pthread_mutex_lock(&lock);
	if (users == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		r = sigaction(SIGBUS, &sa, &previous);
	}
	if (r == 0)
		users++;
	pthread_mutex_unlock(&lock);
	if (r < 0)
		return -1;
	g->armed = 1;
	current = g;
	return 0;
}

void core_guard_disarm(struct core_guard *g)
{
	if (current != g)
		return;
	current = NULL;
	g->armed = 0;
	pthread_mutex_lock(&lock);
	if (users && --users == 0)
		sigaction(SIGBUS, &previous, NULL);
	pthread_mutex_unlock(&lock);
}
