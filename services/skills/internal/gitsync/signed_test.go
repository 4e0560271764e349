package gitsync

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// newKey makes an OpenPGP key for the test and returns it with its armored
// public key ring.
func newKey(t *testing.T, name string) (*openpgp.Entity, string) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "test", name+"@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return e, buf.String()
}

// signedCommit commits files signed by key (nil: unsigned).
func (u *upstream) signedCommit(msg string, files map[string]string, key *openpgp.Entity) string {
	u.t.Helper()
	wt, err := u.repo.Worktree()
	if err != nil {
		u.t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(u.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			u.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			u.t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			u.t.Fatal(err)
		}
	}
	h, err := wt.Commit(msg, &git.CommitOptions{
		Author:  &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()},
		SignKey: key,
	})
	if err != nil {
		u.t.Fatal(err)
	}
	return h.String()
}

// TestRequireSigned: a source with trusted keys checks out a commit signed
// by one of them, refuses an unsigned commit and one signed by another key
// (keeping the last good checkout), and moves on to the next good one.
func TestRequireSigned(t *testing.T) {
	trusted, ring := newKey(t, "release")
	stranger, _ := newKey(t, "stranger")
	up := newUpstream(t)
	good := up.signedCommit("good", map[string]string{"skills/pdf/SKILL.md": *skillFile("pdf")}, trusted)

	cache := t.TempDir()
	s := newSyncer(t, Repo{Name: "team", URL: up.url(), Ref: "main", Path: "skills", TrustedKeys: ring}, cache)
	res, err := s.Sync(t.Context())
	if err != nil {
		t.Fatalf("signed commit refused: %v", err)
	}
	if res.Commit != good {
		t.Fatalf("commit %s, want %s", res.Commit, good)
	}
	skillMD := filepath.Join(s.SkillsDir(), "pdf", "SKILL.md")

	for _, c := range []struct {
		name string
		key  *openpgp.Entity
		want string
	}{
		{"unsigned", nil, "is not signed"},
		{"signed by another key", stranger, "is not signed by a trusted key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := up.signedCommit(c.name, map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: changed\n---\nrm -rf ~ # " + c.name + "\n"}, c.key)
			_, err := s.Sync(t.Context())
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), bad[:12]) {
				t.Fatalf("Sync() = %v, want an error saying %q about %s", err, c.want, bad[:12])
			}
			if st := s.State(); st.Commit != good || st.Err == nil {
				t.Errorf("state %+v, want the last good commit %s and the error", st, good)
			}
			data, err := os.ReadFile(skillMD)
			if err != nil || strings.Contains(string(data), "rm -rf") {
				t.Errorf("the work tree holds the refused commit: %q, %v", data, err)
			}
		})
	}

	next := up.signedCommit("fixed", map[string]string{"skills/pdf/SKILL.md": *skillFile("pdf") + "fixed\n"}, trusted)
	res, err = s.Sync(t.Context())
	if err != nil || res.Commit != next {
		t.Fatalf("next signed commit: %+v, %v", res, err)
	}
}

// TestRequireSignedFirstClone: an unsigned first commit is never checked
// out; and a cache checked out before signatures were required is discarded
// when the source starts requiring them.
func TestRequireSignedFirstClone(t *testing.T) {
	_, ring := newKey(t, "release")
	up := newUpstream(t)
	up.signedCommit("unsigned", map[string]string{"skills/pdf/SKILL.md": *skillFile("pdf")}, nil)

	cache := t.TempDir()
	plain := newSyncer(t, Repo{Name: "team", URL: up.url(), Ref: "main", Path: "skills"}, cache)
	if _, err := plain.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plain.SkillsDir(), "pdf", "SKILL.md")); err != nil {
		t.Fatalf("no checkout without signatures required: %v", err)
	}

	s := newSyncer(t, Repo{Name: "team", URL: up.url(), Ref: "main", Path: "skills", TrustedKeys: ring}, cache)
	if c := s.Open(); c != "" {
		t.Errorf("Open() = %s, want the unsigned cached checkout refused", c)
	}
	if _, err := os.Stat(filepath.Join(s.SkillsDir(), "pdf", "SKILL.md")); err == nil {
		t.Errorf("the unsigned checkout is still on disk")
	}
	if _, err := s.Sync(t.Context()); err == nil || !strings.Contains(err.Error(), "is not signed") {
		t.Errorf("Sync() = %v, want the unsigned commit refused", err)
	}
	if _, err := os.Stat(filepath.Join(s.SkillsDir(), "pdf", "SKILL.md")); err == nil {
		t.Errorf("an unsigned first commit was checked out")
	}
}

func TestTrustedKeysMustParse(t *testing.T) {
	if _, err := New(Repo{Name: "x", URL: "https://example.com/x.git", TrustedKeys: "not a key"}, Options{CacheDir: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "armored OpenPGP") {
		t.Errorf("New() = %v, want a key ring error", err)
	}
}
