package lock

import "testing"

// FuzzUnmarshal: a lock file is repository content: a fuzzed one is read or refused with an
// error naming it, never a panic, and what is read writes back to a lock that reads the same.
func FuzzUnmarshal(f *testing.F) {
	l, _ := FromResult(result())
	data, err := Marshal(l)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("apiVersion: olm-render.dev/v1alpha1\nkind: Lock\nnamespaces: [{namespace: a, subscriptions: [{subscription: s}]}]\n"))
	f.Add([]byte("---\n---\nkind: Lock\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Unmarshal("lock.yaml", data)
		if err != nil {
			return
		}
		out, err := Marshal(l)
		if err != nil {
			t.Fatalf("a lock read cannot be written: %v", err)
		}
		if _, err := Unmarshal("lock.yaml", out); err != nil {
			t.Fatalf("a lock written cannot be read: %v\n%s", err, out)
		}
	})
}
