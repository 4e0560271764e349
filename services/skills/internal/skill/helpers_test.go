package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codes returns the diagnostic codes in order.
func codes(diags []Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Code)
	}
	return out
}

// frontmatterDoc wraps YAML in a skill file with a one-line body.
func frontmatterDoc(yaml string) []byte {
	return []byte("---\n" + yaml + "---\n# Body\n")
}

// parseYAML parses a skill file holding the given frontmatter and fails the
// test if the frontmatter was not usable.
func parseYAML(t *testing.T, yaml string) (*Document, []Diagnostic) {
	t.Helper()
	doc, diags := Parse("SKILL.md", frontmatterDoc(yaml))
	if doc == nil || !doc.HasFrontmatter {
		t.Fatalf("Parse: frontmatter not usable; diagnostics: %v", diags)
	}
	return doc, diags
}

// defaults returns the Frontmatter of a file with an empty frontmatter,
// changed by edit.
func defaults(edit func(*Frontmatter)) Frontmatter {
	f := Frontmatter{Inherit: true, UserInvocable: true}
	if edit != nil {
		edit(&f)
	}
	return f
}

// sharedDir finds the design repository's shared folder (../shared next to
// the code repository) by walking up from the working directory, and returns
// sub inside it. It skips the test when the folder is not there.
func sharedDir(t *testing.T, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		cand := filepath.Join(dir, "shared", filepath.FromSlash(sub))
		if fi, err := os.Stat(cand); err == nil && fi.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("no shared/%s folder above the working directory: these fixtures live next to the repository (../shared)", sub)
		}
		dir = parent
	}
}

func joinLines(lines ...string) string {
	return strings.Join(lines, "\n") + "\n"
}
