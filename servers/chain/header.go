package chain

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/internal/chainheader"
	"github.com/apichain/apichain/internal/tracing"
)

// ChainServerHeader names, on every response, the server of the chain that answered it. It is
// the chain's teaching aid: `curl -v` and `kubectl -v 8` show a request falling through
// Aggregator → Core → ApiExtensions → NotFound.
// A server that passes a request on beyond the chain says so: Core's pods/log and nodes/proxy
// answer "core>kubelet:<node>".
const ChainServerHeader = chainheader.Name

// The values of ChainServerHeader.
const (
	serverAggregator = "aggregator"
	serverCore       = "core"
	serverExtensions = "extensions"
	serverNotFound   = "not-found"
)

// answeredBy sets the header before next runs. Each server's handler is wrapped so, outermost
// first; a server that delegates lets the next one overwrite the header, so the last writer —
// the server that actually answered — is what the client sees. In a recorded request's trace,
// each server passed has its span (enterServer).
func answeredBy(server string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, leave := enterServer(chainheader.Into(w, r, server), server, nil)
		defer leave()
		next.ServeHTTP(w, r)
	})
}

// labelDelegate wraps the handler that servers in front of s reach it by (its "unprotected"
// director, behind the one filter chain at the head). It must run before the server in front
// is built, since that server captures the handler when it is created.
func labelDelegate(s *genericapiserver.GenericAPIServer, server string) {
	s.Handler.Director = answeredBy(server, s.Handler.Director)
}

// hop is a chain server's span in a request's trace.
type hop struct {
	server   string
	span     trace.Span
	handedOn bool
	// because says why the server handed r on; nil for handedOnBecause.
	because func(r *http.Request) string
}

type hopKey struct{}

// enterServer starts the span of server for a recorded request. The server it came from handed
// it on: its span says why (its because, or handedOnBecause). leave ends the span; a server
// that handed nothing on answered.
func enterServer(r *http.Request, server string, because func(*http.Request) string) (_ *http.Request, leave func()) {
	ctx := r.Context()
	if !tracing.Recording(ctx) {
		return r, func() {}
	}
	if from, ok := ctx.Value(hopKey{}).(*hop); ok && !from.handedOn {
		why := handedOnBecause(from.server, r)
		if from.because != nil {
			why = from.because(r)
		}
		from.handOn(why)
	}
	// Room for why the server handed the request on, or that it answered, and who did.
	attrs := append(make([]attribute.KeyValue, 0, 3), attribute.String(tracing.AttrServer, server))
	ctx, span := tracing.Start(ctx, server, attrs...)
	h := &hop{server: server, span: span, because: because}
	return r.WithContext(context.WithValue(ctx, hopKey{}, h)), func() {
		if !h.handedOn {
			span.SetAttributes(attribute.Bool(tracing.AttrAnswered, true))
		}
		span.End()
	}
}

func (h *hop) handOn(because string) {
	h.handedOn = true
	h.span.SetAttributes(attribute.String(tracing.AttrHandedOnBecause, because))
}

// handedOnBecause says why server passed r to the next server of the chain: what its mux has no
// route for. (The Aggregator says more: remote.go.)
func handedOnBecause(server string, r *http.Request) string {
	path := routePrefix(r.URL.Path)
	switch server {
	case serverCore:
		return "no route in Core's mux for " + path
	case serverExtensions:
		if strings.HasPrefix(path, "/apis/") {
			return "no CustomResourceDefinition serves " + path
		}
		return "no route in ApiExtensions' mux for " + path
	}
	return "handed on by " + server
}

// routePrefix is the part of a path that chooses the server: the group version of an API path
// (/api/v1, /apis/bars.example.com/v1), the whole of any other. It is a prefix of path, cut
// rather than built: every traced request asks for it.
func routePrefix(path string) string {
	var segments int // the group version's: api/v1, apis/<group>/<version>
	switch {
	case strings.HasPrefix(path, "/api/"):
		segments = 2
	case strings.HasPrefix(path, "/apis/"):
		segments = 3
	default:
		return path
	}
	slashes := 0
	for i := 0; i < len(path); i++ {
		if path[i] != '/' {
			continue
		}
		if slashes == segments { // the slash after the group version
			return path[:i]
		}
		slashes++
	}
	return path
}
