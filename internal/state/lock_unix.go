//go:build unix

package state

import (
	"os"
	"path/filepath"
	"syscall"
)

// lock locks the directory for writing (exclusive) or reading (shared),
// waiting for the lock, and returns what unlocks it. The lock is flock(2)'s
// on the lock file: held by an open file, so two servers sharing the
// directory exclude each other, and a server that dies lets it go.
func (d *Dir) lock(exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(d.path, lockName), os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
	return func() { f.Close() }, nil // closing the file lets the lock go
}
