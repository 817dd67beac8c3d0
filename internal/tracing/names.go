package tracing

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is the service.name of the chain's own spans (kube-apiserver's are "apiserver").
const ServiceName = "apichain"

// The names of the spans the chain adds to k8s.io/apiserver's. A chain server's span is named
// after the server: aggregator, core, extensions, not-found (X-Chain-Server's values).
const (
	SpanAuthentication = "authentication"
	SpanAuthorization  = "authorization"
	// SpanProxy is the Aggregator's hop to a remote APIService's Service.
	SpanProxy = "proxy"
	// SpanKubelet is Core's hop to a node's kubelet (pods/log, exec, attach, port-forward,
	// nodes/proxy), a client span; the kubelet's own is a server span of service KubeletService.
	SpanKubelet    = "kubelet"
	KubeletService = "kubelet"
)

// StorageSpanName names the span of one storage operation (get, list, create, update, delete,
// watch), above the watch cache and etcd.
func StorageSpanName(operation string) string { return "storage " + operation }

// AdmissionSpanName names the span of one phase of admission (mutating, validating). Each plugin
// that ran in it is an event of the span, named after the plugin, with AttrAdmissionPlugin,
// AttrDurationMs and, if it answered one, AttrError.
func AdmissionSpanName(phase string) string { return phase + " admission" }

// The attributes the chain's spans carry. Every key starts with "apichain.".
const (
	// On each chain server's span: its name; on one that handed the request on, why; on the
	// one that answered, answered=true. The head's span also says who answered in the end
	// (X-Chain-Server's value, "remote:<apiservice>" for a proxied request).
	AttrServer          = "apichain.server"
	AttrHandedOnBecause = "apichain.handed_on_because"
	AttrAnswered        = "apichain.answered"
	AttrAnsweredBy      = "apichain.answered_by"

	// Authentication: which authenticator accepted the request (x509, front-proxy, token-file,
	// service-account, anonymous), and the user it found.
	AttrAuthenticator = "apichain.authenticator"
	AttrUser          = "apichain.user"
	AttrGroups        = "apichain.groups"

	// Authorization: the Kubernetes verb asked for, the decision (allow, deny), the authorizer
	// that decided and its reason (RBAC's names the binding and the role).
	AttrVerb       = "apichain.verb"
	AttrDecision   = "apichain.decision"
	AttrAuthorizer = "apichain.authorizer"
	AttrReason     = "apichain.reason"

	// Admission: the phase (mutating, validating) and the operation (CREATE, ...) on the
	// phase's span; on each of its events, the plugin, how long it took in milliseconds, and
	// the error it answered.
	AttrAdmissionPlugin    = "apichain.admission.plugin"
	AttrAdmissionPhase     = "apichain.admission.phase"
	AttrAdmissionOperation = "apichain.admission.operation"
	AttrDurationMs         = "apichain.duration_ms"
	AttrError              = "apichain.error"

	// Storage: the operation, the etcd key (or key prefix of a list), the revision read or
	// written, and whether the watch cache served a read instead of etcd.
	AttrStorageOperation = "apichain.storage.operation"
	AttrStorageKey       = "apichain.storage.key"
	AttrStorageRevision  = "apichain.storage.revision"
	AttrWatchCache       = "apichain.watch_cache"

	// The remote hop: the APIService, its Service (namespace/name:port), the endpoint dialled
	// (host:port of the EndpointSlice address) and the remote server's status code. Core's
	// kubelet hop has the last two too: the node's address and kubelet port, and the kubelet's
	// code (for exec, attach and port-forward, that of the upgrade: 101).
	AttrAPIService = "apichain.apiservice"
	AttrService    = "apichain.service"
	AttrEndpoint   = "apichain.endpoint"
	AttrStatusCode = "apichain.status_code"

	// A server behind the Aggregator (the metrics server) trusting its front proxy: the common
	// name of the client certificate it verified, and the headers that named the user (their
	// names, never more than the user and groups they gave).
	AttrFrontProxyClient  = "apichain.front_proxy.client"
	AttrFrontProxyHeaders = "apichain.front_proxy.headers"

	// The kubelet hop: the node, the kubelet path called (no query), and the kubelet's
	// authorization of the caller (verb, nodes subresource) beside the authentication and
	// authorization attributes above.
	AttrNode               = "apichain.node"
	AttrKubeletPath        = "apichain.kubelet.path"
	AttrKubeletSubresource = "apichain.kubelet.subresource"

	// The metrics server's read of its storage (the latest points in memory): how many nodes
	// or pods were asked for, and how many had a usage to serve.
	AttrMetricsAsked = "apichain.metrics.asked"
	AttrMetricsFound = "apichain.metrics.found"
)

// scope is the instrumentation scope of the chain's own spans.
const scope = "github.com/apichain/apichain"

// Start starts a span named name as a child of the span in ctx, with the tracer provider of that
// span: the provider of the request being served, or a no-op when nothing is recorded. It is
// how every part of the chain adds a span without being handed a provider (component-base's
// tracing.Start does the same for k8s.io/apiserver's own spans). The span keeps attrs: the
// caller must not change them after.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	tp := trace.SpanFromContext(ctx).TracerProvider()
	if own, ok := tp.(*ringProvider); ok { // without the options' allocations
		return own.tracer.start(ctx, name, trace.SpanKindInternal, false, attrs, true, nil, time.Time{})
	}
	return tp.Tracer(scope).Start(ctx, name, trace.WithAttributes(attrs...))
}

// AddPluginEvent adds to span, an admission phase's, the event of a plugin that ran from start
// until now and answered err: named after the plugin, with AttrAdmissionPlugin, AttrDurationMs
// and, if it answered one, AttrError. A span of the ring's own keeps only the plugin, the
// times and the error (a step), and makes the attributes when it is read: a write passes some
// fifteen plugins.
func AddPluginEvent(span trace.Span, plugin string, start time.Time, err error) {
	took := time.Since(start)
	var message string
	if err != nil {
		message = err.Error()
	}
	if own, ok := span.(*ringSpan); ok {
		own.write(func() { own.addStep(step{plugin: plugin, at: start, took: took, err: message}) })
		return
	}
	span.AddEvent(plugin, trace.WithTimestamp(start), trace.WithAttributes(step{plugin: plugin, took: took, err: message}.attributes()...))
}

// ExpectPluginEvents makes room in span, an admission phase's, for the events of its n
// plugins (AddPluginEvent), so that a span of the ring's own has them without growing.
func ExpectPluginEvents(span trace.Span, n int) {
	if own, ok := span.(*ringSpan); ok {
		own.write(func() {
			if own.steps == nil {
				own.steps = make([]step, 0, min(n, maxEvents))
			}
		})
	}
}

// Recording says whether the span in ctx is recorded: a part of the chain computes what only
// a span would show (a reason, a revision) only then.
func Recording(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// Tracer is the tracer of the span in ctx (see Start), for a span that needs options Start does
// not take (a start time already past).
func Tracer(ctx context.Context) trace.Tracer {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(scope)
}
