package deploy

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestManifests renders the base and every overlay and checks them (see
// check); then checks that each check fails: a copy of deploy/ with one
// mistake must produce the problem that names it.
func TestManifests(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := sourceFacts(repo)
	if err != nil {
		t.Fatal(err)
	}
	// skillsd, built from the package the Containerfile builds, for --check-config.
	var f facts
	if problems := containerFacts(filepath.Join("container", "Containerfile"), repo, &f); len(problems) > 0 {
		t.Fatalf("the Containerfile: %s", strings.Join(problems, "\n"))
	}
	var skillsd string
	for p, b := range f.image {
		if b.name == "skillsd" {
			if skillsd, err = buildBinary(t.Context(), repo, b, t.TempDir()); err != nil {
				t.Fatal(err)
			}
			t.Logf("built %s (image path %s) from %s/%s", skillsd, p, b.dir, b.pkg)
		}
	}
	if skillsd == "" {
		t.Fatal("the Containerfile builds no skillsd")
	}

	for _, p := range check(t.Context(), ".", repo, src, skillsd, t.TempDir()) {
		t.Error(p)
	}

	for _, m := range []struct {
		name      string
		file      string // relative to deploy/
		old, new  string
		wantIssue string
	}{
		{"readiness probe on a port nothing binds", "kubernetes/base/skillsd.yaml",
			"readinessProbe:\n            grpc:\n              port: 50051", "readinessProbe:\n            grpc:\n              port: 50052",
			"readinessProbe asks gRPC port 50052"},
		{"liveness probe asks a health service the server does not answer", "kubernetes/base/skillsd.yaml",
			"livenessProbe:\n            grpc:\n              port: 50051\n              service: liveness", "livenessProbe:\n            grpc:\n              port: 50051\n              service: alive",
			`service "alive"`},
		{"HTTP probe path the gateway does not serve", "kubernetes/base/skills-rest.yaml",
			"path: /readyz", "path: /ready", "readinessProbe asks /ready"},
		{"a port a flag binds is not declared", "kubernetes/base/skillsd.yaml",
			"--metrics=:9090", "--metrics=:9095", "port 9095 (metrics) is bound by a flag but not declared"},
		{"Service targetPort names no container port", "kubernetes/base/skills-rest.yaml",
			"targetPort: http", "targetPort: htp", "targetPort htp is no containerPort"},
		{"env from a Secret that no binary reads", "kubernetes/overlays/postgres/database.yaml",
			"name: SKILLSD_DATABASE_URL", "name: SKILLSD_DATABASE_URI", "env SKILLSD_DATABASE_URI is read by no binary"},
		{"Secret key without an example", "kubernetes/base/skills-rest.yaml",
			"key: gateway-token", "key: gateway_token", "no key gateway_token"},
		{"config.yaml with a key nothing reads", "kubernetes/base/config.yaml",
			"scripts:\n  enabled: false\n", "scripts:\n  enabled: false\n  sandbox: off\n", "scripts.sandbox"},
		{"a database URL skillsd refuses", "kubernetes/overlays/postgres/secret.example.yaml",
			"url: postgres://", "url: mysql://", "SKILLSD_DATABASE_URL"},
		{"--config outside the ConfigMap", "kubernetes/base/skillsd.yaml",
			"--config=/etc/skillsd/config.yaml", "--config=/etc/skillsd/skillsd.yaml", "has no key skillsd.yaml"},
		{"a command the image does not hold", "kubernetes/base/skills-rest.yaml",
			"/usr/local/bin/skills-rest", "/usr/bin/skills-rest", "command /usr/bin/skills-rest is not a binary the Containerfile puts in the image"},
		{"the image built with cgo", "container/Containerfile",
			"CGO_ENABLED=0", "CGO_ENABLED=1", "without CGO_ENABLED=0"},
		{"a base image without a tag", "container/Containerfile",
			"static-debian12:nonroot", "static-debian12", "pin the base image"},
		{"a writable root file system", "kubernetes/base/skills-rest.yaml",
			"readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem is not true"},
		{"state outside the volumes", "kubernetes/base/skillsd.yaml",
			"value: /var/lib/skillsd", "value: /var/lib/skills", "SKILLSD_HOME=/var/lib/skills is not on a writable volume"},
		{"a field the API does not have", "kubernetes/base/pdb.yaml",
			"  maxUnavailable: 1\n", "  maxUnavailable: 1\n  maxUnavailabe: 1\n", `unknown field "spec.maxUnavailabe"`},
		{"a kind the test does not know", "kubernetes/base/pdb.yaml",
			"apiVersion: policy/v1", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: skillsd\n---\napiVersion: policy/v1", "ServiceAccount/skillsd: a kind the render test does not know"},
	} {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, ".", dir)
			p := filepath.Join(dir, m.file)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), m.old) {
				t.Fatalf("%s has no %q to change: update this mutation", m.file, m.old)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(data), m.old, m.new, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			problems := check(t.Context(), dir, repo, src, skillsd, t.TempDir())
			for _, p := range problems {
				if strings.Contains(p, m.wantIssue) {
					t.Logf("found: %s", p)
					return
				}
			}
			t.Errorf("got problems %q, want one mentioning %q", problems, m.wantIssue)
		})
	}
}

// check renders deploy's base and every overlay and returns every problem
// found: an object that does not decode strictly, a probe, port, Service,
// Secret or command that does not match across files, a config.yaml that
// skillsd refuses.
func check(ctx context.Context, deployDir, repo string, src facts, skillsd, tmp string) []string {
	f := src
	problems := containerFacts(filepath.Join(deployDir, "container", "Containerfile"), repo, &f)
	kube := filepath.Join(deployDir, "kubernetes")
	examples, err := secretExamples(kube)
	if err != nil {
		return append(problems, err.Error())
	}
	dirs := []string{"base"}
	overlays, _ := filepath.Glob(filepath.Join(kube, "overlays", "*", "kustomization.yaml"))
	for _, o := range overlays {
		rel, _ := filepath.Rel(kube, filepath.Dir(o))
		dirs = append(dirs, rel)
	}
	if len(dirs) < 2 {
		problems = append(problems, "no overlay under kubernetes/overlays")
	}
	for i, dir := range dirs {
		o, err := render(filepath.Join(kube, dir))
		if err != nil {
			problems = append(problems, dir+": "+err.Error())
			continue
		}
		var found []string
		cms := map[string]*corev1.ConfigMap{}
		for _, cm := range o.configMaps {
			cms[cm.Name] = cm
		}
		for _, d := range o.deployments {
			found = append(found, checkDeployment(d, f)...)
			for _, c := range d.Spec.Template.Spec.Containers {
				if len(c.Command) == 0 || f.image[c.Command[0]].name != "skillsd" {
					continue
				}
				text, more := configFile(d, c, cms)
				found = append(found, more...)
				if len(more) == 0 {
					cdir := filepath.Join(tmp, strings.Join([]string{"render", string(rune('a' + i)), d.Name, c.Name}, "-"))
					if err := os.MkdirAll(cdir, 0o700); err != nil {
						return append(problems, err.Error())
					}
					found = append(found, checkConfig(ctx, skillsd, cdir, d, c, text, examples)...)
				}
			}
		}
		if len(o.deployments) == 0 {
			found = append(found, "no Deployment rendered")
		}
		found = append(found, checkSelectors(o)...)
		found = append(found, checkSecrets(o, examples)...)
		for _, p := range found {
			problems = append(problems, dir+": "+p)
		}
	}
	return problems
}

// copyTree copies the files under src (deploy/: its manifests and its
// Containerfile) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	for _, sub := range []string{"kubernetes", "container"} {
		err := filepath.WalkDir(filepath.Join(src, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o700)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
