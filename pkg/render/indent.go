package render

import "bytes"

// indentCompact indents compact JSON (encoding/json's output: no space
// outside strings) exactly as json.Indent does, a byte of punctuation at
// a time and strings copied whole: json.Indent steps a scanner through
// every byte, and on a document of a hundred megabytes that step was the
// most of writing it.
func indentCompact(dst, src []byte, prefix, indent string) []byte {
	needIndent, depth := false, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			dst = newline(dst, prefix, indent, depth)
		}
		switch c {
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			needIndent = true // an empty object or array stays {} or []
			dst = append(dst, c)
		case ',':
			dst = newline(append(dst, c), prefix, indent, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				dst = newline(dst, prefix, indent, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd is the index just past the string that starts at src[i]: its
// closing quote is the first not escaped by an odd run of backslashes.
func stringEnd(src []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(src[j:], '"')
		if k < 0 {
			return len(src)
		}
		j += k
		n := 0
		for b := j - 1; b > i && src[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

func newline(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}
