package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit are set at build time (the Makefile and .goreleaser.yaml do):
// -ldflags "-X main.version=v0.2.0 -X main.commit=0123abc".
var (
	version = ""
	commit  = ""
)

// buildInfo is what `olm-render version` prints.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func newVersionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go version and platform",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeVersion(cmd.OutOrStdout(), format, currentBuild())
		},
	}
	addOutputFormat(cmd, &format, "text", "text", "json")
	return cmd
}

// writeVersion writes info in format: text (the first line as `olm-render --version` prints
// it) or json.
func writeVersion(w io.Writer, format string, info buildInfo) error {
	switch format {
	case "text":
		_, err := fmt.Fprintf(w, "olm-render %s\ncommit: %s\ngo: %s\nplatform: %s\n", info.Version, info.Commit, info.Go, info.Platform)
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			return fmt.Errorf("writing the version as JSON: %w", err)
		}
		return nil
	default:
		return fmt.Errorf("--output %q: want text or json", format)
	}
}

// currentBuild describes the running binary.
func currentBuild() buildInfo {
	return buildInfo{
		Version:  versionString(),
		Commit:   commitString(),
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// versionString is the build's version: set at build time, else the module's, else (devel).
func versionString() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// commitString is the build's commit: set at build time, else the VCS revision Go stamped into
// a build from a checkout (with -dirty when it had changes), else unknown (`go install
// module@version` stamps none; its version names the commit).
func commitString() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return vcsRevision(info.Settings)
}

// vcsRevision returns the vcs.revision setting, with -dirty when vcs.modified is true, or
// unknown.
func vcsRevision(settings []debug.BuildSetting) string {
	var revision, modified string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case revision == "":
		return "unknown"
	case modified == "true":
		return revision + "-dirty"
	default:
		return revision
	}
}
