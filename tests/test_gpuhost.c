/*
 * test_gpuhost.c -- the GPU and host side as users paste it: nvidia-smi's
 * default table in its old (396/410), 450-550 and KMD layouts with the
 * Processes box; NVRM Xid and fallen-off-the-bus lines in every kernel
 * log wrapper; kernel OOM reports whose header a paste cut off, and the
 * damage pasting does (terminal wraps, digit groups, quotes); earlyoom,
 * systemd-oomd, systemd's unit notices and Slurm; Kubernetes describe,
 * YAML, events and node-problem-detector output; DCGM MIG and pod labels.
 * The inputs are cut from tests/data/real/gpu_host or written in their
 * exact shape.
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "lib/input.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL
#define GiB 1073741824LL
#define KiB 1024LL

/* The value of series name/entity (its only or first sample). */
static double sample_of(struct timeline *tl, const char *name, const char *entity)
{
	return t_real(tl, "SELECT p.value FROM sample p JOIN series s ON s.id = p.series_id"
		      " WHERE s.name = '%s' AND s.entity = '%s' ORDER BY p.rowid", name, entity);
}

static int64_t nsamples(struct timeline *tl, const char *name)
{
	return t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id = p.series_id"
		     " WHERE s.name = '%s'", name);
}

static const char *meta(struct timeline *tl, const char *key)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = '%s' ORDER BY rowid DESC", key);
}

static int64_t nevents(struct timeline *tl, const char *kind)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = '%s'", kind);
}

/* Field path of the idx-th event of kind (database order). */
static const char *jtext(struct timeline *tl, const char *kind, int idx, const char *path)
{
	return t_text(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		      " ORDER BY id LIMIT 1 OFFSET %d", path, kind, idx);
}

static int64_t jint(struct timeline *tl, const char *kind, int idx, const char *path)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		     " ORDER BY id LIMIT 1 OFFSET %d", path, kind, idx);
}

/* ---- nvidia-smi table ---- */

static const char smi_396[] =
	"+-----------------------------------------------------------------------------+\n"
	"| NVIDIA-SMI 396.24                 Driver Version: 396.24                    |\n"
	"|-------------------------------+----------------------+----------------------+\n"
	"| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
	"| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
	"|===============================+======================+======================|\n"
	"|   0  GeForce GTX 1070    Off  | 00000000:24:00.0  On |                  N/A |\n"
	"|  0%   43C    P0    40W / 210W |   1917MiB /  8114MiB |      3%      Default |\n"
	"+-------------------------------+----------------------+----------------------+\n"
	"                                                                               \n"
	"+-----------------------------------------------------------------------------+\n"
	"| Processes:                                                       GPU Memory |\n"
	"|  GPU       PID   Type   Process name                             Usage      |\n"
	"|=============================================================================|\n"
	"|    0       489      G   /usr/bin/X                                  1025MiB |\n"
	"|    0       662      G   kwin_x11                                     313MiB |\n"
	"+-----------------------------------------------------------------------------+\n";

static void smi_table_old_layout(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "nvidia_smi_table", "smi", smi_396, 0) > 0);
	assert_string_equal(meta(tl, "cuda.driver_version"), "396.24");
	assert_string_equal(meta(tl, "cuda.version"), "(null)");  /* not printed before 410 */
	assert_string_equal(meta(tl, "gpu.name.gpu0"), "GeForce GTX 1070");
	assert_string_equal(meta(tl, "gpu.pci_bus_id.gpu0"), "00000000:24:00.0");
	assert_true(sample_of(tl, "gpu.used_bytes", "gpu0") == 1917 * MiB);
	assert_true(sample_of(tl, "gpu.total_bytes", "gpu0") == 8114 * MiB);
	assert_true(sample_of(tl, "gpu.util_percent", "gpu0") == 3);
	assert_string_equal(meta(tl, "gpu.total_bytes.gpu0"), "8508145664");
	assert_true(sample_of(tl, "gpu.proc_used_bytes", "gpu0/pid:489") == 1025 * MiB);
	assert_string_equal(meta(tl, "gpu.proc_name.gpu0/pid:662"), "kwin_x11");
	/* no date line above the table: the samples have no time */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NOT NULL"), 0);
	t_close(tl);
}

static void smi_table_550_two_gpus_and_gi_ci(void **state)
{
	static const char text[] =
		"$ nvidia-smi\n"
		"Wed Nov 12 03:22:39 2025       \n"
		"+-----------------------------------------------------------------------------------------+\n"
		"| NVIDIA-SMI 550.163.01             Driver Version: 550.163.01     CUDA Version: 12.4     |\n"
		"|-----------------------------------------+------------------------+----------------------+\n"
		"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
		"| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
		"|                                         |                        |               MIG M. |\n"
		"|=========================================+========================+======================|\n"
		"|   0  NVIDIA GeForce RTX 4090        Off |   00000000:4E:00.0 Off |                  Off |\n"
		"| 30%   29C    P8             22W /  450W |     507MiB /  24564MiB |      0%      Default |\n"
		"|                                         |                        |                  N/A |\n"
		"+-----------------------------------------+------------------------+----------------------+\n"
		"|   1  NVIDIA GeForce RTX 4090        Off |   00000000:4F:00.0 Off |                  Off |\n"
		"| 30%   29C    P8             21W /  450W |   23459MiB /  24564MiB |     97%      Default |\n"
		"|                                         |                        |                  N/A |\n"
		"+-----------------------------------------+------------------------+----------------------+\n"
		"\n"
		"+-----------------------------------------------------------------------------------------+\n"
		"| Processes:                                                                              |\n"
		"|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
		"|        ID   ID                                                               Usage      |\n"
		"|=========================================================================================|\n"
		"|    1   N/A  N/A   2797307      C   python3 -m vllm.entrypoints.openai.api_server  22900MiB |\n"
		"|    1   N/A  N/A   2086283    C+G   /usr/lib/xorg/Xorg                                 N/A |\n"
		"+-----------------------------------------------------------------------------------------+\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "nvidia_smi_table", "smi", text, 0) > 0);
	assert_string_equal(meta(tl, "cuda.driver_version"), "550.163.01");
	assert_string_equal(meta(tl, "cuda.version"), "12.4");
	assert_true(sample_of(tl, "gpu.used_bytes", "gpu1") == 23459 * MiB);
	assert_true(sample_of(tl, "gpu.util_percent", "gpu1") == 97);
	assert_string_equal(meta(tl, "gpu.name.gpu1"), "NVIDIA GeForce RTX 4090");
	/* the date line above the table is its time: local wall clock */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample LIMIT 1"),
			 utc_ns(2025, 11, 12, 3, 22, 39, 0));
	assert_string_equal(meta(tl, "time.clock"), "local");
	/* GI/CI columns; a name with blanks; N/A memory is no sample */
	assert_true(sample_of(tl, "gpu.proc_used_bytes", "gpu1/pid:2797307") == 22900 * MiB);
	assert_string_equal(meta(tl, "gpu.proc_name.gpu1/pid:2797307"),
			    "python3 -m vllm.entrypoints.openai.api_server");
	assert_string_equal(meta(tl, "gpu.proc_name.gpu1/pid:2086283"), "/usr/lib/xorg/Xorg");
	assert_int_equal(nsamples(tl, "gpu.proc_used_bytes"), 1);
	t_close(tl);
}

static void smi_table_kmd_and_not_supported(void **state)
{
	static const char text[] =
		"> Sun Jun  7 08:16:57 2026\n"
		"> +-----------------------------------------------------------------------------------------+\n"
		"> | NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |\n"
		"> +-----------------------------------------+------------------------+----------------------+\n"
		"> | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
		"> |=========================================+========================+======================|\n"
		"> |   0  NVIDIA GB10                    Off |   0000000F:01:00.0 Off |                  N/A |\n"
		"> | N/A   41C    P0             11W /  N/A  | Not Supported          |      0%      Default |\n"
		"> +-----------------------------------------+------------------------+----------------------+\n"
		"> |   1  NVIDIA B200                    On  |   00000000:68:00.0 Off |                    0 |\n"
		"> | N/A   30C    P0            142W / 1000W |       0MiB / 183359MiB |      0%      Default |\n"
		"> +-----------------------------------------+------------------------+----------------------+\n"
		">\n"
		"> +-----------------------------------------------------------------------------------------+\n"
		"> | MIG devices:                                                                            |\n"
		"> +------------------+----------------------------------+-----------+-----------------------+\n"
		"> | GPU  GI  CI  MIG |                     Memory-Usage |        Vol|        Shared         |\n"
		"> |==================+==================================+===========+=======================|\n"
		"> |  1    1   0   0  |              10MiB /  4864MiB    | 14      0 |  1   0    0    0    0 |\n"
		"> +------------------+----------------------------------+-----------+-----------------------+\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "nvidia_smi_table", "smi", text, 0) > 0);
	assert_string_equal(meta(tl, "cuda.driver_version"), "610.43.02");
	assert_string_equal(meta(tl, "cuda.version"), "13.3");
	assert_string_equal(meta(tl, "gpu.name.gpu0"), "NVIDIA GB10");
	/* "Not Supported": unknown, never 0 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE entity = 'gpu0'"), 0);
	assert_true(sample_of(tl, "gpu.used_bytes", "gpu1") == 0);
	assert_true(sample_of(tl, "gpu.total_bytes", "gpu1") == 183359 * MiB);
	/* a MIG devices row is an instance, not a GPU */
	assert_string_equal(meta(tl, "gpu.name.gpu1"), "NVIDIA B200");
	assert_int_equal(nsamples(tl, "gpu.used_bytes"), 1);
	t_close(tl);
}

static void smi_table_repeated_and_detected_anywhere(void **state)
{
	struct timeline *tl = t_open();
	struct input in;
	char *text = malloc(8 * sizeof(smi_396) + 4096);
	size_t n = 0;
	int i;
	(void)state;
	/* a log of other text, then `nvidia-smi -l` printing the table thrice */
	n += (size_t)sprintf(text, "INFO 05-08 14:46:12 starting the server\n");
	for (i = 0; i < 3; i++)
		n += (size_t)sprintf(text + n, "Wed Jul 29 21:51:1%d 2020\n%s", i, smi_396);
	assert_true(t_parse_mem(tl, "nvidia_smi_table", "smi", text, n) > 0);
	assert_int_equal(nsamples(tl, "gpu.used_bytes"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'gpu.name.gpu0'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key ="
			       " 'gpu.proc_name.gpu0/pid:489'"), 1);
	assert_int_equal(t_int(tl, "SELECT max(time_ns) FROM sample"),
			 utc_ns(2020, 7, 29, 21, 51, 12, 0));
	t_close(tl);
	/* detection finds it after other text */
	assert_int_equal(input_open_mem(&in, "x", text, n), 0);
	assert_string_equal(detect_format(&in)->kind, "nvidia_smi_table");
	input_close(&in);
	free(text);
}

static void smi_csv_process_names(void **state)
{
	static const char text[] =
		"timestamp, gpu_uuid, pid, process_name, used_gpu_memory [MiB]\n"
		"2025/11/29 18:22:40.123, GPU-5c0e, 4312, python3, 70000 MiB\n"
		"2025/11/29 18:22:41.123, GPU-5c0e, 4312, python3, 71000 MiB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "nvidia_smi", "csv", text, 0), 2);
	/* the same name key as the table form gives, stored once */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key ="
			       " 'gpu.proc_name.GPU-5c0e/pid:4312'"), 1);
	assert_string_equal(meta(tl, "gpu.proc_name.GPU-5c0e/pid:4312"), "python3");
	t_close(tl);
}

/* ---- NVRM lines ---- */

static void xid_lines_every_form(void **state)
{
	static const char text[] =
		"[14328.198496] NVRM: GPU at PCI:0000:0a:00: GPU-760d0170-b7c5-6817-9414-6cc7112645de\n"
		"[14328.198504] NVRM: Xid (PCI:0000:0a:00): 31, pid=13332, name=cuda_plot_k32_v, Ch 00000010, intr 00000000. MMU Fault\n"
		"Nov 29 11:28:11 zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b, intr 00000000.\n"
		"+> [Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n"
		"[24128.828315] NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000000 intr 00004000\n"
		"kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149\n"
		"NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n"
		"NVRM: Xid (0000:03:00): 48, An uncorrectable double bit error (DBE) has been detected\n";
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2024;
	assert_true(t_parse_mem(tl, "kernel_log", "k", text, 0) > 0);
	assert_int_equal(nevents(tl, "gpu_xid"), 7);
	assert_int_equal(jint(tl, "gpu_xid", 0, "xid"), 31);
	assert_string_equal(jtext(tl, "gpu_xid", 0, "name"), "GPU memory page fault");
	assert_string_equal(jtext(tl, "gpu_xid", 0, "pci"), "0000:0a:00");
	assert_string_equal(jtext(tl, "gpu_xid", 0, "gpu_uuid"),
			    "GPU-760d0170-b7c5-6817-9414-6cc7112645de");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='gpu_xid' ORDER BY id"), 13332);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='gpu_xid' ORDER BY id"),
			    "cuda_plot_k32_v");
	/* journal wrapper: pid without name, and the syslog time */
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='gpu_xid' AND"
			       " json_extract(data,'$.pci')='0000:c1:00'"), 12890);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='gpu_xid' AND"
				   " json_extract(data,'$.pci')='0000:c1:00'"), "(null)");
	/* a markdown diff of a quote of dmesg -T: pid '<unknown>' is unknown */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='gpu_xid' AND"
			       " json_extract(data,'$.xid')=13"), utc_ns(2024, 8, 30, 11, 43, 9, 0));
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='gpu_xid' AND"
			       " json_extract(data,'$.xid')=13"), OL_NULL);
	assert_string_equal(jtext(tl, "gpu_xid", 3, "name"), "Invalid or corrupted push buffer stream");
	assert_int_equal(jint(tl, "gpu_xid", 4, "caused_by"), 149);
	assert_string_equal(jtext(tl, "gpu_xid", 5, "recovery_action"), "GPU Reset Required");
	assert_string_equal(jtext(tl, "gpu_xid", 6, "pci"), "0000:03:00");
	assert_string_equal(jtext(tl, "gpu_xid", 6, "name"), "Double Bit ECC Error");
	t_close(tl);
}

static void gpu_fallen_off_the_bus(void **state)
{
	static const char text[] =
		"[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
		"               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
		"               NVRM: fallen off the bus and is not responding to commands.\n"
		"[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
		"[ 2000.000001] NVRM: Xid (PCI:0000:2b:00): 79, pid=1101234, name=nvc:[driver], GPU has fallen off the bus.\n"
		"[ 2000.000002] NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "k", text, 0) > 0);
	/* the three-line message is one event; the Xid 79 line and its echo one */
	assert_int_equal(nevents(tl, "gpu_xid"), 2);
	assert_string_equal(jtext(tl, "gpu_xid", 0, "pci"), "0000:b3:00.0");
	assert_string_equal(jtext(tl, "gpu_xid", 0, "xid"), "(null)");
	assert_int_equal(jint(tl, "gpu_xid", 0, "off_bus"), 1);
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='gpu_xid' ORDER BY id"),
			 1843308145000LL);
	assert_int_equal(jint(tl, "gpu_xid", 1, "xid"), 79);
	assert_int_equal(jint(tl, "gpu_xid", 1, "off_bus"), 1);
	t_close(tl);
}

/* ---- kernel OOM reports as pasted ---- */

static void kernel_partial_reports(void **state)
{
	static const char memcg[] =
		"Jun 29 07:24:44 compute-11 kernel:  </TASK>\n"
		"Jun 29 07:24:44 compute-11 kernel: memory: usage 1048576kB, limit 1048576kB, failcnt 141\n"
		"Jun 29 07:24:44 compute-11 kernel: swap: usage 0kB, limit 9007199254740988kB, failcnt 0\n"
		"Jun 29 07:24:44 compute-11 kernel: Memory cgroup stats for /kubepods/pod1:\n"
		"Jun 29 07:24:44 compute-11 kernel: anon 110723072\n"
		"Jun 29 07:24:44 compute-11 kernel: file 4108288\n";
	static const char tasks[] =
		"[44930.378118] Tasks state (memory values in pages):\n"
		"[44930.378118] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
		"[44930.378128] [  59249]     0 59249  9743705   105957  1683456        0           999 tritonserver\n"
		"[44930.378129] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=a8,mems_allowed=0-3,oom_memcg=/kubepods/burstable/podcb,task_memcg=/kubepods/burstable/podcb/a8,task=tritonserver,pid=59249,uid=0\n"
		"[44930.378157] Memory cgroup out of memory: Killed process 59249 (tritonserver) total-vm:38974820kB, anon-rss:98544kB, file-rss:319140kB, shmem-rss:6144kB\n";
	static const char meminfo[] =
		"[  481.087579] Mem-Info:\n"
		"[  481.089414] active_anon:247 inactive_anon:14025 isolated_anon:0\n"
		"                free:906978 free_pcp:33 free_cma:128398\n"
		"[  481.103754] DMA free:518680kB boost:7216kB min:10428kB low:11228kB high:12028kB present:786432kB managed:663836kB\n";
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2024;
	assert_true(t_parse_mem(tl, "kernel_log", "k", memcg, 0) > 0);
	assert_int_equal(nevents(tl, "oom_invoked"), 1);
	assert_int_equal(jint(tl, "oom_invoked", 0, "partial"), 1);
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_limit_kb"), 1048576);
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_failcnt"), 141);
	assert_string_equal(jtext(tl, "oom_invoked", 0, "swap_limit_kb"), "(null)"); /* unlimited */
	assert_string_equal(jtext(tl, "oom_invoked", 0, "constraint"), "memcg");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "memcg_stats_path"), "/kubepods/pod1");
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_stats.anon"), 110723072);
	/* an excerpt is no claim that nothing was killed */
	assert_int_equal(nevents(tl, "oom_no_kill"), 0);
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "kernel_log", "k", tasks, 0) > 0);
	assert_int_equal(nevents(tl, "oom_invoked"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 1);
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "memcg");
	assert_string_equal(jtext(tl, "oom_kill", 0, "oom_memcg"), "/kubepods/burstable/podcb");
	assert_int_equal(jint(tl, "oom_kill", 0, "oom_score_adj"), 999);   /* from its task row */
	assert_int_equal(jint(tl, "oom_kill", 0, "invoker_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_invoked'"));
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "kernel_log", "k", meminfo, 0) > 0);
	assert_int_equal(nevents(tl, "oom_invoked"), 0);     /* show_mem alone: not an OOM */
	assert_int_equal(nevents(tl, "mem_info"), 1);
	assert_int_equal(jint(tl, "mem_info", 0, "mem_info_pages.free_cma"), 128398);
	assert_int_equal(jint(tl, "mem_info", 0, "free_kb"), 906978 * 4);
	assert_int_equal(jint(tl, "mem_info", 0, "zones[0].free_kb"), 518680);
	assert_string_equal(jtext(tl, "mem_info", 0, "zones[0].zone"), "DMA");
	t_close(tl);
}

static void kernel_paste_damage(void **state)
{
	char wrapped[1024];
	static const char commas[] =
		"```[Sun Mar 30 08:24:00 2025] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/init.scope,task=python,pid=7899,uid=0\n"
		"[Sun Mar 30 08:24:00 2025] Out of memory: Killed process 7899 (python) total-vm:26,184,840kB, anon-rss:153,700,88kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:38964kB oom_score_adj:0```\n";
	static const char iso[] =
		"2024-04-29T14:55:41,678628+02:00 pool invoked oom-killer: gfp_mask=0x6200ca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n"
		"2024-04-29T14:55:41,679700+02:00 Out of memory: Killed process 1440763 (perl) total-vm:87033376kB, anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB, UID:21417 pgtables:169956kB oom_score_adj:0\n";
	struct timeline *tl = t_open();
	(void)state;
	/* a terminal wrapped the line: the halves with padding between */
	snprintf(wrapped, sizeof(wrapped),
		 "[2059991.491542] Out of memory: Killed process 25315 (python3) total-vm:53312244%80s"
		 "kB, anon-rss:31451456kB, file-rss:74816kB, shmem-rss:12296kB, UID:0 pgtables:690%80s68kB"
		 " oom_score_adj:0\n", "", "");
	assert_true(t_parse_mem(tl, "kernel_log", "k", wrapped, 0) > 0);
	assert_int_equal(jint(tl, "oom_kill", 0, "total_vm_kb"), 53312244);
	assert_int_equal(jint(tl, "oom_kill", 0, "pgtables_kb"), 69068);
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "kernel_log", "k", commas, 0) > 0);
	assert_int_equal(jint(tl, "oom_kill", 0, "total_vm_kb"), 26184840);
	assert_int_equal(jint(tl, "oom_kill", 0, "anon_rss_kb"), 15370088);
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "none");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 utc_ns(2025, 3, 30, 8, 24, 0, 0));
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "kernel_log", "k", iso, 0) > 0);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_invoked'"), "pool");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 utc_ns(2024, 4, 29, 12, 55, 41, 679700000));
	t_close(tl);
}

/* ---- userspace killers ---- */

static void earlyoom_every_generation(void **state)
{
	static const char legacy[] =
		"mem avail:     0 of 13855 MiB ( 0 %), swap free:  293 of 3071 MiB ( 9 %)\n"
		"low memory! at or below SIGTERM limits: mem 10 %, swap 10 %\n"
		"killing process 28367 \"python3\" with signal 15: badness 698, VmRSS 11793 MiB\n"
		"process 28367 exited after 2.5 seconds\n";
	static const char modern[] =
		"Aug 04 10:48:44 debian earlyoom[845]: mem avail:   105 of 30236 MiB ( 0.35%), swap free:  486 of 5119 MiB ( 9.50%)\n"
		"Aug 04 10:48:44 debian earlyoom[845]: sending SIGTERM to process 324012 uid 1000 \"python3.13\": oom_score 1288, VmRSS 30165 MiB, cmdline \"/x/python3.13 main.py\"\n"
		"Aug 04 10:48:45 debian earlyoom[845]: escalating to SIGKILL after 1.0 seconds\n"
		"Aug 04 10:48:47 debian earlyoom[845]: process 324012 exited after 1.603 seconds\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "e", legacy, 0) > 0);
	assert_int_equal(nevents(tl, "userspace_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='userspace_kill'"), 28367);
	assert_string_equal(jtext(tl, "userspace_kill", 0, "signal"), "SIGTERM");
	assert_int_equal(jint(tl, "userspace_kill", 0, "badness"), 698);
	assert_int_equal(jint(tl, "userspace_kill", 0, "rss_bytes"), 11793 * MiB);
	assert_int_equal(jint(tl, "userspace_kill", 0, "mem_available_bytes"), 0);
	assert_string_equal(meta(tl, "host.mem_total_bytes"), "14528020480");
	assert_true(sample_of(tl, "host.swap_free_bytes", "") == 293 * MiB);
	t_close(tl);

	/* a figure past what bytes can hold is unknown, not an overflow (found
	 * by fuzz_kernel_oom; UBSan build) */
	tl = t_open();
	assert_true(t_parse_mem(tl, "kernel_log", "e",
		"mem avail: 22222222222222222222222 of 0 MiB (0%), swap free: 0 of 0 MiB\n", 0) >= 0);
	assert_int_equal(nsamples(tl, "host.mem_available_bytes"), 0);
	t_close(tl);

	tl = t_open();
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "kernel_log", "e", modern, 0) > 0);
	assert_int_equal(jint(tl, "userspace_kill", 0, "oom_score"), 1288);
	assert_string_equal(jtext(tl, "userspace_kill", 0, "cmdline"), "/x/python3.13 main.py");
	assert_int_equal(jint(tl, "userspace_kill", 0, "escalated"), 1);
	assert_true(t_real(tl, "SELECT json_extract(data,'$.exited_after_s') FROM event") > 1.6);
	assert_int_equal(jint(tl, "userspace_kill", 0, "mem_available_bytes"), 105 * MiB);
	/* the event keeps the time of the kill line, not of the exit */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='userspace_kill'"),
			 utc_ns(2025, 8, 4, 10, 48, 44, 0));
	t_close(tl);
}

static void systemd_oomd_and_units(void **state)
{
	static const char text[] =
		"    [   77.740597] systemd-oomd[659]: Memory pressure for /system.slice is 85.03% > 80.00% for > 2s with reclaim activity\n"
		"    [   77.749125] systemd-oomd[659]: Considered 19 cgroups for killing, top candidates were:\n"
		"    [   77.749128] systemd-oomd[659]:         Path: /system.slice/systemd-journald.service\n"
		"    [   77.749134] systemd-oomd[659]:                 Current Memory Usage: 55.5M\n"
		"    [   77.749597] systemd-oomd[659]: oomd attempting to kill 407 with KILL\n"
		"    [   77.749670] systemd-oomd[659]: Marked /system.slice/systemd-journald.service for killing due to memory pressure for /system.slice being 85.03% > 80.00% for > 2s with reclaim activity\n"
		"    [   77.752252] systemd[1]: systemd-journald.service: systemd-oomd killed 1 process(es) in this unit.\n"
		"2026-02-08T00:40:07.136582+00:00 web2 systemd[1]: user.slice: A process of this unit has been killed by the OOM killer.\n"
		"mars 01 14:37:27 systemd-oomd[666]: Considered 145 cgroups for killing, top candidates were:\n"
		"mars 01 14:37:27 systemd-oomd[666]:         Path: /user.slice/app.scope\n"
		"mars 01 14:37:27 systemd-oomd[666]:                 Swap Usage: 477.8M\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "o", text, 0) > 0);
	assert_int_equal(nevents(tl, "userspace_kill"), 1);
	assert_string_equal(jtext(tl, "userspace_kill", 0, "cgroup"),
			    "/system.slice/systemd-journald.service");
	assert_int_equal(jint(tl, "userspace_kill", 0, "marked"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='userspace_kill'"), 407);
	assert_true(t_real(tl, "SELECT json_extract(data,'$.pressure_percent') FROM event"
			   " WHERE kind='userspace_kill'") == 85.03);
	assert_int_equal(jint(tl, "userspace_kill", 0, "pressure_duration_s"), 2);
	assert_int_equal(jint(tl, "userspace_kill", 0, "candidates_considered"), 19);
	assert_int_equal(jint(tl, "userspace_kill", 0, "memory_bytes"), (int64_t)(55.5 * MiB + 0.5));
	assert_int_equal(nevents(tl, "systemd_unit_oom"), 2);
	assert_int_equal(jint(tl, "systemd_unit_oom", 0, "processes"), 1);
	assert_string_equal(jtext(tl, "systemd_unit_oom", 1, "killer"), "kernel");
	/* a localized month and no host: the tag is still found */
	assert_int_equal(nevents(tl, "oomd_candidates"), 1);
	assert_int_equal(jint(tl, "oomd_candidates", 0, "considered"), 145);
	assert_string_equal(jtext(tl, "oomd_candidates", 0, "candidates[0].path"), "/user.slice/app.scope");
	t_close(tl);
}

static void slurm_oom_kill_counts(void **state)
{
	static const char text[] =
		"slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.\n"
		"srun: error: Orion-01-01: task 4: Out Of Memory\n"
		"slurmstepd: error: *** STEP 3495064.0 ON orion-01-01 CANCELLED AT 2021-10-27T19:35:36 ***\n"
		"slurmstepd: error: Detected 2 oom_kill events in StepId=440575.0. Some of the step tasks have been OOM Killed.\n"
		"srun: error: nid001277: tasks 1-3: Out Of Memory\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "s", text, 0) > 0);
	assert_int_equal(nevents(tl, "slurm_oom"), 2);
	assert_string_equal(jtext(tl, "slurm_oom", 0, "step"), "3495064.0");
	assert_string_equal(jtext(tl, "slurm_oom", 0, "job_id"), "3495064");
	assert_string_equal(jtext(tl, "slurm_oom", 0, "node"), "Orion-01-01");
	assert_string_equal(jtext(tl, "slurm_oom", 0, "tasks"), "4");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='slurm_oom' ORDER BY id"),
			 utc_ns(2021, 10, 27, 19, 35, 36, 0));
	assert_int_equal(jint(tl, "slurm_oom", 1, "oom_kill_events"), 2);
	assert_string_equal(jtext(tl, "slurm_oom", 1, "step"), "440575.0");
	assert_string_equal(jtext(tl, "slurm_oom", 1, "tasks"), "1-3");
	t_close(tl);
}

/* ---- Kubernetes ---- */

static void k8s_describe_oomkilled(void **state)
{
	static const char text[] =
		"Name:           vllm-0\n"
		"Namespace:      llm\n"
		"Node:           gpu-node-3/10.0.0.7\n"
		"Containers:\n"
		"  vllm:\n"
		"    Image:          vllm/vllm-openai:v0.6.3\n"
		"    State:          Running\n"
		"    Last State:     Terminated\n"
		"      Reason:       OOMKilled\n"
		"      Exit Code:    137\n"
		"      Started:      Mon, 13 Dec 2021 18:02:32 -0800\n"
		"      Finished:     Mon, 13 Dec 2021 18:02:42 -0800\n"
		"    Ready:          True\n"
		"    Restart Count:  5\n"
		"    Limits:\n"
		"      cpu:     8\n"
		"      memory:  64Gi\n"
		"    Requests:\n"
		"      memory:  48Gi\n"
		"  sidecar:\n"
		"    State:          Running\n"
		"    Limits:\n"
		"      memory:  512M\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "d", text, 0) > 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "container"), "vllm");
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "pod"), "vllm-0");
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "namespace"), "llm");
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "node"), "gpu-node-3");
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "exit_code"), 137);
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "restart_count"), 5);
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "last_state"), 1);
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "limit_bytes"), 64 * GiB);
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "request_bytes"), 48 * GiB);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"),
			 utc_ns(2021, 12, 14, 2, 2, 42, 0));
	/* the OOM-killed container's limit is the cgroup limit the rules read */
	assert_string_equal(meta(tl, "cgroup.max_bytes"), "68719476736");
	assert_string_equal(meta(tl, "k8s.memory_limit_bytes.sidecar"), "512000000");
	t_close(tl);
}

static void k8s_yaml_and_evictions(void **state)
{
	static const char yaml[] =
		"status:\n"
		"  containerStatuses:\n"
		"  - name: test\n"
		"    restartCount: 0\n"
		"    lastState:\n"
		"      terminated:\n"
		"        exitCode: 137\n"
		"        finishedAt: \"2023-01-30T18:04:30Z\"\n"
		"        reason: OOMKilled\n"
		"  message: >-\n"
		"    The node was low on resource: memory. Container a was using\n"
		"    27484Ki, which exceeds its request of 0. Container b was using\n"
		"    9736Ki, which exceeds its request of 12Gi.\n"
		"  qosClass: Burstable\n"
		"  reason: Evicted\n";
	static const char wrapped[] =
		"Status:         Failed\n"
		"Reason:         Evicted\n"
		"Message:        The node was low on resource: memory. Container treetracker-pgpool was using 1275700Ki, which e\n"
		"xceeds its request of 0.\n"
		"IP:\n";
	static const char events[] =
		"LAST SEEN   TYPE      REASON      OBJECT         MESSAGE\n"
		"4m11s       Warning   Evicted     pod/egg-1      The node was low on resource: memory. Threshold quantity: 100Mi, available: 87608Ki. Container egg was using 48458972Ki, request is 15Gi, has larger consumption of memory.\n"
		"4m11s       Normal    Killing     pod/egg-1      Stopping container egg\n"
		"  Warning  SystemOOM  17m  kubelet, node1  System OOM encountered, victim process: python3, pid: 4242\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "y", yaml, 0) > 0);
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "exit_code"), 137);
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "container"), "test");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='k8s_oom_kill'"),
			 utc_ns(2023, 1, 30, 18, 4, 30, 0));
	assert_int_equal(nevents(tl, "k8s_eviction"), 1);
	assert_string_equal(jtext(tl, "k8s_eviction", 0, "resource"), "memory");
	assert_string_equal(jtext(tl, "k8s_eviction", 0, "qos_class"), "Burstable");
	assert_string_equal(jtext(tl, "k8s_eviction", 0, "containers[1].name"), "b");
	assert_int_equal(jint(tl, "k8s_eviction", 0, "containers[0].usage_bytes"), 27484 * KiB);
	assert_int_equal(jint(tl, "k8s_eviction", 0, "containers[1].request_bytes"), 12 * GiB);
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "w", wrapped, 0) > 0);
	assert_string_equal(jtext(tl, "k8s_eviction", 0, "message"),
		"The node was low on resource: memory. Container treetracker-pgpool was using"
		" 1275700Ki, which exceeds its request of 0.");
	assert_int_equal(jint(tl, "k8s_eviction", 0, "containers[0].request_bytes"), 0);
	assert_string_equal(jtext(tl, "k8s_eviction", 0, "phase"), "Failed");
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "e", events, 0) > 0);
	assert_int_equal(nevents(tl, "k8s_eviction"), 1);
	assert_string_equal(jtext(tl, "k8s_eviction", 0, "pod"), "egg-1");
	assert_int_equal(jint(tl, "k8s_eviction", 0, "threshold_bytes"), 100 * MiB);
	assert_int_equal(jint(tl, "k8s_eviction", 0, "available_bytes"), 87608 * KiB);
	assert_int_equal(jint(tl, "k8s_eviction", 0, "containers[0].request_bytes"), 15 * GiB);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);     /* Killing is not a memory event */
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "reason"), "SystemOOM");
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "node"), "node1");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='k8s_oom_kill'"), 4242);
	t_close(tl);
}

/* A container's environment: describe's Environment and YAML's env
 * list give env.<NAME> meta for the memory settings, never a secret; an
 * env item's "- name:" is not a container. */
static void k8s_environment(void **state)
{
	static const char describe[] =
		"Containers:\n"
		"  vllm:\n"
		"    State:          Terminated\n"
		"      Reason:       OOMKilled\n"
		"      Exit Code:    137\n"
		"    Environment:\n"
		"      PYTORCH_ALLOC_CONF:  expandable_segments:True\n"
		"      HF_TOKEN:            <set to the key 'token' in secret 'hf'>\n"
		"      AWS_REGION:          us-east-1\n"
		"    Mounts:\n"
		"      /dev/shm from dshm (rw)\n";
	static const char yaml[] =
		"spec:\n"
		"  containers:\n"
		"  - name: vllm\n"
		"    env:\n"
		"    - name: PYTORCH_CUDA_ALLOC_CONF\n"
		"      value: \"expandable_segments:True,max_split_size_mb:512\"\n"
		"    - name: VLLM_API_KEY\n"
		"      value: sk-1234\n"
		"    resources:\n"
		"      limits:\n"
		"        memory: 24Gi\n"
		"status:\n"
		"  containerStatuses:\n"
		"  - name: vllm\n"
		"    lastState:\n"
		"      terminated:\n"
		"        reason: OOMKilled\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "d", describe, 0) > 0);
	assert_string_equal(meta(tl, "env.PYTORCH_ALLOC_CONF"), "expandable_segments:True");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE 'env.%%'"), 1);
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "container"), "vllm");
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "y", yaml, 0) > 0);
	assert_string_equal(meta(tl, "env.PYTORCH_CUDA_ALLOC_CONF"),
			    "expandable_segments:True,max_split_size_mb:512");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE 'env.%%'"), 1);
	assert_string_equal(meta(tl, "k8s.memory_limit_bytes.vllm"), "25769803776");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE"
			       " 'k8s.memory_limit_bytes.%%'"), 1);
	t_close(tl);
}

static void k8s_npd_event_json(void **state)
{
	static const char text[] =
		"  {\n"
		"    \"reason\": \"OOMKilling\",\n"
		"    \"message\": \"Memory cgroup out of memory: Killed process 3504804 (kubectl) total-vm:753508kB, anon-rss:58776kB, file-rss:29400kB, shmem-rss:0kB, UID:0 pgtables:288kB oom_score_adj:999\",\n"
		"    \"firstTimestamp\": \"2023-06-13T14:35:38Z\",\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "n", text, 0) > 0);
	assert_string_equal(jtext(tl, "k8s_oom_kill", 0, "reason"), "OOMKilling");
	assert_int_equal(t_int(tl, "SELECT pid FROM event"), 3504804);
	assert_string_equal(t_text(tl, "SELECT comm FROM event"), "kubectl");
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "anon_rss_kb"), 58776);
	assert_int_equal(jint(tl, "k8s_oom_kill", 0, "oom_score_adj"), 999);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), utc_ns(2023, 6, 13, 14, 35, 38, 0));
	t_close(tl);
}

/* ---- DCGM ---- */

static void dcgm_mig_pods_and_profiling(void **state)
{
	static const char text[] =
		"# TYPE DCGM_FI_DEV_FB_USED gauge\n"
		"DCGM_FI_DEV_FB_USED{gpu=\"0\",GPU_I_PROFILE=\"1g.6gb\",GPU_I_ID=\"3\"} 3\n"
		"DCGM_FI_DEV_FB_USED{gpu=\"0\",GPU_I_PROFILE=\"1g.6gb\",GPU_I_ID=\"4\"} 5\n"
		"DCGM_FI_DEV_FB_USED{gpu=\"1\",container=\"vllm\",namespace=\"inf\",pod=\"vllm-0\",DCGM_FI_DRIVER_VERSION=\"535.129.03\"} 15866\n"
		"DCGM_FI_DEV_FB_USED{gpu=\"1\",container=\"vllm\",namespace=\"inf\",pod=\"vllm-0\",DCGM_FI_DRIVER_VERSION=\"535.129.03\"} 15900\n"
		"DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\"} 0.25\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "dcgm", "d", text, 0), 5);
	assert_true(sample_of(tl, "gpu.used_bytes", "gpu0/mig:4") == 5 * MiB);
	assert_string_equal(meta(tl, "gpu.mig_profile.gpu0/mig:3"), "1g.6gb");
	assert_string_equal(meta(tl, "k8s.pod_gpu.inf/vllm-0/vllm"), "gpu1");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE 'k8s.pod_gpu.%%'"), 1);
	assert_string_equal(meta(tl, "cuda.driver_version"), "535.129.03");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'cuda.driver_version'"), 1);
	assert_true(sample_of(tl, "gpu.gr_engine_active", "gpu1") == 0.25);
	t_close(tl);
}

/* ---- detection of the corpus kinds ---- */

static void detection_of_pasted_files(void **state)
{
	static const struct { const char *file, *kind; } cases[] = {
		{ "tests/data/real/gpu_host/nvidia-smi-table-410-shell-prompt.txt", "nvidia_smi_table" },
		{ "tests/data/real/gpu_host/nvidia-smi-processes-535-section.txt", "nvidia_smi_table" },
		{ "tests/data/real/gpu_host/kernel-xid-31-no-timestamp.log", "kernel_log" },
		{ "tests/data/real/gpu_host/earlyoom-killing-process-legacy.log", "kernel_log" },
		{ "tests/data/real/gpu_host/slurm-oom-kill-stepid.log", "kernel_log" },
		{ "tests/data/real/gpu_host/systemd-pid1-unit-oom-killed.log", "kernel_log" },
		{ "tests/data/real/gpu_host/kernel-oom-memcg-kubepods-usage-limit.log", "kernel_log" },
		{ "tests/data/real/gpu_host/k8s-describe-oomkilled-minimal.txt", "k8s" },
		{ "tests/data/real/gpu_host/k8s-pod-yaml-evicted-request.txt", "k8s" },
		{ "tests/data/real/gpu_host/dcgm-exporter-h100-mig-driver-label.prom", "dcgm" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct input in;
		const struct format *f;
		assert_int_equal(input_open(&in, t_src(cases[i].file), NULL), 0);
		f = detect_format(&in);
		if (!f || strcmp(f->kind, cases[i].kind))
			fail_msg("%s: detected %s, expected %s", cases[i].file, f ? f->kind : "nothing",
				 cases[i].kind);
		input_close(&in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(smi_table_old_layout),
		cmocka_unit_test(smi_table_550_two_gpus_and_gi_ci),
		cmocka_unit_test(smi_table_kmd_and_not_supported),
		cmocka_unit_test(smi_table_repeated_and_detected_anywhere),
		cmocka_unit_test(smi_csv_process_names),
		cmocka_unit_test(xid_lines_every_form),
		cmocka_unit_test(gpu_fallen_off_the_bus),
		cmocka_unit_test(kernel_partial_reports),
		cmocka_unit_test(kernel_paste_damage),
		cmocka_unit_test(earlyoom_every_generation),
		cmocka_unit_test(systemd_oomd_and_units),
		cmocka_unit_test(slurm_oom_kill_counts),
		cmocka_unit_test(k8s_describe_oomkilled),
		cmocka_unit_test(k8s_yaml_and_evictions),
		cmocka_unit_test(k8s_environment),
		cmocka_unit_test(k8s_npd_event_json),
		cmocka_unit_test(dcgm_mig_pods_and_profiling),
		cmocka_unit_test(detection_of_pasted_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
