package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/test/fixture"
)

// sameAsRoundTrip fails when encode writes obj otherwise than sigs.k8s.io/yaml.Marshal does.
func sameAsRoundTrip(t *testing.T, name string, obj map[string]any) {
	t.Helper()
	want, werr := yaml.Marshal(obj)
	got, gerr := encode(obj)
	refused := werr != nil && strings.HasPrefix(werr.Error(), "yaml: ")
	if refused || werr == nil && readBack(obj, want) != nil {
		// go-yaml v2's reader refuses JSON holding DEL or a C1 control, or a key longer than
		// 1024 characters, and reads a raw NEL as a line break (the round trip writes
		// "a\u0085" as 'a '): where the round trip refuses or changes the content, encode
		// writes it as go-yaml v2 writes it (escaped, or as a complex key), and what it
		// writes reads back as the object.
		if gerr != nil {
			t.Errorf("%s: %v", name, gerr)
		} else if err := readBack(obj, got); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return
	}
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Errorf("%s: encode differs from sigs.k8s.io/yaml.Marshal\n got %q (%v)\nwant %q (%v)", name, got, gerr, want, werr)
	}
}

// readBack reports how the YAML written differs from obj once read back, both as JSON.
func readBack(obj map[string]any, written []byte) error {
	var back, want any
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &want); err != nil {
		return err
	}
	if err := yaml.Unmarshal(written, &back); err != nil {
		return fmt.Errorf("wrote YAML that does not read back: %w\n%s", err, written)
	}
	if !reflect.DeepEqual(back, want) {
		return fmt.Errorf("wrote %q, which reads back as %v, want %v", written, back, want)
	}
	return nil
}

// TestEncodeAsRoundTrip: encode writes what the JSON round trip writes, for the values where
// the two could part: numbers of every shape, strings YAML would read as something else, keys
// go-yaml v2 sorts naturally, empty collections, and what the fast path must leave to the
// round trip.
func TestEncodeAsRoundTrip(t *testing.T) {
	values := []any{
		int64(0), int64(-1), int64(math.MaxInt64), float64(2), 2.5, 1e21, 1e-7, 123456789.0, -0.0, 1e300,
		"", "true", "no", "~", "null", "1.0", "0x1F", "012", "1e3", "a: b", "- x", "#c", "multi\nline\n", " lead", "trail ",
		"é ü 日本", "\u2028", "<&>", "tab\there", "\x00", "del\x7f", "c1\u0080\u009f", "nel\u0085", map[string]any{strings.Repeat("k", 1100): int64(1)}, "\xff\xfe", math.NaN(), math.Inf(1),
		true, false, nil, map[string]any{}, []any{}, []any{nil, int64(1), "x"},
		map[string]any{"a10": int64(1), "a2": int64(2), "B": true, "b": false, "": "empty", "z\xffkey": int64(1)},
		int32(7), []string{"typed"},
	}
	for i, v := range values {
		sameAsRoundTrip(t, strings.TrimSpace(strings.ReplaceAll(fmtValue(v), "\n", `\n`))+"#"+string(rune('a'+i%26)), map[string]any{"k": v, "nested": map[string]any{"list": []any{v}}})
	}
}

// fmtValue names a value in a test name.
func fmtValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "unencodable"
	}
	return string(data)
}

// TestEncodeCorpus: every manifest of the corpus's bundles encodes as the round trip does.
func TestEncodeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole corpus")
	}
	n := 0
	err := filepath.WalkDir(filepath.Join(fixture.Corpus(t), "operators"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(p)) != "manifests" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			var obj map[string]any
			if yaml.Unmarshal(doc, &obj) != nil || obj == nil {
				continue
			}
			n++
			sameAsRoundTrip(t, p, toInt64(obj).(map[string]any))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Errorf("compared %d manifests, want the corpus's thousands", n)
	}
}

// toInt64 turns the float64 numbers sigs.k8s.io/yaml decodes into int64 where they are
// integers, as unstructured objects hold them.
func toInt64(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = toInt64(e)
		}
	case []any:
		for i, e := range v {
			v[i] = toInt64(e)
		}
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
	}
	return v
}

// FuzzEncode: for any JSON document, encode writes what the round trip writes.
func FuzzEncode(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, `{"a":[1.5,"x",null,true]}`, `{"a10":{},"a2":[]}`, `{"k":"yes"}`, `{"k":1e21}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var obj map[string]any
		if json.Unmarshal([]byte(doc), &obj) != nil || obj == nil {
			return
		}
		sameAsRoundTrip(t, doc, toInt64(obj).(map[string]any))
	})
}
