package departures

import (
	"errors"
	"io"
	"net"
	"net/http"
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

// TestClosableOnceTheAnswerIsOut: a stopping chain closes a connection as soon as nothing of it
// is being answered and it has written since its last answer ended (the answer's last frames)
// and then been silent a moment; a connection whose answer has not gone out yet waits for it,
// or for quietBeforeClose of silence.
func TestClosableOnceTheAnswerIsOut(t *testing.T) {
	now := time.Now().UnixNano()
	ago := func(d time.Duration) int64 { return now - int64(d) }
	for _, tc := range []struct {
		name                      string
		last, lastWrite, answered int64
		pending                   int32
		want                      bool
	}{
		{"idle since its last answer went out", ago(time.Second), ago(time.Second), ago(time.Second + time.Millisecond), 0, true},
		{"never answered, silent", ago(2 * settleAfterAnswer), ago(2 * settleAfterAnswer), 0, 0, true},
		{"answer out, but written a moment ago", ago(settleAfterAnswer / 5), ago(settleAfterAnswer / 5), ago(settleAfterAnswer), 0, false},
		{"handler returned, answer not written yet", ago(2 * settleAfterAnswer), ago(3 * settleAfterAnswer), ago(2 * settleAfterAnswer), 0, false},
		{"a request being answered", ago(2 * settleAfterAnswer), ago(2 * settleAfterAnswer), ago(time.Second), 1, false},
		{"a request being answered, silent for quietBeforeClose", ago(quietBeforeClose + time.Millisecond), ago(time.Second), ago(time.Second), 1, true},
		{"answer not written, silent for quietBeforeClose", ago(quietBeforeClose + time.Millisecond), ago(time.Second), ago(quietBeforeClose + time.Millisecond), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &trackedConn{}
			c.last.Store(tc.last)
			c.lastWrite.Store(tc.lastWrite)
			c.answered.Store(tc.answered)
			c.pending.Store(tc.pending)
			if got := c.closable(); got != tc.want {
				t.Errorf("closable() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAnswersCountedByConnection: the filter finds each request's connection by its remote
// address and counts it while it is answered, then notes the answer's end.
func TestAnswersCountedByConnection(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newClosingListener(inner, nil)
	seen := make(chan int32, 1)
	srv := &http.Server{Handler: l.withAnswers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		c := l.byAddr[r.RemoteAddr]
		l.mu.Unlock()
		if c == nil {
			seen <- -1
			return
		}
		seen <- c.pending.Load()
	}))}
	go srv.Serve(l)
	defer srv.Close()

	for _, tc := range []struct {
		query   string
		pending int32
	}{{"", 1}, {"?watch=true", 1}} {
		resp, err := http.Get("http://" + l.Addr().String() + "/api/v1/pods" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := <-seen; got != tc.pending {
			t.Errorf("GET /api/v1/pods%s: %d requests counted on its connection while answered, want %d", tc.query, got, tc.pending)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byAddr) != 1 {
		t.Fatalf("%d connections by address, want the client's 1", len(l.byAddr))
	}
	for _, c := range l.byAddr {
		if c.pending.Load() != 0 || c.answered.Load() == 0 {
			t.Errorf("after the answers: %d pending, answered at %d; want 0 pending and a time", c.pending.Load(), c.answered.Load())
		}
	}
}
