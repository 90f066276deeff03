// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbdevcg: attach a cgroup v2 device program (BPF_PROG_TYPE_CGROUP_DEVICE)
 * to a cgroup that allows the listed devices only, any access (read, write,
 * mknod), and refuses every other device. No libbpf: the program is a few
 * instructions handed to the raw bpf(2) system call. The attachment
 * (BPF_PROG_ATTACH, no flags) stays with the cgroup after this program
 * exits, until the cgroup is removed.
 *
 * usage: fbdevcg CGROUP_DIR c|b:MAJOR:MINOR...
 *        e.g. fbdevcg /sys/fs/cgroup/fb c:10:229
 *
 * The program, for each allowed device:
 *	if ((ctx->access_type & 0xffff) == TYPE && ctx->major == MAJOR &&
 *	    ctx->minor == MINOR)
 *		return 1;
 * and at the end: return 0 (the access fails with EPERM).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_DEVS 16
#define MAX_INSNS (4 + 5 * MAX_DEVS + 2)

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off,
			    __s32 imm)
{
	struct bpf_insn i;

	memset(&i, 0, sizeof(i));
	i.code = code;
	i.dst_reg = dst;
	i.src_reg = src;
	i.off = off;
	i.imm = imm;
	return i;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	static char log[65536];
	struct bpf_insn prog[MAX_INSNS];
	union bpf_attr attr;
	int n = 0, i, prog_fd, cg_fd;

	if (argc < 3 || argc - 2 > MAX_DEVS) {
		fprintf(stderr, "usage: %s CGROUP_DIR c|b:MAJOR:MINOR... (at most %d)\n",
			argv[0], MAX_DEVS);
		return 2;
	}

	/* r2 = ctx->access_type & 0xffff, r3 = ctx->major, r4 = ctx->minor */
	prog[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1,
			 offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	prog[n++] = insn(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
	prog[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1,
			 offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	prog[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1,
			 offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	for (i = 2; i < argc; i++) {
		unsigned int major, minor;
		char type, end;
		int t;

		if (sscanf(argv[i], "%c:%u:%u%c", &type, &major, &minor, &end) != 3 ||
		    (type != 'c' && type != 'b')) {
			fprintf(stderr, "fbdevcg: '%s' is not c|b:MAJOR:MINOR\n", argv[i]);
			return 2;
		}
		t = type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK;
		/* a mismatch jumps over the rest of this device's 5 insns */
		prog[n++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 4, t);
		prog[n++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3, major);
		prog[n++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2, minor);
		prog[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
		prog[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	prog[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	prog[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (unsigned long)prog;
	attr.insn_cnt = n;
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	prog_fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0) {
		fprintf(stderr, "fbdevcg: BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
		return 1;
	}

	cg_fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (cg_fd < 0) {
		fprintf(stderr, "fbdevcg: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = cg_fd;
	attr.attach_bpf_fd = prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0) {
		fprintf(stderr, "fbdevcg: BPF_PROG_ATTACH to %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("fbdevcg: %d instructions attached to %s, allowing", n, argv[1]);
	for (i = 2; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 0;
}
