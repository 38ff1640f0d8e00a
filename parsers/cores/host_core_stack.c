/*
 * host_core_stack.c -- the backtraces of a host core: libdwfl unwinds
 * each thread from the registers and stack bytes in the core, using the
 * binaries the core names when they are regular files on this machine
 * (found by build id or path; only read, never run). Frames without
 * symbols keep module + offset + build id. The notes and mappings are
 * read by host_core.c, which calls hcore_read_threads().
 */
#include "parsers/cores/host_core_int.h"
#include "lib/budget.h"
#include "lib/vocab.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *own(struct hcore *h, char *s)
{
	if (s && h->nstrs < sizeof(h->strs) / sizeof(h->strs[0]))
		h->strs[h->nstrs++] = s;
	else if (s) {
		free(s);
		s = NULL;
	}
	return s;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct hcore *h = arg;
	struct ol_frame *f;
	Dwarf_Addr pc, adj, start = 0;
	bool act = false;
	Dwfl_Module *mod;

	if (h->nframes == MAX_FRAMES)
		return DWARF_CB_ABORT;
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	adj = act ? pc : pc - 1;
	f = &h->frames[h->nframes++];
	memset(f, 0, sizeof(*f));
	f->line = OL_NULL;
	mod = dwfl_addrmodule(h->dwfl, adj);
	if (mod) {
		GElf_Off off = 0;
		GElf_Sym sym;
		const char *mname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL,
						     NULL, NULL);
		const unsigned char *bits;
		GElf_Addr vaddr;
		int nb = dwfl_module_build_id(mod, &bits, &vaddr);
		Dwfl_Line *ln = dwfl_module_getsrc(mod, adj);
		int lineno = 0;
		const char *src = ln ? dwfl_lineinfo(ln, NULL, &lineno, NULL, NULL, NULL) : NULL;

		f->name = dwfl_module_addrinfo(mod, adj, &off, &sym, NULL, NULL, NULL);
		if (src && lineno > 0) {
			f->file = src;
			f->line = lineno;
		} else {
			f->file = mname;
			f->line = (int64_t)(pc - start);
		}
		if (nb > 0 && nb <= 64) {
			char *hex = malloc((size_t)nb * 2 + 1);
			int k;
			if (hex) {
				for (k = 0; k < nb; k++)
					snprintf(hex + 2 * k, 3, "%02x", bits[k]);
				f->build_id = own(h, hex);
			}
		}
	} else {
		/* no module (binary not opened): the mapped file of NT_FILE and
		 * the offset in it, else the bare address */
		size_t i;
		for (i = 0; i < h->nfiles; i++)
			if (adj >= h->files[i].start && adj < h->files[i].end)
				break;
		if (i < h->nfiles) {
			f->file = h->files[i].name;
			f->line = (int64_t)(pc - h->files[i].start +
					    h->files[i].pgoff * (h->page_size ? h->page_size : 1));
		} else {
			char *s = malloc(32);
			if (s)
				snprintf(s, 32, "0x%" PRIx64, (uint64_t)pc);
			f->name = own(h, s);
		}
	}
	return DWARF_CB_OK;
}

static int thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct hcore *h = arg;
	struct ol_thread t;
	size_t i;
	int64_t tid = dwfl_thread_tid(thread), sid;

	h->nframes = 0;
	h->nstrs = 0;
	if (dwfl_thread_getframes(thread, frame_cb, h) < 0 && !h->nframes) {
		const char *why = dwfl_errmsg(-1);
		HDIAG(h, 0, OL_WARN, "thread %lld: no backtrace (%s)", (long long)tid,
		      why ? why : "unknown");
	}
	sid = h->nframes ? sink_stack(h->out.s, h->frames, h->nframes) : 0;
	if (sid < 0)
		h->out.failed = 1;
	for (i = 0; i < h->nstrs; i++)
		free(h->strs[i]);
	h->nstrs = 0;
	memset(&t, 0, sizeof(t));
	t.pid = h->pid;
	t.tid = tid;
	t.signal = OL_NULL;
	t.stack_id = sid > 0 ? sid : OL_NULL;
	for (i = 0; i < h->nthr; i++)
		if (h->thr[i].tid == tid) {
			h->thr[i].seen = 1;
			t.signal = h->thr[i].signal ? h->thr[i].signal : OL_NULL;
			t.crashed = i == 0 && h->thr[i].signal;
			break;
		}
	core_note(&h->out, sink_thread(h->out.s, &t));
	return h->out.failed ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* libdwfl opens the binaries the core names, at the paths the core gives:
 * untrusted text. Only regular files are opened: a FIFO there would block
 * the read forever, a device would never end. */
static int find_elf_regular(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct stat st;

	if (modname && modname[0] == '/' && stat(modname, &st) == 0 && !S_ISREG(st.st_mode))
		return -1;
	return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
}

/* The first mapped file the core names that exists here but is not a
 * regular file (a FIFO, a device), or NULL. libdwfl opens the mapped files
 * by name while it matches modules; such a file would block it for ever. */
static const char *unsafe_mapped_file(const struct hcore *h)
{
	struct stat st;
	size_t i;

	for (i = 0; i < h->nfiles; i++)
		if (h->files[i].name[0] == '/' && stat(h->files[i].name, &st) == 0 &&
		    !S_ISREG(st.st_mode))
			return h->files[i].name;
	return NULL;
}

void hcore_read_threads(struct hcore *h)
{
	static char *debuginfo_path = NULL;
	static const Dwfl_Callbacks cb = {
		.find_elf = find_elf_regular,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	size_t i;
	int r;

	const char *unsafe = unsafe_mapped_file(h);

	h->dwfl = dwfl_begin(&cb);
	if (!h->dwfl)
		return;
	dwfl_report_begin(h->dwfl);
	if (unsafe) {
		HDIAG(h, 0, OL_WARN, "the core maps %s, which is not a regular file here: no"
		      " binary is opened, frames are bare addresses", unsafe);
		r = 0;
	} else {
		r = dwfl_core_file_report(h->dwfl, h->elf, NULL);
	}
	dwfl_report_end(h->dwfl, NULL, NULL);
	if (r < 0) {
		const char *why = dwfl_errmsg(-1);
		HDIAG(h, 0, OL_WARN, "no modules found in the core (%s): frames are bare "
		      "addresses", why ? why : "unknown");
	}
	r = dwfl_core_file_attach(h->dwfl, h->elf);
	if (r < 0) {
		const char *why = dwfl_errmsg(-1);
		HDIAG(h, 0, h->nthr ? OL_ERROR : OL_WARN, "cannot unwind the threads (%s)%s",
		      why ? why : "no thread notes",
		      h->nthr ? ": threads listed without backtraces" : "");
	} else {
		r = dwfl_getthreads(h->dwfl, thread_cb, h);
		if (r < 0 && !h->out.failed) {
			const char *why = dwfl_errmsg(-1);
			HDIAG(h, 0, OL_WARN, "walking the threads stopped early: %s",
			      why ? why : "unknown");
		}
	}
	/* Threads libdwfl did not give (no unwinder for this machine...). */
	for (i = 0; i < h->nthr && !h->out.failed; i++) {
		struct ol_thread t;

		if (h->thr[i].seen)
			continue;
		memset(&t, 0, sizeof(t));
		t.pid = h->pid;
		t.tid = h->thr[i].tid;
		t.signal = h->thr[i].signal ? h->thr[i].signal : OL_NULL;
		t.crashed = i == 0 && h->thr[i].signal;
		t.stack_id = OL_NULL;
		core_note(&h->out, sink_thread(h->out.s, &t));
	}
}
