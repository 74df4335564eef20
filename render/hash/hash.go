// Package hash holds the hashes OLM v0 names and labels objects with: DeepHashObject (SHA-224 of
// the encoding/json Encoder output, in base 62), the resolver's generateName, and the SHA-224
// base-62 digests of bytes and strings.
package hash

import (
	"crypto/sha256"
	"encoding/json"
	"math/big"
)

// Base62 renders a SHA-224 digest as a big-endian integer in base 62 (0-9a-zA-Z), unpadded, as
// OLM's hashes do with big.Int.Text(62).
func Base62(sum [sha256.Size224]byte) string {
	var i big.Int
	i.SetBytes(sum[:])
	return i.Text(62)
}

// Bytes is the base-62 SHA-224 of b.
func Bytes(b []byte) string { return Base62(sha256.Sum224(b)) }

// String is the base-62 SHA-224 of s.
func String(s string) string { return Bytes([]byte(s)) }

// DeepHashObject is OLM's pkg/lib/kubernetes/pkg/util/hash DeepHashObject: the SHA-224 of the
// encoding/json Encoder output of obj (trailing newline included), in base 62. Pass the Go type
// OLM hashes (a pointer to it, as OLM does, encodes the same).
func DeepHashObject(obj any) string {
	h := sha256.New224()
	// The encoder writes to a hash, which never fails; an unencodable value hashes what was
	// written, as OLM's does.
	_ = json.NewEncoder(h).Encode(obj)
	var sum [sha256.Size224]byte
	copy(sum[:], h.Sum(nil))
	return Base62(sum)
}

// GenerateName is OLM's resolver generateName: base + "-" + DeepHashObject(obj), the base cut so
// the name fits in 63 characters; a base and hash of exactly 63 characters together give 64 (OLM's
// off-by-one, kept).
func GenerateName(base string, obj any) string {
	h := DeepHashObject(obj)
	if len(base)+len(h) > 63 {
		base = base[:63-len(h)-1]
	}
	return base + "-" + h
}
