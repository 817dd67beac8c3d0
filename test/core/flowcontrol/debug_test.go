package flowcontrol_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/test/testchain"
)

const dumps = "/debug/api_priority_and_fairness/"

// TestDebugDumps: the head serves k8s.io/apiserver's three APF dumps, as kube-apiserver does:
// one row per priority level, per queue, and per request in a queue or executing, which
// includes the request that asks for the dump.
func TestDebugDumps(t *testing.T) {
	waitDigested(t, shared)
	levels := dump(t, shared.Admin, "dump_priority_levels", http.StatusOK)
	if !strings.HasPrefix(levels, "PriorityLevelName, ActiveQueues, IsIdle, ") {
		t.Errorf("dump_priority_levels has no header row:\n%s", levels)
	}
	for _, pl := range []string{"catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"} {
		if !regexp.MustCompile(`(?m)^` + pl + `,\s`).MatchString(levels) {
			t.Errorf("dump_priority_levels has no row for %s:\n%s", pl, levels)
		}
	}
	// The queuing levels' queues: 128 for global-default.
	queues := dump(t, shared.Admin, "dump_queues", http.StatusOK)
	if n := len(regexp.MustCompile(`(?m)^global-default,\s`).FindAllString(queues, -1)); n != 128 {
		t.Errorf("dump_queues has %d rows for global-default, want its 128 queues", n)
	}
	// The dump request itself, executing in exempt, without a queue, with its user and path.
	requests := dump(t, shared.Admin, "dump_requests?includeRequestDetails=1", http.StatusOK)
	self := regexp.MustCompile(`(?m)^exempt,\s+exempt,\s+-1,\s+-1,.*\badmin,\s+get,\s+` + regexp.QuoteMeta(dumps+"dump_requests") + `,`)
	if !strings.Contains(requests, "UserName, Verb, ") || !self.MatchString(requests) {
		t.Errorf("dump_requests?includeRequestDetails=1 does not show itself:\n%s", requests)
	}
}

// TestDebugDumpsAuthorized: the dumps are non-resource URLs, authorized as any other: of
// kube-apiserver's bootstrap roles only cluster-admin's nonResourceURLs "*" reaches them, so
// a user may read them only with a role that grants get on their path.
func TestDebugDumpsAuthorized(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	out := dump(t, testchain.UserConfig(t, shared, "apf-user"), "dump_priority_levels", http.StatusForbidden)
	if want := `User \"apf-user\" cannot get path \"` + dumps + `dump_priority_levels\"`; !strings.Contains(out, want) {
		t.Errorf("a user without a grant: %s, want %s", out, want)
	}
	dump(t, rest.AnonymousClientConfig(shared.Admin), "dump_queues", http.StatusForbidden)

	grant(t, cs, "apf-debug-reader", rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "apf-reader"},
		rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{dumps + "*"}})
	reader := testchain.UserConfig(t, shared, "apf-reader")
	// RBAC reads bindings through informers: the grant takes effect a moment later.
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Request(t, reader, http.MethodGet, dumps+"dump_requests", nil, nil)
		return resp.StatusCode == http.StatusOK
	})
	dump(t, reader, "dump_priority_levels", http.StatusOK)
	dump(t, reader, "dump_queues", http.StatusOK)
}

// dump GETs one of the dumps with cfg's credentials, checks the status code, and returns the body.
func dump(t *testing.T, cfg *rest.Config, name string, code int) string {
	t.Helper()
	resp, body := testchain.Request(t, cfg, http.MethodGet, dumps+name, nil, nil)
	if resp.StatusCode != code {
		t.Fatalf("GET %s: %d, want %d\n%s", dumps+name, resp.StatusCode, code, body)
	}
	return string(body)
}
