// Package rootfs is confined, bounded, read-only file access: every loader of olm-render reads
// through it, so a render can never read outside the tree it was given, block on a FIFO or
// exhaust memory on a huge or endless file.
//
// # Guarantees
//
//   - Names are slash-separated and relative to the root (io/fs rules). A name that leaves the
//     root, directly (../x) or through a symbolic link, is refused with ErrOutside; Dir is built
//     on os.Root, so the check is the kernel's, not a comparison of path text.
//   - Only directories and regular files are opened. A FIFO, socket or device is refused by name
//     (ErrNotRegular) before anything is read, and is opened non-blocking so that even a file
//     swapped in between cannot block.
//   - Every file read is bounded by Limits.MaxFileSize, and all reads of one FS together by
//     Limits.MaxTotalSize (ErrTooLarge); a file is never read past its limit.
//   - Errors name the file as the user would type it (FS.Path) and never quote its content.
//
// Dir is a directory on disk; Map is an in-memory tree (an unpacked image, standard input).
package rootfs
