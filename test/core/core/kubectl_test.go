package core_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/apichain/apichain/test/testchain"
)

func TestKubectlSmoke(t *testing.T) {
	ns := testchain.Namespace(t, shared)
	steps := []struct {
		args  []string
		stdin string
		want  string // a regular expression the output must match
	}{
		{[]string{"get", "namespaces"}, "", `(?m)^NAME\s+STATUS\s+AGE\n(.*\n)*default\s+Active\s+\d+[smhd]`},
		{[]string{"-n", ns, "create", "configmap", "cfg", "--from-literal=a=b"}, "", `configmap/cfg created`},
		{[]string{"-n", ns, "get", "cm", "cfg"}, "", `(?m)^NAME\s+DATA\s+AGE\ncfg\s+1\s+`},
		{[]string{"-n", ns, "apply", "--server-side", "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: nginx}]}\n", `pod/web serverside-applied`},
		{[]string{"-n", ns, "get", "pods", "-o", "wide"}, "", `(?m)^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\nweb\s+0/1\s+Pending\s+0\s+`},
		{[]string{"get", "svc", "kubernetes", "-n", "default"}, "", `kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443/TCP`},
		{[]string{"api-resources"}, "", `(?m)^pods\s+po\s+v1\s+true\s+Pod`},
		{[]string{"get", "apiservices"}, "", `v1\.coordination\.k8s\.io\s+Local\s+True`},
		{[]string{"explain", "pod.spec.containers.image"}, "", `FIELD: image <string>`},
		{[]string{"explain", "pods.spec"}, "", `FIELD: spec <PodSpec>`},
		// kubectl learns from the OpenAPI documents that the server checks fields itself.
		{[]string{"-n", ns, "apply", "--validate=strict", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict}\ndata: {a: b}\n", `configmap/strict created`},
		{[]string{"-n", ns, "apply", "--validate=strict", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict2}\nbogus: 1\n", `strict decoding error: unknown field "bogus"`},
		{[]string{"get", "--raw", "/apis/nope.example.com/v1"}, "", `NotFound|not found`},
		{[]string{"-n", ns, "create", "configmap", "Bad_Name"}, "", `is invalid: metadata.name`},
	}
	for _, s := range steps {
		out, err := testchain.KubectlInput(t, shared, s.stdin, s.args...)
		if !regexp.MustCompile(s.want).MatchString(out) {
			t.Errorf("kubectl %s: err %v, output:\n%s\nwant match %q", strings.Join(s.args, " "), err, out, s.want)
		}
	}
}

// TestKubectlShowsTheFallThrough: with -v 8, kubectl prints response headers, the chain's
// X-Chain-Server among them.
func TestKubectlShowsTheFallThrough(t *testing.T) {
	out, _ := testchain.KubectlInput(t, shared, "", "get", "crd", "-v", "8")
	if !regexp.MustCompile(`(?i)X-Chain-Server: extensions`).MatchString(out) {
		t.Errorf("kubectl -v 8 does not show X-Chain-Server: extensions:\n%s", out)
	}
}
