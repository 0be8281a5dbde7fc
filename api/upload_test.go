package api

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
)

type entry struct {
	name     string
	typeflag byte
	body     string
	link     string
}

func tarOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typeflag, Mode: 0o644, Size: int64(len(e.body)), Linkname: e.link}
		if e.typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typeflag == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	return buf.Bytes()
}

// gzipOf is b gzip-compressed, as a client sends an upload.
func gzipOf(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestSafeRelPath(t *testing.T) {
	tests := []struct {
		in, want string
		ok, fail bool
	}{
		{in: "apps/a/governance.yaml", want: "apps/a/governance.yaml", ok: true},
		{in: "./apps//a/./governance.yaml", want: "apps/a/governance.yaml", ok: true},
		{in: "./", ok: false},
		{in: ".", ok: false},
		{in: "../etc/passwd", fail: true},
		{in: "apps/../../x", fail: true},
		{in: "/etc/passwd", fail: true},
		{in: `apps\..\x`, fail: true},
		{in: "C:/x", fail: true},
		{in: "a\x00b", fail: true},
		{in: "", fail: true},
		{in: "..", fail: true},
		{in: "..foo/bar", want: "..foo/bar", ok: true},
	}
	for _, tt := range tests {
		got, ok, err := safeRelPath(tt.in)
		if (err != nil) != tt.fail || ok != tt.ok || got != tt.want {
			t.Errorf("safeRelPath(%q) = %q, %v, %v", tt.in, got, ok, err)
		}
	}
}

func TestExtract(t *testing.T) {
	good := entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {}\n"}
	tests := []struct {
		name     string
		entries  []entry
		maxFiles int
		maxBytes int64
		tooLarge bool
		fail     string // a substring of the error; "" for success
	}{
		{name: "files and directories", entries: []entry{{name: "apps/", typeflag: tar.TypeDir}, good, {name: "owners.yaml", typeflag: tar.TypeReg, body: "owners: []\n"}}},
		{name: "traversal", entries: []entry{{name: "../escape.yaml", typeflag: tar.TypeReg, body: "x"}}, fail: ".."},
		{name: "absolute", entries: []entry{{name: "/tmp/escape.yaml", typeflag: tar.TypeReg, body: "x"}}, fail: "absolute"},
		{name: "symlink", entries: []entry{{name: "apps/link", typeflag: tar.TypeSymlink, link: "/etc"}}, fail: "link"},
		{name: "hard link", entries: []entry{good, {name: "apps/b", typeflag: tar.TypeLink, link: "apps/a/governance.yaml"}}, fail: "link"},
		{name: "device", entries: []entry{{name: "dev", typeflag: tar.TypeChar}}, fail: "device"},
		{name: "fifo", entries: []entry{{name: "fifo", typeflag: tar.TypeFifo}}, fail: "device or pipe"},
		{name: "twice", entries: []entry{good, good}, fail: "twice"},
		{name: "file below a file", entries: []entry{good, {name: "apps/a/governance.yaml/x", typeflag: tar.TypeReg, body: "x"}}, fail: "collides"},
		{name: "too many files", entries: []entry{good, {name: "b", typeflag: tar.TypeReg}, {name: "c", typeflag: tar.TypeReg}}, maxFiles: 2, tooLarge: true},
		{name: "too many bytes", entries: []entry{{name: "big", typeflag: tar.TypeReg, body: strings.Repeat("x", 100)}}, maxBytes: 99, tooLarge: true},
		{name: "exactly the byte limit", entries: []entry{{name: "big", typeflag: tar.TypeReg, body: strings.Repeat("x", 100)}}, maxBytes: 100},
	}
	for _, tt := range tests {
		for _, compressed := range []bool{false, true} {
			name := tt.name
			if compressed {
				name += "/gzip"
			}
			t.Run(name, func(t *testing.T) {
				x := &extractor{maxFiles: 100, maxBytes: 1 << 20}
				if tt.maxFiles > 0 {
					x.maxFiles = tt.maxFiles
				}
				if tt.maxBytes > 0 {
					x.maxBytes = tt.maxBytes
				}
				data := tarOf(t, tt.entries...)
				var err error
				if compressed {
					err = x.extractGzip(bytes.NewReader(gzipOf(data)))
				} else {
					err = x.extractTar(bytes.NewReader(data))
				}
				switch {
				case tt.tooLarge:
					if !errors.Is(err, errUploadTooLarge) {
						t.Fatalf("err = %v, want too large", err)
					}
				case tt.fail != "":
					if err == nil || !strings.Contains(err.Error(), tt.fail) {
						t.Fatalf("err = %v, want one mentioning %q", err, tt.fail)
					}
				case err != nil:
					t.Fatal(err)
				}
				assertContained(t, x)
			})
		}
	}
}

// assertContained checks that extraction kept within its limits and holds
// nothing but regular files and directories with valid names.
func assertContained(t testing.TB, x *extractor) {
	t.Helper()
	files, size := 0, int64(0)
	err := fs.WalkDir(&x.tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !fs.ValidPath(p) || d.Type()&^fs.ModeDir != 0 {
			t.Errorf("%s: not a regular file or directory with a valid name (%v)", p, d.Type())
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			files++
			size += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files > x.maxFiles || size > x.maxBytes {
		t.Errorf("%d files, %d bytes: over the limits %d, %d", files, size, x.maxFiles, x.maxBytes)
	}
}

func multipartOf(t testing.TB, files map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for name, body := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+name+`"`)
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func TestExtractMultipartKeepsDirectories(t *testing.T) {
	ct, body := multipartOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {}\n", "owners.yaml": "owners: []\n"})
	req := httptest.NewRequest("POST", "/validate", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	x := &extractor{maxFiles: 10, maxBytes: 1 << 20}
	if err := readUpload(req, bufio.NewReader(req.Body), x); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(&x.tree, "apps/a/governance.yaml"); err != nil {
		t.Errorf("the part's directories were not kept: %v", err)
	}
	ct, body = multipartOf(t, map[string]string{"../x.yaml": "x"})
	req = httptest.NewRequest("POST", "/validate", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	err := readUpload(req, bufio.NewReader(req.Body), &extractor{maxFiles: 10, maxBytes: 1 << 20})
	var re *requestError
	if !errors.As(err, &re) || re.status != http.StatusBadRequest {
		t.Errorf("traversal in a part: err = %v, want 400", err)
	}
}

func TestValidateEndpoint(t *testing.T) {
	h, _ := testServer(t)
	good := tarOf(t, entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	undeclared := tarOf(t, entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {}\nsources:\n  ds.x: {expose: true}\n"})
	ct, mp := multipartOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	tests := []struct {
		name, query, contentType string
		body                     []byte
		status                   int
		ok                       bool
	}{
		{name: "tar", contentType: "application/x-tar", body: good, status: 200, ok: true},
		{name: "gzip", contentType: "application/gzip", body: gzipOf(good), status: 200, ok: true},
		{name: "sniffed gzip", contentType: "application/x-www-form-urlencoded", body: gzipOf(good), status: 200, ok: true},
		{name: "sniffed tar", contentType: "", body: good, status: 200, ok: true},
		{name: "multipart", contentType: ct, body: mp, status: 200, ok: true},
		{name: "warning passes", contentType: "application/x-tar", body: undeclared, status: 200, ok: true},
		{name: "warning fails under strict", query: "?strict=true", contentType: "application/x-tar", body: undeclared, status: 200, ok: false},
		{name: "explicit path", query: "?path=apps/a", contentType: "application/x-tar", body: good, status: 200, ok: true},
		{name: "path outside", query: "?path=../x", contentType: "application/x-tar", body: good, status: 400},
		{name: "owners outside", query: "?owners=/etc/owners.yaml", contentType: "application/x-tar", body: good, status: 400},
		{name: "usage error", query: "?dataspace=true", contentType: "application/x-tar", body: good, status: 400},
		{name: "bad overlay name", query: "?overlay_name=a/b", contentType: "application/x-tar", body: good, status: 400},
		{name: "garbage", contentType: "application/gzip", body: []byte("garbage"), status: 400},
		{name: "unknown type", contentType: "text/csv", body: []byte("a,b"), status: 415},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.contentType != "" {
				hdr = []string{"Content-Type", tt.contentType}
			}
			r := do(t, h, "POST", "/validate"+tt.query, bytes.NewReader(tt.body), hdr...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d\n%s", r.status, tt.status, r.body)
			}
			if tt.status != 200 {
				return
			}
			var rep struct {
				OK bool `json:"ok"`
			}
			if err := json.Unmarshal(r.body, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.OK != tt.ok {
				t.Errorf("ok %v, want %v\n%s", rep.OK, tt.ok, r.body)
			}
		})
	}
}

func TestValidateUploadLimits(t *testing.T) {
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxBodyBytes: 2048, MaxUploadFiles: 2}})
	big := tarOf(t, entry{name: "a", typeflag: tar.TypeReg, body: strings.Repeat("x", 4096)})
	if r := do(t, h, "POST", "/validate", bytes.NewReader(big), "Content-Type", "application/x-tar"); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("body over the limit: status %d, want 413\n%s", r.status, r.body)
	}
	many := tarOf(t, entry{name: "a", typeflag: tar.TypeReg}, entry{name: "b", typeflag: tar.TypeReg}, entry{name: "c", typeflag: tar.TypeReg})
	if r := do(t, h, "POST", "/validate", bytes.NewReader(many), "Content-Type", "application/x-tar"); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("too many files: status %d, want 413\n%s", r.status, r.body)
	}
}

// FuzzExtractTar: whatever the bytes, extraction never panics, keeps within
// its limits and holds no link or device.
func FuzzExtractTar(f *testing.F) {
	f.Add(tarOf(f, entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {}\n"}))
	f.Add(tarOf(f, entry{name: "../x", typeflag: tar.TypeReg, body: "x"}))
	f.Add(tarOf(f, entry{name: "l", typeflag: tar.TypeSymlink, link: "/"}, entry{name: "l/x", typeflag: tar.TypeReg, body: "x"}))
	f.Add(gzipOf(tarOf(f, entry{name: "d/", typeflag: tar.TypeDir}, entry{name: "d/f", typeflag: tar.TypeReg, body: "y"})))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := &extractor{maxFiles: 64, maxBytes: 1 << 16}
		br := bufio.NewReader(bytes.NewReader(data))
		kind, _ := sniffArchive(br) // a tar when it says nothing
		_ = x.extractArchive(kind, br)
		assertContained(t, x)
	})
}

// FuzzExtractMultipart is the same promise for multipart bodies.
func FuzzExtractMultipart(f *testing.F) {
	_, body := multipartOf(f, map[string]string{"apps/a/governance.yaml": "defaults: {}\n"})
	f.Add(body)
	_, body = multipartOf(f, map[string]string{"../../x": "x"})
	f.Add(body)
	f.Fuzz(func(t *testing.T, data []byte) {
		x := &extractor{maxFiles: 64, maxBytes: 1 << 16}
		// multipartOf's writer picks a random boundary; read the body with the
		// boundary it starts with.
		boundary := ""
		if i := bytes.IndexByte(data, '\r'); i > 2 && bytes.HasPrefix(data, []byte("--")) {
			boundary = string(data[2:i])
		}
		if boundary == "" {
			return
		}
		_ = x.extractFiles(mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": boundary}), bytes.NewReader(data))
		assertContained(t, x)
	})
}
