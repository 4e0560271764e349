//go:build !unix

package sandbox

import (
	"context"
	"errors"
)

// supported says scripts can run on this platform: not on Windows, where
// there are no process groups to end a script's whole tree with.
const supported = false

func run(context.Context, command) (*outcome, error) {
	return nil, errors.New("running scripts is not supported on this platform")
}
