package departures

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	genericapiserver "k8s.io/apiserver/pkg/server"
)

// quietBeforeClose is how long a connection of a stopping chain must have been silent (nothing
// read or written) before the chain closes it, when it cannot tell that the connection's last
// answer has gone out (see closable): long enough for the last response frames of a finished
// request to be written out.
const quietBeforeClose = 20 * time.Millisecond

// settleAfterAnswer is how long a connection must have been silent, after writing since its
// last answer, before the chain closes it: the answer's last frames are written in one burst
// once its handler has returned. (net/http's Server.Shutdown looks for closed connections 1, 3,
// 7, 15 ms after it begins, about when the requests drain: a connection closed within ~5 ms
// of that is seen at the third look.)
const settleAfterAnswer = 5 * time.Millisecond

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
// NonLongRunningRequestWaitGroup, which k8s.io/apiserver itself waits on), and then only once
// its answers have gone out (closable).
type closingListener struct {
	net.Listener
	// waitDrained blocks until the requests in flight (watches and other long-running
	// requests aside) have been answered; nil waits for nothing.
	waitDrained func()

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	byAddr map[string]*trackedConn // by remote address, as a request names its connection
	closed bool
}

// ClosingListener is the listener NewClosingListener makes: a net.Listener, and the filter
// that tells it when each connection's requests are answered (WrapHandlerChain).
type ClosingListener interface {
	net.Listener
	// WrapHandlerChain puts, around the whole filter chain build makes, the filter that
	// counts each connection's requests and notes when the last was answered, so that a
	// stopping chain closes a connection as soon as its answers are out rather than after a
	// fixed quiet time.
	WrapHandlerChain(build BuildHandlerChainFunc) BuildHandlerChainFunc
}

// NewClosingListener is l, closing on shutdown the connections left open once waitDrained
// returns (see closingListener).
func NewClosingListener(l net.Listener, waitDrained func()) ClosingListener {
	return newClosingListener(l, waitDrained)
}

func newClosingListener(l net.Listener, waitDrained func()) *closingListener {
	return &closingListener{Listener: l, waitDrained: waitDrained, conns: map[*trackedConn]struct{}{},
		byAddr: map[string]*trackedConn{}}
}

func (l *closingListener) WrapHandlerChain(build BuildHandlerChainFunc) BuildHandlerChainFunc {
	return func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
		return l.withAnswers(build(apiHandler, c))
	}
}

// withAnswers counts the requests in flight on each connection and notes when the last ended.
// A request names its connection by the client's address (net/http's RemoteAddr is the
// connection's); one that comes another way (none here) is left alone. Watches count too: a
// stopping server ends each one cleanly (k8s.io/apiserver's watch termination, at most 200 a
// second), and its connection is closed once it has.
func (l *closingListener) withAnswers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		c := l.byAddr[r.RemoteAddr]
		l.mu.Unlock()
		if c == nil {
			h.ServeHTTP(w, r)
			return
		}
		c.pending.Add(1)
		defer func() {
			// The time first: a closer that sees nothing pending sees this answer's time too.
			// A request its client gave up (HTTP/2 reset the stream: its context has ended)
			// gets no answer written, so there is none to wait for.
			if r.Context().Err() == nil {
				c.answered.Store(time.Now().UnixNano())
			}
			c.pending.Add(-1)
		}()
		h.ServeHTTP(w, r)
	})
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
	tc := &trackedConn{Conn: c, l: l, addr: c.RemoteAddr().String()}
	tc.touch()
	l.conns[tc] = struct{}{}
	l.byAddr[tc.addr] = tc
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
		var done []net.Conn
		for c := range l.conns {
			if c.closable() {
				done = append(done, c)
			}
		}
		left := len(l.conns) - len(done)
		l.mu.Unlock()
		for _, c := range done {
			c.Close()
		}
		if left == 0 {
			return
		}
		time.Sleep(time.Millisecond) // polling the connections' clocks: nothing to wait on
	}
}

// trackedConn is a connection of a closingListener that knows when it last carried bytes, and
// (withAnswers) how many of its requests are being answered and when the last one was.
type trackedConn struct {
	net.Conn
	l    *closingListener
	addr string
	// unix nanoseconds of the last read or write, of the last write, of the last answer's end
	last, lastWrite, answered atomic.Int64
	pending                   atomic.Int32
	once                      sync.Once
}

// closable says whether a stopping chain may close c now: nothing of it is being answered, it
// has written since its last answer ended (the answer's last frames: HTTP/2 writes them from
// the connection's own goroutine once the handler has returned) and been silent since for
// settleAfterAnswer. A connection that shows neither (an answer that wrote nothing after its
// handler, a stream still open) is closed after quietBeforeClose of silence, as before.
func (c *trackedConn) closable() bool {
	quiet := time.Duration(time.Now().UnixNano() - c.last.Load())
	if quiet >= quietBeforeClose {
		return true
	}
	return quiet >= settleAfterAnswer && c.pending.Load() == 0 && c.lastWrite.Load() >= c.answered.Load()
}

func (c *trackedConn) touch()                     { c.last.Store(time.Now().UnixNano()) }
func (c *trackedConn) Read(b []byte) (int, error) { n, err := c.Conn.Read(b); c.touch(); return n, err }
func (c *trackedConn) Write(b []byte) (int, error) {
	c.touch()
	n, err := c.Conn.Write(b)
	now := time.Now().UnixNano()
	c.last.Store(now)
	c.lastWrite.Store(now)
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		if c.l.byAddr[c.addr] == c {
			delete(c.l.byAddr, c.addr)
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
