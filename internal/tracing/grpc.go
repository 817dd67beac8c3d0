package tracing

import (
	"context"
	"net"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	componenttracing "k8s.io/component-base/tracing"
)

// ClientDialOption makes each call of a gRPC client (the chain's etcd client) a span of the
// request that made it: otelgrpc's client stats handler, as k8s.io/apiserver's storage factory
// installs it, for a provider that exports; callSpans for one that only records into its ring.
func ClientDialOption(tp trace.TracerProvider) grpc.DialOption {
	if p, ok := tp.(*Provider); ok {
		if own, ringOnly := p.TracerProvider.(*ringProvider); ringOnly {
			return grpc.WithChainUnaryInterceptor(callSpans{tracer: &own.tracer}.intercept)
		}
	}
	return grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp),
		otelgrpc.WithPropagators(componenttracing.Propagators())))
}

// callSpans gives each unary call of a recorded request the span otelgrpc would give it, with
// the same name and attributes, and leaves out what only a provider that exports needs:
//   - the trace context sent along with each call: only a process that traces reads it, and a
//     ring keeps only this process's spans;
//   - a stats handler: with one, gRPC copies every call's headers and trailers for it, and
//     otelgrpc measures every call, also those no recorded request makes (the watch cache's,
//     the leases', the compactor's), whose spans the ring would drop;
//   - the streams (etcd's watches): a watch stream is shared by the watches of many requests,
//     and outlives them.
//
// It is an interceptor inside the etcd client's own (which retries): one span for each
// attempt, as otelgrpc's.
type callSpans struct{ tracer *ringTracer }

func (h callSpans) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	name := strings.TrimPrefix(method, "/")   // etcdserverpb.KV/Range
	attrs := make([]attribute.KeyValue, 0, 5) // room for the server and the status code to come
	attrs = append(attrs, attribute.String("rpc.system.name", "grpc"), attribute.String("rpc.method", name))
	ctx, span := h.tracer.start(ctx, name, trace.SpanKindClient, false, attrs, true, nil, time.Time{})
	var server peer.Peer
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Peer(&server))...)
	if server.Addr != nil {
		span.SetAttributes(serverAddress(server.Addr.String())...)
	}
	code := codes.OK
	if err != nil {
		st, _ := status.FromError(err)
		code = st.Code()
		span.SetStatus(otelcodes.Error, st.Message())
	}
	span.SetAttributes(attribute.String("rpc.response.status_code", canonicalCode(code)))
	span.End()
	return err
}

// serverAddress is a call's server as OpenTelemetry's conventions name it: a host and a port,
// or, for a unix socket (the embedded etcd's), its path alone.
func serverAddress(addr string) []attribute.KeyValue {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []attribute.KeyValue{attribute.String("server.address", addr)}
	}
	return []attribute.KeyValue{attribute.String("server.address", host), attribute.String("server.port", port)}
}

// canonicalCode is a gRPC status code's name in the protocol's own spelling (OK, NOT_FOUND),
// which OpenTelemetry's rpc.response.status_code uses; grpc-go's String() spells it NotFound.
func canonicalCode(c codes.Code) string {
	if name, ok := canonicalCodes[c]; ok {
		return name
	}
	return c.String()
}

var canonicalCodes = map[codes.Code]string{
	codes.OK: "OK", codes.Canceled: "CANCELLED", codes.Unknown: "UNKNOWN",
	codes.InvalidArgument: "INVALID_ARGUMENT", codes.DeadlineExceeded: "DEADLINE_EXCEEDED",
	codes.NotFound: "NOT_FOUND", codes.AlreadyExists: "ALREADY_EXISTS",
	codes.PermissionDenied: "PERMISSION_DENIED", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION", codes.Aborted: "ABORTED",
	codes.OutOfRange: "OUT_OF_RANGE", codes.Unimplemented: "UNIMPLEMENTED",
	codes.Internal: "INTERNAL", codes.Unavailable: "UNAVAILABLE", codes.DataLoss: "DATA_LOSS",
	codes.Unauthenticated: "UNAUTHENTICATED",
}
