package workloads_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/apichain/apichain/test/testchain"
)

// TestKubectlWorkloads drives the workload resources with kubectl: the generators of kubectl
// create, kubectl scale through the scale subresource, kubectl get all -o wide through the Table
// columns and the "all" category.
func TestKubectlWorkloads(t *testing.T) {
	ns := testchain.Namespace(t, shared)
	steps := []struct {
		args  []string
		stdin string
		want  string // a regular expression the output must match
	}{
		{[]string{"-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2"}, "", `deployment.apps/web created`},
		{[]string{"-n", ns, "scale", "deployment", "web", "--replicas=5"}, "", `deployment.apps/web scaled`},
		{[]string{"-n", ns, "get", "deployment", "web", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"}, "", `^5 2$`},
		{[]string{"-n", ns, "scale", "deployment", "web", "--current-replicas=4", "--replicas=1"}, "", `Expected replicas to be 4, was 5`},
		{[]string{"-n", ns, "create", "job", "once", "--image=busybox", "--", "echo", "hi"}, "", `job.batch/once created`},
		{[]string{"-n", ns, "create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *", "--", "echo", "hi"}, "", `cronjob.batch/tick created`},
		{[]string{"-n", ns, "create", "job", "manual", "--from=cronjob/tick"}, "", `job.batch/manual created`},
		{[]string{"-n", ns, "apply", "-f", "-"}, "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\nspec: {selector: {app: rc}, template: {metadata: {labels: {app: rc}}, spec: {containers: [{name: c, image: nginx}]}}}\n", `replicationcontroller/rc created`},
		{[]string{"-n", ns, "scale", "rc", "rc", "--replicas=3"}, "", `replicationcontroller/rc scaled`},
		{[]string{"-n", ns, "apply", "-f", "-"}, "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {serviceName: db, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: postgres}]}}}\n", `statefulset.apps/db created`},
		{[]string{"-n", ns, "scale", "statefulset", "db", "--replicas=2"}, "", `statefulset.apps/db scaled`},
		// (kubectl autoscale writes autoscaling/v1, which the chain does not serve: apply v2)
		{[]string{"-n", ns, "apply", "-f", "-"}, "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 3}\n", `horizontalpodautoscaler.autoscaling/web created`},
		{[]string{"-n", ns, "get", "hpa"}, "", `(?m)^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nweb\s+Deployment/web\s+cpu: <unknown>/80%\s+1\s+3\s+0\s+`},
		{[]string{"-n", ns, "create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"}, "", `poddisruptionbudget.policy/web created`},
		{[]string{"-n", ns, "get", "all", "-o", "wide"}, "", `(?s)NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nreplicationcontroller/rc\s+3\s+0\s+0\s+.*` +
			`NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\ndeployment.apps/web\s+0/5\s+0\s+0\s+\S+\s+nginx\s+nginx:1.27\s+app=web.*` +
			`NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\nstatefulset.apps/db\s+0/2\s+\S+\s+c\s+postgres.*` +
			`NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\ncronjob.batch/tick\s+\*/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+\s+tick\s+busybox\s+<none>.*` +
			`NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\njob.batch/manual\s+Running\s+0/1\s+`},
		{[]string{"-n", ns, "get", "pdb"}, "", `(?m)^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb\s+1\s+N/A\s+0\s+`},
		{[]string{"-n", ns, "delete", "job", "once"}, "", `job.batch "once" deleted`},
	}
	for _, s := range steps {
		out, err := testchain.KubectlInput(t, shared, s.stdin, s.args...)
		if !regexp.MustCompile(s.want).MatchString(strings.TrimSpace(out)) {
			t.Errorf("kubectl %s: err %v, output:\n%s\nwant match %q", strings.Join(s.args, " "), err, out, s.want)
		}
	}
}
