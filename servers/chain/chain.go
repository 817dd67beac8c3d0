package chain

import (
	"fmt"

	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/notfoundhandler"

	"github.com/apichain/apichain/servers/aggregator"
	"github.com/apichain/apichain/servers/chain/departures"
)

// CreateServerChain builds the three servers inner-first and links them by delegation, as
// kube-apiserver's CreateServerChain does. The returned Aggregator is the head: it owns the
// listener and the filter chain, and runs the others' post-start hooks and health checks.
func CreateServerChain(c CompletedConfig) (*aggregator.Server, error) {
	// Unknown paths end here: 503 until every server has installed its routes (so that a client
	// racing start-up never takes a 404 for an answer), 404 after.
	notFoundHandler := notfoundhandler.New(c.Core.Generic.Serializer, genericapifilters.NoMuxAndDiscoveryIncompleteKey)
	// Departure: the 404 is a NotFound Status, not plain text (package departures).
	notFound := departures.NotFoundAsStatus(notFoundHandler, c.Core.Generic.Serializer)
	notFoundServer := genericapiserver.NewEmptyDelegateWithCustomHandler(answeredBy(serverNotFound, notFound))

	extensionsServer, err := c.Extensions.New(notFoundServer)
	if err != nil {
		return nil, fmt.Errorf("creating apiextensions server: %w", err)
	}
	labelDelegate(extensionsServer.GenericAPIServer, serverExtensions)

	coreServer, err := c.Core.New(extensionsServer.GenericAPIServer)
	if err != nil {
		return nil, fmt.Errorf("creating core server: %w", err)
	}
	labelDelegate(coreServer.GenericAPIServer, serverCore)
	// Core's OpenAPI handlers, before the Aggregator is built (see InstallOpenAPI).
	coreServer.InstallOpenAPI()

	aggregatorServer, err := c.Aggregator.New(coreServer.GenericAPIServer, extensionsServer.CRDInformers().Apiextensions().V1().CustomResourceDefinitions())
	if err != nil {
		return nil, fmt.Errorf("creating aggregator: %w", err)
	}
	c.label.apiServices = aggregatorServer.APIRegistrationInformers.Apiregistration().V1().APIServices().Lister()
	// The ring of recent traces, on the head's listener (tracing.go).
	installTraceHandlers(aggregatorServer.GenericAPIServer, c.tracing, c.stopping)
	// The head runs every server's pre-shutdown hooks; the chain's own work is one of them,
	// whose steps run side by side (stop.go). Start adds the steps of what it starts.
	if err := aggregatorServer.GenericAPIServer.AddPreShutdownHook("stop-chain", c.stopping.run); err != nil {
		return nil, err
	}
	return aggregatorServer, nil
}
