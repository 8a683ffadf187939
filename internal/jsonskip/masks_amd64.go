package jsonskip

import "golang.org/x/sys/cpu"

// stringMasksAVX2 and containerMasksAVX2 are stringMasksGo and
// containerMasksGo in AVX2 (masks_amd64.s): two 32-byte comparisons a
// byte, where the Go reads eight words.
//
//go:noescape
func stringMasksAVX2(b *[64]byte) (quotes, backslashes uint64)

//go:noescape
func containerMasksAVX2(b *[64]byte) (quotes, backslashes, opens, closes uint64)

func stringMasks(b *[64]byte) (quotes, backslashes uint64) {
	if cpu.X86.HasAVX2 {
		return stringMasksAVX2(b)
	}
	return stringMasksGo(b)
}

func containerMasks(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	if cpu.X86.HasAVX2 {
		return containerMasksAVX2(b)
	}
	return containerMasksGo(b)
}
