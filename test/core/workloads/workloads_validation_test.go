package workloads_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/test/testchain"
)

// TestWorkloadValidationThroughTheAPI sends invalid workload objects and compares the whole
// message with what kube-apiserver v1.37.2 answers (upstream's validation and strategies, the
// enforced declarative rules last).
func TestWorkloadValidationThroughTheAPI(t *testing.T) {
	ns := testchain.Namespace(t, shared)
	const c = `containers: [{name: c, image: nginx}]`
	cases := []struct{ name, path, input, want string }{
		{"deployment empty selector", "/apis/apps/v1/namespaces/NS/deployments",
			`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d1}, spec: {selector: {}, template: {metadata: {labels: {app: a}}, spec: {` + c + `}}}}`,
			`Deployment.apps "d1" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for deployment`},
		{"deployment restart policy", "/apis/apps/v1/namespaces/NS/deployments",
			`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d2}, spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {restartPolicy: Never, ` + c + `}}}}`,
			`Deployment.apps "d2" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"deployment strategy", "/apis/apps/v1/namespaces/NS/deployments",
			`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d3}, spec: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}, selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {` + c + `}}}}`,
			`Deployment.apps "d3" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when ` + "`maxSurge`" + ` is 0`},
		{"deployment progress deadline", "/apis/apps/v1/namespaces/NS/deployments",
			`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d4}, spec: {minReadySeconds: 10, progressDeadlineSeconds: 5, selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {` + c + `}}}}`,
			`Deployment.apps "d4" is invalid: spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds`},
		{"statefulset name", "/apis/apps/v1/namespaces/NS/statefulsets",
			`{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s.1}, spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {` + c + `}}}}`,
			`StatefulSet.apps "s.1" is invalid: metadata.name: Invalid value: "s.1": must not contain dots`},
		{"daemonset update strategy", "/apis/apps/v1/namespaces/NS/daemonsets",
			`{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ds1}, spec: {updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}, selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {` + c + `}}}}`,
			`DaemonSet.apps "ds1" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`},
		{"replicaset selector mismatch", "/apis/apps/v1/namespaces/NS/replicasets",
			`{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs1}, spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: b}}, spec: {` + c + `}}}}`,
			`ReplicaSet.apps "rs1" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: ` + "`selector` does not match template `labels`"},
		{"controllerrevision data", "/apis/apps/v1/namespaces/NS/controllerrevisions",
			`{apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: cr1}, revision: -1}`,
			`ControllerRevision.apps "cr1" is invalid: [revision: Invalid value: -1: must be greater than or equal to 0, data: Required value: data is mandatory]`},
		{"job restart policy", "/apis/batch/v1/namespaces/NS/jobs",
			`{apiVersion: batch/v1, kind: Job, metadata: {name: j1}, spec: {template: {spec: {restartPolicy: Always, ` + c + `}}}}`,
			`Job.batch "j1" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		{"job negative parallelism", "/apis/batch/v1/namespaces/NS/jobs",
			`{apiVersion: batch/v1, kind: Job, metadata: {name: j2}, spec: {parallelism: -1, template: {spec: {restartPolicy: Never, ` + c + `}}}}`,
			`Job.batch "j2" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0`},
		{"job indexed without completions", "/apis/batch/v1/namespaces/NS/jobs",
			`{apiVersion: batch/v1, kind: Job, metadata: {name: j3}, spec: {completionMode: Indexed, completions: null, template: {spec: {restartPolicy: Never, ` + c + `}}}}`,
			``},
		{"cronjob schedule", "/apis/batch/v1/namespaces/NS/cronjobs",
			`{apiVersion: batch/v1, kind: CronJob, metadata: {name: cj1}, spec: {schedule: 'not a schedule', jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, ` + c + `}}}}}}`,
			`CronJob.batch "cj1" is invalid: spec.schedule: Invalid value: "not a schedule": expected exactly 5 fields, found 3: [not a schedule]`},
		{"cronjob TZ in schedule", "/apis/batch/v1/namespaces/NS/cronjobs",
			`{apiVersion: batch/v1, kind: CronJob, metadata: {name: cj2}, spec: {schedule: 'TZ=UTC 0 * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, ` + c + `}}}}}}`,
			`CronJob.batch "cj2" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`},
		{"cronjob time zone", "/apis/batch/v1/namespaces/NS/cronjobs",
			`{apiVersion: batch/v1, kind: CronJob, metadata: {name: cj3}, spec: {schedule: '@hourly', timeZone: Mars/Olympus, jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, ` + c + `}}}}}}`,
			`CronJob.batch "cj3" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`},
		{"cronjob missing schedule", "/apis/batch/v1/namespaces/NS/cronjobs",
			`{apiVersion: batch/v1, kind: CronJob, metadata: {name: cj4}, spec: {jobTemplate: {spec: {template: {spec: {restartPolicy: Never, ` + c + `}}}}}}`,
			`CronJob.batch "cj4" is invalid: spec.schedule: Required value`},
		{"hpa replicas", "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
			`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: h1}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}, minReplicas: 3, maxReplicas: 2}}`,
			`HorizontalPodAutoscaler.autoscaling "h1" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to ` + "`minReplicas`"},
		{"hpa target", "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
			`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: h2}, spec: {scaleTargetRef: {apiVersion: v1, kind: Deployment, name: d}, maxReplicas: 2}}`,
			`HorizontalPodAutoscaler.autoscaling "h2" is invalid: spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`},
		{"hpa scale to zero", "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
			`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: h3}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}, minReplicas: 0, maxReplicas: 2}}`,
			`HorizontalPodAutoscaler.autoscaling "h3" is invalid: spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas`},
		{"pdb min and max", "/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
			`{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p1}, spec: {minAvailable: 1, maxUnavailable: "150%"}}`,
			`PodDisruptionBudget.policy "p1" is invalid: [spec: Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":"150%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set, spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%]`},
		{"pdb eviction policy", "/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
			`{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p2}, spec: {minAvailable: 1, unhealthyPodEvictionPolicy: Sometimes}}`,
			`PodDisruptionBudget.policy "p2" is invalid: spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`},
		{"replicationcontroller replicas", "/api/v1/namespaces/NS/replicationcontrollers",
			`{apiVersion: v1, kind: ReplicationController, metadata: {name: rc1}, spec: {replicas: -1, minReadySeconds: -1, selector: {app: a}, template: {metadata: {labels: {app: a}}, spec: {` + c + `}}}}`,
			// both are declarative (+k8s:beta) errors, in the order of the generated validation
			`ReplicationController "rc1" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]`},
		{"replicationcontroller selector", "/api/v1/namespaces/NS/replicationcontrollers",
			`{apiVersion: v1, kind: ReplicationController, metadata: {name: rc2}, spec: {selector: {app: a}, template: {metadata: {labels: {app: b}}, spec: {` + c + `}}}}`,
			`ReplicationController "rc2" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: ` + "`selector` does not match template `labels`"},
		{"podtemplate", "/api/v1/namespaces/NS/podtemplates",
			`{apiVersion: v1, kind: PodTemplate, metadata: {name: pt1}, template: {spec: {containers: [{name: c}]}}}`,
			`PodTemplate "pt1" is invalid: template.spec.containers[0].image: Required value`},
	}
	for _, tc := range cases {
		if tc.want == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			body, err := yaml.YAMLToJSON([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			resp, out := testchain.Do(t, shared.Admin, "POST", strings.ReplaceAll(tc.path, "NS", ns), body, "application/json")
			var st metav1.Status
			_ = json.Unmarshal(out, &st)
			if resp.StatusCode != 422 || st.Message != tc.want {
				t.Errorf("\n got  %d %s\n want %s", resp.StatusCode, st.Message, tc.want)
			}
		})
	}
}

// TestWorkloadImmutableFields: what upstream's update validation forbids.
func TestWorkloadImmutableFields(t *testing.T) {
	ns := testchain.Namespace(t, shared)
	const tmpl = `template: {metadata: {labels: {app: a, tier: x}}, spec: {containers: [{name: c, image: nginx}]}}`
	for _, tc := range []struct{ resource, create, patch, want string }{
		{"deployments", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: imm}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`,
			`{"spec":{"selector":{"matchLabels":{"tier":"x"}}}}`,
			`Deployment.apps "imm" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`},
		{"replicasets", `{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: imm}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`,
			`{"spec":{"selector":{"matchLabels":{"tier":"x"}}}}`,
			`ReplicaSet.apps "imm" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`},
		{"daemonsets", `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: imm}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`,
			`{"spec":{"selector":{"matchLabels":{"tier":"x"}}}}`,
			`DaemonSet.apps "imm" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`},
		{"statefulsets", `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: imm}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`,
			`{"spec":{"podManagementPolicy":"Parallel"}}`,
			`StatefulSet.apps "imm" is invalid: spec.podManagementPolicy: Invalid value: "Parallel": field is immutable`},
		{"controllerrevisions", `{apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: imm}, revision: 1, data: {a: b}}`,
			`{"data":{"a":"c"}}`,
			`ControllerRevision.apps "imm" is invalid: data: Invalid value: {"a":"c"}: field is immutable`},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			body, _ := yaml.YAMLToJSON([]byte(tc.create))
			base := "/apis/apps/v1/namespaces/" + ns + "/" + tc.resource
			if resp, out := testchain.Do(t, shared.Admin, "POST", base, body, "application/json"); resp.StatusCode != 201 {
				t.Fatalf("create: %d %s", resp.StatusCode, out)
			}
			resp, out := testchain.Do(t, shared.Admin, "PATCH", base+"/imm", []byte(tc.patch), "application/merge-patch+json")
			var st metav1.Status
			_ = json.Unmarshal(out, &st)
			if resp.StatusCode != 422 || st.Message != tc.want {
				t.Errorf("\n got  %d %s\n want %s", resp.StatusCode, st.Message, tc.want)
			}
		})
	}
}

// TestWorkloadFieldSelectors: the fields kube-apiserver lets list and watch select on.
func TestWorkloadFieldSelectors(t *testing.T) {
	for _, tc := range []struct{ path, selector string }{
		{"/apis/batch/v1/jobs", "status.successful=0"},
		{"/apis/apps/v1/replicasets", "status.replicas=0"},
		{"/api/v1/replicationcontrollers", "status.replicas=0"},
		{"/apis/apps/v1/deployments", "metadata.name=x"},
	} {
		if resp, out := testchain.Get(t, shared, tc.path+"?fieldSelector="+tc.selector); resp.StatusCode != 200 {
			t.Errorf("%s?fieldSelector=%s: %d %s", tc.path, tc.selector, resp.StatusCode, out)
		}
	}
	for _, tc := range []struct{ path, selector, want string }{
		{"/apis/apps/v1/deployments", "status.replicas=0", `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"/apis/policy/v1/poddisruptionbudgets", "spec.minAvailable=1", `"spec.minAvailable" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"/apis/batch/v1/jobs", "status.active=0", "field label not supported: status.active"},
	} {
		resp, out := testchain.Get(t, shared, tc.path+"?fieldSelector="+tc.selector)
		var st metav1.Status
		_ = json.Unmarshal(out, &st)
		if resp.StatusCode != 400 || st.Message != tc.want {
			t.Errorf("%s?fieldSelector=%s: %d %s, want 400 %q", tc.path, tc.selector, resp.StatusCode, out, tc.want)
		}
	}
}
