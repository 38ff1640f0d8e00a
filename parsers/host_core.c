/* host_core.c -- stub */
#include "host_core.h"
int host_core_sniff(const unsigned char *head, size_t n) { (void)head; (void)n; return 0; }
int host_core_parse(struct input *in, struct sink *s) { (void)in; (void)s; return 0; }
