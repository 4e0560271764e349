// Package logging makes the log of every skillsd binary: structured lines on
// one writer (stderr: never stdout, which a stdio MCP server keeps for the
// protocol), as text (key=value) or JSON (one object a line, for log
// collectors), at a level and in a format that the configuration may change
// once it is read (log.level, log.format), after the first lines are out.
//
// Every binary reads the same settings the same way: a --log-level and
// --log-format flag, else LOG_LEVEL and LOG_FORMAT, else the configuration's
// log.level and log.format (services), else info and text.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
)

// Formats.
const (
	Text = "text"
	JSON = "json"
)

// ParseFormat reads a format name: text or json, in any case; empty is text.
func ParseFormat(s string) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(s)); f {
	case "":
		return Text, nil
	case Text, JSON:
		return f, nil
	default:
		return "", fmt.Errorf("invalid log format %q: want text or json", s)
	}
}

// FormatVar is a log format that can change while the log is in use, as
// slog.LevelVar is for the level. The zero value is Text.
type FormatVar struct {
	json atomic.Bool
}

// Set sets the format (Text or JSON; anything else is Text).
func (v *FormatVar) Set(format string) { v.json.Store(format == JSON) }

// Format returns the format.
func (v *FormatVar) Format() string {
	if v.json.Load() {
		return JSON
	}
	return Text
}

// New returns a logger writing to w at level, in format; nil level is info
// and nil format is text, both fixed.
func New(w io.Writer, level *slog.LevelVar, format *FormatVar) *slog.Logger {
	var leveler slog.Leveler = slog.LevelInfo
	if level != nil {
		leveler = level
	}
	if format == nil {
		format = new(FormatVar)
	}
	opts := &slog.HandlerOptions{Level: leveler}
	return slog.New(&switchHandler{
		text:   slog.NewTextHandler(w, opts),
		json:   slog.NewJSONHandler(w, opts),
		format: format,
	})
}

// switchHandler writes each record with the text or the JSON handler, as
// format says at the time; attributes and groups are kept on both.
type switchHandler struct {
	text, json slog.Handler
	format     *FormatVar
}

func (h *switchHandler) current() slog.Handler {
	if h.format.json.Load() {
		return h.json
	}
	return h.text
}

func (h *switchHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.current().Enabled(ctx, l)
}

func (h *switchHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.current().Handle(ctx, r)
}

func (h *switchHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &switchHandler{text: h.text.WithAttrs(attrs), json: h.json.WithAttrs(attrs), format: h.format}
}

func (h *switchHandler) WithGroup(name string) slog.Handler {
	return &switchHandler{text: h.text.WithGroup(name), json: h.json.WithGroup(name), format: h.format}
}
