// Package tracing records how requests travel the chain: the OpenTelemetry tracer provider every
// part of the chain shares (k8s.io/apiserver's own spans and the chain's), the bounded ring of
// recent request traces that `chain trace` and its page read, and the JSON they read it in.
//
// Where it sits: a library of the product. servers/chain builds the provider and serves the
// ring; the servers, the kubelets and the metrics server add spans through it; commands/ reads
// the ring over HTTP. It imports no server.
package tracing

import "time"

// Trace is one request as it travelled: the spans of one OpenTelemetry trace, as a tree rooted
// at the span of the server that received the request. It is what `chain trace -o json` prints,
// one per line, and what the page draws.
type Trace struct {
	// TraceID is the OpenTelemetry trace ID, in hex.
	TraceID string `json:"traceID"`
	// Seq numbers traces in the order the ring completed them, from 1; a reader asks for those
	// after the last it saw.
	Seq uint64 `json:"seq"`
	// Start and DurationMs are the root span's.
	Start      time.Time `json:"start"`
	DurationMs float64   `json:"durationMs"`
	// Request summarises the request at the root, for filtering and one-line display.
	Request Request `json:"request"`
	// Spans are the roots of the tree: usually one, the head's server span; spans whose parent
	// was never recorded (it belonged to another process that did not report) are roots too.
	Spans []*Span `json:"spans"`
	// DroppedSpans counts the spans left out: past the ring's bound on spans per trace, or
	// while the ring was over its memory bound.
	DroppedSpans int `json:"droppedSpans,omitempty"`
	// NotRecorded counts the requests the chain served, after the trace before this one, that
	// it did not record: it records at most so many new requests a second
	// (--record-traces-per-second).
	NotRecorded int `json:"notRecorded,omitempty"`
	// Update says the ring published this trace before, with a lower Seq: spans of another
	// process arrived after it completed. A reader replaces what it had for TraceID.
	Update bool `json:"update,omitempty"`
}

// Request is what a reader filters on: who asked what, and how it ended.
type Request struct {
	Verb string `json:"verb,omitempty"` // Kubernetes verb (get, list, watch, create, ...) or the HTTP method
	Path string `json:"path"`           // the URL path, without the query
	User string `json:"user,omitempty"`
	Code int    `json:"code,omitempty"` // HTTP status code of the answer
	// Server is the part of the chain that answered (X-Chain-Server's value).
	Server string `json:"server,omitempty"`
}

// Span is one hop or step of a request.
type Span struct {
	SpanID   string `json:"spanID"`
	ParentID string `json:"parentID,omitempty"`
	Name     string `json:"name"`
	// Service is the process or part that recorded the span: apichain, kubelet, metrics-server.
	Service string `json:"service"`
	// Kind is OpenTelemetry's span kind: server (a request received), client (one sent),
	// internal (a step within).
	Kind       string            `json:"kind,omitempty"`
	Start      time.Time         `json:"start"`
	DurationMs float64           `json:"durationMs"`
	Attributes map[string]string `json:"attributes,omitempty"`
	// Status is "ok", "error" (with Message) or "" when the span did not say.
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	// Events are what happened at a moment within the span (upstream's storage spans use them).
	Events []Event `json:"events,omitempty"`
	// Links point to spans of other traces this one caused or was caused by (a metrics server's
	// SubjectAccessReview back to the chain is a request, and a trace, of its own).
	Links    []Link  `json:"links,omitempty"`
	Children []*Span `json:"children,omitempty"`
}

// Event is a moment within a span.
type Event struct {
	Name       string            `json:"name"`
	Time       time.Time         `json:"time"`
	Attributes map[string]string `json:"attributes,omitempty"`
}

// Link names a span of another trace.
type Link struct {
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
}
