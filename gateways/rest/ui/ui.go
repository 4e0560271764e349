// Package ui holds the web console that skills-rest serves at /ui/: the
// production build of console/ (make console), committed under dist/ so that
// building the Go binaries never needs Node. make checkgenerate rebuilds it
// and fails when the committed files differ from the sources.
package ui

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// FS returns the console's files: index.html and assets/.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil { // "dist" is a valid path: fs.Sub cannot fail
		panic(err)
	}
	return sub
}
