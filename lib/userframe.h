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

#endif
