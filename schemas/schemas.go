// Package schemas publishes the schemas of olm-render's own kinds: the RenderConfig
// functionConfig of the KRM function (a KRMFunctionDefinition with its OpenAPI schema) and the
// olm-render.lock.yaml lock file (a JSON Schema).
package schemas

import _ "embed"

// RenderConfigDefinition is the KRMFunctionDefinition of RenderConfig.
//
//go:embed renderconfig.krmfunctiondefinition.yaml
var RenderConfigDefinition string

// LockSchema is the JSON Schema of olm-render.lock.yaml.
//
//go:embed olm-render.lock.schema.json
var LockSchema string
