package chain_test

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// roundTrip writes req whole, then reads its answer. A write that fails (the server closed
// the connection before reading the whole body) is a request without an answer, as it is for
// Python's clients.
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
	if err := req.Write(c.conn); err != nil {
		c.close()
		return nil, nil, fmt.Errorf("writing the request: %w", err)
	}
	resp, err := http.ReadResponse(c.in, req)
	var answer []byte
	if err == nil {
		answer, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err != nil || resp.Close {
		c.close()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp, answer, nil
}

func (c *http1Client) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.in = nil, nil
	}
}

// TestHTTP1EarlyAnswerKeepsConnection sends, on one HTTP/1.1 connection, requests that the
// chain answers before reading their bodies (a content type no server reads: 415; a resource
// that does not exist: 404), with bodies from 70 kB to just under the 3 MiB a request may
// carry, each written whole before its answer is read. Every one must get its answer and the
// connection must stay open for the next: before withBodyReadAfterAnswer (earlyanswer.go),
// net/http closed it after any such answer to a body over 256 KiB, and a client still writing
// the body lost the answer too.
func TestHTTP1EarlyAnswerKeepsConnection(t *testing.T) {
	client, err := newHTTP1Client(shared.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer client.close()
	cms := "/api/v1/namespaces/default/configmaps"
	var conn *tls.Conn
	for _, size := range []int{70_000, 300_000, 1 << 20, 3<<20 - 4096} {
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"early"},"data":{"a":"` + strings.Repeat("x", size) + `"}}`
		for _, tc := range []struct {
			method, path, contentType string
			code                      int
		}{
			{http.MethodPost, cms, "text/plain", http.StatusUnsupportedMediaType},
			{http.MethodPut, cms + "/early", "text/plain", http.StatusUnsupportedMediaType},
			{http.MethodPost, "/api/v1/namespaces/default/nopes", "application/json", http.StatusNotFound},
		} {
			req, err := http.NewRequest(tc.method, shared.Admin.Host+tc.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", tc.contentType)
			what := fmt.Sprintf("%s %s (%s, %d bytes)", tc.method, tc.path, tc.contentType, len(body))
			resp, answer, err := client.roundTrip(req)
			if err != nil {
				t.Fatalf("%s: no answer: %v", what, err)
			}
			var st metav1.Status
			if err := json.Unmarshal(answer, &st); err != nil || resp.StatusCode != tc.code || st.Code != int32(tc.code) {
				t.Errorf("%s: %d %.300s, want a %d Status", what, resp.StatusCode, answer, tc.code)
			}
			if resp.Close {
				t.Errorf("%s: answered with Connection: close", what)
			}
			if conn != nil && client.conn != conn {
				t.Errorf("%s: not answered on the connection of the requests before", what)
			}
			conn = client.conn
		}
	}
	// The connection still serves: the configmap was never created.
	req, _ := http.NewRequest(http.MethodGet, shared.Admin.Host+cms+"/early", nil)
	if resp, answer, err := client.roundTrip(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET after the early answers: %v %.300s, want 404", err, answer)
	}
}
