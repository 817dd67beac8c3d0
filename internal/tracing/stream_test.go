package tracing

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TestStreamRecorderReadsUpgrades: a handler that takes over the connection writes its answer
// there as bytes, through the connection or through the server's buffer (x/net/websocket's
// handshake); the recorder reads the status code off that first line. A plain answer is
// recorded as StatusRecorder records it.
func TestStreamRecorderReadsUpgrades(t *testing.T) {
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		want    int
	}{
		{"written on the connection", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			// The status line in two writes, as a proxy may copy it.
			io.WriteString(conn, "HTTP/1.1 10")
			io.WriteString(conn, "1 Switching Protocols\r\nUpgrade: SPDY/3.1\r\nConnection: Upgrade\r\n\r\n")
		}, http.StatusSwitchingProtocols},
		{"written through the buffer", func(w http.ResponseWriter, _ *http.Request) {
			conn, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			io.WriteString(rw, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			rw.Flush()
		}, http.StatusForbidden},
		{"not upgraded", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no such container", http.StatusNotFound)
		}, http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := make(chan int, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec := NewStreamRecorder(w)
				c.handler(rec, r)
				got <- rec.Status()
			}))
			defer srv.Close()
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, "GET /exec HTTP/1.1\r\nHost: kubelet\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("the client read %d, want %d", resp.StatusCode, c.want)
			}
			if code := <-got; code != c.want {
				t.Errorf("recorded %d, want %d", code, c.want)
			}
		})
	}
}

// TestQueryCarrier: a trace context injected into a query comes out of it the same, beside the
// query's own parameters.
func TestQueryCarrier(t *testing.T) {
	tp := ownRecorder(NewRing(RingOptions{}))
	ctx, span := tp.Tracer("test").Start(context.Background(), "exec", trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	prop := propagation.TraceContext{}
	q := map[string][]string{"command": {"sh", "-c", "echo hi"}, "stdout": {"1"}}
	prop.Inject(ctx, QueryCarrier(q))
	if !strings.HasPrefix(q["traceparent"][0], "00-"+span.SpanContext().TraceID().String()) || len(q["command"]) != 3 {
		t.Fatalf("query after inject: %v", q)
	}
	got := trace.SpanContextFromContext(prop.Extract(context.Background(), QueryCarrier(q)))
	if got.TraceID() != span.SpanContext().TraceID() || got.SpanID() != span.SpanContext().SpanID() || !got.IsRemote() {
		t.Errorf("extracted %v, want the span's context %v", got, span.SpanContext())
	}
}
