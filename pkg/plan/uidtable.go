package plan

import (
	"hash/maphash"
	"sync"

	"github.com/kgc-dev/kgc/internal/halves"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// uidTable finds a snapshot's objects by UID. Planning one delete on a
// million objects resolves every owner reference of the cluster once
// (reach.go); a map keyed by UID strings spends most of that time
// probing, so this table keeps each slot's hash beside the object's
// index, compares strings only when the hashes agree, and is built and
// read by both cores: its two halves hold the UIDs whose hash is even and
// odd.
type uidTable struct {
	seed   maphash.Seed
	objs   []snapshot.Object
	halves [2][]uint64 // per slot: hash's high 32 bits, index+1; 0 empty
	masks  [2]uint64   // each half's size, a power of two, less one
}

// newUIDTable indexes objs; dup is the index of an object whose UID an
// earlier object has, or -1.
func newUIDTable(objs []snapshot.Object) (t *uidTable, dup int32) {
	t = &uidTable{seed: maphash.MakeSeed(), objs: objs}
	hashes := make([]uint64, len(objs))
	halves.Do(len(objs), func(from, to int) {
		for i := from; i < to; i++ {
			hashes[i] = maphash.String(t.seed, objs[i].Metadata.UID)
		}
	})
	var count [2]uint64
	for _, hash := range hashes {
		count[hash&1]++
	}
	dups := [2]int32{-1, -1}
	var wg sync.WaitGroup
	for h := range 2 {
		// At most half full, so that a probe always ends on an empty slot.
		size := uint64(16)
		for size < 2*count[h] {
			size <<= 1
		}
		t.masks[h] = size - 1
		wg.Go(func() {
			slots := make([]uint64, size)
			for i, hash := range hashes {
				if int(hash&1) == h && !t.insert(slots, t.masks[h], hash, int32(i)) && dups[h] < 0 {
					dups[h] = int32(i)
				}
			}
			t.halves[h] = slots
		})
	}
	wg.Wait()
	dup = dups[0]
	if dup < 0 || dups[1] >= 0 && dups[1] < dup {
		dup = dups[1]
	}
	return t, dup
}

// insert files object i; false if an earlier object has its UID.
func (t *uidTable) insert(slots []uint64, mask, hash uint64, i int32) bool {
	tag := hash >> 32 << 32
	for pos := hash >> 1 & mask; ; pos = (pos + 1) & mask {
		v := slots[pos]
		if v == 0 {
			slots[pos] = tag | uint64(i+1)
			return true
		}
		if v>>32<<32 == tag && t.objs[uint32(v)-1].Metadata.UID == t.objs[i].Metadata.UID {
			return false
		}
	}
}

// find returns the index of the object with uid.
func (t *uidTable) find(uid string) (int32, bool) {
	hash := maphash.String(t.seed, uid)
	slots, mask, tag := t.halves[hash&1], t.masks[hash&1], hash>>32<<32
	for pos := hash >> 1 & mask; ; pos = (pos + 1) & mask {
		v := slots[pos]
		if v == 0 {
			return -1, false
		}
		if v>>32<<32 == tag && t.objs[uint32(v)-1].Metadata.UID == uid {
			return int32(uint32(v) - 1), true
		}
	}
}
