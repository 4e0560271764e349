//go:build unix

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// withHost returns a runner whose host is h instead of this machine's.
func withHost(t *testing.T, ro RunnerOptions, h host) *Runner {
	t.Helper()
	r := NewRunner(ro)
	r.hostOnce.Do(func() { r.host = h })
	return r
}

// TestRequireIsolationRefuses: with scripts.require_isolation, a script or
// command that would miss a protection is refused before it starts, with an
// error naming what is missing and why; without it, it runs and its result
// says what it lacked.
func TestRequireIsolationRefuses(t *testing.T) {
	snap, root := setup(t, true)
	sk := mustSkill(t, snap, "tools")
	noUserNS := host{landlockWhy: "the kernel has no Landlock (test)", userNS: "the kernel refused a new user namespace: test", netNS: "test"}
	mark := filepath.Join(t.TempDir(), "ran")
	writeScript := func() {
		if err := os.WriteFile(filepath.Join(root, "tools", "scripts", "env.sh"), []byte("touch "+mark+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeScript()

	ro := testRunnerOptions(t)
	ro.RequireIsolation = true
	o := testOptions(t)
	o.Runner = withHost(t, ro, noUserNS)
	_, err := New(o).Run(t.Context(), snap, sk, Request{File: "scripts/env.sh"})
	fe := wantFailure(t, err, failure.FailedPrecondition, ReasonIsolationUnavailable,
		"scripts.require_isolation", "landlock-filesystem: the kernel has no Landlock (test)", "user-namespace: the kernel refused a new user namespace: test")
	if fe.Metadata["missing"] != "landlock-filesystem,landlock-network,landlock-ipc,user-namespace,network-namespace" || fe.Metadata["skill_path"] != "tools" {
		t.Errorf("metadata: %v", fe.Metadata)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the refused script ran")
	}
	co := commandOptions(t)
	co.Runner = o.Runner
	_, err = NewCommands(co).Run(t.Context(), sk, "ls", nil)
	wantFailure(t, err, failure.FailedPrecondition, ReasonIsolationUnavailable, "landlock-filesystem")
	if iso := o.Runner.Isolation(); !iso.Required || len(iso.Missing) != 5 || len(iso.InForce) != 0 {
		t.Errorf("Isolation: %+v", iso)
	}

	ro.RequireIsolation = false
	o.Runner = withHost(t, ro, noUserNS)
	res, err := New(o).Run(t.Context(), snap, sk, Request{File: "scripts/env.sh"})
	if err != nil || !res.Success {
		t.Fatalf("without require_isolation: %+v, %v", res, err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the script did not run: %v", err)
	}
	if got := res.Isolation.MissingNames(); !slices.Equal(got, []string{ProtectionFilesystem, ProtectionTCP, ProtectionIPC, ProtectionUserNamespace, ProtectionNetworkNamespace}) || res.Isolation.Required {
		t.Errorf("the result's isolation: %+v", res.Isolation)
	}
}

// TestIsolationPlan: what a run gets from a host, with network use and
// without, and what an old kernel lacks.
func TestIsolationPlan(t *testing.T) {
	full := host{landlockABI: 7}
	iso, l := full.plan(false)
	if want := []string{ProtectionFilesystem, ProtectionTCP, ProtectionIPC, ProtectionUserNamespace, ProtectionNetworkNamespace}; !slices.Equal(iso.InForce, want) || len(iso.Missing) != 0 {
		t.Errorf("full, no network: %+v", iso)
	}
	if !l.helper || l.abi != 7 || l.cloneflags != cloneNewUser|cloneNewNet {
		t.Errorf("full, no network: launch %+v", l)
	}
	iso, l = full.plan(true)
	if want := []string{ProtectionFilesystem, ProtectionIPC, ProtectionUserNamespace}; !slices.Equal(iso.InForce, want) || len(iso.Missing) != 0 || l.cloneflags != cloneNewUser {
		t.Errorf("full, network: %+v %+v", iso, l)
	}
	old := host{landlockABI: 3, netNS: "the kernel refused a new network namespace: operation not permitted"}
	iso, _ = old.plan(false)
	want := []string{
		"landlock-network: the kernel's Landlock ABI is 3; refusing TCP connections needs ABI 4",
		"landlock-ipc: the kernel's Landlock ABI is 3; scoping signals and abstract Unix sockets needs ABI 6",
		"network-namespace: the kernel refused a new network namespace: operation not permitted",
	}
	if !slices.Equal(iso.Detail(), want) || !slices.Equal(iso.InForce, []string{ProtectionFilesystem, ProtectionUserNamespace}) {
		t.Errorf("ABI 3 without network namespaces: in force %v, missing %q", iso.InForce, iso.Detail())
	}
}

// TestWithoutTheHook: a binary whose main does not call Helper cannot
// apply Landlock; the status and every result say so, naming the hook.
func TestWithoutTheHook(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no Landlock outside Linux, hook or not")
	}
	hooked.Store(false)
	defer hooked.Store(true)
	snap, _ := setup(t, true)
	o := testOptions(t) // a runner probed after the hook is gone
	iso := o.Runner.Isolation()
	for _, name := range []string{ProtectionFilesystem, ProtectionTCP, ProtectionIPC} {
		i := slices.Index(iso.MissingNames(), name)
		if i < 0 || !strings.Contains(iso.Missing[i].Reason, "SandboxHelper") {
			t.Errorf("%s: want it missing for want of the hook, got %+v", name, iso)
		}
	}
	res, err := New(o).Run(t.Context(), snap, mustSkill(t, snap, "tools"), Request{File: "scripts/pwd.sh"})
	if err != nil || !res.Success || !strings.Contains(strings.Join(res.Isolation.Detail(), "\n"), "SandboxHelper") {
		t.Errorf("a run without the hook: %+v, %v", res, err)
	}
}

// TestOneLimitForScriptsAndCommands: scripts and commands share the
// runner's slots: a running script keeps a command out, and the reverse.
func TestOneLimitForScriptsAndCommands(t *testing.T) {
	snap, _ := setup(t, true)
	sk := mustSkill(t, snap, "tools")
	ro := testRunnerOptions(t)
	ro.MaxConcurrent, ro.Path = 1, os.Getenv("PATH")
	r := NewRunner(ro)
	o := testOptions(t)
	o.Runner, o.Timeout = r, 30*time.Second
	sb := New(o)
	co := commandOptions(t)
	co.Runner, co.Timeout = r, 30*time.Second
	cmds := NewCommands(co)

	hold := func(start func(ctx context.Context) error) (release func()) {
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { _ = start(ctx) })
		deadline := time.Now().Add(5 * time.Second)
		for len(r.sem) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the slow process never started")
			}
			time.Sleep(10 * time.Millisecond)
		}
		return func() { cancel(); wg.Wait() }
	}
	release := hold(func(ctx context.Context) error {
		_, err := sb.Run(ctx, snap, sk, Request{File: "scripts/slow.sh"})
		return err
	})
	_, err := cmds.Run(t.Context(), sk, "pwd", nil)
	wantFailure(t, err, failure.ResourceExhausted, "", "scripts and commands", "scripts.max_concurrent")
	release()

	release = hold(func(ctx context.Context) error {
		_, err := cmds.Run(ctx, sk, "sleep", []string{"30"})
		return err
	})
	_, err = sb.Run(t.Context(), snap, sk, Request{File: "scripts/pwd.sh"})
	wantFailure(t, err, failure.ResourceExhausted, "", "scripts.max_concurrent")
	release()

	if res, err := cmds.Run(t.Context(), sk, "pwd", nil); err != nil || res.ExitCode != 0 {
		t.Errorf("once the slot is free: %+v, %v", res, err)
	}
}

// TestProgramReads: the folders a runner may read besides the system's:
// its own, its real file's, the node_modules holding it and its prefix —
// never the root, the home folder or above.
func TestProgramReads(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	nm := filepath.Join(base, "proj", "node_modules")
	for _, d := range []string{filepath.Join(nm, ".bin"), filepath.Join(nm, "tsx", "dist"), filepath.Join(home, "bin"), filepath.Join(home, ".local", "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(nm, "tsx", "dist", "cli.mjs"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../tsx/dist/cli.mjs", filepath.Join(nm, ".bin", "tsx")); err != nil {
		t.Skip(err)
	}
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	got := programReads(filepath.Join(nm, ".bin", "tsx"), home)
	for _, want := range []string{filepath.Join(nm, ".bin"), real(filepath.Join(nm, "tsx", "dist")), nm} {
		if !slices.Contains(got, want) && !slices.Contains(got, real(want)) {
			t.Errorf("tsx: %v lacks %s", got, want)
		}
	}
	prefix := filepath.Join(base, "opt", "node")
	if got := programReads(filepath.Join(prefix, "bin", "node"), home); !slices.Equal(got, []string{filepath.Join(prefix, "bin"), prefix}) {
		t.Errorf("/opt/node/bin/node: %v, want its bin folder and its prefix", got)
	}
	if got := programReads(filepath.Join(home, "bin", "tool"), home); !slices.Equal(got, []string{filepath.Join(home, "bin")}) {
		t.Errorf("~/bin/tool: %v, want ~/bin only (never the home folder)", got)
	}
	if got := programReads("/bin/sh", "/"); slices.Contains(got, "/") {
		t.Errorf("/bin/sh with HOME=/: %v grants the root", got)
	}
	for _, d := range []string{"/", home, base, "."} {
		if !tooWide(d, home) {
			t.Errorf("tooWide(%s): false", d)
		}
	}
	if tooWide(filepath.Join(home, ".local"), home) || tooWide("/usr", home) {
		t.Errorf("tooWide: refuses a folder below the home folder or /usr")
	}

	r := NewRunner(RunnerOptions{Path: "/:" + home + ":relative:/usr/bin", Home: home, ReadPaths: []string{"/opt/tools"}})
	p := r.policy(job{program: "/usr/bin/bash", dir: "/skills/x", read: []string{"/skills/x"}}, "/tmp/run", false, 7)
	for _, bad := range []string{"/", home, "relative"} {
		if slices.Contains(p.Read, bad) {
			t.Errorf("policy reads %s: %v", bad, p.Read)
		}
	}
	for _, want := range []string{"/skills/x", "/usr", "/usr/bin", "/opt/tools", "/etc/ld.so.cache", "/proc/self"} {
		if !slices.Contains(p.Read, want) {
			t.Errorf("policy lacks %s: %v", want, p.Read)
		}
	}
	if !slices.Equal(p.Write, []string{"/tmp/run"}) || p.Network || p.Program != "/usr/bin/bash" || !slices.Equal(p.Argv, []string{"/usr/bin/bash"}) {
		t.Errorf("policy: %+v", p)
	}
	for _, secret := range []string{"/etc/shadow", "/etc/ssh", "/etc/ssl/private", "/etc", "/root", "/home", "/tmp", "/proc", "/sys"} {
		if slices.Contains(p.Read, secret) {
			t.Errorf("policy reads %s", secret)
		}
	}
}

// BenchmarkRunIsolation runs BenchmarkRun's script under each part of the
// isolation alone, to show what each costs: "none" starts the runner
// directly; "namespaces" in a user and a network namespace; "landlock"
// through the re-executed helper; "full" is both, as on this host.
func BenchmarkRunIsolation(b *testing.B) {
	snap, _ := setup(b, true)
	sk := mustSkill(b, snap, "tools")
	abi := NewRunner(RunnerOptions{}).probed().landlockABI
	noNS := "off for this benchmark"
	for _, bc := range []struct {
		name string
		h    host
	}{
		{"none", host{landlockWhy: noNS, userNS: noNS, netNS: noNS}},
		{"namespaces", host{landlockWhy: noNS}},
		{"user-namespace", host{landlockWhy: noNS, netNS: noNS}},
		{"landlock", host{landlockABI: abi, userNS: noNS, netNS: noNS}},
		{"full", host{landlockABI: abi}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if abi == 0 && bc.h.landlockWhy == "" {
				b.Skip("no Landlock here")
			}
			o := testOptions(b)
			r := NewRunner(testRunnerOptions(b))
			r.hostOnce.Do(func() { r.host = bc.h })
			o.Runner = r
			sb := New(o)
			for b.Loop() {
				res, err := sb.Run(b.Context(), snap, sk, Request{File: "scripts/pwd.sh"})
				if err != nil || !res.Success {
					b.Fatalf("run: %v %+v", err, res)
				}
			}
		})
	}
}
