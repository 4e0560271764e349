package main

import (
	"os"
	"strings"
	"syscall"
)

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

// thpEnabled is the kernel's transparent huge page setting.
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// hugePagesOffered says whether the kernel gives transparent huge pages to
// memory that asks for them: its setting is "always" or "madvise".
func hugePagesOffered() bool {
	data, err := os.ReadFile(thpEnabled)
	return err == nil && thpOffered(string(data))
}

// thpOffered reads a transparent_hugepage/enabled setting ("always
// [madvise] never": the bracketed word is the one in force).
func thpOffered(setting string) bool {
	for _, w := range strings.Fields(setting) {
		if strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") {
			return w == "[always]" || w == "[madvise]"
		}
	}
	return false
}
