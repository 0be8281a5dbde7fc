package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/api"
)

// authConfig is the optional bearer authentication of serve: the tokens and
// where they came from (for the start-up log line; the tokens never reach a log).
type authConfig struct {
	tokens []string
	source string
	file   string // the token file, re-read as it changes and on SIGHUP; "" for none
	data   []byte // what the tokens were read from
}

// minTokenLength keeps a token out of reach of guessing.
const minTokenLength = 16

// loadAuth reads the tokens: from the file named by --auth-token-file (or
// GOVERNANCED_AUTH_TOKEN_FILE), one per line, blank lines and # comments
// ignored — several lines let a token be rotated without a gap — or from
// GOVERNANCED_AUTH_TOKEN itself. Naming both is refused: which one wins would
// be a guess. Neither leaves authentication off.
func loadAuth(file string, getenv func(string) string) (authConfig, error) {
	env := getenv("GOVERNANCED_AUTH_TOKEN")
	switch {
	case file != "" && env != "":
		return authConfig{}, fmt.Errorf("set --auth-token-file (GOVERNANCED_AUTH_TOKEN_FILE) or GOVERNANCED_AUTH_TOKEN, not both")
	case env != "":
		tok := strings.TrimSpace(env)
		if err := checkToken(tok); err != nil {
			return authConfig{}, fmt.Errorf("GOVERNANCED_AUTH_TOKEN: %v", err)
		}
		return authConfig{tokens: []string{tok}, source: "environment GOVERNANCED_AUTH_TOKEN"}, nil
	case file == "":
		return authConfig{}, nil
	}
	data, err := readWhole(file)
	if err != nil {
		return authConfig{}, fmt.Errorf("--auth-token-file: %v", err)
	}
	c, err := parseTokenFile(file, data)
	if err != nil {
		return authConfig{}, err
	}
	c.data = data
	return c, nil
}

// parseTokenFile reads the tokens of a token file's contents.
func parseTokenFile(file string, data []byte) (authConfig, error) {
	c := authConfig{source: "file " + file, file: file}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		tok := strings.TrimSpace(sc.Text())
		if tok == "" || strings.HasPrefix(tok, "#") {
			continue
		}
		if err := checkToken(tok); err != nil {
			return authConfig{}, fmt.Errorf("--auth-token-file %s, line %d: %v", file, line, err)
		}
		c.tokens = append(c.tokens, tok)
	}
	if err := sc.Err(); err != nil {
		return authConfig{}, fmt.Errorf("--auth-token-file %s: %v", file, err)
	}
	if len(c.tokens) == 0 {
		return authConfig{}, fmt.Errorf("--auth-token-file %s holds no token (one per line; # starts a comment)", file)
	}
	return c, nil
}

// checkToken holds a token to RFC 6750's b64token syntax, so that it travels
// in an Authorization header unchanged, and to a minimum length. The message
// never quotes the token.
func checkToken(tok string) error {
	if len(tok) < minTokenLength {
		return fmt.Errorf("a token must be at least %d characters long", minTokenLength)
	}
	body := strings.TrimRight(tok, "=")
	if body == "" {
		return fmt.Errorf("a token must not be only '='")
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return fmt.Errorf("a token may hold only letters, digits and - . _ ~ + / (then trailing =), as a bearer token does (RFC 6750)")
		}
	}
	return nil
}

// logAuth says at start-up whether the costly routes are protected. Off is
// the default and is said loudly: a deployment should decide, not forget.
func logAuth(log zerolog.Logger, c authConfig) {
	if len(c.tokens) == 0 {
		log.Warn().Str("auth", "off").
			Msg("AUTHENTICATION IS OFF: anyone who reaches this port may POST /validate, /resolve, /merge, /policy/evaluate and read /metrics; set --auth-token-file or GOVERNANCED_AUTH_TOKEN to require a bearer token")
		return
	}
	log.Info().Str("auth", "bearer").Str("token_source", c.source).Int("tokens", len(c.tokens)).
		Msg("authentication on: every POST and GET /metrics require Authorization: Bearer <token>")
}

// The token file is read whole or not at all. A read during which the file
// changes is ignored (readWhole), and new contents are taken only once two
// reads, tokenSettle apart, agree: a writer rewriting the file in place
// (truncate, then write) is seen between its writes as a prefix of the new
// token, which is itself a well-formed token once it is 16 characters long.
// Replacing the file atomically (a rename, a Kubernetes secret's ..data
// link) costs the second read only. A writer that pauses longer than
// tokenSettle in the middle of a token can still have its prefix read
// twice alike: write the file atomically.

// tokenSettle is the time between the two reads of a changed token file.
const tokenSettle = 250 * time.Millisecond

// maxTokenReads bounds the reads of a token file that keeps changing; the
// next change of the file tries again.
const maxTokenReads = 8

// pauseBetweenTokenReads waits between two reads of the token file; a test
// replaces it to write between them.
var pauseBetweenTokenReads = func() { time.Sleep(tokenSettle) }

// errChangedWhileRead is a read of a file that changed under it.
var errChangedWhileRead = errors.New("the file changed while it was read")

// readWhole reads a file, or fails when it changed during the read: its
// identity, size or modification time differ before and after, or the
// bytes read are not its size.
func readWhole(path string) ([]byte, error) { return readWholeAfter(path, nil) }

// readWholeAfter is readWhole, running during (when not nil) between the
// first look at the file and the read: a test changes the file there.
func readWholeAfter(path string, during func()) ([]byte, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if during != nil {
		during()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	after, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, after) || before.Size() != after.Size() || !before.ModTime().Equal(after.ModTime()) || int64(len(data)) != after.Size() {
		return nil, errChangedWhileRead
	}
	return data, nil
}

// tokenFile follows the token file: reload, on each change of the file and
// on SIGHUP, swaps the accepted tokens once the new contents have settled.
// A rotation (a new token added, later the old one removed) needs no
// restart. A file that no longer reads, or holds no valid token, keeps the
// tokens in use and says so: a reload never opens the routes.
type tokenFile struct {
	path     string
	accepted []byte // the contents the tokens in use were read from
}

func (f *tokenFile) reload(log zerolog.Logger, tokens *api.Tokens) {
	if f == nil || tokens == nil {
		return
	}
	prev, err := readWhole(f.path)
	if err == nil && bytes.Equal(prev, f.accepted) {
		return // the tokens in use (a SIGHUP, an event of another write)
	}
	for i := 0; err == nil && i < maxTokenReads; i++ {
		pauseBetweenTokenReads()
		var cur []byte
		if cur, err = readWhole(f.path); err == nil && bytes.Equal(cur, prev) {
			f.accept(log, tokens, cur)
			return
		}
		prev = cur
	}
	if err == nil {
		err = errors.New("it kept changing; the next change tries again")
	}
	log.Error().Err(fmt.Errorf("--auth-token-file %s: %w", f.path, err)).Msg("auth tokens not reloaded: the tokens in use stay")
}

// accept makes the tokens of data, which two reads agreed on, the accepted
// ones.
func (f *tokenFile) accept(log zerolog.Logger, tokens *api.Tokens, data []byte) {
	next, err := parseTokenFile(f.path, data)
	if err == nil {
		err = tokens.Replace(next.tokens)
	}
	if err != nil {
		log.Error().Err(err).Msg("auth tokens not reloaded: the tokens in use stay")
		return
	}
	f.accepted = data
	log.Info().Str("token_source", next.source).Int("tokens", len(next.tokens)).Msg("auth tokens reloaded")
}
