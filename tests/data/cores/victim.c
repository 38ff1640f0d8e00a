/*
 * victim.c -- the process the host core tests dump: three threads in
 * known functions (two workers parked in victim_wait_forever and
 * victim_sleep_loop, main crashing in victim_crash with a NULL store).
 * Compiled at test time (-g -O0) and run under gdb, which stops at the
 * SIGSEGV and writes the core with gcore.
 */
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

static pthread_barrier_t ready;

__attribute__((noinline)) void victim_wait_forever(void)
{
	for (;;)
		pause();
}

__attribute__((noinline)) void victim_sleep_loop(void)
{
	for (;;)
		sleep(100);
}

__attribute__((noinline)) void *victim_worker_a(void *arg)
{
	pthread_barrier_wait(&ready);
	victim_wait_forever();
	return arg;
}

__attribute__((noinline)) void *victim_worker_b(void *arg)
{
	pthread_barrier_wait(&ready);
	victim_sleep_loop();
	return arg;
}

__attribute__((noinline)) void victim_crash(int *volatile p)
{
	*p = 42;
}

int main(void)
{
	pthread_t a, b;

	pthread_barrier_init(&ready, NULL, 3);
	pthread_create(&a, NULL, victim_worker_a, NULL);
	pthread_create(&b, NULL, victim_worker_b, NULL);
	pthread_barrier_wait(&ready);
	usleep(100000);   /* let both workers reach their loops */
	victim_crash(NULL);
	return 0;
}
