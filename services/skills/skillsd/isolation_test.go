//go:build unix

package skillsd_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// isolationSkill declares the scripts that try to get out of the sandbox;
// net.sh declares network use.
const isolationSkill = `---
name: probe
description: Scripts that try to read, write and connect outside their sandbox.
scripts:
  - file: read.sh
    execution: server
    args:
      - name: target
  - file: write.sh
    execution: server
    args:
      - name: target
  - file: connect.sh
    execution: server
    args:
      - name: port
  - file: net.sh
    execution: server
    network: true
    args:
      - name: port
  - file: linked.sh
    execution: server
---
# Probe
`

const secretKey = "-----BEGIN OPENSSH PRIVATE KEY----- isolation-test-secret"

// isolationServer serves a catalog with the probe skill (and a sibling skill
// "other" in the same source) for a server whose HOME holds a planted
// ~/.ssh/id_rsa; config is its config.yaml. It returns the connection, the
// skills root and the home folder.
func isolationServer(t *testing.T, config string) (*grpc.ClientConn, string, string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	root := filepath.Join(t.TempDir(), "skills")
	home := t.TempDir()
	files := map[string]string{
		"probe/SKILL.md":   isolationSkill,
		"probe/read.sh":    "cat \"$SKILL_ARG_TARGET\"\n",
		"probe/write.sh":   "echo pwned > \"$SKILL_ARG_TARGET\"\necho in-tmp > \"$TMPDIR/ok\" && cat \"$TMPDIR/ok\"\n",
		"probe/connect.sh": "exec 3<>/dev/tcp/127.0.0.1/$SKILL_ARG_PORT && echo connected >&3 && echo connected\n",
		"probe/net.sh":     "exec 3<>/dev/tcp/127.0.0.1/$SKILL_ARG_PORT && echo connected >&3 && echo connected\n",
		"probe/own.txt":    "the skill's own file\n",
		"other/SKILL.md":   "---\nname: other\ndescription: A sibling skill.\n---\n# Other\n",
		"other/notes.txt":  "a sibling skill's notes\n",
		"shared/common.sh": "echo shared script; cat ../shared/notes.txt\n",
		"shared/notes.txt": "notes beside the shared script\n",
		"config.yaml":      config,
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, name), content)
	}
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), secretKey+"\n")
	if err := os.Symlink("../shared/common.sh", filepath.Join(root, "probe", "linked.sh")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": os.Getenv("PATH")}
	_, conn := startServer(t, skillsd.Options{SkillsDirs: []string{root}, Home: home, Getenv: envOf(env)})
	return conn, root, home
}

// requireProtections skips the test when this kernel lacks one of the
// protections it proves, after checking that the catalog status says so;
// a protection missing for any other reason (the test binary without the
// sandbox hook, say) fails it.
func requireProtections(t *testing.T, conn *grpc.ClientConn, names ...string) {
	t.Helper()
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	iso := st.GetScriptIsolation()
	for _, name := range names {
		if slices.Contains(iso.GetInForce(), name) {
			continue
		}
		i := slices.Index(iso.GetMissing(), name)
		if i < 0 {
			t.Fatalf("the status lists %s neither in force nor missing: %v", name, iso)
		}
		why := iso.GetDetail()[i]
		if strings.Contains(why, "SandboxHelper") {
			t.Fatalf("%s is missing because the test binary has no sandbox hook: %s", name, why)
		}
		t.Skipf("this kernel lacks %s (the status says %q)", name, why)
	}
}

func runProbe(t *testing.T, conn *grpc.ClientConn, file string, args map[string]string) *skillsv1.RunScriptResponse {
	t.Helper()
	resp, err := skillsv1.NewScriptServiceClient(conn).RunScript(t.Context(), &skillsv1.RunScriptRequest{SkillPath: "probe", File: file, Args: args})
	if err != nil {
		t.Fatalf("RunScript %s %v: %v", file, args, err)
	}
	return resp
}

// TestScriptCannotReadOutsideItsFolder: a declared script reads its own
// folder, but not a key planted in the server's ~/.ssh, nor a sibling
// skill's file in the same source.
func TestScriptCannotReadOutsideItsFolder(t *testing.T) {
	conn, root, home := isolationServer(t, "")
	requireProtections(t, conn, "landlock-filesystem")

	own := runProbe(t, conn, "read.sh", map[string]string{"target": "own.txt"})
	if !own.GetSuccess() || own.GetStdout() != "the skill's own file\n" {
		t.Fatalf("reading its own file: %+v", own)
	}
	// A script that is a link to a file elsewhere in the source runs, but
	// gets nothing else of the folder it lives in.
	linked := runProbe(t, conn, "linked.sh", nil)
	if linked.GetStdout() != "shared script\n" || !strings.Contains(linked.GetStderr(), "Permission denied") {
		t.Errorf("a linked script: %+v", linked)
	}
	for _, target := range []string{filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(root, "other", "notes.txt")} {
		res := runProbe(t, conn, "read.sh", map[string]string{"target": target})
		if res.GetSuccess() || strings.Contains(res.GetStdout(), "isolation-test-secret") || strings.Contains(res.GetStdout(), "sibling") {
			t.Errorf("the script read %s: %+v", target, res)
		}
		if !strings.Contains(res.GetStderr(), "Permission denied") {
			t.Errorf("reading %s: stderr %q, want Permission denied", target, res.GetStderr())
		}
	}
}

// TestScriptCannotWriteOutsideItsTMPDIR: a declared script writes its own
// TMPDIR, and nothing else: not its skill's folder, not the server's home,
// not another temporary folder.
func TestScriptCannotWriteOutsideItsTMPDIR(t *testing.T) {
	conn, root, home := isolationServer(t, "")
	requireProtections(t, conn, "landlock-filesystem")

	for _, target := range []string{
		filepath.Join(root, "probe", "out.txt"),
		filepath.Join(home, ".ssh", "authorized_keys"),
		filepath.Join(t.TempDir(), "out.txt"),
	} {
		res := runProbe(t, conn, "write.sh", map[string]string{"target": target})
		if res.GetStdout() != "in-tmp\n" {
			t.Errorf("writing its TMPDIR: got %+v", res)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("the script wrote %s", target)
		}
		if !strings.Contains(res.GetStderr(), "Permission denied") {
			t.Errorf("writing %s: stderr %q, want Permission denied", target, res.GetStderr())
		}
	}
}

// listener accepts TCP connections on 127.0.0.1 and counts them.
func listener(t *testing.T) (port string, accepted *atomic.Int32) {
	t.Helper()
	lis, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lis.Close() })
	accepted = new(atomic.Int32)
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	return strconv.Itoa(lis.Addr().(*net.TCPAddr).Port), accepted
}

// TestScriptCannotConnect: a script that does not declare network use
// cannot open a TCP connection to a listener on 127.0.0.1, even where the
// configuration allows network use; one that declares it cannot either
// while the configuration does not allow it.
func TestScriptCannotConnect(t *testing.T) {
	for _, tc := range []struct{ config, file string }{
		{"", "connect.sh"},
		{"scripts:\n  allow_network: true\n", "connect.sh"},
		{"", "net.sh"},
	} {
		conn, _, _ := isolationServer(t, tc.config)
		requireProtections(t, conn, "landlock-network", "network-namespace")
		port, accepted := listener(t)
		res := runProbe(t, conn, tc.file, map[string]string{"port": port})
		for deadline := time.Now().Add(500 * time.Millisecond); accepted.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // a connection that got through is counted by then
		}
		if res.GetSuccess() || strings.Contains(res.GetStdout(), "connected") || accepted.Load() != 0 {
			t.Errorf("config %q, %s: the script connected to 127.0.0.1:%s (%d accepted): %+v", tc.config, tc.file, port, accepted.Load(), res)
		}
		if iso := res.GetIsolation(); iso.GetNetwork() || !slices.Contains(iso.GetInForce(), "landlock-network") {
			t.Errorf("config %q, %s: the result's isolation says %v", tc.config, tc.file, iso)
		}
	}
}

// TestDeclaredAllowedNetworkWorks: a script that declares network use, on a
// server that allows it, connects to the test's listener, and its result
// says it had the network (and no network protection is missing).
func TestDeclaredAllowedNetworkWorks(t *testing.T) {
	conn, _, _ := isolationServer(t, "scripts:\n  allow_network: true\n")
	requireProtections(t, conn, "landlock-filesystem")
	port, accepted := listener(t)
	res := runProbe(t, conn, "net.sh", map[string]string{"port": port})
	if !res.GetSuccess() || res.GetStdout() != "connected\n" {
		t.Fatalf("a declared, allowed connection: %+v", res)
	}
	deadline := time.Now().Add(2 * time.Second)
	for accepted.Load() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if accepted.Load() != 1 {
		t.Errorf("the listener accepted %d connections, want 1", accepted.Load())
	}
	iso := res.GetIsolation()
	if !iso.GetNetwork() || slices.Contains(iso.GetInForce(), "landlock-network") || slices.Contains(iso.GetInForce(), "network-namespace") ||
		!slices.Contains(iso.GetInForce(), "landlock-filesystem") {
		t.Errorf("the result's isolation: %v", iso)
	}
}

// TestScriptsAndCommandsShareOneLimit: scripts.max_concurrent bounds
// scripts and commands together: while a script holds the only slot, a
// command is refused.
func TestScriptsAndCommandsShareOneLimit(t *testing.T) {
	conn, root, _ := isolationServer(t, "scripts:\n  max_concurrent: 1\n  timeout_seconds: 30\ncommands:\n  enabled: true\n  allowed: [ls]\n")
	writeFile(t, filepath.Join(root, "probe", "read.sh"), "sleep 30\n")
	scripts := skillsv1.NewScriptServiceClient(conn)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The commands below compete for the slot: until the script gets
		// it, it is refused in turn and tries again.
		for ctx.Err() == nil {
			_, err := scripts.RunScript(ctx, &skillsv1.RunScriptRequest{SkillPath: "probe", File: "read.sh", Args: map[string]string{"target": "x"}})
			if status.Code(err) != codes.ResourceExhausted {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	refused := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !refused; time.Sleep(20 * time.Millisecond) {
		_, err := scripts.RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "probe", Command: "ls"})
		if status.Code(err) == codes.ResourceExhausted {
			refused = true
			if !strings.Contains(err.Error(), "scripts.max_concurrent") {
				t.Errorf("the refusal does not name scripts.max_concurrent: %v", err)
			}
		}
	}
	cancel()
	<-done
	if !refused {
		t.Fatal("a command ran while a script held the only slot of scripts.max_concurrent: 1")
	}
	// The server ends the cancelled script on its own time, then frees the slot.
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err = scripts.RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "probe", Command: "ls"}); err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("once the script ended: %v", err)
	}
}

// TestCommandCannotReadThroughALink: a command's arguments are checked to
// stay in the skill's folder, but a link inside it may lead anywhere; the
// kernel refuses the read.
func TestCommandCannotReadThroughALink(t *testing.T) {
	conn, root, home := isolationServer(t, "commands:\n  enabled: true\n  allowed: [cat]\n")
	requireProtections(t, conn, "landlock-filesystem")
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(root, "probe", "key")); err != nil {
		t.Skip(err)
	}
	scripts := skillsv1.NewScriptServiceClient(conn)
	res, err := scripts.RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "probe", Command: "cat", Args: []string{"own.txt"}})
	if err != nil || res.GetStdout() != "the skill's own file\n" {
		t.Fatalf("cat own.txt: %+v, %v", res, err)
	}
	res, err = scripts.RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "probe", Command: "cat", Args: []string{"key"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetExitCode() == 0 || strings.Contains(res.GetStdout(), "isolation-test-secret") || !strings.Contains(res.GetStderr(), "Permission denied") {
		t.Errorf("cat key (a link to ~/.ssh/id_rsa): %+v", res)
	}
	if iso := res.GetIsolation(); !slices.Contains(iso.GetInForce(), "landlock-filesystem") {
		t.Errorf("the command's isolation: %v", iso)
	}
}

// TestCommandNetworkFollowsTheSkill: a command connects only when its
// skill declares network use (metadata.network) and the server allows it.
func TestCommandNetworkFollowsTheSkill(t *testing.T) {
	const conf = "scripts:\n  allow_network: true\ncommands:\n  enabled: true\n  allowed: [bash]\n"
	for _, declared := range []bool{false, true} {
		conn, root, _ := isolationServer(t, conf)
		requireProtections(t, conn, "landlock-network")
		writeFile(t, filepath.Join(root, "probe", "dial.sh"), "exec 3<>/dev/tcp/127.0.0.1/$1 && echo connected\n")
		if declared {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), strings.Replace(isolationSkill, "description:", "metadata:\n  network: true\ndescription:", 1))
			if _, err := skillsv1.NewCatalogServiceClient(conn).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		port, accepted := listener(t)
		res, err := skillsv1.NewScriptServiceClient(conn).RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "probe", Command: "bash", Args: []string{"dial.sh", port}})
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(2 * time.Second); accepted.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // a connection that got through is counted by then
		}
		connected := res.GetExitCode() == 0 && res.GetStdout() == "connected\n" && accepted.Load() == 1
		if connected != declared || res.GetIsolation().GetNetwork() != declared {
			t.Errorf("metadata.network %v: connected %v (%d accepted), isolation %v: %+v", declared, connected, accepted.Load(), res.GetIsolation(), res)
		}
	}
}

// TestIsolationInStatusAndSkills: GetCatalogStatus shows the protections
// in force and the configuration (scripts.allow_network,
// scripts.require_isolation); GetSkill shows which scripts declare network
// use; scripts.read_paths opens a folder to scripts.
func TestIsolationInStatusAndSkills(t *testing.T) {
	extra := t.TempDir()
	writeFile(t, filepath.Join(extra, "data.txt"), "shared data\n")
	for _, config := range []string{"", "scripts:\n  allow_network: true\n  require_isolation: true\n  read_paths: [" + extra + "]\n"} {
		conn, _, _ := isolationServer(t, config)
		requireProtections(t, conn, "landlock-filesystem", "landlock-network", "landlock-ipc", "user-namespace", "network-namespace")
		st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		iso := st.GetScriptIsolation()
		configured := config != ""
		if len(iso.GetMissing()) != 0 || len(iso.GetInForce()) != 5 || iso.GetNetwork() != configured || iso.GetRequired() != configured {
			t.Errorf("config %q: status isolation %v", config, iso)
		}
		res := runProbe(t, conn, "read.sh", map[string]string{"target": filepath.Join(extra, "data.txt")})
		if res.GetSuccess() != configured {
			t.Errorf("config %q: reading a file of %s: %+v", config, extra, res)
		}
		if res.GetIsolation().GetRequired() != configured || res.GetIsolation().GetNetwork() {
			t.Errorf("config %q: run isolation %v (read.sh declares no network use)", config, res.GetIsolation())
		}
		sk, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "probe"})
		if err != nil {
			t.Fatal(err)
		}
		var network []string
		for _, sc := range sk.GetScripts() {
			if sc.GetNetwork() {
				network = append(network, sc.GetFile())
			}
		}
		if !slices.Equal(network, []string{"net.sh"}) {
			t.Errorf("scripts that declare network use: %v, want net.sh", network)
		}
	}
}
