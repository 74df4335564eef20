//go:build !unix

package rootfs

// openFlags are the extra open flags; none where O_NONBLOCK does not exist.
const openFlags = 0
