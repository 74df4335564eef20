package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// propertyShapes say what the value of each property type opm parses must be (operator-registry
// alpha/property Parse decodes each into its Go type, and a catalog holding one that does not
// decode is not served: opm fails, and with it every install from the catalog).
var propertyShapes = map[string]string{
	TypePackage:         "an object {packageName, version} of strings",
	TypePackageRequired: "an object {packageName, versionRange} of strings",
	TypeGVK:             "an object {group, version, kind} of strings",
	TypeGVKRequired:     "an object {group, version, kind} of strings",
	TypeBundleObject:    `an object {"data": <base64 manifest>}`,
	TypeCSVMetadata:     "an object holding the CSV's metadata (annotations, displayName, installModes, ...)",
	TypeChannel:         "an object {channelName, priority}",
}

// checkPropertyValue reports a property value of the wrong JSON type for its property type, as
// opm's parse would refuse it, naming the field of the value that is wrong and what it must be;
// other types only need valid JSON. The big values (olm.bundle.object, olm.csv.metadata) are
// checked field by field without being decoded.
func checkPropertyValue(typ string, value json.RawMessage) error {
	shape, checked := propertyShapes[typ]
	if !checked {
		return nil
	}
	if t := bytes.TrimSpace(value); len(t) > 0 && t[0] != '{' && string(t) != "null" {
		return fmt.Errorf("%s value: want %s, got %s", typ, shape, jsonKind(t[0]))
	}
	var err error
	switch typ {
	case TypePackage:
		err = decodeBlob("", value, &PackageValue{})
	case TypePackageRequired:
		err = decodeBlob("", value, &PackageRequiredValue{})
	case TypeGVK, TypeGVKRequired:
		err = decodeBlob("", value, &GVKValue{})
	case TypeChannel:
		err = decodeBlob("", value, &struct {
			ChannelName string `json:"channelName"`
			Priority    int    `json:"priority"`
		}{})
	case TypeBundleObject:
		err = checkShallow(value, map[string]byte{"data": '"'})
	case TypeCSVMetadata:
		err = checkShallow(value, csvMetadataKinds)
	}
	if err != nil {
		return fmt.Errorf("%s value: want %s: %v", typ, shape, err)
	}
	return nil
}

// csvMetadataKinds are the first bytes of the JSON values of olm.csv.metadata's fields
// (operator-registry property.CSVMetadata): '{' objects, '[' arrays, '"' strings.
var csvMetadataKinds = map[string]byte{
	"annotations": '{', "apiServiceDefinitions": '{', "crdDescriptions": '{', "description": '"',
	"displayName": '"', "installModes": '[', "keywords": '[', "labels": '{', "links": '[',
	"maintainers": '[', "maturity": '"', "minKubeVersion": '"', "nativeAPIs": '[', "provider": '{',
}

// checkShallow checks that value is a JSON object (or null) whose known fields have the JSON
// type kinds gives (or null), without decoding them.
func checkShallow(value json.RawMessage, kinds map[string]byte) error {
	if string(bytes.TrimSpace(value)) == "null" {
		return nil
	}
	return fields(value, func(key string, v []byte) error {
		want, known := kinds[key]
		if !known || len(v) == 0 || v[0] == want || string(v) == "null" {
			return nil
		}
		return fmt.Errorf("field %q is %s", key, jsonKind(v[0]))
	})
}

// jsonKind names the JSON type a value starting with c has.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
