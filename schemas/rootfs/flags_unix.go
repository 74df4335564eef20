//go:build unix

package rootfs

import "syscall"

// openFlags make opening a FIFO return at once and a terminal never become the controlling one.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
