package usage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// dialect is what differs between the databases of sqlStore: the
// statements are written once, with ? placeholders.
type dialect struct {
	name string
	// greatest and least are the functions of the larger and the smaller
	// of two values.
	greatest, least string
	// numbered: placeholders are $1, $2, … instead of ?.
	numbered bool
	// readTx begins the read-only transaction of Stats.
	readTx *sql.TxOptions
	// retryable reports an error after which the same transaction may
	// succeed (a deadlock or serialization failure).
	retryable func(error) bool
	// unreachable reports an error that means the database cannot be
	// reached or cannot serve now; nil means none does (SQLite is a file).
	unreachable func(error) bool
}

// rebind rewrites the ? placeholders of q for the dialect. The statements
// of this package hold no ? inside literals.
func (d *dialect) rebind(q string) string {
	if !d.numbered {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 64)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// fail turns an error of a store operation into what its caller sees: the
// caller's own cancellation as is, an unreachable database as Unavailable
// (the events wait in the spool; nothing is counted wrong), anything else
// as an internal error.
func (d *dialect) fail(ctx context.Context, op string, err error) error {
	var fe *failure.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("usage store: %s: %w", op, ctx.Err())
	case d.unreachable != nil && d.unreachable(err):
		// The cause is kept as text only: a connect timeout wraps
		// context.DeadlineExceeded, which is not the caller's deadline.
		return failure.New(failure.Unavailable, "UPSTREAM_ERROR",
			"%s failed: the usage database cannot be reached; events wait in each server's spool and are stored once it is back. Try again later", op).
			Wrap(errors.New(err.Error()))
	}
	return fmt.Errorf("usage store: %s: %w", op, err)
}

// Unavailable reports whether err means the store's database cannot be
// reached now (retrying later may succeed).
func Unavailable(err error) bool { return failure.Is(err, failure.Unavailable) }

// isFailure reports whether err is already a classified *failure.Error.
func isFailure(err error) bool {
	var fe *failure.Error
	return errors.As(err, &fe)
}
