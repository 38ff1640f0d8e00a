/*
 * fuzz_host_core.c -- libFuzzer harness for parsers/cores/host_core.c: any bytes
 * as a host core file. libelf and libdwfl read the core from a file
 * descriptor, so the bytes go to a memfd that the input opens by path.
 * The seeds are gcore dumps of tests/data/cores/victim.c with their memory
 * segments cut to 64 bytes (notes and headers kept).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/input.h"
#include "parsers/cores/host_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink s;
	struct input in;
	char path[64];
	int fd = memfd_create("fuzz-core", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	memset(&s, 0, sizeof(s));
	host_core_sniff(data, size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (input_open(&in, path, NULL) == 0) {
		host_core_parse(&in, &s);
		input_close(&in);
	}
	close(fd);
	return 0;
}
