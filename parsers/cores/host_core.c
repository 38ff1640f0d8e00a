/*
 * host_core.c -- host process core dumps (ELF ET_CORE for the CPU: the
 * kernel's core files, gdb's gcore), read with libelf and libdwfl.
 *
 * The notes give the process (NT_PRPSINFO: pid, name, arguments), each
 * thread (NT_PRSTATUS: tid, current signal; the kernel writes the thread
 * that took the signal first), the signal details (NT_SIGINFO) and the
 * mapped files (NT_FILE). The PT_LOAD segments are the memory; they become
 * a "core" capture in the same capture/mapping tables smaps fills, so rules
 * treat both alike. Backtraces come from libdwfl, which unwinds each thread
 * from the registers and stack bytes in the core, using the binaries named
 * in the core when they exist on this machine (found by build id or path;
 * only read, never run). Frames without symbols keep module + offset +
 * build id. Nothing from the core is executed.
 *
 * This file reads the notes and the mappings and emits the crash; the
 * backtraces (libdwfl) are in host_core_stack.c, the state both share in
 * host_core_int.h.
 */
#include "parsers/cores/host_core.h"
#include "parsers/cores/host_core_int.h"
#include "parsers/cores/core_file.h"
#include "lib/budget.h"
#include "lib/vocab.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t rd(const unsigned char *p, int is64)
{
	uint64_t v = 0;
	int i, n = is64 ? 8 : 4;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int32_t rd32(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

static const char *sig_name(int64_t sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT",
		[SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
		[SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL",
		[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
		[SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",
		[SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",
		[SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
		[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
		[SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR",
		[SIGSYS] = "SIGSYS",
	};
	if (sig > 0 && (size_t)sig < sizeof(names) / sizeof(names[0]) && names[sig])
		return names[sig];
	return NULL;
}

/* ---- notes ---- */

/* Keep thread tid (its NT_PRSTATUS note at off): the table grows within
 * the run's budget and up to MAX_THREADS; a thread past either is counted
 * in thr_left_out (read_notes says so: the artifact is partial). */
static void add_thread(struct hcore *h, int64_t tid, int64_t sig, uint64_t off)
{
	if (h->nthr == MAX_THREADS) {
		h->thr_left_out++;
		return;
	}
	if (h->nthr == h->capthr) {
		size_t cap = h->capthr ? h->capthr * 2 : 16;
		uint64_t more = (uint64_t)(cap - h->capthr) * sizeof(struct thr);
		struct thr *n;
		if (ol_budget_take(more) < 0) {
			h->thr_left_out++;
			h->thr_budget = 1;
			return;
		}
		h->thr_drawn += more;
		n = realloc(h->thr, cap * sizeof(*n));
		if (!n) {
			h->out.failed = 1;
			return;
		}
		h->thr = n;
		h->capthr = cap;
	}
	h->thr[h->nthr].tid = tid;
	h->thr[h->nthr].signal = sig;
	h->thr[h->nthr].offset = off;
	h->thr[h->nthr].seen = 0;
	h->nthr++;
}

/* NT_FILE: count, page size, count x (start, end, page offset), names. */
static void read_nt_file(struct hcore *h, const unsigned char *d, size_t n, int is64,
			 uint64_t off)
{
	size_t w = is64 ? 8 : 4, i;
	uint64_t count;
	const char *name, *end = (const char *)d + n;

	if (n < 2 * w)
		goto bad;
	count = rd(d, is64);
	h->page_size = rd(d + w, is64);
	if (count > (n - 2 * w) / (3 * w))
		goto bad;
	h->files = calloc(count ? count : 1, sizeof(*h->files));
	if (!h->files) {
		h->out.failed = 1;
		return;
	}
	name = (const char *)d + 2 * w + count * 3 * w;
	for (i = 0; i < count; i++) {
		const unsigned char *e = d + 2 * w + i * 3 * w;
		const char *z = name < end ? memchr(name, 0, (size_t)(end - name)) : NULL;

		if (!z) {
			HDIAG(h, off, OL_ERROR, "NT_FILE note: name %zu of %llu is missing or "
			      "unterminated; the remaining file names are unknown", i,
			      (unsigned long long)count);
			break;
		}
		h->files[i].start = rd(e, is64);
		h->files[i].end = rd(e + w, is64);
		h->files[i].pgoff = rd(e + 2 * w, is64);
		h->files[i].name = name;
		name = z + 1;
		h->nfiles++;
	}
	return;
bad:
	HDIAG(h, off, OL_ERROR, "NT_FILE note of %zu bytes is too short for its entry "
	      "count; mapped file names unknown", n);
}

/* One CORE note of type `type`: desc (dn bytes) at file offset at. */
static void read_note(struct hcore *h, uint32_t type, const unsigned char *desc, size_t dn,
		      uint64_t at, int is64)
{
	switch (type) {
	case NT_PRSTATUS:
		/* siginfo(12) cursig(2) pad sigpend sighold pid ... */
		if (dn < (is64 ? 36u : 28u)) {
			h->bad_notes++;
			break;
		}
		add_thread(h, rd32(desc + (is64 ? 32 : 24)), desc[12] | desc[13] << 8, at);
		break;
	case NT_PRPSINFO:
		if (dn < (is64 ? 136u : 124u)) {
			h->bad_notes++;
			break;
		}
		h->pid = rd32(desc + (is64 ? 24 : 12));
		memcpy(h->comm, desc + (is64 ? 40 : 28), 16);
		h->comm[16] = 0;
		memcpy(h->psargs, desc + (is64 ? 56 : 44), 80);
		h->psargs[80] = 0;
		break;
	case NT_SIGINFO:
		/* one per thread; the first follows the thread that took the signal */
		if (h->signal)
			break;
		if (dn < 12) {
			h->bad_notes++;
			break;
		}
		h->signal = rd32(desc);
		h->si_errno = rd32(desc + 4);
		h->si_code = rd32(desc + 8);
		if (dn >= 24 && (h->signal == SIGSEGV || h->signal == SIGBUS ||
				 h->signal == SIGILL || h->signal == SIGFPE))
			h->fault_addr = (int64_t)rd(desc + 16, is64);
		break;
	case NT_FILE:
		if (!h->files)
			read_nt_file(h, desc, dn, is64, at);
		break;
	}
}

/* A program header's span (file offset or address) and index, to sort
 * segments by where they are, lowest index first on ties. */
struct seg {
	uint64_t at, end;
	size_t i;
};

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* The program headers of type `type` into *out (sorted by file offset when
 * by_addr is 0, by address else), their count in *n. 0, or -1 out of
 * memory (h->out.failed set). */
static int segments(struct hcore *h, size_t nph, uint32_t type, int by_addr,
		    struct seg **out, size_t *n)
{
	struct seg *v = malloc((nph ? nph : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	*out = v;
	if (!v) {
		h->out.failed = 1;
		return -1;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(h->elf, (int)i, &ph) || ph.p_type != type)
			continue;
		v[*n].at = by_addr ? ph.p_vaddr : ph.p_offset;
		v[*n].end = by_addr ? ph.p_vaddr + ph.p_memsz : ph.p_offset + ph.p_filesz;
		if (v[*n].end < v[*n].at)
			v[*n].end = UINT64_MAX;
		v[*n].i = i;
		(*n)++;
	}
	qsort(v, *n, sizeof(*v), cmp_seg);
	return 0;
}

/* The notes of one PT_NOTE segment (program header ph). */
static void read_note_segment(struct hcore *h, const GElf_Phdr *ph, int is64)
{
	Elf_Data *d;
	size_t pos = 0, name_off, desc_off;
	GElf_Nhdr nh;

	d = elf_getdata_rawchunk(h->elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_NHDR);
	if (!d) {
		HDIAG(h, ph->p_offset, OL_ERROR, "note segment at offset %llu (%llu bytes) "
		      "cannot be read (%s): threads and signal unknown",
		      (unsigned long long)ph->p_offset, (unsigned long long)ph->p_filesz,
		      elf_errmsg(-1));
		return;
	}
	while (pos < d->d_size &&
	       (pos = gelf_getnote(d, pos, &nh, &name_off, &desc_off)) > 0) {
		const char *nm = (const char *)d->d_buf + name_off;

		if (nh.n_namesz < 5 || memcmp(nm, "CORE", 5) != 0)
			continue;
		read_note(h, nh.n_type, (const unsigned char *)d->d_buf + desc_off,
			  nh.n_descsz, ph->p_offset + desc_off, is64);
	}
}

/* The notes of every PT_NOTE segment: process, threads, signal, files.
 * Segments are read in file order, each byte once: a PT_NOTE header whose
 * bytes repeat or overlap notes already read is skipped (said), so 20,000
 * headers over one note give one thread, not 20,000. */
static void read_notes(struct hcore *h, int is64)
{
	size_t nph, i, n, dup = 0, first_dup = 0;
	uint64_t maxend = 0;
	struct seg *v;

	if (elf_getphdrnum(h->elf, &nph) < 0) {
		HDIAG(h, 0, OL_ERROR, "cannot read the program headers: %s", elf_errmsg(-1));
		return;
	}
	if (segments(h, nph, PT_NOTE, 0, &v, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (i && v[i].at < maxend) {
			if (!dup++)
				first_dup = v[i].i;
			continue;
		}
		if (v[i].end > maxend)
			maxend = v[i].end;
		if (gelf_getphdr(h->elf, (int)v[i].i, &ph))
			read_note_segment(h, &ph, is64);
	}
	free(v);
	if (dup)
		HDIAG(h, 64, OL_WARN, "%zu PT_NOTE segments repeat or overlap notes already "
		      "read (the first: program header %zu); each note is counted once",
		      dup, first_dup);
	if (h->bad_notes)
		HDIAG(h, 0, OL_ERROR, "%u core notes were too short for their type and were "
		      "skipped", h->bad_notes);
	if (h->thr_left_out)
		HDIAG(h, 0, OL_ERROR, "%zu thread notes (NT_PRSTATUS) left out: the first %zu "
		      "are read (%s)", h->thr_left_out, h->nthr, h->thr_budget ? OL_BUDGET_HINT
		      : "at most " OL_STR(MAX_THREADS) " threads are kept");
}

/* ---- mappings ---- */

static const struct file_ent *file_at(const struct hcore *h, uint64_t addr)
{
	size_t i;

	for (i = 0; i < h->nfiles; i++)
		if (addr >= h->files[i].start && addr < h->files[i].end)
			return &h->files[i];
	return NULL;
}

static const char *map_kind(const char *path)
{
	if (!path)
		return "anon";
	if (!strncmp(path, "/dev/nvidia", 11) || !strncmp(path, "/dev/dri/", 9))
		return "gpu";
	if (!strncmp(path, "/dev/shm/", 9) || !strncmp(path, "/memfd:", 7) ||
	    !strncmp(path, "/SYSV", 5))
		return "shmem";
	if (strstr(path, "hugepages"))
		return "hugepage";
	return "file";
}

/* Mark the PT_LOAD segments whose address range overlaps one before it
 * (in address order) in skip[] (indexed by program header), and say so:
 * memory is counted once. 0, or -1 out of memory. */
static int overlapping_loads(struct hcore *h, size_t nph, unsigned char *skip)
{
	struct seg *v;
	size_t i, n, dup = 0;
	uint64_t maxend = 0;

	if (segments(h, nph, PT_LOAD, 1, &v, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (i && v[i].at < maxend && v[i].end > v[i].at) {
			if (!dup++)
				HDIAG(h, 64 + v[i].i * 56, OL_WARN, "segment %zu (PT_LOAD at "
				      "0x%llx) overlaps an earlier one in memory; not counted",
				      v[i].i, (unsigned long long)v[i].at);
			skip[v[i].i] = 1;
			continue;
		}
		if (v[i].end > maxend)
			maxend = v[i].end;
	}
	if (dup > 1)
		HDIAG(h, 64, OL_WARN, "%zu PT_LOAD segments overlap earlier ones in memory; "
		      "each is counted once", dup);
	free(v);
	return 0;
}

/* The bytes of segment ph that are in the file (of fsize bytes); says
 * when some are past its end (at most 8 times, then a count in *past). */
static uint64_t dumped_in_file(struct hcore *h, size_t i, const GElf_Phdr *ph,
			       unsigned *past)
{
	uint64_t in = ph->p_offset >= h->fsize ? 0 :
		      ph->p_filesz < h->fsize - ph->p_offset ? ph->p_filesz :
		      h->fsize - ph->p_offset;

	if (in < ph->p_filesz && (*past)++ < 8)
		HDIAG(h, 64 + i * 56, OL_ERROR, "segment %zu (PT_LOAD at 0x%llx): %llu of its "
		      "%llu bytes lie past the end of the file (offset %llu, file of %llu "
		      "bytes): the core is truncated or its headers are wrong; %llu bytes "
		      "counted as dumped", i, (unsigned long long)ph->p_vaddr,
		      (unsigned long long)(ph->p_filesz - in), (unsigned long long)ph->p_filesz,
		      (unsigned long long)ph->p_offset, (unsigned long long)h->fsize,
		      (unsigned long long)in);
	return in;
}

static void read_mappings(struct hcore *h)
{
	struct ol_capture cap;
	size_t nph, i;
	int64_t cid;
	unsigned char *skip;
	unsigned past = 0;

	memset(&cap, 0, sizeof(cap));
	cap.source = "core";
	cap.t = ol_time_none();
	cap.pid = h->pid;
	cap.comm = h->comm[0] ? h->comm : NULL;
	cid = sink_capture(h->out.s, &cap);
	core_note(&h->out, cid);
	if (cid < 0 || elf_getphdrnum(h->elf, &nph) < 0)
		return;
	skip = calloc(nph ? nph : 1, 1);
	if (!skip || overlapping_loads(h, nph, skip) < 0) {
		h->out.failed = 1;
		free(skip);
		return;
	}
	for (i = 0; i < nph && !h->out.failed; i++) {
		GElf_Phdr ph;
		struct ol_mapping m;
		const struct file_ent *f;
		char perms[5];

		if (skip[i] || !gelf_getphdr(h->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		memset(&m, 0, sizeof(m));
		f = file_at(h, ph.p_vaddr);
		perms[0] = ph.p_flags & PF_R ? 'r' : '-';
		perms[1] = ph.p_flags & PF_W ? 'w' : '-';
		perms[2] = ph.p_flags & PF_X ? 'x' : '-';
		perms[3] = 'p';
		perms[4] = 0;
		m.start = ph.p_vaddr;
		m.end = ph.p_vaddr + ph.p_memsz;
		m.perms = perms;
		m.offset = f ? f->pgoff * (h->page_size ? h->page_size : 1) +
			       (ph.p_vaddr - f->start) : 0;
		m.inode = OL_NULL;
		m.path = f ? f->name : NULL;
		m.kind = map_kind(m.path);
		m.size_kb = (int64_t)(ph.p_memsz / 1024);
		m.rss_kb = m.pss_kb = m.anon_kb = m.swap_kb = OL_NULL;
		m.extra = json_pack("{sI}", "dumped_bytes",
				    (json_int_t)dumped_in_file(h, i, &ph, &past));
		core_note(&h->out, sink_mapping(h->out.s, cid, &m));
		json_decref(m.extra);
	}
	if (past > 8)
		HDIAG(h, 64, OL_ERROR, "%u more PT_LOAD segments lie past the end of the file",
		      past - 8);
	free(skip);
}

static void emit_crash(struct hcore *h)
{
	struct ol_event ev;
	json_t *d;
	char summary[512];
	int64_t sig = h->signal ? h->signal : h->nthr ? h->thr[0].signal : 0;
	const char *sn = sig_name(sig);

	if (!sig) {
		if (h->nthr)
			HDIAG(h, 0, OL_INFO, "no signal recorded: the core was taken from a "
			      "live process (gcore) rather than written at a crash");
		return;
	}
	d = json_object();
	json_object_set_new(d, "signal", json_integer(sig));
	json_object_set_new(d, "signal_name", ol_json_str(sn));
	json_object_set_new(d, "si_code", h->signal ? json_integer(h->si_code) : json_null());
	json_object_set_new(d, "fault_address", ol_json_int(h->fault_addr));
	json_object_set_new(d, "threads", json_integer((json_int_t)h->nthr));
	json_object_set_new(d, "crashed_tid", h->nthr ? json_integer(h->thr[0].tid) : json_null());
	json_object_set_new(d, "psargs", h->psargs[0] ?
			    ol_json_strn(h->psargs, strlen(h->psargs)) : json_null());
	snprintf(summary, sizeof(summary), "%s (pid %lld) ended by %s with %zu thread%s",
		 h->comm[0] ? h->comm : "process", (long long)h->pid,
		 sn ? sn : "a signal", h->nthr, h->nthr == 1 ? "" : "s");
	memset(&ev, 0, sizeof(ev));
	ev.kind = vocab_event_kind(VE_PROCESS_CRASH);
	ev.t = ol_time_none();
	ev.pid = h->pid;
	ev.comm = h->comm[0] ? h->comm : NULL;
	ev.bytes = OL_NULL;
	ev.line = h->nthr ? h->thr[0].offset : 0;
	ev.summary = summary;
	ev.data = d;
	core_note(&h->out, sink_event(h->out.s, &ev));
	json_decref(d);
}

int host_core_sniff(const unsigned char *head, size_t n)
{
	unsigned type, machine;

	if (n < 20 || memcmp(head, ELFMAG, SELFMAG) != 0)
		return 0;
	if (head[EI_DATA] == ELFDATA2LSB) {
		type = head[16] | head[17] << 8;
		machine = head[18] | head[19] << 8;
	} else {
		type = head[17] | head[16] << 8;
		machine = head[19] | head[18] << 8;
	}
	return type == ET_CORE && machine != 190 ? 100 : 0;
}

int host_core_parse(struct input *in, struct sink *s)
{
	struct hcore *h = calloc(1, sizeof(*h));
	int r;
	GElf_Ehdr eh;

	if (!h)
		return -1;
	h->out.s = s;
	h->pid = OL_NULL;
	h->fault_addr = OL_NULL;
	switch (core_elf_open(&h->file, in, s, 0)) {
	case CORE_OPEN_NOMEM:
		free(h);
		return -1;
	case CORE_OPEN_SINK:
		h->out.failed = 1;
		break;
	default:
		break;
	}
	h->elf = h->file.elf;
	if (!in->mem && !in->compressed)
		in->offset = in->size;
	h->fsize = h->file.fd < 0 ? h->file.len : in->size;
	if (!h->elf || elf_kind(h->elf) != ELF_K_ELF || !gelf_getehdr(h->elf, &eh)) {
		if (!h->out.failed)
			HDIAG(h, 0, OL_ERROR, "not a readable ELF core: %s", elf_errmsg(-1));
		goto out;
	}
	if (eh.e_phnum == 0)
		HDIAG(h, 32, OL_ERROR, "the core has no program headers: no notes, no "
		      "memory segments");
	read_notes(h, gelf_getclass(h->elf) == ELFCLASS64);
	if (!h->out.failed)
		read_mappings(h);
	if (!h->out.failed)
		hcore_read_threads(h);
	if (!h->out.failed)
		emit_crash(h);
out:
	r = h->out.failed ? -1 : h->out.records;
	if (h->dwfl)
		dwfl_end(h->dwfl);
	core_elf_close(&h->file);
	free(h->files);
	free(h->thr);
	ol_budget_give(h->thr_drawn);
	free(h);
	return r;
}
