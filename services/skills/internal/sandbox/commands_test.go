package sandbox

import (
	"strings"
	"testing"
)

// FuzzCheckCommandArgs: whatever passes names no absolute or home path and
// climbs with no "..".
func FuzzCheckCommandArgs(f *testing.F) {
	for _, s := range []string{"scripts/x.py", "../x", "/etc", "--out=../y", "~", "-n", "a=..", `C:\x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, a string) {
		if CheckCommandArgs([]string{a}) != nil {
			return
		}
		v := a
		if strings.HasPrefix(v, "-") {
			if eq := strings.IndexByte(v, '='); eq >= 0 {
				v = v[eq+1:]
			}
		}
		if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, `\`) {
			t.Errorf("CheckCommandArgs accepted %q", a)
		}
		for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '\\' }) {
			if seg == ".." {
				t.Errorf("CheckCommandArgs accepted %q", a)
			}
		}
	})
}
