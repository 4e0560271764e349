package skillsd

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/server"
)

// Timing of the config file's watch.
const (
	// configDebounce lets an editor finish saving before the file is read.
	configDebounce = 200 * time.Millisecond
	// configPoll is how often the file is read when its folder cannot be
	// watched.
	configPoll = 5 * time.Second
)

// configWatch follows the config file the server loaded. Each change is
// read and validated at once, as a restart would: an invalid file is
// reported (log, status, diagnostics) and the running configuration stays;
// a valid one applies what can change while serving (log.level and
// log.format, unless a flag fixed them) and names the other changed keys as
// needing a restart.
type configWatch struct {
	file   string
	getenv func(string) string
	log    *slog.Logger
	// level and format are the log's, set live; nil when a flag fixed them.
	level  *slog.LevelVar
	format interface{ Set(string) }

	mu      sync.Mutex // guards the fields below
	running config.Config
	digest  [sha256.Size]byte // of the file as last read
	state   server.ConfigState
}

// newConfigWatch starts following file, loaded as cfg (with the environment
// applied).
func newConfigWatch(file string, cfg config.Config, opts Options, getenv func(string) string, log *slog.Logger) *configWatch {
	w := &configWatch{file: file, getenv: getenv, log: log, running: cfg, state: server.ConfigState{File: file}}
	if opts.LogLevel != nil {
		w.level = opts.LogLevel
	}
	if opts.LogFormat != nil {
		w.format = opts.LogFormat
	}
	if data, err := config.ReadFile(file); err == nil {
		w.digest = sha256.Sum256(data)
	}
	return w
}

// State is the watch's report (server.Options.Config).
func (w *configWatch) State() server.ConfigState {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.state
	st.RestartNeeded = slices.Clone(st.RestartNeeded)
	st.Applied = slices.Clone(st.Applied)
	return st
}

// run follows the file until ctx ends: fsnotify on its folder (editors
// replace files), else a poll.
func (w *configWatch) run(ctx context.Context) {
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fw.Add(filepath.Dir(w.file)); err != nil {
			_ = fw.Close()
		}
	}
	if err != nil {
		w.log.Warn("cannot watch the config file; reading it every few seconds instead", "file", w.file, "error", err)
		t := time.NewTicker(configPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				w.check()
			}
		}
	}
	defer fw.Close()
	// A change made between the start and the watch being in place.
	w.check()
	name := filepath.Base(w.file)
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) == name {
				settle = time.After(configDebounce)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			w.log.Debug("watching the config file", "file", w.file, "error", err)
			settle = time.After(configDebounce) // events may be lost: look
		case <-settle:
			settle = nil
			w.check()
		}
	}
}

// check reads the file and, when its content changed, validates it and
// reports what the change does.
func (w *configWatch) check() {
	data, readErr := config.ReadFile(w.file)
	w.mu.Lock()
	defer w.mu.Unlock()
	if readErr == nil {
		d := sha256.Sum256(data)
		if d == w.digest {
			return
		}
		w.digest = d
	} else {
		w.digest = [sha256.Size]byte{}
	}
	w.state.CheckedAt = time.Now()
	next, err := config.Load(w.file)
	if err == nil {
		err = next.ApplyEnv(w.getenv)
	}
	if err != nil {
		w.state.Error, w.state.Line = err.Error(), errorLine(err)
		w.log.Error("the config file changed and is not valid: the running configuration stays, and a restart with this file would fail",
			"file", w.file, "error", err)
		return
	}
	hadError := w.state.Error != ""
	w.state.Error, w.state.Line = "", 0
	var applied, restart []string
	for _, key := range changedKeys(reflect.ValueOf(w.running), reflect.ValueOf(next), "") {
		switch {
		case key == "log.level" && w.level != nil:
			level, _ := config.ParseLogLevel(next.Log.Level) // validated
			w.level.Set(level)
			w.running.Log.Level = next.Log.Level
			applied = append(applied, key)
		case key == "log.format" && w.format != nil:
			w.format.Set(next.Log.Format)
			w.running.Log.Format = next.Log.Format
			applied = append(applied, key)
		case key == "log.level" || key == "log.format":
			// A flag fixed it: the file's value applies neither now nor later.
		default:
			restart = append(restart, key)
		}
	}
	for _, k := range applied {
		if !slices.Contains(w.state.Applied, k) {
			w.state.Applied = append(w.state.Applied, k)
		}
	}
	slices.Sort(w.state.Applied)
	w.state.RestartNeeded = restart
	if len(applied) > 0 {
		w.log.Info("the config file changed: applied while serving", "file", w.file, "keys", strings.Join(applied, ", "))
	}
	switch {
	case len(restart) > 0:
		w.log.Warn("the config file changed: these keys take effect at the next start", "file", w.file, "keys", strings.Join(restart, ", "))
	case hadError && len(applied) == 0:
		w.log.Info("the config file is valid again and matches the running configuration", "file", w.file)
	}
}

// errorLine is the file line of a configuration error, 0 when unknown.
func errorLine(err error) int {
	var ce *config.Error
	if errors.As(err, &ce) {
		return ce.Line
	}
	return 0
}

// changedKeys lists the dotted keys (yaml tags) whose values differ between
// two configurations: a section's keys one by one, a list or a mapping as a
// whole.
func changedKeys(a, b reflect.Value, prefix string) []string {
	var out []string
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		av, bv := a.Field(i), b.Field(i)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, changedKeys(av, bv, key)...)
			continue
		}
		if !equalValues(av, bv) {
			out = append(out, key)
		}
	}
	return out
}

// equalValues compares two values of a key; an empty list equals a nil one.
func equalValues(a, b reflect.Value) bool {
	if (a.Kind() == reflect.Slice || a.Kind() == reflect.Map) && a.Len() == 0 && b.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
