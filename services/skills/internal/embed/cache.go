package embed

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/statefile"
)

// The disk cache holds one file per model under the state folder:
// embeddings/<sha256(model)[:16]>.gob, a gob of cacheFile. A missing,
// unreadable or foreign file is an empty cache.

type cacheFile struct {
	Model string
	// Vectors by content hash (see textHash), unit length.
	Vectors map[string][]float32
}

// maxCacheFile bounds the file read back: 1 GiB holds about 170,000 vectors
// of 1,536 dimensions.
const maxCacheFile = 1 << 30

func cachePath(dir, model string) string {
	sum := sha256.Sum256([]byte(model))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".gob")
}

func loadCache(dir, model string) (map[string][]float32, error) {
	data, err := statefile.Read(cachePath(dir, model), maxCacheFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return map[string][]float32{}, nil
		}
		return map[string][]float32{}, err
	}
	var f cacheFile
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&f); err != nil {
		return map[string][]float32{}, fmt.Errorf("embedding cache %s: %w", cachePath(dir, model), err)
	}
	if f.Model != model || f.Vectors == nil {
		return map[string][]float32{}, nil
	}
	return f.Vectors, nil
}

// saveCache writes vectors atomically (statefile.Write).
func saveCache(dir, model string, vectors map[string][]float32) error {
	return statefile.Write(cachePath(dir, model), func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(cacheFile{Model: model, Vectors: vectors})
	})
}
