package snapshot

import (
	"bytes"
	"io"
	"io/fs"
	"sync"
)

// fileCache is the operating system's files as a store's reloads read them:
// the bytes of each input read are kept with the identity (size,
// modification and change time, inode) the file had, and a reload that
// finds a file with the same identity reads it from memory. A one-app edit
// in a tree of 10 000 apps then opens one file, not 10 000; the periodic
// rescan empties the cache and reads everything again.
type fileCache struct {
	mu    sync.Mutex
	files map[string]cachedFile // by name in the root file system
}

type cachedFile struct {
	id   identity
	data []byte
}

func newFileCache() *fileCache { return &fileCache{files: map[string]cachedFile{}} }

// forget empties the cache.
func (c *fileCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = map[string]cachedFile{}
}

// reading is the file system one reload reads through, over base (the
// root file system as the reload reads it, contain.go). Its Stat records
// what each file is, and Open serves a file from memory when that is what
// the cache holds.
func (c *fileCache) reading(base osRoot) *cachedReading {
	return &cachedReading{cache: c, base: base, stats: map[string]fs.FileInfo{}, used: map[string]bool{}}
}

// osRoot is what os.DirFS offers: the check reads links and directories too.
type osRoot interface {
	fs.StatFS
	fs.ReadDirFS
	fs.ReadLinkFS
}

type cachedReading struct {
	cache *fileCache
	base  osRoot
	mu    sync.Mutex
	stats map[string]fs.FileInfo
	used  map[string]bool
}

func (r *cachedReading) Stat(name string) (fs.FileInfo, error) {
	info, err := r.base.Stat(name)
	if err == nil {
		r.mu.Lock()
		r.stats[name] = info
		r.mu.Unlock()
	}
	return info, err
}

func (r *cachedReading) Lstat(name string) (fs.FileInfo, error) { return r.base.Lstat(name) }
func (r *cachedReading) ReadLink(name string) (string, error)   { return r.base.ReadLink(name) }
func (r *cachedReading) ReadDir(name string) ([]fs.DirEntry, error) {
	return r.base.ReadDir(name)
}

// Open serves a regular file from the cache when its identity, as Stat just
// found it, is the one the cache read it under; otherwise it opens the file
// and keeps what is read through to its end.
func (r *cachedReading) Open(name string) (fs.File, error) {
	r.mu.Lock()
	info := r.stats[name]
	r.used[name] = true
	r.mu.Unlock()
	if info != nil && info.Mode().IsRegular() {
		id := identityOf(info)
		r.cache.mu.Lock()
		cf, ok := r.cache.files[name]
		r.cache.mu.Unlock()
		if ok && id.known && cf.id == id {
			return &memFile{info: info, r: bytes.NewReader(cf.data)}, nil
		}
	}
	f, err := r.base.Open(name)
	if err != nil || info == nil || !info.Mode().IsRegular() {
		return f, err
	}
	return &teeFile{File: f, reading: r, name: name, id: identityOf(info)}, nil
}

// done drops the files this reading did not read: they are no longer inputs.
func (r *cachedReading) done() {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.cache.files {
		if !r.used[name] {
			delete(r.cache.files, name)
		}
	}
}

// teeFile keeps what is read of a file; read to its end, the bytes join the
// cache under the identity the file had when it was opened.
type teeFile struct {
	fs.File
	reading *cachedReading
	name    string
	id      identity
	buf     bytes.Buffer
	eof     bool
}

func (t *teeFile) Read(p []byte) (int, error) {
	n, err := t.File.Read(p)
	t.buf.Write(p[:n])
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

func (t *teeFile) Close() error {
	if t.eof && t.id.known {
		c := t.reading.cache
		c.mu.Lock()
		c.files[t.name] = cachedFile{id: t.id, data: bytes.Clone(t.buf.Bytes())}
		c.mu.Unlock()
	}
	return t.File.Close()
}

// memFile is a cached file, read from memory.
type memFile struct {
	info fs.FileInfo
	r    *bytes.Reader
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Read(p []byte) (int, error) { return m.r.Read(p) }
func (m *memFile) Close() error               { return nil }
