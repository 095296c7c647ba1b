"""The seccomp layer: system calls that start processes, open sockets or change files fail.

A deny list with a default of allow, built with libseccomp through :mod:`ctypes` (its
rules on arguments, e.g. ``clone`` flags or ``openat`` write flags, are tedious to write as
raw BPF). A deny list because torch, its BLAS and OpenMP use a wide and version-dependent
set of system calls; the file rules, the real confinement, are Landlock's allow list. The
denied calls repeat Landlock's file refusals so they hold where Landlock is missing.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_FLTATR_CTL_TSYNC = 4
_SCMP_CMP_NE = 1
_SCMP_CMP_MASKED_EQ = 7
_LOW_32_BITS = 0xFFFFFFFF  # int arguments: the kernel ignores the upper half


def _errno_action(number: int) -> int:
    """libseccomp's ``SCMP_ACT_ERRNO(number)``: fail the call with that errno."""
    return 0x00050000 | (number & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


# Refused outright, grouped by what they would let the program do.
_DENIED_SYSCALLS: tuple[str, ...] = (
    # start programs or processes
    "execve", "execveat", "fork", "vfork",
    # networking (the pipe to the parent already exists)
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    # reach into other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "tkill",
    # undo the limits
    "setrlimit",
    # namespaces, mounts, root
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig",
    "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    # the kernel itself
    "bpf", "perf_event_open", "userfaultfd", "personality", "keyctl", "add_key",
    "request_key", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "acct", "syslog", "quotactl",
    "quotactl_fd", "iopl", "ioperm", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "vhangup", "lookup_dcookie", "nfsservctl",
    "uselib", "ustat", "sysfs", "_sysctl", "fanotify_init", "name_to_handle_at",
    "open_by_handle_at", "lsm_set_self_attr",
    # io_uring runs its operations outside this filter
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # persistent IPC objects outside the file system
    "msgget", "semget", "shmget", "mq_open",
    # files: a second wall after Landlock, and metadata Landlock does not cover
    "creat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "mknod", "mknodat", "truncate",
    "ftruncate", "fallocate", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown",
    "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr",
    "lremovexattr", "fremovexattr", "removexattrat", "utime", "utimes", "utimensat",
    "futimesat", "open_tree_attr",
)  # fmt: skip

# Newer than the libseccomp tables may be; these numbers are shared by x86_64 and aarch64.
_SYSCALL_NUMBERS_FALLBACK = {
    "lsm_set_self_attr": 460,
    "setxattrat": 463,
    "removexattrat": 466,
    "open_tree_attr": 467,
}

_PR_SET_DUMPABLE = 4
_PR_SET_KEEPCAPS = 8
_PR_SET_SECUREBITS = 28
_PR_SET_MM = 35
_PR_SET_CHILD_SUBREAPER = 36
_PR_CAP_AMBIENT = 47
_PR_SET_SPECULATION_CTRL = 53
_PR_SET_SYSCALL_USER_DISPATCH = 59
_PR_SET_PTRACER = 0x59616D61
_DENIED_PRCTL = (
    _PR_SET_DUMPABLE,
    _PR_SET_KEEPCAPS,
    _PR_SET_SECUREBITS,
    _PR_SET_MM,
    _PR_SET_CHILD_SUBREAPER,
    _PR_CAP_AMBIENT,
    _PR_SET_SPECULATION_CTRL,
    _PR_SET_SYSCALL_USER_DISPATCH,
    _PR_SET_PTRACER,
)

_CLONE_THREAD = 0x00010000
_CLONE_NAMESPACES = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
)
_OPEN_WRITE_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC)
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C
_PROT_WRITE = 0x2
_MAP_SHARED = 0x01
_MAP_ANONYMOUS = 0x20


@functools.cache
def load_libseccomp() -> ctypes.CDLL | None:
    """libseccomp with the signatures used here, or ``None`` where it is not installed.

    Load it before Landlock is applied: behind Landlock its file may not be readable.
    """
    try:
        lib = ctypes.CDLL("libseccomp.so.2")
    except OSError:
        return None
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_attr_set.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_load.argtypes = (ctypes.c_void_p,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_release.restype = None
    return lib


class _Filter:
    """The few libseccomp calls this module needs, failures collected rather than raised."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        self.ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
        self.failures: list[str] = []

    def number(self, name: str) -> int | None:
        found = int(self._lib.seccomp_syscall_resolve_name(name.encode()))
        if found >= 0:
            return found
        if found == -1 and platform.machine() in ("x86_64", "aarch64"):
            return _SYSCALL_NUMBERS_FALLBACK.get(name)
        return None  # pseudo-number: the call does not exist on this architecture

    def refuse(self, name: str, *conditions: tuple[int, int, int, int], err: int = 0) -> None:
        number = self.number(name)
        if number is None:
            return
        args = (_ArgCmp * max(len(conditions), 1))(*(_ArgCmp(*c) for c in conditions))
        result = self._lib.seccomp_rule_add_array(
            self.ctx, _errno_action(err or errno.EPERM), number, len(conditions), args
        )
        if result < 0:
            self.failures.append(f"{name} ({os.strerror(-result)})")


def apply_seccomp(lib: ctypes.CDLL | None, missing: list[str]) -> bool:
    """Load the deny-list filter into every thread; whether it was loaded.

    ``lib`` is :func:`load_libseccomp`'s answer. What could not be refused goes to
    ``missing``. Needs ``no_new_privs`` (or privileges).
    """
    if lib is None:
        missing.append("seccomp: libseccomp.so.2 not found; processes and sockets stay possible")
        return False
    rules = _Filter(lib)
    if not rules.ctx:
        missing.append("seccomp: libseccomp could not start a filter")
        return False
    try:
        if lib.seccomp_attr_set(rules.ctx, _SCMP_FLTATR_CTL_TSYNC, 1) < 0:
            missing.append("seccomp: threads already running are not filtered (no TSYNC)")
        _add_rules(rules)
        loaded = lib.seccomp_load(rules.ctx)
    finally:
        lib.seccomp_release(rules.ctx)
    if rules.failures:
        missing.append("seccomp: not refused: " + ", ".join(rules.failures))
    if loaded < 0:
        missing.append(f"seccomp: the filter was refused ({os.strerror(-loaded)})")
        return False
    return True


def _add_rules(rules: _Filter) -> None:
    """Every refusal: the table of calls, then the calls refused only for some arguments."""
    me = os.getpid()
    for name in _DENIED_SYSCALLS:
        rules.refuse(name)
    rules.refuse("clone3", err=errno.ENOSYS)  # glibc then uses clone, whose flags we see
    rules.refuse("clone", (0, _SCMP_CMP_MASKED_EQ, _CLONE_THREAD, 0))
    for flag in _CLONE_NAMESPACES:
        rules.refuse("clone", (0, _SCMP_CMP_MASKED_EQ, flag, flag))
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        rules.refuse(name, (0, _SCMP_CMP_NE, me, 0))
    rules.refuse("prlimit64", (2, _SCMP_CMP_NE, 0, 0))  # reading limits stays allowed
    for option in _DENIED_PRCTL:
        rules.refuse("prctl", (0, _SCMP_CMP_MASKED_EQ, _LOW_32_BITS, option))
    for request in (_TIOCSTI, _TIOCLINUX):
        rules.refuse("ioctl", (1, _SCMP_CMP_MASKED_EQ, _LOW_32_BITS, request))
    for flag in _OPEN_WRITE_FLAGS:
        rules.refuse("open", (1, _SCMP_CMP_MASKED_EQ, flag, flag))
        rules.refuse("openat", (2, _SCMP_CMP_MASKED_EQ, flag, flag))
    rules.refuse("openat2", err=errno.ENOSYS)  # its flags sit in a struct; openat remains
    rules.refuse(
        "mmap",
        (2, _SCMP_CMP_MASKED_EQ, _PROT_WRITE, _PROT_WRITE),
        (3, _SCMP_CMP_MASKED_EQ, _MAP_SHARED | _MAP_ANONYMOUS, _MAP_SHARED),
    )
