package chain

import (
	"net"
	"sync"
	"time"
)

// shutdownGrace is how long the connections a stopping chain still has open may stay open
// once the HTTP server has stopped listening.
const shutdownGrace = 100 * time.Millisecond

// closingListener is the chain's listener. It remembers its connections so that, once the HTTP
// server has closed it (which k8s.io/apiserver does only after in-flight requests have drained),
// it can close the connections clients keep open.
//
// Why: on shutdown the HTTP/2 server sends GOAWAY and then waits for each client to close its
// connection, up to golang.org/x/net/http2's goAwayTimeout of 1 s, and Go's HTTP/2 client keeps
// an idle connection open after a GOAWAY. The chain's own loopback clients are such clients, so
// every stop took a second more than it needs — a second per test for chaintest users.
// kube-apiserver stops the same way; this is the chain's own shortcut, and it only closes
// connections after the server has answered everything it accepted.
type closingListener struct {
	net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func newClosingListener(l net.Listener) *closingListener {
	return &closingListener{Listener: l, conns: map[net.Conn]struct{}{}}
}

func (l *closingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: c, l: l}
	l.conns[tc] = struct{}{}
	return tc, nil
}

// Close stops listening and, after shutdownGrace, closes the connections still open.
func (l *closingListener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	first := !l.closed
	l.closed = true
	l.mu.Unlock()
	if first {
		time.AfterFunc(shutdownGrace, l.closeConns)
	}
	return err
}

func (l *closingListener) closeConns() {
	l.mu.Lock()
	conns := make([]net.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

type trackedConn struct {
	net.Conn
	l    *closingListener
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
