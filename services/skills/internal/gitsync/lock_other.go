//go:build !unix

package gitsync

import "context"

// lockFile does not lock where flock is missing: processes sharing a state
// folder there must not synchronise the same repository at the same time.
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }
