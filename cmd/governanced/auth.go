package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/api"
)

// authConfig is the optional bearer authentication of serve: the tokens and
// where they came from (for the start-up log line; the tokens never reach a log).
type authConfig struct {
	tokens []string
	source string
	file   string // the token file, re-read on SIGHUP; "" for none
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
	data, err := os.ReadFile(file)
	if err != nil {
		return authConfig{}, fmt.Errorf("--auth-token-file: %v", err)
	}
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

// reloadAuth re-reads the token file on SIGHUP and swaps the accepted tokens:
// a rotation (a new token added, later the old one removed) needs no
// restart. A file that no longer reads, or holds no valid token, keeps the
// tokens in use and says so: a reload never opens the routes.
func reloadAuth(log zerolog.Logger, c authConfig, tokens *api.Tokens) {
	if c.file == "" || tokens == nil {
		return
	}
	next, err := loadAuth(c.file, func(string) string { return "" })
	if err == nil {
		err = tokens.Replace(next.tokens)
	}
	if err != nil {
		log.Error().Err(err).Msg("auth tokens not reloaded: the tokens in use stay")
		return
	}
	log.Info().Str("token_source", next.source).Int("tokens", len(next.tokens)).Msg("auth tokens reloaded")
}
