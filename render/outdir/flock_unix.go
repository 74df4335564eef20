//go:build unix && !aix

package outdir

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flock takes an exclusive lock on f, waiting for it.
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
