package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler3"
)

// sharedV3 keeps Core's OpenAPI v3 documents for the life of the process, one set for every
// distinct Core (its routes and its v3 configuration: v3Key). Several chains in one process (a
// test binary's chaintest Environments, started one after another or side by side) have the
// same Core, so the first builds the ~50 group documents and marshals them, and the others
// serve those bytes. Building and marshalling them was the largest part of a start's CPU and
// ~15 MB of each chain's heap (docs/performance.md); a chain alone in its process (cmd/chain)
// builds them once either way.
//
// What is shared is read-only once built: kube-openapi's v3 service caches each group's JSON
// (and the protobuf it derives from that JSON) and its root document with the hashes, and
// nothing updates Core's groups after they are built. The built documents keep pointing into
// the OpenAPI definitions of the chain that built them (kube-openapi's builder shares the
// definitions' schemas with the documents), so those stay in memory as long as the process:
// bounded, one set per distinct Core.
var sharedV3 struct {
	sync.Mutex
	byKey map[string]*sharedV3Entry
}

type sharedV3Entry struct {
	once    sync.Once
	service *handler3.OpenAPIService
}

// openAPIV3Service returns the v3 service for Core's routes in container and config: the one
// already built for an identical Core in this process, or one built now. Chains that ask for
// the same one at once wait for the first to have built it.
func openAPIV3Service(container *restful.Container, config *common.OpenAPIV3Config) *handler3.OpenAPIService {
	key := v3Key(container.RegisteredWebServices(), config)
	sharedV3.Lock()
	e := sharedV3.byKey[key]
	if e == nil {
		if sharedV3.byKey == nil {
			sharedV3.byKey = map[string]*sharedV3Entry{}
		}
		e = &sharedV3Entry{}
		sharedV3.byKey[key] = e
	}
	sharedV3.Unlock()
	e.once.Do(func() {
		// k8s.io/apiserver's own build, as PrepareRun would do it; the mux it registers on is a
		// throwaway, every chain registers the service on its own.
		e.service = routes.OpenAPI{V3Config: config}.InstallV3(container, mux.NewPathRecorderMux("core-openapi-v3"))
		// The root document carries a hash of every group's document, so its first GET
		// marshals them all. The Aggregator makes that GET as soon as a chain serves, when
		// every post-start hook wants the CPU: do it now instead. The result is cached until a
		// group changes, which Core's never do.
		e.service.HandleDiscovery(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
	})
	return e.service
}

// v3Key names what Core's v3 documents are built from: every route with what kube-openapi's
// builder reads of it (path, method, operation, documentation, parameters, the Go types of
// its payloads and responses, its metadata), and the configuration (its info, security and
// common responses, and which functions give the definitions, their names and the operation
// IDs). Two Cores with equal keys get the same documents. Anything printed as a pointer
// (a parameter's minimum, say) differs between chains, which only means they do not share.
func v3Key(services []*restful.WebService, config *common.OpenAPIV3Config) string {
	h := sha256.New()
	meta, err := json.Marshal(struct {
		Info            any
		DefaultSecurity any
		SecuritySchemes any
		CommonResponses any
		IgnorePrefixes  []string
	}{config.Info, config.DefaultSecurity, config.SecuritySchemes, config.CommonResponses, config.IgnorePrefixes})
	if err != nil {
		// Not expected (plain data); a key of its own keeps this Core from sharing.
		return fmt.Sprintf("unshared %p", config)
	}
	fmt.Fprintf(h, "config %s\n", meta)
	fmt.Fprintf(h, "functions %p %p %p %p %p\n", config.GetDefinitions, config.GetDefinitionName,
		config.GetOperationIDAndTags, config.GetOperationIDAndTagsFromRoute, config.PostProcessSpec)
	for _, ws := range services {
		fmt.Fprintf(h, "service %s %q\n", ws.RootPath(), ws.Documentation())
		for _, r := range ws.Routes() {
			fmt.Fprintf(h, "route %s %s %s %q %q %v %v %v %T %T %v %v\n", r.Method, r.Path, r.Operation,
				r.Doc, r.Notes, r.Produces, r.Consumes, r.Deprecated, r.ReadSample, r.WriteSample, r.Metadata, r.ExtensionProperties)
			for _, p := range r.ParameterDocs {
				fmt.Fprintf(h, "parameter %+v\n", p.Data())
			}
			for _, s := range r.WriteSamples {
				fmt.Fprintf(h, "writes %T\n", s)
			}
			codes := make([]int, 0, len(r.ResponseErrors))
			for code := range r.ResponseErrors {
				codes = append(codes, code)
			}
			slices.Sort(codes)
			for _, code := range codes {
				e := r.ResponseErrors[code]
				fmt.Fprintf(h, "response %d %q %T %v %v\n", code, e.Message, e.Model, e.IsDefault, e.Headers)
			}
			if d := r.DefaultResponse; d != nil {
				fmt.Fprintf(h, "default response %d %q %T\n", d.Code, d.Message, d.Model)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
