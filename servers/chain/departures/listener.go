package departures

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// quietBeforeClose is how long a connection of a stopping chain must have been silent (nothing
// read or written) before the chain closes it: long enough for the last response frames of a
// finished request to be written out.
const quietBeforeClose = 20 * time.Millisecond

// closingListener is the chain's listener. It remembers its connections so that, once the HTTP
// server has closed it and every request in flight has been answered, it can close the
// connections clients keep open.
//
// Why: on shutdown the HTTP/2 server sends GOAWAY and then waits for each client to close its
// connection, up to golang.org/x/net/http2's goAwayTimeout of 1 s, and Go's HTTP/2 client keeps
// an idle connection open after a GOAWAY. The chain's own loopback clients are such clients, so
// every stop took a second more than it needs — a second per test for chaintest users.
// kube-apiserver stops the same way; this is the chain's own shortcut. It closes a connection
// only after the requests in flight have drained (waitDrained: the head's
// NonLongRunningRequestWaitGroup, which k8s.io/apiserver itself waits on) and the connection
// has been quiet for quietBeforeClose since, so no answer is cut off.
type closingListener struct {
	net.Listener
	// waitDrained blocks until the requests in flight (watches and other long-running
	// requests aside) have been answered; nil waits for nothing.
	waitDrained func()

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool
}

// NewClosingListener is l, closing on shutdown the connections left open once waitDrained
// returns (see closingListener).
func NewClosingListener(l net.Listener, waitDrained func()) net.Listener {
	return newClosingListener(l, waitDrained)
}

func newClosingListener(l net.Listener, waitDrained func()) *closingListener {
	return &closingListener{Listener: l, waitDrained: waitDrained, conns: map[*trackedConn]struct{}{}}
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
	tc.touch()
	l.conns[tc] = struct{}{}
	return tc, nil
}

// Close stops listening and, once the requests in flight are answered, closes the connections
// still open as each falls quiet.
func (l *closingListener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	first := !l.closed
	l.closed = true
	l.mu.Unlock()
	if first {
		go l.closeConns()
	}
	return err
}

func (l *closingListener) closeConns() {
	if l.waitDrained != nil {
		l.waitDrained()
	}
	// A connection whose request was held a while has been quiet all that time, yet its answer
	// may still be on its way: the handler has returned (so the requests have drained), but
	// HTTP/2 writes the answer from the connection's own goroutine, a moment later. Quiet
	// counts from now on.
	l.mu.Lock()
	for c := range l.conns {
		c.touch()
	}
	l.mu.Unlock()
	for {
		l.mu.Lock()
		var quiet []net.Conn
		for c := range l.conns {
			if c.quietFor() >= quietBeforeClose {
				quiet = append(quiet, c)
			}
		}
		left := len(l.conns) - len(quiet)
		l.mu.Unlock()
		for _, c := range quiet {
			c.Close()
		}
		if left == 0 {
			return
		}
		time.Sleep(quietBeforeClose / 2) // polling the connections' clocks: nothing to wait on
	}
}

// trackedConn is a connection of a closingListener that knows when it last carried bytes.
type trackedConn struct {
	net.Conn
	l    *closingListener
	last atomic.Int64 // unix nanoseconds of the last read or write
	once sync.Once
}

func (c *trackedConn) touch() { c.last.Store(time.Now().UnixNano()) }
func (c *trackedConn) quietFor() time.Duration {
	return time.Duration(time.Now().UnixNano() - c.last.Load())
}
func (c *trackedConn) Read(b []byte) (int, error) { n, err := c.Conn.Read(b); c.touch(); return n, err }
func (c *trackedConn) Write(b []byte) (int, error) {
	c.touch()
	n, err := c.Conn.Write(b)
	c.touch()
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
