package fn

import (
	"github.com/olm-render/olm-render/schemas/project"
)

// The functionConfig's identity.
const (
	APIVersion = project.APIVersion
	Kind       = project.Kind
)

// RenderConfig configures the function: the same kind as the project file (schemas/project).
type RenderConfig = project.Config

// CatalogBinding binds a catalog snapshot to a CatalogSource identity.
type CatalogBinding = project.CatalogBinding

// RenderOptions are the render options of the CLI.
type RenderOptions = project.Options

// CheckFields refuses a RenderConfig (YAML or JSON, from file) holding fields a RenderConfig
// does not have, naming each with the field it most likely meant (options.keepIntnet: did you
// mean options.keepIntent?). A document that does not decode is left to the decoder's own error.
func CheckFields(file string, data []byte) error { return project.CheckFields(file, data) }
