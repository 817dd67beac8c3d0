package metrics

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	componenttracing "k8s.io/component-base/tracing"

	"github.com/apichain/apichain/internal/tracing"
)

// newTracing is the tracer provider of a metrics server of its own process: it reports its
// spans to the chain's ring with --trace-to-chain, and exports them to the collector of
// --tracing-config-file; nil with neither. A metrics server in the chain's process is given
// the chain's instead (Options.TracerProvider).
func newTracing(o CompletedOptions, chain *rest.Config) (componenttracing.TracerProvider, error) {
	if o.TracerProvider != nil {
		return o.TracerProvider, nil
	}
	opts := tracing.Options{ServiceName: "metrics-server"}
	if o.TracingConfigFile != "" {
		export, err := tracing.ReadConfigFile(o.TracingConfigFile)
		if err != nil {
			return nil, fmt.Errorf("--tracing-config-file: %w", err)
		}
		opts.Export = export
	}
	if o.TraceToChain {
		report, err := tracing.NewChainReporter(context.Background(), chain)
		if err != nil {
			return nil, fmt.Errorf("--trace-to-chain: %w", err)
		}
		opts.Report = report
	}
	if opts.Export == nil && opts.Report == nil {
		return nil, nil
	}
	return tracing.New(context.Background(), opts)
}

// applyTracing traces what the server serves, after its delegated authentication and
// authorization are configured: k8s.io/apiserver's server span and handler spans; the
// authentication (whom it trusted as front proxy, and the user that proxy named) and the
// authorization (the decision) as the chain's head records its own (internal/tracing authn.go);
// and the TokenReviews and SubjectAccessReviews it sends back to the chain, as client spans
// whose trace context the chain sees.
func applyTracing(c *genericapiserver.Config, tp componenttracing.TracerProvider, o CompletedOptions) {
	c.TracerProvider = tp
	o.Authentication.CustomRoundTripperFn = componenttracing.WrapperFor(tp)
	o.Authorization.CustomRoundTripperFn = componenttracing.WrapperFor(tp)
}

// applyAuthTracing wraps the authenticator and authorizer that delegation built.
func applyAuthTracing(c *genericapiserver.Config) {
	c.Authentication.Authenticator = tracing.RecordAuthentication(
		namedDelegated(c.Authentication.Authenticator, c.Authentication.RequestHeaderConfig), "delegated")
	c.Authorization.Authorizer = tracing.TracedAuthorizer(c.Authorization.Authorizer, nil)
	build := c.BuildHandlerChainFunc
	c.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
		return tracing.WithAuthnRecord(build(h, c))
	}
}

// namedDelegated names which of the delegating authenticator's ways accepted a request: the
// front proxy's headers (the Aggregator, with its client certificate), a client certificate of
// its own, or a bearer token the chain reviewed (TokenReview).
func namedDelegated(inner authenticator.Request, rh *authenticatorfactory.RequestHeaderConfig) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		// Read before: the front-proxy authenticator removes its headers once it accepts them.
		var headers []string
		var named string
		if rh != nil {
			for _, h := range rh.UsernameHeaders.Value() {
				if v := req.Header.Get(h); v != "" {
					headers = append(headers, h)
					if named == "" {
						named = v
					}
				}
			}
			for _, h := range rh.GroupHeaders.Value() {
				if req.Header.Get(h) != "" {
					headers = append(headers, h)
				}
			}
		}
		var client string
		if req.TLS != nil && len(req.TLS.PeerCertificates) > 0 {
			client = req.TLS.PeerCertificates[0].Subject.CommonName
		}
		bearer := strings.HasPrefix(req.Header.Get("Authorization"), "Bearer ")

		resp, ok, err := inner.AuthenticateRequest(req)
		if !ok || resp == nil || resp.User == nil {
			return resp, ok, err
		}
		ctx := req.Context()
		switch {
		case named != "" && client != "" && resp.User.GetName() == named:
			tracing.NoteAuthenticator(ctx, "front-proxy",
				attribute.String(tracing.AttrFrontProxyClient, client),
				attribute.String(tracing.AttrFrontProxyHeaders, strings.Join(headers, ",")))
		case client != "" && resp.User.GetName() == client:
			tracing.NoteAuthenticator(ctx, "x509")
		case bearer:
			tracing.NoteAuthenticator(ctx, "token (TokenReview by the chain)")
		}
		return resp, ok, err
	})
}
