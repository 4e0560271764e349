package confine

import "io"

// ReadResolved reads the whole regular file at abs (resolved by the caller,
// see OpenResolved); size is its expected size, a hint.
func ReadResolved(abs string, size int64) ([]byte, error) {
	f, err := OpenResolved(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 0, max(size, f.Size(), 0)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadHeadResolved reads at most n bytes from the start of the regular file
// at abs (resolved by the caller).
func ReadHeadResolved(abs string, n int) ([]byte, error) {
	f, err := OpenResolved(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:m], err
}
