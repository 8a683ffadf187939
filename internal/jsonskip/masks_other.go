//go:build !amd64

package jsonskip

func textMasks(b *[64]byte) (quotes, backslashes, slashes uint64) { return textMasksGo(b) }

func containerMasks(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	return containerMasksGo(b)
}
