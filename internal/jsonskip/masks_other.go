//go:build !amd64

package jsonskip

func textMasks(b *[64]byte) (quotes, backslashes, slashes uint64) { return textMasksGo(b) }

func containerMasks(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	return containerMasksGo(b)
}

// Compact writes to dst the bytes of the block b whose bits are set in
// keep, in order, and returns how many. dst must have room for 64 bytes
// and 8 more, which it may overwrite.
func Compact(dst []byte, b *[64]byte, keep uint64) int {
	_ = dst[71]
	return compactGo(dst, b, keep)
}
