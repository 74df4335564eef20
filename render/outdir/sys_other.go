//go:build !unix

package outdir

const (
	// noFollow is 0 where open has no O_NOFOLLOW; os.Root and O_EXCL still refuse to follow.
	noFollow = 0
	// nonBlock is 0 where open has no O_NONBLOCK.
	nonBlock = 0
)

// syncDir does nothing: directories cannot be synced here.
func syncDir(string) error { return nil }
