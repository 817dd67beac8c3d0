package chain_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"k8s.io/client-go/rest"
)

// http1Client speaks HTTP/1.1 to the chain as Python's clients (requests, urllib3) do, and not
// as Go's transport: one connection kept from request to request until the server says
// "Connection: close", each request written whole (headers and body) before its answer is
// read, no request sent again when its connection fails. Go's client hides some failures from
// a test (it retries a request whose reused connection was closed under it, and speaks HTTP/2
// to the chain); this one shows every request that gets no answer.
type http1Client struct {
	tls  *tls.Config
	addr string
	conn *tls.Conn
	in   *bufio.Reader
}

func newHTTP1Client(cfg *rest.Config) (*http1Client, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	tlsConfig = tlsConfig.Clone()
	tlsConfig.NextProtos = []string{"http/1.1"}
	u, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	return &http1Client{tls: tlsConfig, addr: u.Host}, nil
}

// roundTrip sends req and reads its answer. The body is written while the answer is read, so
// that an early answer (a 415 before the body is read) is seen as a client would see it.
func (c *http1Client) roundTrip(req *http.Request) (*http.Response, []byte, error) {
	if c.conn == nil {
		conn, err := tls.Dial("tcp", c.addr, c.tls)
		if err != nil {
			return nil, nil, fmt.Errorf("connecting: %w", err)
		}
		c.conn, c.in = conn, bufio.NewReader(conn)
	}
	// Longer than any request may run (--request-timeout, 1 minute by default): a request
	// still unanswered then never will be.
	_ = c.conn.SetDeadline(time.Now().Add(90 * time.Second))
	written := make(chan error, 1)
	go func(conn *tls.Conn) { written <- req.Write(conn) }(c.conn)
	resp, err := http.ReadResponse(c.in, req)
	var answer []byte
	if err == nil {
		answer, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err != nil || resp.Close {
		c.close() // also ends a write the server stopped reading
	}
	if werr := <-written; err != nil {
		return nil, nil, fmt.Errorf("reading the answer: %w (writing the request: %v)", err, werr)
	}
	return resp, answer, nil
}

func (c *http1Client) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.in = nil, nil
	}
}
