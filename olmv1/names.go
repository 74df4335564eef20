package olmv1

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// maxNameLength is the longest name operator-controller's renderer writes
// (rukpak/util.ObjectNameForBaseAndSuffix).
const maxNameLength = 63

// objectName joins base and suffix with "-", cutting base so that the whole fits in 63
// characters, as operator-controller's ObjectNameForBaseAndSuffix does.
func objectName(base, suffix string) string {
	if len(base)+len(suffix) > maxNameLength {
		base = base[:maxNameLength-len(suffix)-1]
	}
	return base + "-" + suffix
}

// uniqueName is operator-controller's DefaultUniqueNameGenerator: base, then the hash of obj
// (hashOf).
func uniqueName(base string, obj any) (string, error) {
	h, err := hashOf(obj)
	if err != nil {
		return "", fmt.Errorf("naming %s: %w", base, err)
	}
	return objectName(base, h), nil
}

// hashOf is operator-controller's DeepHashObject (shared/util/hash): base 36 of the SHA-224 of
// obj's JSON encoding, as json.Encoder writes it (with its trailing newline).
func hashOf(obj any) (string, error) {
	h := sha256.New224()
	if err := json.NewEncoder(h).Encode(obj); err != nil {
		return "", err
	}
	var i big.Int
	i.SetBytes(h.Sum(nil))
	return i.Text(36), nil
}

// serviceNameOf is the Service operator-controller creates for a deployment serving webhooks:
// <deployment, dots as dashes>-service (render.CertProvisionerFor).
func serviceNameOf(deployment string) string {
	return objectName(strings.ReplaceAll(deployment, ".", "-"), "service")
}

// certNameOf is the certificate (and Secret) of a deployment serving webhooks:
// <service>-cert.
func certNameOf(deployment string) string { return objectName(serviceNameOf(deployment), "cert") }
