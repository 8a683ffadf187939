//go:build !amd64

package jsonskip

func stringMasks(b *[64]byte) (quotes, backslashes uint64) { return stringMasksGo(b) }

func containerMasks(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	return containerMasksGo(b)
}
