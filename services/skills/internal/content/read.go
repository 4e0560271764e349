package content

import (
	"fmt"
	"io"
	"os"
)

// headBytes is how much of a file indexing reads: frontmatter and the first
// heading are at the top.
const headBytes = 256 << 10

// MaxFileBytes is the largest profile or page a get returns.
const MaxFileBytes = 4 << 20

// errTooLarge reports a file over MaxFileBytes.
type errTooLarge struct{ size int64 }

func (e errTooLarge) Error() string { return fmt.Sprintf("file of %d bytes", e.size) }

// readHead reads at most headBytes of a regular file inside root.
func readHead(root *os.Root, rel string) ([]byte, error) {
	f, err := openRegular(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, headBytes))
}

// readWhole reads a regular file inside root, refusing one larger than
// MaxFileBytes with errTooLarge.
func readWhole(root *os.Root, rel string) ([]byte, error) {
	f, err := openRegular(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		st, _ := f.Stat()
		size := int64(len(data))
		if st != nil {
			size = st.Size()
		}
		return nil, errTooLarge{size}
	}
	return data, nil
}

// openRegular opens rel inside root (symlinks are followed only while they
// stay inside root) and checks it is a regular file.
func openRegular(root *os.Root, rel string) (*os.File, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file: %w", rel, os.ErrNotExist)
	}
	return f, nil
}
