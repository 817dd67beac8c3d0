package tracing_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/test/testchain"
)

// TestTracesNeedRights: the ring answers system:masters and whoever is bound to ClusterRole
// apichain:trace-reader; anyone else gets 403, as for any non-resource URL.
func TestTracesNeedRights(t *testing.T) {
	c := shared
	nobody := testchain.UserConfig(t, c, "trace-nobody")
	resp, body := testchain.Do(t, nobody, http.MethodGet, tracing.TracesPath, nil, "")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a user without rights: %d %s, want 403", resp.StatusCode, body)
	}
	resp, body = testchain.Do(t, nobody, http.MethodGet, tracing.TracesPath+"?follow=true", nil, "")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a user without rights, following: %d %s, want 403", resp.StatusCode, body)
	}

	cs, _ := testchain.Clients(t, c)
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-trace-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "apichain:trace-reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "trace-reader"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(context.Background(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	reader := testchain.UserConfig(t, c, "trace-reader")
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Do(t, reader, http.MethodGet, tracing.TracesPath, nil, "")
		return resp.StatusCode == http.StatusOK
	})
	// A request RBAC denies is in the ring, with the decision. (The denied reads of the ring
	// above are not: reading the ring is left out of it, allowed or not.)
	const secrets = "/api/v1/namespaces/kube-system/secrets"
	if resp, body := testchain.Get(t, c, secrets); resp.StatusCode != http.StatusOK {
		t.Fatalf("admin: %d %s", resp.StatusCode, body)
	}
	if resp, body := testchain.Do(t, nobody, http.MethodGet, secrets, nil, ""); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a user without rights: %d %s, want 403", resp.StatusCode, body)
	}
	tr := waitForTrace(t, c, "the denied list", func(tr *tracing.Trace) bool {
		return tr.Request.User == "trace-nobody" && tr.Request.Path == secrets
	})
	if tr.Request.Code != http.StatusForbidden || tr.Request.Verb != "list" {
		t.Errorf("the denied list: %+v", tr.Request)
	}
	if authz := mustFind(t, tr, tracing.SpanAuthorization); authz.Attributes[tracing.AttrDecision] != "deny" ||
		authz.Attributes[tracing.AttrReason] != "no authorizer allowed it: no RBAC role bound to the user grants list on secrets in namespace kube-system" {
		t.Errorf("the denied list's authorization: %v\n%s", authz.Attributes, tree(tr))
	}
	if find(tr, "aggregator") != nil {
		t.Errorf("a denied request reached the chain's servers:\n%s", tree(tr))
	}
	// Reading the ring is itself left out of it, denied or not: only the denial above shows.
	for _, tr := range readTraces(t, c.Admin) {
		if tr.Request.Path == tracing.TracesPath && tr.Request.Code == http.StatusOK {
			t.Errorf("a read of the ring is in the ring:\n%s", tree(tr))
		}
	}
}

// TestTracesBadQuery: a query the ring cannot read is a 400 Status naming it.
func TestTracesBadQuery(t *testing.T) {
	for _, q := range []string{"since=yesterday", "follow=maybe"} {
		resp, body := testchain.Get(t, shared, tracing.TracesPath+"?"+q)
		var status metav1.Status
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &status) != nil || status.Reason != metav1.StatusReasonBadRequest {
			t.Errorf("?%s: %d %s, want a 400 Status", q, resp.StatusCode, body)
		}
	}
}

// TestFollow: ?follow=true streams each request's trace, one JSON object a line, as it
// completes.
func TestFollow(t *testing.T) {
	c := shared
	transport, err := rest.TransportFor(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Admin.Host+tracing.TracesPath+"?follow=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("follow: %d", resp.StatusCode)
	}
	// The stream is open: a request made now comes down it.
	const path = "/api/v1/namespaces/kube-system/configmaps/followed"
	testchain.Get(t, c, path)
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var tr tracing.Trace
		if err := json.Unmarshal(lines.Bytes(), &tr); err != nil {
			t.Fatalf("a line of the stream: %v: %s", err, lines.Bytes())
		}
		if tr.Request.Path == path {
			if tr.Request.Code != http.StatusNotFound || tr.Request.User != "admin" || tr.Seq == 0 {
				t.Errorf("the followed request: %+v", tr.Request)
			}
			return
		}
	}
	t.Fatalf("the stream ended before the request's trace: %v", lines.Err())
}
