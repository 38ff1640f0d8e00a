/*
 * torch_oom_text.h -- the fields of PyTorch's "CUDA out of memory" message.
 *
 * PyTorch's caching allocator has worded its OOM error five ways since
 * 1.0 (docs/formats.md "PyTorch OOM messages"):
 *   - "(GPU 0; 10.76 GiB total capacity; 9.46 GiB already allocated;
 *     21.12 MiB free; 9.72 GiB cached)"                        (1.0 - 1.3)
 *   - the same with "reserved in total by PyTorch", later with an
 *     "X allowed;" field                                       (1.4 - 2.0)
 *   - "GPU 0 has a total capacty of X of which Y is free. Process N has
 *     Z memory in use. Including non-PyTorch memory, this process has W
 *     memory in use. Of the allocated memory A is allocated by PyTorch,
 *     and U is reserved by PyTorch but unallocated."    (2.1, with the typo)
 *   - the same with "capacity", and from 2.4 ", with P allocated in
 *     private pools (e.g., CUDA Graphs),"
 *   - "Allocation on device 0 would exceed allowed memory. (out of
 *     memory)" followed by "Currently allocated : ...", "Requested : ...",
 *     "Device limit : ...", "Free (according to CUDA): ...", "PyTorch
 *     limit (set by user-supplied memory fraction) : ..." lines.
 * Users paste them wrapped, on one line or several, cut short, inside
 * another program's line; every function here reads the text however it
 * was joined (parsers/serving/server_join.c joins the lines) and looks for each
 * field by its label, anywhere in the text. No function reads past
 * m[n - 1]; m need not be NUL-terminated.
 */
#ifndef OOMLENS_TORCH_OOM_TEXT_H
#define OOMLENS_TORCH_OOM_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* 1 if the text names a CUDA OOM ("CUDA out of memory",
 * "OutOfMemoryError", "would exceed allowed memory"): a traceback ending
 * in it is a torch_oom. */
int torch_oom_text(const char *m, size_t n);

/* 1 if PyTorch's message itself begins (or is) here, so the lines after
 * it may carry its fields: a CUDA OOM named with "Tried to allocate",
 * "would exceed allowed memory", or "CUDA out of memory." with its full
 * stop (not an engine's "CUDA out of memory occurred when ..."). */
int torch_oom_start(const char *m, size_t n);

/* 1 if the text holds the message proper, the failed request ("Tried to
 * allocate" or the allowed-memory form): a lone message is then an OOM
 * event, not a mere mention. */
int torch_oom_message(const char *m, size_t n);

/* 1 if a line may be a piece of the message run over lines: it holds one
 * of the message's words ("memory", "allocated", "reserved", "free",
 * "GPU", "Process", "fragmentation", "PYTORCH_CUDA_ALLOC_CONF", "limit",
 * ...) or starts with the ':' of a "Label : size" line. Another program's
 * line after a message cut short ("Exiting main process ...") is not. */
int torch_oom_piece(const char *m, size_t n);

/* 1 if the text already holds the end of the message (the advice naming
 * PYTORCH_CUDA_ALLOC_CONF, the closing ')' of the old forms, the PyTorch
 * limit's value): nothing more to join from the following lines. */
int torch_oom_complete(const char *m, size_t n);

/* The message's fields as a new JSON object, or NULL when out of memory
 * (docs/json.md "torch_oom": device, requested_bytes, total_bytes,
 * free_bytes, allowed_bytes, process_in_use_bytes, allocated_bytes,
 * reserved_bytes, reserved_unallocated_bytes, private_pools_bytes (only
 * when stated), processes [{pid, bytes}], wording, suggests_*). A field the
 * text does not state is null; so is a size past what 64 bits hold
 * (PyTorch prints SIZE_MAX as "17179869184.00 GiB" for no limit). Sets
 * *requested (bytes or OL_NULL) and a one-line summary (scap bytes). The
 * caller owns the object. */
json_t *torch_oom_fields(const char *m, size_t n, int64_t *requested,
			 char *summary, size_t scap);

#endif
