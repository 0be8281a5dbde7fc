package main

import (
	"io"
	"os"
	"sync"
	"time"
)

// lineBuffer batches log lines on their way to a file or pipe. Every request
// logs a line; written one by one that is a system call per request, and
// under load a log file on a busy disk holds up every request waiting to
// write its line. Lines are kept in order and written within flushEvery, or
// at once when the batch grows large; a process killed hard loses at most
// that window.
type lineBuffer struct {
	out     io.Writer
	flushMu sync.Mutex // one batch on its way out at a time, in order
	mu      sync.Mutex // guards buf
	buf     []byte
	spare   []byte
	stop    chan struct{}
	done    chan struct{}
}

const (
	flushEvery = 50 * time.Millisecond
	flushAt    = 64 << 10
)

// bufferLog wraps the log's destination when it is a file (the process's
// stderr), and returns the writer and a flush that must run before the process
// writes to the same destination directly, and at exit. Anything else (a test's
// buffer) is written to directly.
func bufferLog(w io.Writer) (io.Writer, func()) {
	if _, ok := w.(*os.File); !ok {
		return w, func() {}
	}
	b := &lineBuffer{out: w, stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop()
	var once sync.Once
	return b, func() {
		once.Do(func() { close(b.stop); <-b.done })
		b.flush()
	}
}

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	full := len(b.buf) >= flushAt
	b.mu.Unlock()
	if full {
		b.flush()
	}
	return len(p), nil
}

func (b *lineBuffer) flush() {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	out := b.buf
	b.buf = b.spare[:0]
	b.mu.Unlock()
	if len(out) > 0 {
		_, _ = b.out.Write(out)
	}
	b.spare = out
}

func (b *lineBuffer) loop() {
	defer close(b.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.flush()
		case <-b.stop:
			return
		}
	}
}
