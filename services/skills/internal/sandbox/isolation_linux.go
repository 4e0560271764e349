//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

const (
	cloneNewUser = syscall.CLONE_NEWUSER
	cloneNewNet  = syscall.CLONE_NEWNET
)

// selfExe is the running binary, which a Runner re-executes as the helper.
const selfExe = "/proc/self/exe"

// presets are go-landlock's configurations by ABI: each handles every right
// its ABI knows. A kernel newer than the newest preset gets the newest.
var presets = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// probeTimeout bounds each probe process.
const probeTimeout = 10 * time.Second

// probeHost finds what the kernel offers: the Landlock ABI, whether user
// and network namespaces can be made, and whether the helper really
// confines itself (a probe process goes through the whole path a run takes).
func probeHost(tempDir string) host {
	var h host
	abi, err := llsys.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		h.landlockWhy = "the kernel has no Landlock (Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(err, syscall.EOPNOTSUPP):
		h.landlockWhy = "Landlock is switched off in this kernel (add landlock to the lsm= boot parameter)"
	case err != nil:
		h.landlockWhy = "asking the kernel for its Landlock ABI failed: " + err.Error()
	case abi <= 0:
		h.landlockWhy = "the kernel reports no Landlock ABI"
	}
	if abi >= len(presets) {
		abi = len(presets) - 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	var flags uintptr
	if probe(ctx, cloneNewUser|cloneNewNet, nil) == nil {
		flags = cloneNewUser | cloneNewNet
	} else {
		if err := probe(ctx, cloneNewUser, nil); err != nil {
			h.userNS = "the kernel refused a new user namespace: " + err.Error()
		} else {
			flags |= cloneNewUser
		}
		if err := probe(ctx, cloneNewNet, nil); err != nil {
			h.netNS = "the kernel refused a new network namespace: " + err.Error()
		} else {
			flags |= cloneNewNet
		}
	}
	if h.landlockWhy != "" {
		return h
	}
	if !hooked.Load() {
		h.landlockWhy = "this binary's main does not call skillsd.SandboxHelper (sandbox.Helper) first, so nothing can apply Landlock before a process starts"
		return h
	}
	pol := &policy{ABI: abi, Read: []string{"/usr"}, Devices: devices}
	if tmp, err := os.MkdirTemp(tempDir, "skillsd-probe-"); err == nil {
		defer os.RemoveAll(tmp)
		pol.Write = []string{tmp}
	}
	if err := probe(ctx, flags, pol); err != nil {
		h.landlockWhy = "the sandbox helper could not apply Landlock: " + err.Error()
		return h
	}
	h.landlockABI = abi
	return h
}

// probe starts a process that does nothing in the namespaces of flags: the
// helper, confining itself with pol when pol is not nil, else (when the
// binary has no hook) the system's true.
func probe(ctx context.Context, flags uintptr, pol *policy) error {
	c := command{env: []string{"PATH=" + DefaultPath}, dir: "/", timeout: probeTimeout, grace: time.Second, maxOutput: 4096, cloneflags: flags}
	switch {
	case pol != nil:
		c.policy = pol
	case hooked.Load():
		c.policy = &policy{}
	default:
		p, err := lookPath("true", DefaultPath)
		if err != nil {
			return err
		}
		c.path = p
	}
	o, err := run(ctx, c)
	if err != nil {
		return err
	}
	if o.exitCode != 0 {
		msg := strings.TrimSpace(o.stderr.plain())
		return fmt.Errorf("the probe process exited with status %d: %s", o.exitCode, msg)
	}
	return nil
}

// namespaceAttr asks for the namespaces of flags in a; a new user namespace
// maps the server's own user and group to themselves.
func namespaceAttr(a *syscall.SysProcAttr, flags uintptr) {
	if flags == 0 {
		return
	}
	a.Cloneflags = flags
	if flags&cloneNewUser != 0 {
		uid, gid := os.Getuid(), os.Getgid()
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
}

// helperMain is the sandbox helper: it applies the policy in arg and becomes
// its program. It returns only on failure, having said why on its status
// pipe.
func helperMain(arg string) (code int) {
	status := os.NewFile(helperStatusFD, "status")
	fail := func(format string, args ...any) int {
		fmt.Fprintf(status, format, args...)
		return 126
	}
	defer func() {
		if v := recover(); v != nil {
			code = fail("the sandbox helper failed: %v", v)
		}
	}()
	syscall.CloseOnExec(helperStatusFD)
	var p policy
	if err := json.Unmarshal([]byte(arg), &p); err != nil {
		return fail("the sandbox helper could not read its policy: %v", err)
	}
	if err := confine(p); err != nil {
		return fail("applying Landlock: %v", err)
	}
	if p.Program == "" {
		return 0
	}
	err := syscall.Exec(p.Program, p.Argv, os.Environ())
	return fail("starting %s: %v", p.Program, err)
}

// confine applies p with Landlock to the calling thread, which it locks:
// the helper executes its program from this thread, and the program
// inherits the thread's confinement (go-landlock's pattern for "restrict,
// then execute"). The other threads of the helper only run the Go runtime
// until the execve ends them. (Confining every thread instead, through
// go-landlock's Restrict, signals each thread in turn and made each run
// about 3 ms slower on ABI 7.) The configuration is the preset of p.ABI
// exactly — never a silent downgrade: the probe found that ABI — without
// the network rights when p.Network.
func confine(p policy) error {
	if p.ABI <= 0 {
		return nil
	}
	cfg := presets[min(p.ABI, len(presets)-1)]
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	var rules []landlock.Rule
	for _, path := range p.Read {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			continue // not on this host: nothing to grant
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(path))
		default:
			rules = append(rules, landlock.ROFiles(path))
		}
	}
	for _, path := range p.Write {
		rule := landlock.RWDirs(path)
		if p.ABI >= 2 {
			rule = rule.WithRefer() // rename and link inside the TMPDIR
		}
		rules = append(rules, rule)
	}
	for _, path := range p.Devices {
		if _, err := os.Stat(path); err == nil {
			rules = append(rules, landlock.RWFiles(path))
		}
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("go-landlock built no ruleset")
	}
	defer syscall.Close(fd)
	runtime.LockOSThread() // never unlocked: the program is executed from this thread
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
