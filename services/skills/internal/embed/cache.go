package embed

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// The disk cache holds one file per model under the state folder:
// embeddings/<sha256(model)[:16]>.gob, a gob of cacheFile. A missing,
// unreadable or foreign file is an empty cache.

type cacheFile struct {
	Model string
	// Vectors by content hash (see textHash), unit length.
	Vectors map[string][]float32
}

func cachePath(dir, model string) string {
	sum := sha256.Sum256([]byte(model))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".gob")
}

func loadCache(dir, model string) (map[string][]float32, error) {
	data, err := os.ReadFile(cachePath(dir, model))
	if err != nil {
		if os.IsNotExist(err) {
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

// saveCache writes vectors atomically (temporary file, then rename).
func saveCache(dir, model string, vectors map[string][]float32) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(cacheFile{Model: model, Vectors: vectors}); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".embeddings-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), cachePath(dir, model)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
