// Package usage owns the service's usage analytics: the events of seed 000
// §10.2 (plus search), the durable spool every event is appended to before the
// call that caused it returns, the publisher that posts batches to a collector
// and removes them from the spool only after a 2xx, and the store that keeps
// the events and the aggregates dashboards ask for: SQLite under SKILLSD_HOME
// (the embedded default) or PostgreSQL (shared by the replicas of a fleet),
// behind one Store interface.
//
// It does not know about gRPC or any transport: package server turns requests
// into Record calls and Stats into wire messages.
package usage

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Event types (seed 000 §10.2, plus search).
const (
	TypeSkillServed    = "skill_served"
	TypeNoMatch        = "no_match"
	TypeAmbiguous      = "ambiguous"
	TypeAssetServed    = "asset_served"
	TypeScriptExecuted = "script_executed"
	TypeSkillFeedback  = "skill_feedback"
	TypeRefresh        = "refresh"
	TypeSearch         = "search"
)

// Limits on an event, checked when a batch is ingested.
const (
	maxIDBytes       = 128
	maxTypeBytes     = 64
	maxServerIDBytes = 256
	// MaxEventBytes bounds one event's JSON (a spool line, an ingested event).
	MaxEventBytes = 64 << 10
)

// Event is one usage event, in the shape the publisher posts
// ({"events": [Event...]}) and a collector ingests.
type Event struct {
	// ID is unique, so that a collector can drop duplicates: a UUIDv7, or
	// for an event made by a call with a request id a UUIDv8 derived from
	// it (KeyedID), the same when the call is made again.
	ID string `json:"id"`
	// Type is one of the Type* constants.
	Type string `json:"type"`
	// Timestamp is when the event happened, in UTC.
	Timestamp time.Time `json:"timestamp"`
	// ServerID names the server that recorded it ("dev-<user>" by default).
	ServerID string `json:"server_id"`
	// Data holds the type's fields (seed 000 §10.2).
	Data map[string]any `json:"data"`
}

// Validate checks an event from outside (a publisher's batch).
func (e *Event) Validate() error {
	switch {
	case e.ID == "":
		return errors.New("id is required")
	case len(e.ID) > maxIDBytes || !utf8.ValidString(e.ID):
		return fmt.Errorf("id must be valid UTF-8 of at most %d bytes", maxIDBytes)
	case e.Type == "":
		return errors.New("type is required")
	case len(e.Type) > maxTypeBytes || !utf8.ValidString(e.Type):
		return fmt.Errorf("type must be valid UTF-8 of at most %d bytes", maxTypeBytes)
	case e.Timestamp.IsZero():
		return errors.New("timestamp is required")
	case e.Timestamp.Before(minEventTime) || e.Timestamp.After(maxEventTime):
		return fmt.Errorf("timestamp must be between %s and %s", minEventTime.Format(time.RFC3339), maxEventTime.Format(time.RFC3339))
	case len(e.ServerID) > maxServerIDBytes || !utf8.ValidString(e.ServerID):
		return fmt.Errorf("server_id must be valid UTF-8 of at most %d bytes", maxServerIDBytes)
	case strings.ContainsRune(e.ID+e.Type+e.ServerID, 0):
		return errors.New("id, type and server_id must not contain NUL characters")
	}
	return nil
}

// The times an event may carry: those whose Unix nanoseconds fit an int64
// (the stores keep nanoseconds).
var (
	minEventTime = time.Unix(0, math.MinInt64).UTC()
	maxEventTime = time.Unix(0, math.MaxInt64).UTC()
)

// NewID returns a UUIDv7: 48 bits of Unix milliseconds, then random bits, so
// ids sort by time and never repeat in practice.
func NewID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[6:]) // crypto/rand.Read never fails (Go 1.24+)
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(b[:6], ms[2:])
	b[6] = 0x70 | b[6]&0x0f // version 7
	b[8] = 0x80 | b[8]&0x3f // variant 10
	return uuidText(b)
}

// KeyedID is the id of the event of type typ and data fields (JSON) made by
// the call whose request id is call: a UUIDv8 whose bits are SHA-256 of the
// three, so that the same call made twice (a retry) gives the same id and
// any other call, type or data another one.
func KeyedID(call, typ string, fields []byte) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(call), []byte(typ), fields} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:]) // length-prefixed: the parts cannot run into each other
		h.Write(part)
	}
	var b [16]byte
	copy(b[:], h.Sum(nil))
	b[6] = 0x80 | b[6]&0x0f // version 8
	b[8] = 0x80 | b[8]&0x3f // variant 10
	return uuidText(b)
}

// uuidText is the text form of a UUID.
func uuidText(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// DefaultServerID is seed 000 §10.1's server id: "dev-" and the USER (else
// USERNAME) environment variable, "dev-unknown" when neither is set.
func DefaultServerID(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, k := range []string{"USER", "USERNAME"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return "dev-" + v
		}
	}
	return "dev-unknown"
}

// Payload is what a caller records: an event's type and data fields.
type Payload struct {
	Type string
	Data map[string]any
}

// The constructors below build each type's data fields (seed 000 §10.2).

// Served is skill_served: a match, or a load when via is "load".
func Served(context, skillPath string, score float64, matched []string, wasAmbiguous bool, via string) Payload {
	return Payload{TypeSkillServed, map[string]any{
		"context": context, "skill_path": skillPath, "score": score,
		"matched_keywords": strs(matched), "was_ambiguous": wasAmbiguous, "via": via,
	}}
}

// NoMatch is no_match.
func NoMatch(context string) Payload {
	return Payload{TypeNoMatch, map[string]any{"context": context}}
}

// Ambiguous is ambiguous, with the candidates' paths.
func Ambiguous(context string, candidates []string) Payload {
	return Payload{TypeAmbiguous, map[string]any{"context": context, "candidates": strs(candidates)}}
}

// AssetServed is asset_served.
func AssetServed(skillPath, file, assetType string, inherited bool, size int64) Payload {
	return Payload{TypeAssetServed, map[string]any{
		"skill_path": skillPath, "file": file, "asset_type": assetType, "is_inherited": inherited, "size_bytes": size,
	}}
}

// ScriptExecuted is script_executed; argsProvided are the names of the
// arguments given (never their values).
func ScriptExecuted(skillPath, file, mode string, success bool, exitCode int, duration time.Duration, argsProvided []string) Payload {
	return Payload{TypeScriptExecuted, map[string]any{
		"skill_path": skillPath, "file": file, "execution_mode": mode, "success": success,
		"exit_code": exitCode, "duration_ms": duration.Milliseconds(), "args_provided": strs(argsProvided),
	}}
}

// Feedback is skill_feedback.
func Feedback(skillPath string, useful bool, comment string) Payload {
	return Payload{TypeSkillFeedback, map[string]any{"skill_path": skillPath, "useful": useful, "comment": comment}}
}

// Refreshed is refresh.
func Refreshed(mode string, success bool, commitHash string, filesChanged, skillsReindexed int) Payload {
	return Payload{TypeRefresh, map[string]any{
		"mode": mode, "success": success, "commit_hash": commitHash,
		"files_changed": filesChanged, "skills_reindexed": skillsReindexed,
	}}
}

// Searched is search.
func Searched(query string, resultCount int) Payload {
	return Payload{TypeSearch, map[string]any{"query": query, "result_count": resultCount}}
}

func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
