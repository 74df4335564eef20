package outdir

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncWhole is true where one call flushes a whole new tree (syncTree): its files and
// directories are then not synced one by one.
const syncWhole = true

// syncTree flushes the file system holding root to disk (syncfs(2)): every file and directory
// a tree wrote there, in one call instead of one fsync each.
func syncTree(root *os.Root) error {
	f, err := root.OpenFile(".", os.O_RDONLY|noFollow, 0)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", root.Name(), err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("syncing %s: %w", root.Name(), err)
	}
	return nil
}
