//go:build unix

package outdir

import (
	"fmt"
	"os"
	"syscall"
)

const (
	// noFollow makes an open fail on a symbolic link.
	noFollow = syscall.O_NOFOLLOW
	// nonBlock keeps an open of a FIFO from blocking.
	nonBlock = syscall.O_NONBLOCK
)

// syncDir flushes the directory entries of path to disk.
func syncDir(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	return nil
}
