package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
)

// Optional bearer-token authentication. The read routes serve the governance
// tree to anyone who can reach the port (dataset-api, catalogue crawlers);
// what costs work or shows internals — every POST and GET /metrics — can be
// closed with tokens (Deps.Tokens). Off when no token is configured.

// authenticator holds the SHA-256 of every accepted token. Comparing hashes
// in constant time leaks neither a token's content nor its length.
type authenticator struct {
	sums [][sha256.Size]byte
}

func newAuthenticator(tokens []string) *authenticator {
	if len(tokens) == 0 {
		return nil
	}
	a := &authenticator{}
	for _, t := range tokens {
		a.sums = append(a.sums, sha256.Sum256([]byte(t)))
	}
	return a
}

// Tokens are the bearer tokens a server accepts. They can be replaced while
// it runs, so that a token file rotated on disk takes effect on SIGHUP
// without a restart that would drop every connection.
type Tokens struct {
	cur atomic.Pointer[authenticator]
}

// NewTokens returns the accepted tokens, or nil (authentication off) for none.
func NewTokens(tokens []string) *Tokens {
	a := newAuthenticator(tokens)
	if a == nil {
		return nil
	}
	t := &Tokens{}
	t.cur.Store(a)
	return t
}

// Replace makes tokens the accepted ones from the next request on. An empty
// list is refused: turning authentication off is a restart's decision, never
// the side effect of a file emptied by mistake.
func (t *Tokens) Replace(tokens []string) error {
	a := newAuthenticator(tokens)
	if a == nil {
		return errors.New("no token: authentication stays on with the tokens it had")
	}
	t.cur.Store(a)
	return nil
}

// authResult is what a request's credentials amount to.
type authResult int

const (
	authOK authResult = iota
	authMissing
	authInvalid
)

// check reads the Authorization header: "Bearer <token>", the scheme in any
// case (RFC 9110 §11.1). Every accepted token is compared, whichever matches.
func (a *authenticator) check(r *http.Request) authResult {
	h := r.Header.Get("Authorization")
	if h == "" {
		return authMissing
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return authInvalid
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	match := 0
	for i := range a.sums {
		match |= subtle.ConstantTimeCompare(got[:], a.sums[i][:])
	}
	if match != 1 {
		return authInvalid
	}
	return authOK
}

// requireAuth answers 401 unless the request carries an accepted bearer
// token. With authentication off it is no middleware at all. Neither the
// header nor the token ever reaches a log line or a problem.
func (s *server) requireAuth(next http.Handler) http.Handler {
	if s.auth == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch s.auth.cur.Load().check(r) {
		case authOK:
			next.ServeHTTP(w, r)
		case authMissing:
			refuse(w, r, &requestError{status: http.StatusUnauthorized, kind: "unauthorized",
				detail: "this operation needs a bearer token: send Authorization: Bearer <token>",
				header: map[string]string{"WWW-Authenticate": `Bearer realm="governanced"`}})
		default:
			refuse(w, r, &requestError{status: http.StatusUnauthorized, kind: "unauthorized",
				detail: "the bearer token is not one this server accepts",
				header: map[string]string{"WWW-Authenticate": `Bearer realm="governanced", error="invalid_token"`}})
		}
	})
}
