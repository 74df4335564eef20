package outdir

import (
	"errors"
	"fmt"
	"os"
)

// swap puts the temporary directory at dir, sets p.oldAt to where the old content went, and
// returns a function that undoes it (leaving the new content at p.tmp).
func (p *Pending) swap() (func() error, error) {
	if err := p.checkUnchanged(); err != nil {
		return nil, err
	}
	var undo func() error
	var err error
	if p.old == nil {
		undo, err = moveIn(p.tmp, p.dir)
	} else {
		undo, err = p.exchange()
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", p.dir, err)
	}
	return undo, nil
}

// checkUnchanged reports an error if dir is no longer what Prepare saw.
func (p *Pending) checkUnchanged() error {
	now, err := statDir(p.dir)
	switch {
	case err != nil:
		return err
	case (now == nil) != (p.old == nil) || now != nil && !os.SameFile(now, p.old):
		return fmt.Errorf("writing %s: it changed while being written", p.dir)
	}
	return nil
}

// exchange swaps tmp and dir, in one step where possible, else by renameAside.
func (p *Pending) exchange() (func() error, error) {
	err := exchange(p.tmp, p.dir)
	if errors.Is(err, errors.ErrUnsupported) {
		p.oldAt = p.tmp + ".old"
		return renameAside(p.tmp, p.dir, p.oldAt)
	}
	if err != nil {
		return nil, err
	}
	p.oldAt = p.tmp
	return func() error {
		if err := exchange(p.tmp, p.dir); err != nil {
			return fmt.Errorf("putting back %s: %w", p.dir, err)
		}
		return nil
	}, nil
}

// moveIn renames tmp to the missing dir; undo renames it back.
func moveIn(tmp, dir string) (func() error, error) {
	err := renameNoReplace(tmp, dir)
	if errors.Is(err, errors.ErrUnsupported) {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		return nil, err
	}
	return func() error {
		if err := os.Rename(dir, tmp); err != nil {
			return fmt.Errorf("removing %s again: %w", dir, err)
		}
		return nil
	}, nil
}

// renameAside renames dir to backup and tmp to dir, putting backup back if the second rename
// fails; undo moves dir back to tmp and backup back to dir.
func renameAside(tmp, dir, backup string) (func() error, error) {
	if err := os.Rename(dir, backup); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, errors.Join(err, restore(backup, dir))
	}
	return func() error {
		if err := os.Rename(dir, tmp); err != nil {
			return fmt.Errorf("putting back %s: %w", dir, err)
		}
		return restore(backup, dir)
	}, nil
}

// restore renames backup to dir.
func restore(backup, dir string) error {
	if err := os.Rename(backup, dir); err != nil {
		return fmt.Errorf("putting back %s (the old content is in %s): %w", dir, backup, err)
	}
	return nil
}
