package api

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/memfs"
)

// An upload is a tree sent to POST /validate or /diff: a tar, a
// gzip-compressed tar, or multipart/form-data whose parts' filenames are
// relative paths (for /diff, whose parts are archives). It is read into a
// file system in memory with nothing but regular files and directories: no
// absolute path, no "..", no symlink, hard link or device, and at most
// maxFiles entries and maxBytes of content. Anything else refuses the whole
// upload — the check must see exactly the tree the client meant. Nothing is
// written to disk, so nothing outlives the request.
//
// Every route reads its body with the same two readers: formParts, the one
// multipart reader (also the dbt artifacts of POST /policy/evaluate), and
// extractArchive, the one archive reader, whose kind bodyKind and
// sniffArchive tell.

// uploadKind is how a body is encoded.
type uploadKind int

const (
	uploadTar uploadKind = iota
	uploadGzip
	uploadMultipart
)

// errUploadTooLarge is an upload over the extraction limits (413).
var errUploadTooLarge = errors.New("upload too large")

// extractor reads an upload's entries into tree within limits.
type extractor struct {
	tree     memfs.FS
	maxFiles int
	maxBytes int64
	entries  int
	written  int64
	mem      *account // charged for the files as they are read; nil for none
	// parseLimit is the largest file a check parses (a larger one is a
	// finding, unread); costliest is parseCost of the costliest such file.
	parseLimit int
	costliest  int64
}

// safeRelPath turns an entry name into a slash path relative to the upload
// root, refusing every name that could leave it. ok is false for a name that
// denotes the root itself ("." or "./").
func safeRelPath(name string) (rel string, ok bool, err error) {
	switch {
	case name == "":
		return "", false, fmt.Errorf("an entry has an empty name")
	case strings.ContainsRune(name, 0):
		return "", false, fmt.Errorf("entry %q: a name must not contain NUL", name)
	case strings.Contains(name, `\`):
		return "", false, fmt.Errorf("entry %q: a name must use / as separator", name)
	case strings.HasPrefix(name, "/"):
		return "", false, fmt.Errorf("entry %q: an absolute path is not allowed", name)
	case len(name) >= 2 && name[1] == ':':
		return "", false, fmt.Errorf("entry %q: a drive letter is not allowed", name)
	}
	var parts []string
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			//lint:ignore ST1005 the message ends with the path segment it refuses
			return "", false, fmt.Errorf("entry %q: a path must not contain ..", name)
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return "", false, nil
	}
	return strings.Join(parts, "/"), true, nil
}

func (x *extractor) count() error {
	x.entries++
	if x.entries > x.maxFiles {
		return fmt.Errorf("%w: more than %d entries", errUploadTooLarge, x.maxFiles)
	}
	return nil
}

func (x *extractor) mkdir(name string) error {
	rel, ok, err := safeRelPath(name)
	if err != nil || !ok {
		return err
	}
	if err := x.count(); err != nil {
		return err
	}
	if err := x.tree.AddDir(rel); err != nil {
		return fmt.Errorf("entry %q: %w", name, memfs.ErrExist)
	}
	return nil
}

func (x *extractor) file(name string, r io.Reader) error {
	rel, ok, err := safeRelPath(name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("entry %q: a file needs a name", name)
	}
	if err := x.count(); err != nil {
		return err
	}
	left := x.maxBytes - x.written
	if x.mem != nil {
		r = &chargedReader{r: r, acct: x.mem, cost: uploadCost}
	}
	data, err := io.ReadAll(io.LimitReader(r, left+1))
	x.written += int64(len(data))
	if len(data) <= x.parseLimit {
		x.costliest = max(x.costliest, parseCost(data))
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	if int64(len(data)) > left {
		return fmt.Errorf("%w: more than %d bytes of files", errUploadTooLarge, x.maxBytes)
	}
	if info, err := x.tree.Stat(rel); err == nil && !info.IsDir() {
		// A name given twice is refused rather than one copy silently winning.
		return fmt.Errorf("entry %q appears twice", name)
	}
	if err := x.tree.Add(rel, data); err != nil {
		return fmt.Errorf("entry %q: %w", name, memfs.ErrExist)
	}
	return nil
}

// extractTar reads a tar stream.
func (x *extractor) extractTar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not a readable tar archive: %w", err)
		}
		switch h.Typeflag {
		case tar.TypeReg: // the reader reports old archivers' TypeRegA as TypeReg
			if err := x.file(h.Name, tr); err != nil {
				return err
			}
		case tar.TypeDir:
			if err := x.mkdir(h.Name); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader:
			// Archive-wide metadata (git archive writes the commit here).
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("entry %q is a link; an upload holds regular files and directories only", h.Name)
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return fmt.Errorf("entry %q is a device or pipe; an upload holds regular files and directories only", h.Name)
		default:
			return fmt.Errorf("entry %q has tar type %q; an upload holds regular files and directories only", h.Name, h.Typeflag)
		}
	}
}

// extractGzip reads a gzip-compressed tar stream. The decompressed stream is
// bounded too, so a small body cannot expand without limit in tar padding.
func (x *extractor) extractGzip(r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip stream: %w", err)
	}
	defer zr.Close()
	budget := x.maxBytes + int64(x.maxFiles+2)*2048
	lr := &limitedReader{r: zr, left: budget}
	if err := x.extractTar(lr); err != nil {
		if lr.hit {
			return fmt.Errorf("%w: the archive decompresses to more than %d bytes", errUploadTooLarge, budget)
		}
		return err
	}
	return nil
}

// limitedReader is io.LimitReader that remembers running out.
type limitedReader struct {
	r    io.Reader
	left int64
	hit  bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.hit = true
		return 0, io.ErrUnexpectedEOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// formParts reads a multipart/form-data body of a Content-Type (whose
// boundary it takes): each is called with every
// part in turn, its form name, its filename as sent (the raw
// Content-Disposition parameter, not the base name mime/multipart reduces
// it to; "" for none) and its content, until the body ends or each fails.
// It is the one multipart reader of the server's routes.
func formParts(contentType string, body io.Reader, each func(name, filename string, content io.Reader) error) error {
	_, params, _ := mime.ParseMediaType(contentType)
	if params["boundary"] == "" {
		return fmt.Errorf("multipart/form-data without a boundary")
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not a readable multipart body: %w", err)
		}
		_, disposition, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		err = each(part.FormName(), disposition["filename"], part)
		part.Close()
		if err != nil {
			return err
		}
	}
}

// bodyKind decides how a body is encoded from its media type, sniffing the
// bytes when the type says nothing specific (curl --data-binary without -H).
func bodyKind(r *http.Request, body *bufio.Reader) (uploadKind, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "application/x-tar", "application/tar":
		return uploadTar, nil
	case "application/gzip", "application/x-gzip", "application/tar+gzip", "application/x-compressed-tar", "application/x-tgz":
		return uploadGzip, nil
	case "multipart/form-data":
		return uploadMultipart, nil
	case "", "application/octet-stream", "application/x-www-form-urlencoded":
		if kind, ok := sniffArchive(body); ok {
			return kind, nil
		}
	}
	return 0, &requestError{status: http.StatusUnsupportedMediaType, kind: "unsupported-media-type",
		detail: fmt.Sprintf("send the tree as application/x-tar, application/gzip or multipart/form-data (got %q)", ct)}
}

// sniffArchive tells a gzip stream or a tar archive by its first bytes,
// without consuming them.
func sniffArchive(br *bufio.Reader) (uploadKind, bool) {
	head, _ := br.Peek(262)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return uploadGzip, true
	case len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar")):
		return uploadTar, true
	}
	return 0, false
}

// extractArchive reads a tar or gzip archive into x: the one archive reader.
func (x *extractor) extractArchive(kind uploadKind, r io.Reader) error {
	if kind == uploadGzip {
		return x.extractGzip(r)
	}
	return x.extractTar(r)
}

// extractFiles reads a multipart body of a Content-Type whose every part
// is a file, named by its filename, its path in the tree.
func (x *extractor) extractFiles(contentType string, body io.Reader) error {
	return formParts(contentType, body, func(name, filename string, content io.Reader) error {
		if filename == "" {
			return fmt.Errorf("part %q has no filename; every part is a file named by its path in the tree", name)
		}
		return x.file(filename, content)
	})
}

// documentName is what POST /validate calls a lone YAML document: the base
// file of a one-app tree, which is how the check reads it.
const documentName = "governance.yaml"

// isDocument reports whether the body is one YAML document rather than an
// archive: POST /validate then checks it alone, as the library's
// validate(data) checks one document.
func isDocument(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml":
		return true
	}
	return false
}

// documentOptions refuses the check options that name files of an archive
// for a lone document, which has no other file to name.
func documentOptions(opts check.Options) error {
	if len(opts.Paths) > 0 || len(opts.Owners) > 0 || opts.OverlayDir != nil || opts.OverlayName != nil || opts.PlaceholdersFile != nil {
		return badRequest("a single YAML document is checked alone: path, owners, overlay_dir, overlay_name and placeholders name files of an archive; send a tar, gzip or multipart body to use them")
	}
	return nil
}
