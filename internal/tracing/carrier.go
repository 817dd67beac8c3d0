package tracing

import (
	"maps"
	"net/url"
	"slices"
)

// QueryCarrier carries a trace context (W3C traceparent, tracestate) in a URL's query, for a
// hop whose headers do not reach the other side: Core's translation of kubectl's WebSocket exec
// and attach to SPDY makes a request of its own to the kubelet, with the URL Core gives it and
// no header of the original. It is an OpenTelemetry propagation.TextMapCarrier.
type QueryCarrier url.Values

func (q QueryCarrier) Get(key string) string { return url.Values(q).Get(key) }

func (q QueryCarrier) Set(key, value string) { url.Values(q).Set(key, value) }

func (q QueryCarrier) Keys() []string { return slices.Sorted(maps.Keys(q)) }
