package chain

import (
	"net/http"

	"k8s.io/apiserver/pkg/endpoints/request"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
)

// aggregatorLabel sets ChainServerHeader for what the aggregator answers itself or proxies: a
// request for a group version whose APIService names a Service is answered by that remote
// server, "remote:<apiservice>"; anything else starts as "aggregator" and is overwritten by the
// delegate that answers it.
type aggregatorLabel struct {
	// apiServices is set once the aggregator exists, before the chain serves.
	apiServices apiregistrationlisters.APIServiceLister
}

func (l *aggregatorLabel) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server := serverAggregator
		if name := l.remoteAPIService(r); name != "" {
			server = "remote:" + name
		}
		w.Header().Set(ChainServerHeader, server)
		next.ServeHTTP(w, r)
	})
}

// remoteAPIService names the APIService whose remote server the aggregator proxies r to, or is
// "" when a server of the chain answers r.
func (l *aggregatorLabel) remoteAPIService(r *http.Request) string {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok || info.APIGroup == "" || info.APIVersion == "" || l.apiServices == nil {
		return ""
	}
	name := info.APIVersion + "." + info.APIGroup
	if svc, err := l.apiServices.Get(name); err == nil && svc.Spec.Service != nil {
		return name
	}
	return ""
}
