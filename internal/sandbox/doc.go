// Package sandbox confines every process the registry starts on behalf of
// somebody else's package: the stdio MCP servers the scanner reads and the
// npm steps that prepare them.
//
// A [Sandbox] runs a command under bubblewrap (Debian package bubblewrap),
// started by this process as a uid of its own (one per concurrent run, from
// [Config].UIDs), so one run can touch neither another nor anything of the
// registry's user. Each run gets:
//
//   - new user, PID, mount, network, IPC, UTS and cgroup namespaces;
//     no_new_privs and no capabilities (bubblewrap sets both);
//   - a read-only view of what programs need (/usr, /bin, /lib*, a few files
//     of /etc, the command's own folder, folders the caller names), a
//     size-capped tmpfs at /tmp as the only writable place (HOME, TMPDIR and
//     the working directory), and the root and /dev remounted read-only;
//   - no network at all: only a loopback interface of its own. A [Job] may
//     instead reach one host:port through a CONNECT [Proxy] that this
//     process serves on a socket created inside the job's network
//     namespace, so nothing else is reachable and no forwarder runs inside;
//   - rlimits on CPU time and open files (util-linux prlimit(1) lowers its
//     own and runs bubblewrap; RLIMIT_AS is not used, Node aborts under
//     it), and a
//     cgroup per run (v1 memory and pids controllers, or cgroup v2) capping
//     memory and the number of processes;
//   - at the end, every process of the run killed through its cgroup (the
//     PID namespace's init first, which takes its whole namespace with it),
//     the cgroup checked empty and removed.
//
// Why bubblewrap rather than a re-executed helper: os/exec cannot run code
// between fork and exec, and a helper would have to reimplement mount
// namespaces, pivot_root and capability dropping that bubblewrap already
// does carefully and is maintained for. What bubblewrap lacks (cgroups and
// rlimits) this package adds around it: rlimits are inherited from
// prlimit(1), and for the cgroup it starts bubblewrap with --info-fd and
// --block-fd, reads the pid of the sandbox's first process, moves it into
// the run's cgroup and only then lets it go on, so no process of the run
// ever exists outside the cgroup.
//
// The package needs Linux, root (to start bubblewrap as the slot's uid and
// to create cgroups) and the bwrap executable; [New] checks all of it and
// says what is missing.
package sandbox
