package core

import (
	"fmt"
	"net/http"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/handler"
)

// InstallOpenAPI installs Core's OpenAPI handlers, /openapi/v3 and /openapi/v2, in place of
// k8s.io/apiserver's PrepareRun (NewConfig sets SkipOpenAPIInstallation for Core). The
// documents are what PrepareRun would serve; what differs is when they are built.
//
// v3 is built here, at once, unless a chain before this one in the process built the same
// documents (they are shared: openapiv3.go). The Aggregator's OpenAPI v3 aggregation asks every
// server for its v3 root document as soon as the chain serves. It must be built before the
// Aggregator is: kube-openapi's v3 builder writes into the definitions of the OpenAPIV3Config
// that every server of the chain shares (the extension maps of each schema, which the built
// documents share too), so no other v3 build, such as the Aggregator's models for its
// APIService storage, and no marshalling of a built document may run meanwhile (go test -race
// of chaintest finds it). The chain calls this before it builds the Aggregator.
//
// v2 is built on the first request for it (lazyOpenAPIV2). It is Core's largest document
// (every route of every group) and nothing needs it to start: kubectl reads v3, and the
// Aggregator's v2 aggregation downloads its delegates' documents only when someone asks the
// Aggregator for /openapi/v2 (kube-aggregator merges them lazily and only refreshes
// APIServices that have a Service, which Core's are not). Built at start, it cost CPU in the
// busiest second of a start and ~10 MiB of live heap for the life of a chain that, under
// tests, mostly never serves it (docs/performance.md).
//
// Calling it again does nothing.
func (s *Server) InstallOpenAPI() {
	s.openAPIOnce.Do(func() {
		g := s.GenericAPIServer
		if s.openAPIV2 != nil {
			g.Handler.NonGoRestfulMux.Handle("/openapi/v2", newLazyOpenAPIV2(g.Handler.GoRestfulContainer, s.openAPIV2, g.Serializer))
		}
		if s.openAPIV3 == nil {
			return
		}
		// Built here, or by a chain before this one in the same process (openapiv3.go).
		g.OpenAPIV3VersionedService = openAPIV3Service(g.Handler.GoRestfulContainer, s.openAPIV3)
		// Its error is always nil: it only adds the two handlers to the mux.
		_ = g.OpenAPIV3VersionedService.RegisterOpenAPIV3VersionedService("/openapi/v3", g.Handler.NonGoRestfulMux)
	})
}

// lazyOpenAPIV2 serves /openapi/v2, building the document from Core's routes on the first
// request; requests that arrive meanwhile wait for that build. The document then never
// changes (Core's routes are fixed once New returns). A build that fails answers 503 with a
// Status, to that request and every later one, where k8s.io/apiserver's PrepareRun would have
// ended the process.
//
// Core's GenericAPIServer keeps OpenAPIVersionedService and StaticOpenAPISpec nil: nothing
// reads them for Core (ApiExtensions reads its own, for its CRD controller).
type lazyOpenAPIV2 struct {
	routes     *restful.Container
	config     common.Config
	serializer runtime.NegotiatedSerializer

	once  sync.Once
	serve http.Handler // kube-openapi's handler of the built document
	err   error
}

func newLazyOpenAPIV2(routes *restful.Container, config *common.Config, serializer runtime.NegotiatedSerializer) *lazyOpenAPIV2 {
	// A copy: kube-openapi's builder fills in fields of the config it is given that are unset,
	// and the chain's servers share one config; a build on first request could otherwise write
	// it while another server reads it.
	return &lazyOpenAPIV2{routes: routes, config: *config, serializer: serializer}
}

func (l *lazyOpenAPIV2) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	l.once.Do(l.build)
	if l.err != nil {
		responsewriters.ErrorNegotiated(apierrors.NewServiceUnavailable(l.err.Error()), l.serializer, schema.GroupVersion{}, w, req)
		return
	}
	l.serve.ServeHTTP(w, req)
}

func (l *lazyOpenAPIV2) build() {
	doc, err := builder.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(l.routes.RegisteredWebServices()), &l.config)
	if err != nil {
		l.err = fmt.Errorf("building the OpenAPI v2 document: %w", err)
		return
	}
	// As PrepareRun serves it: without the defaults that the definitions repeat.
	doc.Definitions = handler.PruneDefaults(doc.Definitions)
	// kube-openapi's handler does the serving (JSON or protobuf, ETag, gzip); it registers
	// itself on a mux of its own, which this handler's requests reach through.
	mux := http.NewServeMux()
	handler.NewOpenAPIService(doc).RegisterOpenAPIVersionedService("/openapi/v2", mux)
	l.serve = mux
}
