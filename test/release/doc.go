// Package release checks, without running them, the files that build and ship olm-render and
// that run it in CI: .goreleaser.yaml, the Dockerfile, the GitHub workflows of this repository
// (.github/workflows) and those of the examples (examples/github-actions), and the release
// image and version the examples name.
//
// The workflows are decoded with kyaml's YAML (YAML 1.2, as GitHub reads them: `on` is a key,
// not the boolean YAML 1.1 makes of it) into structs that know every key they use, so a
// misspelt key fails. `make lint` runs `goreleaser check` on top.
package release
