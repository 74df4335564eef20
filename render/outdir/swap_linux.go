package outdir

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// exchange swaps the directory entries a and b in one step (renameat2 RENAME_EXCHANGE). The
// error wraps errors.ErrUnsupported when the kernel or file system cannot do it.
func exchange(a, b string) error {
	return renameat2(a, b, unix.RENAME_EXCHANGE)
}

// renameNoReplace renames from to to, failing if to exists (renameat2 RENAME_NOREPLACE). The
// error wraps errors.ErrUnsupported when the kernel or file system cannot do it.
func renameNoReplace(from, to string) error {
	return renameat2(from, to, unix.RENAME_NOREPLACE)
}

func renameat2(from, to string, flags uint) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, flags)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("renaming %s to %s: %w (%w)", from, to, errors.ErrUnsupported, err)
	}
	if err != nil {
		return fmt.Errorf("renaming %s to %s: %w", from, to, err)
	}
	return nil
}
