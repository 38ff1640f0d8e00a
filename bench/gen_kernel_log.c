/*
 * gen_kernel_log.c -- deterministic generator of a large RFC 3164 syslog
 * (/var/log/syslog shape) with N kernel OOM reports (5.15 global OOM with a
 * 24-row task table) spread evenly among ordinary daemon and kernel lines.
 * Used by bench/bench_kernel.sh; the output is never committed.
 *
 * usage: gen_kernel_log BYTES EVENTS > file
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static const char *ordinary[] = {
	"sshd[%u]: Accepted publickey for deploy from 10.0.%u.%u port 52214 ssh2: ED25519 SHA256:Qm1x3s0ZcV2rXo4Yt",
	"sshd[%u]: pam_unix(sshd:session): session opened for user deploy(uid=1001) by (uid=0) [%u.%u]",
	"CRON[%u]: (root) CMD (   test -x /etc/cron.daily/popularity-contest && /etc/cron.daily/popularity-contest --crond %u %u)",
	"systemd[1]: Started session-%u.scope - Session %u of User deploy (%u).",
	"systemd[1]: logrotate.service: Deactivated successfully (%u %u %u).",
	"kernel: [%u.%06u] TCP: request_sock_TCP: Possible SYN flooding on port 8000. Sending cookies (%u).",
	"kernel: [%u.%06u] nvidia-nvlink: Unregistered Nvlink Core, major device number %u",
	"dockerd[1187]: time=\"2025-11-29T18:00:00.%06uZ\" level=info msg=\"ignoring event\" container=%x module=libcontainerd namespace=moby (%u)",
	"containerd[1022]: time=\"2025-11-29T18:00:00.%06uZ\" level=info msg=\"shim disconnected\" id=%x namespace=k8s.io (%u)",
	"vllm[%u]: INFO 11-29 18:00:00 metrics.py:351] Avg prompt throughput: %u.0 tokens/s, Avg generation throughput: %u.2 tokens/s, Running: 12 reqs",
	"node_exporter[2250]: ts=2025-11-29T18:00:00.%03uZ caller=collector.go:173 level=error msg=\"collector failed\" name=hwmon duration_seconds=0.%u err=%u",
	"systemd-logind[871]: Session %u logged out. Waiting for processes to exit (%u %u).",
	"rsyslogd[%u]: imjournal: journal files changed, reloading...  [v8.2112.0 try https://www.rsyslog.com/e/0 %u %u]",
	"kubelet[%u]: I1129 18:00:00.%06u    1187 kubelet_pods.go:898] \"Unable to retrieve pull secret, the image pull may not succeed\" pod=\"default/vllm-%u\"",
	"systemd[1]: user@1001.service: Will be restarted after the job finishes (%u %u %u).",
};

static void stamp(unsigned long long line)
{
	unsigned s = (unsigned)(line / 400);
	printf("Nov 29 %02u:%02u:%02u gpu-a100-03 ", (s / 3600) % 24, (s / 60) % 60, s % 60);
}

int main(int argc, char **argv)
{
	unsigned long long bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (1ull << 30);
	unsigned events = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	unsigned long long every = bytes / (events + 1), written = 0, next_ev = every, line = 0;
	unsigned done = 0, i;
	long pos;

	while (written < bytes || done < events) {
		if (done < events && written >= next_ev) {
			unsigned b = 4000 + done * 7, pid = 4000 + done;
			stamp(line);
			printf("kernel: [%u.100000] pt_main_thread invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n", b);
			stamp(line);
			printf("kernel: [%u.100010] CPU: 27 PID: %u Comm: pt_main_thread Tainted: P           OE     5.15.0-126-generic #136-Ubuntu\n", b, pid + 1);
			stamp(line);
			printf("kernel: [%u.100020] Mem-Info:\n", b);
			stamp(line);
			printf("kernel: [%u.100030] active_anon:151203 inactive_anon:14902110 isolated_anon:0\n", b);
			stamp(line);
			printf("kernel: [%u.100030]  free:61044 free_pcp:312 free_cma:0\n", b);
			stamp(line);
			printf("kernel: [%u.100040] Node 0 DMA: 0*4kB 0*8kB 0*16kB 0*32kB 0*64kB 0*128kB 0*256kB 0*512kB 1*1024kB (U) 1*2048kB (M) 2*4096kB (M) = 11264kB\n", b);
			stamp(line);
			printf("kernel: [%u.100050] 16751234 pages RAM\n", b);
			stamp(line);
			printf("kernel: [%u.100060] Tasks state (memory values in pages):\n", b);
			stamp(line);
			printf("kernel: [%u.100061] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n", b);
			for (i = 0; i < 24; i++) {
				stamp(line);
				printf("kernel: [%u.100070] [%7u] %5u %5u %8u %8u %8u %8u         %5d %s\n", b,
				       pid + i, 1000, pid + i, 31490012 + i, 538890 + i * 11, 9232384, 0, 0,
				       i ? "pt_main_thread" : "python3");
			}
			stamp(line);
			printf("kernel: [%u.100080] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/vllm.service,task=python3,pid=%u,uid=1000\n", b, pid);
			stamp(line);
			printf("kernel: [%u.100090] Out of memory: Killed process %u (python3) total-vm:125960048kB, anon-rss:2150000kB, file-rss:5560kB, shmem-rss:0kB, UID:1000 pgtables:9016kB oom_score_adj:0\n", b, pid);
			stamp(line);
			printf("kernel: [%u.300000] oom_reaper: reaped process %u (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n", b, pid);
			done++;
			next_ev += every;
			line += 40;
			pos = ftell(stdout);
			written = pos >= 0 ? (unsigned long long)pos : written + 4000;
			continue;
		}
		stamp(line);
		printf(ordinary[next() % (sizeof(ordinary) / sizeof(ordinary[0]))], next() % 99999,
		       next() % 256, next() % 256);
		putchar('\n');
		line++;
		if ((line & 1023) == 0) {
			pos = ftell(stdout);
			if (pos >= 0)
				written = (unsigned long long)pos;
		}
	}
	return 0;
}
