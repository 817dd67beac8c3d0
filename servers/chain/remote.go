package chain

import (
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"

	"github.com/apichain/apichain/internal/tracing"
)

// aggregatorLabel sets ChainServerHeader for what the aggregator answers itself or proxies: a
// request for a group version whose APIService names a Service is answered by that remote
// server, "remote:<apiservice>"; anything else starts as "aggregator" and is overwritten by the
// delegate that answers it. In a recorded request's trace it opens the aggregator's span, which
// also says who answered in the end, and for a remote APIService the proxy's span.
type aggregatorLabel struct {
	// apiServices is set once the aggregator exists, before the chain serves.
	apiServices apiregistrationlisters.APIServiceLister
}

func (l *aggregatorLabel) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server := serverAggregator
		remote := l.remote(r)
		if remote != nil {
			server = "remote:" + remote.Name
		}
		w.Header().Set(ChainServerHeader, server)
		r, leave := enterServer(r, serverAggregator, l.handedOnBecause)
		defer leave()
		if h, ok := r.Context().Value(hopKey{}).(*hop); ok {
			defer func() {
				h.span.SetAttributes(attribute.String(tracing.AttrAnsweredBy, w.Header().Get(ChainServerHeader)))
			}()
			if remote != nil {
				h.handOn(fmt.Sprintf("APIService %s names Service %s: the aggregator proxies the request to it", remote.Name, serviceOf(remote)))
				var end func()
				w, r, end = startProxy(w, r, remote)
				defer end()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// remoteAPIService names the APIService whose remote server the aggregator proxies r to, or is
// "" when a server of the chain answers r.
func (l *aggregatorLabel) remoteAPIService(r *http.Request) string {
	if svc := l.remote(r); svc != nil {
		return svc.Name
	}
	return ""
}

// remote is the APIService whose remote server the aggregator proxies r to, or nil.
func (l *aggregatorLabel) remote(r *http.Request) *apiregistrationv1.APIService {
	if svc := l.apiService(r); svc != nil && svc.Spec.Service != nil {
		return svc
	}
	return nil
}

// apiService is the APIService of r's group version, or nil.
func (l *aggregatorLabel) apiService(r *http.Request) *apiregistrationv1.APIService {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok || info.APIGroup == "" || info.APIVersion == "" || l.apiServices == nil {
		return nil
	}
	svc, err := l.apiServices.Get(info.APIVersion + "." + info.APIGroup)
	if err != nil {
		return nil
	}
	return svc
}

// handedOnBecause says why the aggregator passed r to Core: a Local APIService (one without a
// Service) serves its group version, or its mux has no route for it.
func (l *aggregatorLabel) handedOnBecause(r *http.Request) string {
	prefix := routePrefix(r.URL.Path)
	name := "" // the APIService of the group version: <version>.<group>
	if version, ok := strings.CutPrefix(prefix, "/api/"); ok && !strings.Contains(version, "/") {
		name = version + "." // the legacy group's APIService, v1.
	} else if gv, ok := strings.CutPrefix(prefix, "/apis/"); ok {
		if group, version, ok := strings.Cut(gv, "/"); ok && !strings.Contains(version, "/") {
			name = version + "." + group
		}
	}
	if name != "" && l.apiServices != nil {
		if svc, err := l.apiServices.Get(name); err == nil && svc.Spec.Service == nil {
			return "APIService " + name + " is Local: the aggregator hands the request to its delegate, Core"
		}
	}
	return "no route in the aggregator's mux for " + prefix
}

// startProxy opens the span of the aggregator's hop to a remote APIService: the APIService, its
// Service, the endpoint dialled (what the service resolver chose from the EndpointSlices, as
// the proxy's transport asks for a connection to it) and the status code the remote answered.
// kube-aggregator's own client span (the proxy's transport, traced) is its child.
func startProxy(w http.ResponseWriter, r *http.Request, svc *apiregistrationv1.APIService) (http.ResponseWriter, *http.Request, func()) {
	ctx, span := tracing.Start(r.Context(), tracing.SpanProxy,
		attribute.String(tracing.AttrAPIService, svc.Name), attribute.String(tracing.AttrService, serviceOf(svc)))
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(hostPort string) { span.SetAttributes(attribute.String(tracing.AttrEndpoint, hostPort)) },
	})
	status := &tracing.StatusRecorder{ResponseWriter: w}
	return responsewriter.WrapForHTTP1Or2(status), r.WithContext(ctx), func() {
		if status.Code != 0 {
			span.SetAttributes(attribute.Int(tracing.AttrStatusCode, status.Code))
		}
		if status.Code >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status.Code))
		}
		span.End()
	}
}

func serviceOf(svc *apiregistrationv1.APIService) string {
	ref := svc.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	return fmt.Sprintf("%s/%s:%d", ref.Namespace, ref.Name, port)
}
