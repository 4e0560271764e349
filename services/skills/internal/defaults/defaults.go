// Package defaults owns the rule the Options structs of the service's
// packages share for their limits and durations: zero (or less) means the
// package's default.
package defaults

// Set sets *v to d when *v is zero or negative: a limit, size or duration
// left unset (or set to no sense) takes its default.
func Set[T ~int | ~int64 | ~float64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
