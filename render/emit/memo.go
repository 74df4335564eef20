package emit

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Memo keeps the YAML of the objects a run encoded, by their content, for a run that writes the
// same objects again: the clusters of a fleet share most of their operators, and encoding YAML
// costs far more than recognising content seen before (contentKey). Safe for concurrent use;
// the zero Memo is ready, and a nil one keeps nothing.
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
	key, ok := contentKey(u.Object)
	if !ok {
		return Marshal(u)
	}
	m.mu.Lock()
	out, ok := m.yaml[key]
	m.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := Marshal(u)
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

// contentKey digests an object's content in an unambiguous encoding (appendContent): two
// objects have the same key exactly when they hold the same values of the same types, so
// they encode to the same YAML. False for content holding a type the encoding does not know.
func contentKey(obj map[string]any) ([sha256.Size]byte, bool) {
	buf, ok := appendContent(make([]byte, 0, 4096), obj)
	if !ok {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(buf), true
}

// Tags of appendContent's encoding, one per type.
const (
	tagNil = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagList
	tagMap
)

// appendContent appends v's encoding: a tag, then for numbers their 8 bytes, for strings their
// length and bytes, for lists their length and elements, for maps their length and, in key
// order, each key (length and bytes) and value. Every encoding is self-delimiting, so distinct
// values never share one. False for a type other than those of unstructured content.
func appendContent(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, tagNil), true
	case bool:
		if x {
			return append(b, tagTrue), true
		}
		return append(b, tagFalse), true
	case int64:
		return binary.BigEndian.AppendUint64(append(b, tagInt), uint64(x)), true
	case float64:
		return binary.BigEndian.AppendUint64(append(b, tagFloat), math.Float64bits(x)), true
	case string:
		return appendString(append(b, tagString), x), true
	case []any:
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		for _, e := range x {
			var ok bool
			if b, ok = appendContent(b, e); !ok {
				return nil, false
			}
		}
		return b, true
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(x)))
		for _, k := range keys {
			var ok bool
			if b, ok = appendContent(appendString(b, k), x[k]); !ok {
				return nil, false
			}
		}
		return b, true
	}
	return nil, false
}

// appendString appends a string's length and bytes.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
