package search

import (
	"encoding/binary"
	"hash/crc32"
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
