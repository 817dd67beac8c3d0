package chain

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apiserver/pkg/endpoints/request"
	genericapiserver "k8s.io/apiserver/pkg/server"
	componenttracing "k8s.io/component-base/tracing"
	tracingapi "k8s.io/component-base/tracing/api/v1"

	"github.com/apichain/apichain/internal/tracing"
)

// newTracing builds the chain's tracer provider (internal/tracing): the ring of recent traces
// with --record-traces, OTLP export with --tracing-config-file, neither: k8s.io/apiserver's
// no-op provider. One per chain, never the global one.
func newTracing(o CompletedOptions, instanceID string) (*tracing.Provider, error) {
	var export *tracingapi.TracingConfiguration
	if o.TracingConfigFile != "" {
		c, err := tracing.ReadConfigFile(o.TracingConfigFile)
		if err != nil {
			return nil, fmt.Errorf("--tracing-config-file: %w", err)
		}
		export = c
	}
	return tracing.New(context.Background(), tracing.Options{InstanceID: instanceID, Record: o.RecordTraces,
		RingOptions: tracing.RingOptions{PerSecond: o.RecordTracesPerSecond}, Export: export})
}

// applyTracing puts the provider where k8s.io/apiserver looks for it, as kube-apiserver's
// TracingOptions.ApplyTo does: the generic configuration (the head's server span, the handlers'
// and storage's spans, the Aggregator's proxy, webhook calls) and the loopback client, whose
// requests carry their trace to the server they call. What the chain adds: the ring's
// followers are long-running requests, and each request carries a record of its
// authentication (authtrace.go).
func applyTracing(c *genericapiserver.Config, tp *tracing.Provider) {
	c.TracerProvider = tp
	if !tp.Enabled() {
		return
	}
	c.LoopbackClientConfig.Wrap(componenttracing.WrapperFor(tp))
	longRunning := c.LongRunningFunc
	c.LongRunningFunc = func(r *http.Request, info *request.RequestInfo) bool {
		return longRunning(r, info) || tracing.Following(r)
	}
	c.BuildHandlerChainFunc = withAuthnRecord(c.BuildHandlerChainFunc)
}

// installTraceHandlers serves the ring on the head's listener, behind its filter chain (RBAC:
// ClusterRole apichain:trace-reader may read it; the metrics server's user may report to it).
// Unlisted: the root's list of paths stays kube-apiserver's. Followers end as the chain starts
// to shut down (a step of stopping).
func installTraceHandlers(head *genericapiserver.GenericAPIServer, tp *tracing.Provider, stopping *stopSteps) {
	stop := make(chan struct{})
	mux := head.Handler.NonGoRestfulMux
	mux.UnlistedHandle(tracing.TracesPath, tracing.TracesHandler(tp.Ring(), stop))
	mux.UnlistedHandle(tracing.OTLPPath, tracing.OTLPHandler(tp.Ring()))
	stopping.add("trace-followers", func() error {
		close(stop)
		return nil
	})
}

// partTracing is the tracer provider of a part of the chain's process that is a service of its
// own in traces (a metrics server in-process, the simulated kubelets): its spans, under that
// service name, go into the chain's ring and to the chain's collector, if any. nil when the
// chain traces nothing.
func partTracing(chainTP *tracing.Provider, service string) (*tracing.Provider, error) {
	if chainTP == nil || !chainTP.Enabled() {
		return nil, nil
	}
	return tracing.New(context.Background(), tracing.Options{ServiceName: service, Ring: chainTP.Ring(), Export: chainTP.Export()})
}
