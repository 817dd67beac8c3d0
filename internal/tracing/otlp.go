package tracing

import (
	"compress/gzip"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// maxOTLPBody bounds one report: the OTLP exporters send batches of at most 512 spans, well
// under this.
const maxOTLPBody = 8 << 20

// receivedSpan is a span of another process, converted, with its trace.
type receivedSpan struct {
	traceID trace.TraceID
	*record
}

// OTLPHandler is the chain's OTLP/HTTP receiver (POST of an ExportTraceServiceRequest in
// protobuf, as the standard otlptracehttp exporter sends it, gzip or not): the spans of other
// processes join their traces in the ring. It answers 404 without a ring.
func OTLPHandler(ring *Ring) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if ring == nil {
			writeStatus(w, notRecording())
			return
		}
		if req.Method != http.MethodPost {
			writeStatus(w, methodNotAllowed(req.Method, http.MethodPost))
			return
		}
		if ct, _, _ := strings.Cut(req.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) != "application/x-protobuf" {
			writeStatus(w, unsupportedMediaType(ct))
			return
		}
		body := io.Reader(http.MaxBytesReader(w, req.Body, maxOTLPBody))
		if req.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(body)
			if err != nil {
				writeStatus(w, badRequest(fmt.Sprintf("the gzip body does not read: %v", err)))
				return
			}
			defer gz.Close()
			body = io.LimitReader(gz, maxOTLPBody+1)
		}
		data, err := io.ReadAll(body)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge) || len(data) > maxOTLPBody:
			writeStatus(w, requestTooLarge(maxOTLPBody))
			return
		case err != nil:
			writeStatus(w, badRequest(fmt.Sprintf("reading the body: %v", err)))
			return
		}
		var export coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &export); err != nil {
			writeStatus(w, badRequest(fmt.Sprintf("the body is not an OTLP ExportTraceServiceRequest: %v", err)))
			return
		}
		spans, err := fromOTLP(&export)
		if err != nil {
			writeStatus(w, badRequest(err.Error()))
			return
		}
		ring.Receive(spans)
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out)
	})
}

// fromOTLP converts the spans of an OTLP request. A span without a valid trace or span ID is
// an error, naming where it is.
func fromOTLP(export *coltracepb.ExportTraceServiceRequest) ([]receivedSpan, error) {
	var out []receivedSpan
	for i, rs := range export.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = anyString(kv.GetValue())
			}
		}
		for j, ss := range rs.GetScopeSpans() {
			skipped := ss.GetScope().GetName() == skippedScope
			for k, s := range ss.GetSpans() {
				where := fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d]", i, j, k)
				traceID, ok := traceIDOf(s.GetTraceId())
				if !ok {
					return nil, fmt.Errorf("%s.traceId: must be 16 bytes, not all zero", where)
				}
				rec, err := fromProtoSpan(s, service)
				if err != nil {
					return nil, fmt.Errorf("%s.%v", where, err)
				}
				rec.skipped = skipped
				out = append(out, receivedSpan{traceID: traceID, record: rec})
			}
		}
	}
	return out, nil
}

func fromProtoSpan(s *tracepb.Span, service string) (*record, error) {
	id, ok := spanIDOf(s.GetSpanId())
	if !ok {
		return nil, errors.New("spanId: must be 8 bytes, not all zero")
	}
	start, end := unixNano(s.GetStartTimeUnixNano()), unixNano(s.GetEndTimeUnixNano())
	span := &Span{SpanID: id.String(), Name: s.GetName(), Service: service, Kind: kindOf(s.GetKind()),
		Start: start, DurationMs: durationMs(end.Sub(start)), Attributes: protoAttributes(s.GetAttributes()),
		Message: s.GetStatus().GetMessage()}
	switch s.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_OK:
		span.Status = "ok"
	case tracepb.Status_STATUS_CODE_ERROR:
		span.Status = "error"
	}
	parent, hasParent := spanIDOf(s.GetParentSpanId())
	if hasParent {
		span.ParentID = parent.String()
	}
	for i, e := range s.GetEvents() {
		if i == maxEvents {
			break
		}
		span.Events = append(span.Events, Event{Name: e.GetName(), Time: unixNano(e.GetTimeUnixNano()), Attributes: protoAttributes(e.GetAttributes())})
	}
	for i, l := range s.GetLinks() {
		if i == maxLinks {
			break
		}
		span.Links = append(span.Links, Link{TraceID: hex.EncodeToString(l.GetTraceId()), SpanID: hex.EncodeToString(l.GetSpanId())})
	}
	// Without the flag that says, the parent of a span that has one is taken as another
	// process's: worth naming if it never arrives.
	remote := true
	if f := s.GetFlags(); f&uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK) != 0 {
		remote = f&uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK) != 0
	}
	return &record{span: span, id: id, parent: parent, parentRemote: hasParent && remote, bytes: sizeOf(span), hasRoot: !hasParent}, nil
}

// protoAttributes is attributeMap for OTLP's attributes.
func protoAttributes(kvs []*commonpb.KeyValue) map[string]string {
	attrs := make([]attribute.KeyValue, 0, min(len(kvs), maxAttributes))
	for _, kv := range kvs {
		if len(attrs) == maxAttributes {
			break
		}
		attrs = append(attrs, attribute.String(kv.GetKey(), anyString(kv.GetValue())))
	}
	return attributeMap(attrs)
}

// anyString writes an OTLP value as the SDK's attribute.Value.Emit writes its own.
func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, len(x.ArrayValue.GetValues()))
		for i, e := range x.ArrayValue.GetValues() {
			parts[i] = strconv.Quote(anyString(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *commonpb.AnyValue_KvlistValue:
		parts := make([]string, len(x.KvlistValue.GetValues()))
		for i, kv := range x.KvlistValue.GetValues() {
			parts[i] = strconv.Quote(kv.GetKey()) + ":" + strconv.Quote(anyString(kv.GetValue()))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return ""
}

func kindOf(k tracepb.Span_SpanKind) string {
	switch k {
	case tracepb.Span_SPAN_KIND_SERVER:
		return trace.SpanKindServer.String()
	case tracepb.Span_SPAN_KIND_CLIENT:
		return trace.SpanKindClient.String()
	case tracepb.Span_SPAN_KIND_PRODUCER:
		return trace.SpanKindProducer.String()
	case tracepb.Span_SPAN_KIND_CONSUMER:
		return trace.SpanKindConsumer.String()
	}
	return trace.SpanKindInternal.String()
}

func traceIDOf(b []byte) (trace.TraceID, bool) {
	var id trace.TraceID
	if len(b) != len(id) {
		return id, false
	}
	copy(id[:], b)
	return id, id.IsValid()
}

func spanIDOf(b []byte) (trace.SpanID, bool) {
	var id trace.SpanID
	if len(b) != len(id) {
		return id, false
	}
	copy(id[:], b)
	return id, id.IsValid()
}

func unixNano(n uint64) time.Time { return time.Unix(0, int64(n)) }
