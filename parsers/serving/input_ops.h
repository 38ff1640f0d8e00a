/*
 * input_ops.h -- the operations whose memory grows with one input's size
 * and that no fixed budget of the program covers: a failure in one of
 * them is that input's (a spike), not the configuration's. Read from a
 * failure's traceback frames by the server-log parser, which marks the
 * failure's event with the operation (data `input_op`, docs/schema.md);
 * rule input_op (analyzer/rules/input_op.c) judges it.
 *
 * Each row is learnt from the program's source at a version, named
 * beside it in input_ops.c.
 */
#ifndef OOMLENS_INPUT_OPS_H
#define OOMLENS_INPUT_OPS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct srv_mem;

/* The row of the first operation frame line l[0..n) names, or -1. Cheap:
 * a few bounded searches, and only frame lines are asked. */
int input_op_find(const char *l, size_t n);

/* Note frame line l[0..n), line lineno of the log, in m: the last
 * operation a frame named, and where. */
void srv_mem_input_op(struct srv_mem *m, const char *l, size_t n, uint64_t lineno);

/* Put `input_op` in event data d when an operation was named by a frame
 * at most SRV_MEM_FRAMES lines before line lineno (the failure's), or by
 * its own traceback text tb (NULL: none). */
void srv_mem_put_input_op(const struct srv_mem *m, json_t *d, uint64_t lineno, const char *tb);

#endif
