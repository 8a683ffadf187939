// Package uidtable finds a snapshot's objects by UID, and resolves their
// owner references, on both cores. It knows UIDs as strings and references
// as the UIDs they name, not the snapshot model, so that internal/ stays
// below pkg/.
//
// Replaying or planning a million-object cluster looks up every object's
// UID and every owner reference's once. A Go map keyed by UID strings
// spends that time probing, one key at a time: each probe is a cache miss.
// This table keeps each slot's hash beside its key, compares strings only
// when the hashes agree, and is built and read by every core: its shards,
// one or more per core, hold the UIDs by their hash's low bits. Keys are small
// integers, 0 to n-1, that the caller maps to its objects.
package uidtable

import (
	"hash/maphash"
	"slices"

	"github.com/kgc-dev/kgc/internal/hugepages"
	"github.com/kgc-dev/kgc/internal/parallel"
)

// Table finds keys by UID. It is not changed after New, so any number of
// goroutines may read it.
type Table struct {
	seed maphash.Seed
	uid  func(k int) string
	// shards hold the UIDs whose hash's low bits are their index, a power
	// of two of them, one or more per core.
	shards [][]uint64 // per slot: hash's high 32 bits, key+1; 0 empty
	masks  []uint64   // each shard's size, a power of two, less one
	bits   uint       // log2 of len(shards)
}

// New files keys 0 to n-1, whose UIDs uid gives, in that order. A key
// whose UID an earlier key has is not filed: repeats lists those keys, in
// order (nil when every UID is distinct).
func New(n int, uid func(k int) string) (t *Table, repeats []int) {
	t = &Table{seed: maphash.MakeSeed(), uid: uid}
	for 1<<t.bits < parallel.Parts(n) {
		t.bits++
	}
	shards := 1 << t.bits
	t.shards, t.masks = make([][]uint64, shards), make([]uint64, shards)
	hashes := hugepages.Make[uint64](n)
	parallel.Do(n, func(_, from, to int) {
		for k := from; k < to; k++ {
			hashes[k] = maphash.String(t.seed, uid(k))
		}
	})
	count := make([]uint64, shards)
	for _, hash := range hashes {
		count[t.shard(hash)]++
	}
	rep := make([][]int, shards)
	parallel.Do(shards, func(_, from, to int) {
		for h := from; h < to; h++ {
			// At most half full, so that a probe always ends on an empty slot.
			size := uint64(16)
			for size < 2*count[h] {
				size <<= 1
			}
			t.masks[h] = size - 1
			t.shards[h] = hugepages.Make[uint64](int(size))
		}
		for k, hash := range hashes {
			if h := t.shard(hash); h >= from && h < to && !t.insert(t.shards[h], t.masks[h], hash, k) {
				rep[h] = append(rep[h], k)
			}
		}
	})
	// Each shard's repeats are in order; together they are sorted again.
	repeats = slices.Concat(rep...)
	if len(repeats) == 0 {
		return t, nil
	}
	slices.Sort(repeats)
	return t, repeats
}

// shard is the shard a hash is filed in.
func (t *Table) shard(hash uint64) int { return int(hash & (1<<t.bits - 1)) }

// insert files key k; false if an earlier key has its UID.
func (t *Table) insert(slots []uint64, mask, hash uint64, k int) bool {
	tag := hash >> 32 << 32
	for pos := hash >> t.bits & mask; ; pos = (pos + 1) & mask {
		v := slots[pos]
		if v == 0 {
			slots[pos] = tag | uint64(k+1)
			return true
		}
		if v>>32<<32 == tag && t.uid(int(uint32(v)-1)) == t.uid(k) {
			return false
		}
	}
}

// Find returns the first key with uid.
func (t *Table) Find(uid string) (int32, bool) {
	hash := maphash.String(t.seed, uid)
	h := t.shard(hash)
	slots, mask, tag := t.shards[h], t.masks[h], hash>>32<<32
	for pos := hash >> t.bits & mask; ; pos = (pos + 1) & mask {
		v := slots[pos]
		if v == 0 {
			return -1, false
		}
		if v>>32<<32 == tag && t.uid(int(uint32(v)-1)) == uid {
			return int32(uint32(v) - 1), true
		}
	}
}

// Refs holds the key each owner reference names by UID: key k's j-th
// reference names Owner[Start[k]+j], or no key (-1).
type Refs struct {
	Start, Owner []int32
}

// Of returns key k's references' owners.
func (r Refs) Of(k int) []int32 { return r.Owner[r.Start[k]:r.Start[k+1]] }

// Resolve finds the owner of every reference of keys 0 to n-1, on both
// cores: key k has count(k) references, and its j-th names the UID
// uid(k, j).
func (t *Table) Resolve(n int, count func(k int) int, uid func(k, j int) string) Refs {
	r := Refs{Start: make([]int32, n+1)}
	for k := range n {
		r.Start[k+1] = r.Start[k] + int32(count(k))
	}
	r.Owner = make([]int32, r.Start[n])
	parallel.Do(n, func(_, from, to int) {
		for k := from; k < to; k++ {
			owners := r.Owner[r.Start[k]:r.Start[k+1]]
			for j := range owners {
				owners[j], _ = t.Find(uid(k, j))
			}
		}
	})
	return r
}
