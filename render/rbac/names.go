package rbac

import (
	"crypto/sha256"
	"encoding/json"
)

// generateName is OLM's resolver generateName. Temporary local copy until render/hash lands.
func generateName(base string, obj any) string {
	h := deepHash(obj)
	if len(base)+len(h) > 63 {
		base = base[:63-len(h)-1]
	}
	return base + "-" + h
}

func deepHash(obj any) string {
	hasher := sha256.New224()
	_ = json.NewEncoder(hasher).Encode(obj)
	var sum [sha256.Size224]byte
	copy(sum[:], hasher.Sum(nil))
	return base62(sum)
}
