//go:build !amd64

package jsonskip

func textMasks(b *[64]byte) (quotes, backslashes, slashes uint64) { return textMasksGo(b) }

func containerMasks(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	return containerMasksGo(b)
}

func compact(dst []byte, b *[64]byte, keep uint64) int { return compactGo(dst, b, keep) }
