//go:build !linux

package main

import "errors"

// adviseHuge does nothing where transparent huge pages are not asked for
// with madvise (hugeheap.go).
func adviseHuge(lo, hi uintptr, on bool) error {
	return errors.New("transparent huge pages are Linux only")
}

// hugePagesOffered is false: transparent huge pages are asked for with
// madvise on Linux only.
func hugePagesOffered() bool { return false }
