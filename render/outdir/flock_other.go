//go:build !unix || aix

package outdir

import "os"

// flock does nothing: there is no flock here (see the package documentation).
func flock(*os.File) error { return nil }
