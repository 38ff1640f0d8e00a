/*
 * userframe.h -- which frame of an allocation stack is the user's.
 *
 * A PyTorch snapshot's stacks (innermost frame first) mix Python frames
 * with C++ ones (stacks="all": the unwinder, the caching allocator) and
 * with torch's own and the interpreter's Python frames. The frame a user
 * looks for is the first Python frame, innermost first, that is neither
 * torch's package nor the Python runtime; third-party libraries
 * (transformers, vllm, einops...) count as the user's. The rules are the
 * ones of tests/data/real/snapshots/README.md ("User's frame"), so that
 * oomlens and the independent oracle name the same frame.
 *
 * Every function takes a frame's filename as the snapshot wrote it (NULL
 * is no file); Windows paths are read with '\' as '/'.
 */
#ifndef OOMLENS_USERFRAME_H
#define OOMLENS_USERFRAME_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

enum frame_kind {
	FRAME_CPP,            /* not a Python frame (C++, unknown "??", a library) */
	FRAME_USER,           /* Python, outside torch and the runtime */
	FRAME_TORCH,          /* Python, inside torch's own package */
	FRAME_RUNTIME,        /* Python, the interpreter's (<frozen ...>, the standard library) */
};

/* A Python frame: a file ending in .py (any case), or exec'd code named
 * <...> such as <string>. */
int frame_is_python(const char *file);
/* A path with a torch/ component (site-packages/torch/, pytorch/torch/,
 * a relative torch/...); torch_geometric/ or pytorch_backend.py are not. */
int frame_is_torch(const char *file);
/* <frozen ...>, or the standard library outside its site-packages: lib/pythonX.Y/,
 * Windows ...\PythonNNN\Lib\ and ...\cpython-X.Y...\Lib\, a conda env's \Lib\. */
int frame_is_runtime(const char *file);
enum frame_kind frame_kind(const char *file);

/* The index of the user's frame among n files (innermost first), or -1:
 * none. files[i] may be NULL. */
int user_frame(const char *const *files, size_t n);

/* One stack named by the one rule every place that names a stack uses
 * (findings, holders, diff, tool holders; issue 25): read its frames
 * innermost first with userframe_stack_add, then userframe_stack_label
 * writes its name:
 *   the user's frame (frame_kind FRAME_USER) as "file:line name";
 *   else, for a stack with no Python frame, "C++ only: node (op)" from the
 *   autograd node and the ATen op it allocates for, or what it has of them,
 *   or "C++ only";
 *   else "no user frame".
 * Memory stays bounded whatever the depth: only the picked frame and the
 * C++ names are copied. The struct owns its strings. */
struct userframe_stack {
	int depth, python;             /* frames, Python frames among them */
	int user;                      /* index of the user's frame, -1: none */
	char *file, *name;             /* the user's frame (NULL when none) */
	int64_t line;                  /* its line, OL_NULL: none */
	char *node, *op;               /* for a C++-only stack: the autograd node and the ATen
					* op it allocates for ("DivBackward0",
					* "at::_ops::div_Tensor"), or NULL */
};

void userframe_stack_init(struct userframe_stack *s);
/* The next frame (file, name may be NULL; line OL_NULL: none). Returns 0,
 * or -1 when a copy could not be allocated (s stays consistent). */
int userframe_stack_add(struct userframe_stack *s, const char *file, const char *name,
			int64_t line);
/* Append the stack's name, by the rule above, to out. */
void userframe_stack_label(const struct userframe_stack *s, struct strbuf *out);
/* Free what s owns and reset it to empty. */
void userframe_stack_release(struct userframe_stack *s);

#endif
