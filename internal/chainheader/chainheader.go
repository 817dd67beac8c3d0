// Package chainheader carries X-Chain-Server, the header on every response of the chain that
// names the server that answered. servers/chain sets it as a request passes each server of the
// chain; a handler deep inside one (Core's pods/log, which hands the request on to a kubelet)
// changes it through the request's context, since it never sees the response writer.
package chainheader

import (
	"context"
	"net/http"
)

// Name is the header's name. Its values stay ASCII.
const Name = "X-Chain-Server"

type headerKey struct{}

// Into sets the header of w to server, and keeps w's header in the context of the request it
// returns, for Set.
func Into(w http.ResponseWriter, r *http.Request, server string) *http.Request {
	w.Header().Set(Name, server)
	return r.WithContext(context.WithValue(r.Context(), headerKey{}, w.Header()))
}

// Set changes the header of the response to the request of ctx to server, if the request
// passed Into.
func Set(ctx context.Context, server string) {
	if h, ok := ctx.Value(headerKey{}).(http.Header); ok {
		h.Set(Name, server)
	}
}
