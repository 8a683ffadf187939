package jsonskip

import (
	"encoding/binary"
	"math/bits"
)

// This file reads 64 bytes at a time as bit masks (bit k for byte k):
// where the quotes, backslashes and brackets are. On amd64 with AVX2 the
// masks are made by vector comparisons (masks_amd64.s); elsewhere a word
// at a time, here.

// textMasksGo has bit k of quotes set when byte k of b is a quote, of
// backslashes when it is a backslash, of slashes when it is a slash.
func textMasksGo(b *[64]byte) (quotes, backslashes, slashes uint64) {
	for w := range 8 {
		x := binary.LittleEndian.Uint64(b[8*w:])
		quotes |= byteBits(x, '"') << (8 * w)
		backslashes |= byteBits(x, '\\') << (8 * w)
		slashes |= byteBits(x, '/') << (8 * w)
	}
	return quotes, backslashes, slashes
}

// containerMasksGo is textMasksGo but for the slashes, and the masks of
// the opening brackets ({ and [) and of the closing ones (} and ]).
func containerMasksGo(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	quotes, backslashes, _ = textMasksGo(b)
	for w := range 8 {
		// A bracket or'ed with 0x20 is { or }: no other byte is.
		x := binary.LittleEndian.Uint64(b[8*w:]) | 0x2020202020202020
		opens |= byteBits(x, '{') << (8 * w)
		closes |= byteBits(x, '}') << (8 * w)
	}
	return quotes, backslashes, opens, closes
}

// byteBits has bit k set when byte k of the little-endian word w is c.
// A byte of w equal to c is a zero byte of x = w xor c repeated, exactly
// those whose high bit ((x & 0x7f…7f) + 0x7f…7f) | x leaves clear; a
// multiplication gathers the eight high bits into the top byte.
func byteBits(w uint64, c byte) uint64 {
	const lows, highs = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	x := w ^ (uint64(c) * 0x0101010101010101)
	z := ^((x&lows + lows) | x) & highs
	return (z >> 7) * 0x0102040810204080 >> 56
}

// prefixXor has bit k set when an odd number of the bits 0 to k of m
// are: with m the quotes that open and close strings, the bytes inside
// one, its opening quote included.
func prefixXor(m uint64) uint64 {
	m ^= m << 1
	m ^= m << 2
	m ^= m << 4
	m ^= m << 8
	m ^= m << 16
	m ^= m << 32
	return m
}

// Compact writes to dst the bytes of the block b whose bits are set in
// keep, in order, and returns how many: the text of an escaped block is
// its bytes but the backslashes of its escapes. dst must have room for
// 64 bytes and 8 more, which it may overwrite (a word at a time).
func Compact(dst []byte, b *[64]byte, keep uint64) int {
	_ = dst[71]
	return compact(dst, b, keep)
}

// compactGo is Compact a run of kept bytes at a time.
func compactGo(dst []byte, b *[64]byte, keep uint64) int {
	o := 0
	for keep != 0 {
		from := bits.TrailingZeros64(keep)
		n := bits.TrailingZeros64(^(keep >> from)) // the run's length
		o += copy(dst[o:], b[from:from+n])
		if from+n == 64 {
			break
		}
		keep &^= (1<<n - 1) << from
	}
	return o
}
