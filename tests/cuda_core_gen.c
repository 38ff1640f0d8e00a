/*
 * cuda_core_gen.c -- command-line front end of cuda_core_writer.c, for the
 * benchmark and the fuzz seed corpus:
 *   cuda_core_gen OUT GEN NCTX NREGIONS REGION_BYTES SPARSE GZIP EXCEPTION
 * Build: cc -O2 -o gen tests/cuda_core_gen.c $(pkg-config --cflags --libs zlib)
 */
#include "cuda_core_writer.c"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o;

	if (argc != 9) {
		fprintf(stderr, "usage: %s OUT GEN NCTX NREGIONS REGION_BYTES SPARSE GZIP "
			"EXCEPTION\n", argv[0]);
		return 2;
	}
	memset(&o, 0, sizeof(o));
	o.gen = atoi(argv[2]);
	o.ndev = 1;
	o.nctx = atoi(argv[3]);
	o.nregions = atoi(argv[4]);
	o.region_size = strtoull(argv[5], NULL, 0);
	o.sparse = atoi(argv[6]);
	o.exception = atoi(argv[8]);
	ccw_init(&w);
	if (ccw_build(&w, &o, &ids) < 0 || ccw_write_file(&w, argv[1], atoi(argv[7])) < 0) {
		perror(argv[1]);
		return 1;
	}
	ccw_free(&w);
	return 0;
}
