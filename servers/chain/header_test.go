package chain

import "testing"

// The prefix a trace's hand-on reasons name: the group version of an API path, else the path.
func TestRoutePrefix(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/default/configmaps/x": "/api/v1",
		"/api/v1":                   "/api/v1",
		"/api/":                     "/api/",
		"/api":                      "/api",
		"/apis/apps/v1/deployments": "/apis/apps/v1",
		"/apis/bars.example.com/v1": "/apis/bars.example.com/v1",
		"/apis/bars.example.com/":   "/apis/bars.example.com/",
		"/apis/bars.example.com":    "/apis/bars.example.com",
		"/apis//v1/x":               "/apis//v1",
		"/apis":                     "/apis",
		"/healthz/ping":             "/healthz/ping",
		"/apiss/x/y/z":              "/apiss/x/y/z",
		"/":                         "/",
		"":                          "",
	} {
		if got := routePrefix(path); got != want {
			t.Errorf("routePrefix(%q) = %q, want %q", path, got, want)
		}
	}
}
