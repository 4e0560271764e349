package main

import "syscall"

// adviseHuge asks for transparent huge pages over [lo, hi) (MADV_HUGEPAGE),
// or withdraws that (MADV_NOHUGEPAGE). The range is passed as addresses, not
// as a slice, so that nothing holds a pointer to memory the runtime owns.
func adviseHuge(lo, hi uintptr, on bool) error {
	advice := syscall.MADV_NOHUGEPAGE
	if on {
		advice = syscall.MADV_HUGEPAGE
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, uintptr(advice)); errno != 0 {
		return errno
	}
	return nil
}
