package departures

import (
	"net/http"

	genericapiserver "k8s.io/apiserver/pkg/server"
)

// BuildHandlerChainFunc is genericapiserver.Config's BuildHandlerChainFunc: it wraps a server's
// API handler in the filter chain (genericapiserver.DefaultBuildHandlerChain, or a function that
// calls it).
type BuildHandlerChainFunc func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler

// Remote names the APIService whose remote server the aggregator proxies r to, or is "" when a
// server of the chain answers r. What a remote server answers is its own business: the
// departures leave those requests alone.
type Remote func(r *http.Request) string

// WrapHandlerChain adds to build the departures that wrap kube-apiserver's filter chain (see
// the package doc): inside it, around the API handler, bad input answered 4xx and the servers'
// deadline moved ahead of the filter's; outside it, the rest of an early-answered HTTP/1
// request's body read.
func WrapHandlerChain(build BuildHandlerChainFunc, remote Remote) BuildHandlerChainFunc {
	return func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
		apiHandler = withBadInputAs4xx(apiHandler, c.Serializer, remote)
		apiHandler = withAnswerBeforeDeadline(apiHandler, remote)
		return withBodyReadAfterAnswer(build(apiHandler, c), c.MaxRequestBodyBytes)
	}
}
