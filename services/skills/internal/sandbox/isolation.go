package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The kernel protections a process may get, by the names the status and the
// run results use.
const (
	// ProtectionFilesystem: Landlock limits reads (and execution) to the
	// skill's folder and the runtimes, and writes to the run's TMPDIR.
	ProtectionFilesystem = "landlock-filesystem"
	// ProtectionTCP: Landlock refuses every TCP bind and connect (Landlock
	// ABI 4). Only for a process without network use.
	ProtectionTCP = "landlock-network"
	// ProtectionIPC: Landlock refuses signals to processes outside the run
	// and connections to abstract Unix sockets outside it (Landlock ABI 6).
	ProtectionIPC = "landlock-ipc"
	// ProtectionUserNamespace: the process runs in a user namespace of its
	// own, where it has no capability over the host.
	ProtectionUserNamespace = "user-namespace"
	// ProtectionNetworkNamespace: the process runs in a network namespace of
	// its own, which has no interface but a loopback that is down: no
	// network at all, TCP, UDP or otherwise. Only for a process without
	// network use.
	ProtectionNetworkNamespace = "network-namespace"
)

// Isolation says which kernel protections confine a process, and which ones
// this host cannot give it.
type Isolation struct {
	// InForce names the protections applied, in the order of the constants.
	InForce []string
	// Missing are the protections the process should get and does not.
	Missing []Gap
	// Network says the process may use the network: its skill declares it
	// and scripts.allow_network is true. (For Runner.Isolation: whether a
	// skill that declares network use gets it.)
	Network bool
	// Required is scripts.require_isolation: a process that would miss a
	// protection is refused instead.
	Required bool
}

// Gap is a missing protection and why it is missing.
type Gap struct {
	Protection string
	Reason     string
}

// MissingNames returns the names of the missing protections.
func (i Isolation) MissingNames() []string {
	names := make([]string, 0, len(i.Missing))
	for _, g := range i.Missing {
		names = append(names, g.Protection)
	}
	return names
}

// Detail returns one line per missing protection, "name: why"; empty when
// nothing is missing.
func (i Isolation) Detail() []string {
	lines := make([]string, 0, len(i.Missing))
	for _, g := range i.Missing {
		lines = append(lines, g.Protection+": "+g.Reason)
	}
	return lines
}

func (i Isolation) missingText() string { return strings.Join(i.Detail(), "; ") }

// host is what the kernel under this process offers, probed once.
type host struct {
	// landlockABI is the Landlock ABI the helper applies; 0 when Landlock
	// cannot be applied, and landlockWhy says why.
	landlockABI int
	landlockWhy string
	// userNS and netNS say why a user or network namespace cannot be made;
	// empty when it can.
	userNS, netNS string
}

// launch is how a process is started under a plan.
type launch struct {
	// helper says the process starts as the sandbox helper, which applies
	// Landlock at abi and then becomes the process.
	helper bool
	abi    int
	// cloneflags are the namespaces to create (CLONE_NEW*).
	cloneflags uintptr
}

// plan returns the isolation a process gets on h, with network use or
// without, and how to start it.
func (h *host) plan(network bool) (Isolation, launch) {
	var iso Isolation
	var l launch
	landlock := func(name string, minABI int, what string) {
		switch {
		case h.landlockABI == 0:
			iso.Missing = append(iso.Missing, Gap{name, h.landlockWhy})
		case h.landlockABI < minABI:
			iso.Missing = append(iso.Missing, Gap{name, fmt.Sprintf("the kernel's Landlock ABI is %d; %s needs ABI %d", h.landlockABI, what, minABI)})
		default:
			iso.InForce = append(iso.InForce, name)
		}
	}
	if h.landlockABI > 0 {
		l.helper, l.abi = true, h.landlockABI
	}
	landlock(ProtectionFilesystem, 1, "confining files")
	if !network {
		landlock(ProtectionTCP, 4, "refusing TCP connections")
	}
	landlock(ProtectionIPC, 6, "scoping signals and abstract Unix sockets")
	if h.userNS == "" {
		iso.InForce = append(iso.InForce, ProtectionUserNamespace)
		l.cloneflags |= cloneNewUser
	} else {
		iso.Missing = append(iso.Missing, Gap{ProtectionUserNamespace, h.userNS})
	}
	if !network {
		if h.netNS == "" {
			iso.InForce = append(iso.InForce, ProtectionNetworkNamespace)
			l.cloneflags |= cloneNewNet
		} else {
			iso.Missing = append(iso.Missing, Gap{ProtectionNetworkNamespace, h.netNS})
		}
	}
	if iso.InForce == nil {
		iso.InForce = []string{}
	}
	return iso, l
}

// policy is what the sandbox helper applies before it becomes the process
// (it travels as JSON in the helper's arguments).
type policy struct {
	// ABI is the Landlock ABI to apply.
	ABI int `json:"abi"`
	// Read are the files and folders the process may read and execute.
	Read []string `json:"read,omitempty"`
	// Write are the folders it may read and write (its TMPDIR).
	Write []string `json:"write,omitempty"`
	// Devices are device files it may read and write (/dev/null, …).
	Devices []string `json:"devices,omitempty"`
	// Network leaves TCP alone.
	Network bool `json:"network,omitempty"`
	// Program and Argv are what the helper executes once confined; an empty
	// Program is a probe, which exits 0 once confined.
	Program string   `json:"program,omitempty"`
	Argv    []string `json:"argv,omitempty"`
}

// systemReads are what runtimes (bash, node, python, tsx, coreutils) read
// besides their own folders: the system's programs and libraries, the few
// files of /etc they look up (never /etc/shadow, ssh or TLS keys), the
// process's own /proc entries (those of the runner itself: its children's
// /proc/self lies elsewhere) and what they learn about the machine (CPUs,
// memory, cgroup limits). Missing ones are skipped.
var systemReads = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/localtime", "/etc/timezone", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
	"/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates", "/etc/ca-certificates.conf",
	"/etc/pki/tls/certs", "/etc/pki/ca-trust", "/etc/alternatives", "/etc/mime.types",
	"/etc/os-release", "/etc/debian_version", "/etc/npmrc", "/etc/locale.alias",
	"/proc/self", "/proc/stat", "/proc/meminfo", "/proc/cpuinfo", "/proc/loadavg", "/proc/uptime",
	"/proc/version", "/proc/filesystems", "/proc/sys/vm/overcommit_memory", "/proc/sys/kernel/random",
	"/sys/fs/cgroup", "/sys/devices/system/cpu", "/sys/kernel/mm/transparent_hugepage",
	"/dev/urandom", "/dev/random",
}

// devices are the device files every process may write.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// policy returns the Landlock policy of j, whose TMPDIR is tmp.
func (r *Runner) policy(j job, tmp string, network bool, abi int) *policy {
	p := &policy{ABI: abi, Write: []string{tmp}, Devices: devices, Network: network}
	seen := map[string]bool{}
	add := func(paths ...string) {
		for _, d := range paths {
			if d != "" && filepath.IsAbs(d) && !seen[d] {
				seen[d] = true
				p.Read = append(p.Read, d)
			}
		}
	}
	add(j.read...)
	add(j.dir)
	add(systemReads...)
	// The folders of PATH, so that a process finds the programs it calls.
	for _, d := range filepath.SplitList(r.opts.Path) {
		if d = filepath.Clean(d); !tooWide(d, r.opts.Home) {
			add(d)
		}
	}
	add(programReads(j.program, r.opts.Home)...)
	add(r.opts.ReadPaths...)
	p.Program = j.program
	p.Argv = append([]string{j.program}, j.args...)
	return p
}

// programReads are the folders a program needs: its own folder and that of
// its real file, the node_modules folder holding it (a node package finds
// its dependencies there), and its installation prefix (the parent of its
// bin folder: a runtime's libraries live beside it) — but never the root,
// the home folder or a folder above it.
func programReads(program, home string) []string {
	var out []string
	forbidden := func(d string) bool { return tooWide(d, home) }
	paths := []string{program}
	if real, err := filepath.EvalSymlinks(program); err == nil && real != program {
		paths = append(paths, real)
	}
	for _, p := range paths {
		dir := filepath.Dir(p)
		if !forbidden(dir) {
			out = append(out, dir)
		}
		if b := filepath.Base(dir); b == "bin" || b == "sbin" {
			if prefix := filepath.Dir(dir); !forbidden(prefix) {
				out = append(out, prefix)
			}
		}
		// The outermost node_modules folder above the program.
		parts := strings.Split(p, string(filepath.Separator))
		if i := slices.Index(parts, "node_modules"); i > 0 {
			if nm := strings.Join(parts[:i+1], string(filepath.Separator)); !forbidden(nm) {
				out = append(out, nm)
			}
		}
	}
	return out
}

// tooWide reports whether granting folder d would grant the root, the home
// folder or a folder above it.
func tooWide(d, home string) bool {
	if d == "/" || d == "." || d == "" {
		return true
	}
	if home == "" {
		return false
	}
	rel, err := filepath.Rel(d, filepath.Clean(home))
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
