//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package main

import "io"

// terminalWidth returns 0: the terminal's width is not asked for on this
// platform (COLUMNS still applies).
func terminalWidth(io.Writer) int { return 0 }
