package chain

import (
	"net/http"

	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/internal/chainheader"
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
// the server that actually answered — is what the client sees.
func answeredBy(server string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, chainheader.Into(w, r, server))
	})
}

// labelDelegate wraps the handler that servers in front of s reach it by (its "unprotected"
// director, behind the one filter chain at the head). It must run before the server in front
// is built, since that server captures the handler when it is created.
func labelDelegate(s *genericapiserver.GenericAPIServer, server string) {
	s.Handler.Director = answeredBy(server, s.Handler.Director)
}
