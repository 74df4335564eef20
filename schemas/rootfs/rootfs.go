package rootfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sync/atomic"
)

// FS is a confined, read-only file system (see the package documentation).
type FS interface {
	fs.StatFS
	fs.ReadFileFS
	fs.ReadDirFS
	// Path returns name as users see it in messages: the path they would type to reach it.
	Path(name string) string
}

// Limits bound what an FS reads.
type Limits struct {
	// MaxFileSize is the largest file ReadFile reads, in bytes.
	MaxFileSize int64
	// MaxTotalSize is the most all reads of one FS together may return, in bytes.
	MaxTotalSize int64
}

// DefaultLimits are the limits used when none are given: 256 MiB a file (the largest CSV of the
// community catalog is 1.3 MB, a whole per-package FBC file of a Red Hat index about 30 MB) and
// 4 GiB in all (the whole community catalog's manifests are 2.2 GB).
func DefaultLimits() Limits {
	return Limits{MaxFileSize: 256 << 20, MaxTotalSize: 4 << 30}
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = d.MaxFileSize
	}
	if l.MaxTotalSize <= 0 {
		l.MaxTotalSize = d.MaxTotalSize
	}
	return l
}

// Errors an FS returns, wrapped in *fs.PathError naming the file.
var (
	// ErrOutside is returned for a name or path outside the root.
	ErrOutside = errors.New("outside the root")
	// ErrNotRegular is returned for a file that is neither a regular file nor a directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is returned for a file over the size limit, or a read over the total budget.
	ErrTooLarge = errors.New("over the size limit")
)

// budget counts the bytes all reads of one FS returned.
type budget struct {
	limits Limits
	used   atomic.Int64
}

// take charges n bytes to the budget, failing when the total would pass the limit.
func (b *budget) take(n int64) error {
	if b.used.Add(n) > b.limits.MaxTotalSize {
		return fmt.Errorf("%w: more than %d bytes read in all (raise --max-total-size)", ErrTooLarge, b.limits.MaxTotalSize)
	}
	return nil
}

// readLimited reads r to its end, failing beyond the file limit; it never reads more than one
// byte past the limit.
func (b *budget) readLimited(r io.Reader, sizeHint int64) ([]byte, error) {
	limit := b.limits.MaxFileSize
	if sizeHint > limit {
		return nil, fmt.Errorf("%w: %d bytes, more than %d (raise --max-file-size)", ErrTooLarge, sizeHint, limit)
	}
	buf := make([]byte, 0, max(min(sizeHint, limit)+1, 512))
	data, err := readAllInto(buf, io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes (raise --max-file-size)", ErrTooLarge, limit)
	}
	if err := b.take(int64(len(data))); err != nil {
		return nil, err
	}
	return data, nil
}

// readAllInto is io.ReadAll into a buffer with a capacity hint.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// Join joins a name with a path relative to it (slash-separated), as a file's relative reference
// is resolved against the file's directory; it fails with ErrOutside when the result leaves the
// root.
func Join(dir, rel string) (string, error) {
	if path.IsAbs(rel) {
		return "", &fs.PathError{Op: "open", Path: rel, Err: ErrOutside}
	}
	joined := path.Join(dir, rel)
	if !fs.ValidPath(joined) {
		return "", &fs.PathError{Op: "open", Path: rel, Err: ErrOutside}
	}
	return joined, nil
}

// Describe returns a short, content-free description of err for messages: the underlying cause
// without the path (callers name the file themselves).
func Describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// PathOf returns the path an error of an FS names, as users see it, or fallback when it names
// none: with Describe, a message that names the file that failed rather than the directory
// being walked.
func PathOf(err error, fallback string) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != "" {
		return pe.Path
	}
	return fallback
}
