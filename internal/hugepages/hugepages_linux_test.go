package hugepages

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestAdviseMarksTheBlock: after Advise, the kernel's map of the process
// shows huge-page advice ("hg") on the memory of a large block, and not
// on a small one, which Advise leaves alone.
func TestAdviseMarksTheBlock(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	big := make([]uint64, 3*minAdvised/8)
	Advise(big)
	mid := uintptr(unsafe.Pointer(&big[len(big)/2]))
	if !advised(t, mid) {
		t.Fatalf("the middle of a %d MB block has no huge-page advice", len(big)*8>>20)
	}
	big[len(big)/2] = 1 // still ordinary, writable memory
	made := Make[uint64](3 * minAdvised / 8)
	if !advised(t, uintptr(unsafe.Pointer(&made[len(made)/2]))) {
		t.Fatal("a block from Make has no huge-page advice")
	}

	// A block too small to advise, in memory of its own (mmap'd, so no
	// other allocation's advice shares its mapping).
	small, err := unix.Mmap(-1, 0, huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	Advise(small)
	if advised(t, uintptr(unsafe.Pointer(&small[0]))) {
		t.Fatal("a block of one huge page was advised")
	}
}

// advised reports whether the mapping holding addr carries huge-page
// advice, from /proc/self/smaps.
func advised(t *testing.T, addr uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		var from, to uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &from, &to); n == 2 {
			inside = from <= addr && addr < to
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line, " hg")
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return false
}
