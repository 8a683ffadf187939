package jsonskip

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// masksByBytes is containerMasks a byte at a time.
func masksByBytes(b *[64]byte) (quotes, backslashes, opens, closes uint64) {
	for k, c := range b {
		switch c {
		case '"':
			quotes |= 1 << k
		case '\\':
			backslashes |= 1 << k
		case '{', '[':
			opens |= 1 << k
		case '}', ']':
			closes |= 1 << k
		}
	}
	return quotes, backslashes, opens, closes
}

// TestMasks: the masks of a block, made by the CPU's vector comparisons
// where it has them and a word at a time otherwise, are those read a
// byte at a time, whatever the bytes (brackets, the bytes that differ
// from them by one bit, and bytes with the high bit set among them).
func TestMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const alphabet = "\"\\{}[]{}[];=]}\x7f\x80\xfb\xfd\xdc\xa2 a//\x0f\xaf"
	for range 20000 {
		var b [64]byte
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(8) == 0 {
				b[k] = byte(r.IntN(256))
			}
		}
		wq, wb, wo, wc := masksByBytes(&b)
		for name, masks := range map[string]func(*[64]byte) (uint64, uint64, uint64, uint64){
			"dispatched": containerMasks, "word at a time": containerMasksGo,
		} {
			if q, bs, o, c := masks(&b); q != wq || bs != wb || o != wo || c != wc {
				t.Fatalf("%s, %q: got %x %x %x %x; want %x %x %x %x", name, b, q, bs, o, c, wq, wb, wo, wc)
			}
		}
		var ws uint64
		for k, c := range b {
			if c == '/' {
				ws |= 1 << k
			}
		}
		if q, bs, sl := textMasks(&b); q != wq || bs != wb || sl != ws {
			t.Fatalf("textMasks %q: got %x %x %x; want %x %x %x", b, q, bs, sl, wq, wb, ws)
		}
		if q, bs, sl := textMasksGo(&b); q != wq || bs != wb || sl != ws {
			t.Fatalf("textMasksGo %q: got %x %x %x; want %x %x %x", b, q, bs, sl, wq, wb, ws)
		}
	}
}

// jsonish is a container of objects, arrays, strings dense with escapes
// and scalars, nested up to depth, with, when junk, now and then a byte
// JSON does not allow there: a bracket that does not match, a backslash
// outside a string, a quote too many.
func jsonish(r *rand.Rand, depth int, junk bool, b *strings.Builder) {
	if junk && r.IntN(300) == 0 {
		b.WriteString([]string{"]", "}", `\`, `"`, `\"`, "{"}[r.IntN(6)])
	}
	switch k := r.IntN(6); {
	case depth > 0 && k < 2:
		b.WriteString("{")
		for n := range r.IntN(5) {
			if n > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"k\"` + strings.Repeat(`\\`, r.IntN(3)) + `":`)
			jsonish(r, depth-1, junk, b)
		}
		b.WriteString("}")
	case depth > 0 && k < 4:
		b.WriteString("[")
		for n := range r.IntN(5) {
			if n > 0 {
				b.WriteString(", ")
			}
			jsonish(r, depth-1, junk, b)
		}
		b.WriteString("]")
	case k == 4:
		b.WriteString(`"`)
		for range r.IntN(90) {
			b.WriteString([]string{`\"`, `\\`, `a`, `{`, `]`, `\\\"`, `x y`}[r.IntN(7)])
		}
		b.WriteString(`"`)
	default:
		b.WriteString([]string{"1", "-2.5e3", "true", "null"}[r.IntN(4)])
	}
}

// TestContainerBlocks: Container, reading blocks of 64 bytes, ends a
// container or fails where the byte loop does, on well-formed and
// broken containers of every size, cut anywhere; a well-formed one is
// read by the blocks, not left to the byte loop.
func TestContainerBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for n := range 20000 {
		var b strings.Builder
		b.WriteString("{\"a\":")
		junk := n%2 == 0
		jsonish(r, 1+r.IntN(6), junk, &b)
		b.WriteString("} ,")
		d := []byte(b.String())
		cut := r.IntN(4) == 0
		if cut {
			d = d[:r.IntN(len(d))+1]
		}
		sameAsBytes(t, d)
		if end, ok := containerBlocks(d, 0); !junk && !cut && (!ok || end != len(d)-2) {
			t.Fatalf("%q: the blocks read %d, %v; want %d", d, end, ok, len(d)-2)
		}
	}
}

func sameAsBytes(t *testing.T, d []byte) {
	t.Helper()
	want, wantErr := containerBytes(d, 0)
	got, err := Container(d, 0)
	var se, wse *SyntaxError
	switch {
	case errors.As(wantErr, &wse):
		if !errors.As(err, &se) || *se != *wse {
			t.Fatalf("%q: got %d, %v; want %v", d, got, err, wantErr)
		}
	case got != want || !errors.Is(err, wantErr):
		t.Fatalf("%q: got %d, %v; want %d, %v", d, got, err, want, wantErr)
	}
}

// FuzzContainer: Container agrees with the byte loop.
func FuzzContainer(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"}\"\\"}],"c":null} x`))
	f.Add([]byte(`[{"k":"` + strings.Repeat(`\"`, 40) + `"},\"]`))
	f.Fuzz(func(t *testing.T, d []byte) {
		if len(d) == 0 || (d[0] != '{' && d[0] != '[') {
			return
		}
		sameAsBytes(t, d)
	})
}

// TestCompact: Compact keeps the bytes of a block its mask says, in
// order, whatever the mask: none, all, runs and single bytes.
func TestCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	var b [64]byte
	for k := range b {
		b[k] = byte(k + 1)
	}
	masks := []uint64{0, ^uint64(0), 1, 1 << 63, 0xff00ff00ff00ff00, 0x5555555555555555}
	for m := range uint64(256) { // every word's pattern of the shuffle table
		masks = append(masks, m*0x0101010101010101)
	}
	for range 2000 {
		a, b, c := r.Uint64(), r.Uint64(), r.Uint64()
		masks = append(masks, a, a&b|c<<32) // any bits, and runs
	}
	for _, keep := range masks {
		var want []byte
		for k := range 64 {
			if keep&(1<<k) != 0 {
				want = append(want, b[k])
			}
		}
		for name, compact := range map[string]func([]byte, *[64]byte, uint64) int{"Compact": Compact, "compactGo": compactGo} {
			dst := make([]byte, 72)
			if n := compact(dst, &b, keep); string(dst[:n]) != string(want) {
				t.Fatalf("%s, keep %x: got % x, want % x", name, keep, dst[:n], want)
			}
		}
	}
}
