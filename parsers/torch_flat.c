/*
 * torch_flat.c -- stub
 */
#include "torch_snapshot.h"
int torch_flat_sniff(const unsigned char *head, size_t n) { (void)head; (void)n; return 0; }
int torch_flat_parse(struct input *in, struct sink *s) { (void)in; (void)s; return 0; }
