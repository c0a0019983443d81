/* Preloaded by scripts/emulate-avx2.sh: this process sees an AVX2-only CPU through
 * CPUID, natively.
 *
 * Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, /proc/cpuinfo flag cpuid_fault)
 * makes every CPUID instruction of this process raise SIGSEGV. The handler below
 * runs the real CPUID with faulting briefly off, clears the AVX-512, AVX-VNNI and AMX
 * bits, and steps over the instruction. ONNX Runtime's MLAS, numpy and the rest pick
 * their kernels from that answer when they load (after this library's constructor),
 * so the process runs the AVX2 kernels an AVX2 machine runs, at this machine's speed
 * rather than an instruction emulator's. Threads inherit the faulting; exec drops
 * it, and the child's copy of this library (LD_PRELOAD is inherited) sets it again.
 *
 * A SIGSEGV handler the program installs later through sigaction() (as CPython's
 * faulthandler and signal module do) is kept behind this one: every fault that is not
 * CPUID goes to it, as it would have. glibc's signal() bypasses the interposition.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* CPUID.(EAX=7,ECX=0):EBX  AVX512F DQ IFMA PF ER CD BW VL */
#define L7_EBX_AVX512 ((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | \
                       (1u << 28) | (1u << 30) | (1u << 31))
/* CPUID.(EAX=7,ECX=0):ECX  AVX512_VBMI VBMI2 VNNI BITALG VPOPCNTDQ */
#define L7_ECX_AVX512 ((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14))
/* CPUID.(EAX=7,ECX=0):EDX  AVX512_4VNNIW 4FMAPS VP2INTERSECT AMX_BF16 AVX512_FP16
 * AMX_TILE AMX_INT8 */
#define L7_EDX_AVX512_AMX ((1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) | (1u << 23) | \
                           (1u << 24) | (1u << 25))
/* CPUID.(EAX=7,ECX=1):EAX  AVX_VNNI AVX512_BF16 AMX_FP16 AVX_IFMA */
#define L7S1_EAX ((1u << 4) | (1u << 5) | (1u << 21) | (1u << 23))
/* CPUID.(EAX=7,ECX=1):EDX  AVX_VNNI_INT8 AVX_NE_CONVERT AVX_VNNI_INT16 AVX10 */
#define L7S1_EDX ((1u << 4) | (1u << 5) | (1u << 10) | (1u << 19))

static struct sigaction chained; /* the program's own SIGSEGV disposition */
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static long cpuid_faulting(int on) {
    return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1);
}

static void mask(unsigned leaf, unsigned sub, unsigned r[4]) {
    if (leaf == 7 && sub == 0) {
        r[1] &= ~L7_EBX_AVX512;
        r[2] &= ~L7_ECX_AVX512;
        r[3] &= ~L7_EDX_AVX512_AMX;
    } else if (leaf == 7 && sub == 1) {
        r[0] &= ~L7S1_EAX;
        r[3] &= ~L7S1_EDX;
    } else if (leaf == 0x24) { /* AVX10 converged vector ISA leaf */
        r[0] = r[1] = r[2] = r[3] = 0;
    }
}

static void on_segv(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = context;
    greg_t *g = uc->uc_mcontext.gregs;
    /* A CPUID fault is a general-protection fault (SI_KERNEL); a bad address is not,
     * and its RIP must not be read. */
    if (info->si_code == SI_KERNEL) {
        const unsigned char *ip = (const unsigned char *)g[REG_RIP];
        if (ip[0] == 0x0f && ip[1] == 0xa2) {
            unsigned leaf = (unsigned)g[REG_RAX], sub = (unsigned)g[REG_RCX], r[4];
            cpuid_faulting(0);
            __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
            cpuid_faulting(1);
            mask(leaf, sub, r);
            g[REG_RAX] = r[0];
            g[REG_RBX] = r[1];
            g[REG_RCX] = r[2];
            g[REG_RDX] = r[3];
            g[REG_RIP] += 2;
            return;
        }
    }
    if (chained.sa_flags & SA_SIGINFO) {
        chained.sa_sigaction(sig, info, context);
    } else if (chained.sa_handler != SIG_DFL && chained.sa_handler != SIG_IGN) {
        chained.sa_handler(sig);
    } else {
        /* Default: die of this SIGSEGV when the faulting instruction runs again. */
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        real_sigaction(SIGSEGV, &dfl, NULL);
    }
}

/* The program's SIGSEGV handler goes behind ours; every other signal is its own. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (!real_sigaction) real_sigaction = dlsym(RTLD_NEXT, "sigaction");
    if (sig != SIGSEGV) return real_sigaction(sig, act, old);
    if (old) *old = chained;
    if (act) chained = *act;
    return 0;
}

__attribute__((constructor)) static void install(void) {
    real_sigaction = dlsym(RTLD_NEXT, "sigaction");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    chained.sa_handler = SIG_DFL;
    if (real_sigaction(SIGSEGV, &sa, NULL) != 0 || cpuid_faulting(1) != 0) {
        fputs("cpuid-avx2: this CPU or kernel has no CPUID faulting (cpuid_fault): "
              "use EMULATE_WITH=qemu\n", stderr);
        _exit(3);
    }
}
