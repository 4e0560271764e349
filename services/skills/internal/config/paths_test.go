package config

import (
	"path/filepath"
	"testing"
)

func TestStateDir(t *testing.T) {
	home := filepath.FromSlash("/home/ada")
	withDir := Default()
	withDir.StateDir = "~/state"
	tests := []struct {
		name string
		c    Config
		env  map[string]string
		home string
		want string
	}{
		{"default", Default(), nil, home, filepath.Join(home, ".skillsd")},
		{"config, ~ expanded", withDir, nil, home, filepath.Join(home, "state")},
		{"SKILLSD_HOME wins, $VAR expanded", withDir, map[string]string{"SKILLSD_HOME": "$DATA/skillsd", "DATA": "/data"}, home, filepath.FromSlash("/data/skillsd")},
		{"no home", Default(), nil, "", ""},
	}
	for _, tt := range tests {
		if got := StateDir(tt.c, env(tt.env), tt.home); got != tt.want {
			t.Errorf("%s: StateDir() = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := StateDir(Default(), nil, home); got != filepath.Join(home, ".skillsd") {
		t.Errorf("StateDir(nil getenv) = %q, want %q", got, filepath.Join(home, ".skillsd"))
	}
}
