package departures

import (
	"io"
	"net/http"
)

// withBodyReadAfterAnswer reads what is left of an HTTP/1.x request's body once the servers
// have answered it, up to limit bytes (the most a request may carry, --max-request-bytes'
// 3 MiB by default), so that a request answered before its body was read keeps its
// connection and its client gets the answer.
//
// Why: many answers come before the body is read: 415 for a content type no server reads, 401,
// 403, 404, 405, 429. net/http then reads the rest of the body itself, but only up to 256 KiB
// (maxPostHandlerReadBytes); past that it answers with "Connection: close" and closes the
// connection half a second later, with the body still arriving. A client that writes its whole
// request before it reads the answer, as Python's requests and urllib3 do, is still writing
// then: the close resets the connection, and the answer waiting in the client's socket is lost
// with it ("EOF occurred in violation of protocol"). kube-apiserver behaves the same; the
// chain answers these requests like any other. HTTP/2 needs none of this: an unread body ends
// only its stream, after the answer.
//
// The answer must still be in net/http's buffer when the handler returns, as an error Status
// is (net/http decides on closing when it writes the headers). A body over limit, which no
// request may carry, is left to net/http, which closes the connection as in kube-apiserver.
func withBodyReadAfterAnswer(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		// A client that sent "Expect: 100-continue" waits for the answer before it sends the
		// body: reading would ask it for a body only to throw it away.
		if r.ProtoMajor != 1 || r.ContentLength == 0 || r.ContentLength > limit || r.Header.Get("Expect") != "" {
			return
		}
		// A body the handler read to its end reads nothing more (EOF, or an error for a
		// body it closed).
		_, _ = io.CopyN(io.Discard, r.Body, limit)
	})
}
