package departures

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// TestClosingListenerClosesConnectionsLeftOpen: connections still open when the server closes
// the listener are closed by it shortly after; ones the server closed itself are forgotten.
func TestClosingListenerClosesConnectionsLeftOpen(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newClosingListener(inner, nil)
	dial := func() (client, server net.Conn) {
		t.Helper()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return c, s
	}
	idle, _ := dial()
	_, closedByServer := dial()
	closedByServer.Close()
	if n := len(l.conns); n != 1 {
		t.Fatalf("tracking %d connections, want 1", n)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Accept(); err == nil {
		t.Fatal("Accept after Close succeeded")
	}
	// The client sees its connection end (EOF), well before any read deadline.
	if err := idle.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := idle.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read on a connection left open: %v, want EOF", err)
	}
}
