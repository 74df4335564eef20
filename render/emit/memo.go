package emit

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Memo keeps the YAML of the objects a run encoded, by their content, for a run that writes the
// same objects again: the clusters of a fleet share most of their operators, and encoding YAML
// costs far more than recognising content seen before (its JSON, digested). Safe for
// concurrent use; the zero Memo is ready, and a nil one keeps nothing.
type Memo struct {
	mu   sync.Mutex
	yaml map[[sha256.Size]byte][]byte
}

// Marshal is Marshal, served from the memo when an object of the same content was encoded
// before. The bytes returned are shared: callers must not change them.
func (m *Memo) Marshal(u *unstructured.Unstructured) ([]byte, error) {
	if m == nil {
		return Marshal(u)
	}
	js, err := json.Marshal(u.Object)
	if err != nil {
		return Marshal(u)
	}
	key := sha256.Sum256(js)
	m.mu.Lock()
	out, ok := m.yaml[key]
	m.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err = Marshal(u)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.yaml == nil {
		m.yaml = map[[sha256.Size]byte][]byte{}
	}
	m.yaml[key] = out
	m.mu.Unlock()
	return out, nil
}
