package search

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// The search package's files (the analysis cache, the index file) open with
// one header: their format's name, the version of what they hold (uint32),
// the payload's length (uint64) and its CRC-32C (uint32), little endian.

// fileHeaderTail is the header's size after the format's name.
const fileHeaderTail = 4 + 8 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendFileHeader appends to b the header of a payload of size bytes,
// whose CRC-32C is sum, in a file of format and version (the payloads are
// written as streams: their sum comes from a first pass).
func appendFileHeader(b []byte, format string, version uint32, size uint64, sum uint32) []byte {
	b = append(b, format...)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint64(b, size)
	return binary.LittleEndian.AppendUint32(b, sum)
}

// parseFileHeader reads the header h (len(format)+fileHeaderTail bytes) of
// a file of format and version: the payload's length and checksum, or
// false when h is another format's or version's.
func parseFileHeader(h []byte, format string, version uint32) (size uint64, sum uint32, ok bool) {
	if len(h) != len(format)+fileHeaderTail || string(h[:len(format)]) != format {
		return 0, 0, false
	}
	h = h[len(format):]
	if binary.LittleEndian.Uint32(h) != version {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint64(h[4:]), binary.LittleEndian.Uint32(h[12:]), true
}

// fileWriter writes a file's payload through a buffer of its own, counting
// the bytes from the start of the file (n); after the first error it writes
// nothing. The index file and the analysis file are written with it, twice
// each: once into their checksum, once into the file.
type fileWriter struct {
	w   io.Writer
	buf []byte
	n   int64
	err error
}

// room flushes the buffer when it holds 32 KB or more.
func (iw *fileWriter) room() {
	if len(iw.buf) >= 32<<10 {
		iw.flush()
	}
}

func (iw *fileWriter) flush() {
	if iw.err == nil && len(iw.buf) > 0 {
		_, iw.err = iw.w.Write(iw.buf)
	}
	iw.n += int64(len(iw.buf))
	iw.buf = iw.buf[:0]
}

// offset is the offset in the file of the next byte written.
func (iw *fileWriter) offset() int64 { return iw.n + int64(len(iw.buf)) }
