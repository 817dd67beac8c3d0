package compare_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// workloadReferenceUID is the uid kube-apiserver gave the reference Job; it shows in the labels
// and the selector it generated.
const workloadReferenceUID = "1beabe24-3e95-436f-a45f-5a0331a711a4"

// TestWorkloadDefaultsMatchKubeAPIServer sends the workload objects of test/reference/capture.sh
// with dryRun=All and compares the answer with kube-apiserver v1.37.2's
// (test/reference/defaulted): defaults, strategy-set fields (the daemonset template
// generation, the job's generated selector and labels, reset statuses), nothing dropped.
func TestWorkloadDefaultsMatchKubeAPIServer(t *testing.T) {
	const c = `containers: [{name: c, image: "nginx:1.27", ports: [{containerPort: 80}]}]`
	const tmpl = `template: {metadata: {labels: {app: a}}, spec: {` + c + `}}`
	cases := []struct{ file, path, input string }{
		{"deployment", "/apis/apps/v1/namespaces/NS/deployments", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`},
		{"statefulset", "/apis/apps/v1/namespaces/NS/statefulsets", `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s}, spec: {serviceName: s, selector: {matchLabels: {app: a}}, ` + tmpl + `}}`},
		{"daemonset", "/apis/apps/v1/namespaces/NS/daemonsets", `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ds}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`},
		{"replicaset", "/apis/apps/v1/namespaces/NS/replicasets", `{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs}, spec: {selector: {matchLabels: {app: a}}, ` + tmpl + `}}`},
		{"job", "/apis/batch/v1/namespaces/NS/jobs", `{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {template: {spec: {restartPolicy: Never, ` + c + `}}}}`},
		{"cronjob", "/apis/batch/v1/namespaces/NS/cronjobs", `{apiVersion: batch/v1, kind: CronJob, metadata: {name: cj}, spec: {schedule: '*/5 * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, ` + c + `}}}}}}`},
		{"hpa", "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers", `{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: hpa}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}, maxReplicas: 3}}`},
		{"pdb", "/apis/policy/v1/namespaces/NS/poddisruptionbudgets", `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: pdb}, spec: {minAvailable: 1, selector: {matchLabels: {app: a}}}}`},
		{"replicationcontroller", "/api/v1/namespaces/NS/replicationcontrollers", `{apiVersion: v1, kind: ReplicationController, metadata: {name: rc}, spec: {selector: {app: a}, ` + tmpl + `}}`},
	}
	ns := testchain.Namespace(t, shared)
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(reference.Path("defaulted/" + tc.file + ".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]interface{}
			if err := json.Unmarshal([]byte(strings.ReplaceAll(string(raw), workloadReferenceUID, "UID")), &want); err != nil {
				t.Fatal(err)
			}
			body, err := yaml.YAMLToJSON([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			resp, out := testchain.Do(t, shared.Admin, "POST", strings.ReplaceAll(tc.path, "NS", ns)+"?dryRun=All", body, "application/json")
			if resp.StatusCode != 201 {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			var meta struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(out, &meta); err != nil || meta.Metadata.UID == "" {
				t.Fatalf("no uid: %v %s", err, out)
			}
			if meta.Metadata.Generation != 1 {
				t.Errorf("metadata.generation = %d, want 1", meta.Metadata.Generation)
			}
			var got map[string]interface{}
			if err := json.Unmarshal([]byte(strings.ReplaceAll(string(out), string(meta.Metadata.UID), "UID")), &got); err != nil {
				t.Fatal(err)
			}
			// What differs by nature: identity and time, kubectl's annotation, the namespace.
			for _, m := range []map[string]interface{}{got, want} {
				md := m["metadata"].(map[string]interface{})
				for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "namespace"} {
					delete(md, k)
				}
				if a, ok := md["annotations"].(map[string]interface{}); ok {
					delete(a, "kubectl.kubernetes.io/last-applied-configuration")
					if len(a) == 0 {
						delete(md, "annotations")
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.MarshalIndent(got, "", " ")
				w, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("defaulted %s differs from kube-apiserver's:\n got  %s\n want %s", tc.file, g, w)
			}
		})
	}
}

// TestWorkloadValidationMessagesMatchKubeAPIServer sends the Deployment and Job of
// test/reference/validation-messages.txt and compares the errors with kube-apiserver's.
func TestWorkloadValidationMessagesMatchKubeAPIServer(t *testing.T) {
	raw, err := os.ReadFile(reference.Path("validation-messages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ns := testchain.Namespace(t, shared)
	paths := map[string]string{"apps/v1/Deployment": "/apis/apps/v1/namespaces/NS/deployments", "batch/v1/Job": "/apis/batch/v1/namespaces/NS/jobs"}
	tested := 0
	for _, block := range strings.Split(string(raw), "### ")[1:] {
		input, message, _ := strings.Cut(block, "\n")
		var obj map[string]interface{}
		if err := yaml.Unmarshal([]byte(input), &obj); err != nil {
			t.Fatal(err)
		}
		path, ok := paths[obj["apiVersion"].(string)+"/"+obj["kind"].(string)]
		if !ok {
			continue
		}
		obj["metadata"].(map[string]interface{})["namespace"] = ns
		body, _ := json.Marshal(obj)
		resp, out := testchain.Do(t, shared.Admin, "POST", strings.ReplaceAll(path, "NS", ns), body, "application/json")
		var st metav1.Status
		_ = json.Unmarshal(out, &st)
		if resp.StatusCode != 422 || kubectlInvalidMessage(&st) != strings.TrimSpace(message) {
			t.Errorf("%s\n got  %d %s\n want %s", input, resp.StatusCode, kubectlInvalidMessage(&st), strings.TrimSpace(message))
		}
		tested++
	}
	if tested != 2 {
		t.Errorf("%d reference cases tested, want the Deployment and the Job", tested)
	}
}

// TestWorkloadTablesMatchKubeAPIServer compares the Table columns of every workload resource
// with the ones kube-apiserver sent (test/reference/tables), and events.k8s.io's with core's.
func TestWorkloadTablesMatchKubeAPIServer(t *testing.T) {
	for file, path := range map[string]string{
		"deployments.apps":                     "/apis/apps/v1/deployments",
		"replicasets.apps":                     "/apis/apps/v1/replicasets",
		"statefulsets.apps":                    "/apis/apps/v1/statefulsets",
		"daemonsets.apps":                      "/apis/apps/v1/daemonsets",
		"controllerrevisions.apps":             "/apis/apps/v1/controllerrevisions",
		"jobs.batch":                           "/apis/batch/v1/jobs",
		"cronjobs.batch":                       "/apis/batch/v1/cronjobs",
		"horizontalpodautoscalers.autoscaling": "/apis/autoscaling/v2/horizontalpodautoscalers",
		"poddisruptionbudgets.policy":          "/apis/policy/v1/poddisruptionbudgets",
		"replicationcontrollers":               "/api/v1/replicationcontrollers",
		"podtemplates":                         "/api/v1/podtemplates",
	} {
		raw, err := os.ReadFile(reference.Path("tables/" + file + ".json"))
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if got := coretest.Table(t, shared, path).ColumnDefinitions; !reflect.DeepEqual(got, want.ColumnDefinitions) {
			t.Errorf("%s columns:\n got  %+v\n want %+v", path, got, want.ColumnDefinitions)
		}
	}
	core := coretest.Table(t, shared, "/api/v1/events").ColumnDefinitions
	if got := coretest.Table(t, shared, "/apis/events.k8s.io/v1/events").ColumnDefinitions; !reflect.DeepEqual(got, core) {
		t.Errorf("events.k8s.io columns:\n got  %+v\n want core's %+v", got, core)
	}
}

// kubectlInvalidMessage renders an Invalid status the way kubectl prints it
// (k8s.io/kubectl/pkg/cmd/util checkErr): the kind without its group, then the causes.
func kubectlInvalidMessage(st *metav1.Status) string {
	if st.Details == nil {
		return st.Message
	}
	var causes []string
	for _, c := range st.Details.Causes {
		causes = append(causes, c.Field+": "+c.Message)
	}
	s := fmt.Sprintf("The %s %q is invalid: ", st.Details.Kind, st.Details.Name)
	if len(causes) == 1 {
		return s + causes[0]
	}
	return s + "\n* " + strings.Join(causes, "\n* ")
}
