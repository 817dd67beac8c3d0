package tracing

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// StreamRecorder is a StatusRecorder for a hop that may stream or switch protocols (a kubelet's
// logs, exec, attach, port-forward): it flushes, and it hands over the connection itself. Once
// the connection is handed over, the answer's status line is written on it as bytes (an
// upgrade proxied from the kubelet, a WebSocket handshake), not through WriteHeader: the
// recorder reads the code from there.
type StreamRecorder struct {
	*StatusRecorder

	mu       sync.Mutex
	hijacked *statusLineConn
}

// NewStreamRecorder wraps w.
func NewStreamRecorder(w http.ResponseWriter) *StreamRecorder {
	return &StreamRecorder{StatusRecorder: &StatusRecorder{ResponseWriter: w}}
}

// Status is the status code of the answer, 0 while none is known.
func (s *StreamRecorder) Status() int {
	s.mu.Lock()
	c := s.hijacked
	s.mu.Unlock()
	if s.Code == 0 && c != nil {
		return c.code()
	}
	return s.Code
}

func (s *StreamRecorder) Flush() {
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *StreamRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// What was written through the server's buffer before goes first; then the buffer writes
	// through the recorder too (x/net/websocket writes its handshake there).
	if err := rw.Flush(); err != nil {
		conn.Close()
		return nil, nil, err
	}
	c := &statusLineConn{Conn: conn}
	s.mu.Lock()
	s.hijacked = c
	s.mu.Unlock()
	return c, bufio.NewReadWriter(rw.Reader, bufio.NewWriter(c)), nil
}

// statusLineConn reads the status code off the first line written on a connection.
type statusLineConn struct {
	net.Conn

	mu   sync.Mutex
	head []byte // the start of what was written, until its first line is complete
	done bool
	got  int
}

// maxStatusLine is as much as the recorder reads looking for the status line: "HTTP/1.1 101
// Switching Protocols" and some.
const maxStatusLine = 128

func (c *statusLineConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if !c.done {
		c.head = append(c.head, b[:min(len(b), maxStatusLine-len(c.head))]...)
		if line, _, complete := strings.Cut(string(c.head), "\n"); complete || len(c.head) == maxStatusLine {
			c.done, c.got, c.head = true, statusLineCode(line), nil
		}
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *statusLineConn) code() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got
}

// statusLineCode is the code of an HTTP/1 status line, 0 if line is not one.
func statusLineCode(line string) int {
	proto, rest, _ := strings.Cut(line, " ")
	if !strings.HasPrefix(proto, "HTTP/") {
		return 0
	}
	code, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(strings.TrimSpace(code))
	if err != nil || n < 100 || n > 999 {
		return 0
	}
	return n
}
