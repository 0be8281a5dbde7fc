package api

import (
	"errors"
	"net"
	"net/http"
)

// slowBody reports a request body that stopped arriving: the server's read
// timeout (--request-timeout) cut the connection's reads. Such a request is
// answered 408, never mistaken for a malformed upload; the connection is then
// closed.
func slowBody(err error) *requestError {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &requestError{status: http.StatusRequestTimeout, kind: "request-timeout",
			detail: "the request body did not arrive within the request timeout"}
	}
	return nil
}
