package jsonskip

import "golang.org/x/sys/cpu"

// textMasksAVX2 and containerMasksAVX2 are textMasksGo and
// containerMasksGo in AVX2 (masks_amd64.s): two 32-byte comparisons a
// byte, where the Go reads eight words.
//
//go:noescape
func textMasksAVX2(b *[64]byte) (quotes, backslashes, slashes uint64)

//go:noescape
func containerMasksAVX2(b *[64]byte) (quotes, backslashes, opens, closes uint64)

func textMasks(b *[64]byte) (quotes, backslashes, slashes uint64) {
	if cpu.X86.HasAVX2 {
		return textMasksAVX2(b)
	}
	return textMasksGo(b)
}

func containerMasks(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	if cpu.X86.HasAVX2 {
		return containerMasksAVX2(b)
	}
	return containerMasksGo(b)
}

// compactAVX2 is compactGo a word at a time: a byte shuffle (PSHUFB) by
// a pattern looked up for the word's eight bits of keep.
//
//go:noescape
func compactAVX2(dst *byte, src *[64]byte, keep uint64) int

func compact(dst []byte, b *[64]byte, keep uint64) int {
	if cpu.X86.HasAVX2 {
		return compactAVX2(&dst[0], b, keep)
	}
	return compactGo(dst, b, keep)
}
