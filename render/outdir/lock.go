package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// lock is an exclusive flock on a lock file, which is removed again when the lock is released.
type lock struct {
	path string
	f    *os.File
}

// acquire waits for the lock on the file path, creating the file if need be.
//
// The holder removes the file before it releases the lock, so a waiter can end up holding the
// lock on a file that is gone; it then starts over, on the file now at path.
func acquire(path string) (*lock, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow|nonBlock, 0o600)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		held, err := lockOpen(path, f)
		if held {
			return &lock{path: path, f: f}, nil
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
	}
}

// lockOpen locks f, opened from path, and reports whether path still names f.
func lockOpen(path string, f *os.File) (bool, error) {
	opened, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !opened.Mode().IsRegular() {
		return false, fmt.Errorf("not a regular file")
	}
	if err := flock(f); err != nil {
		return false, err
	}
	now, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(opened, now), nil
}

// release removes the lock file and releases the lock. It does nothing on a nil lock.
func (l *lock) release() error {
	if l == nil {
		return nil
	}
	err := os.Remove(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if cerr := l.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unlocking %s: %w", l.path, err)
	}
	return nil
}
