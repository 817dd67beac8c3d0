package compare_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// TestAdmissionGroupsDefaultsMatchKubeAPIServer sends the objects that
// test/reference/capture.sh sent to the real kube-apiserver v1.37.2 with --dry-run=server, for
// the resources of admissionregistration, scheduling, networking, storage and the core volumes
// and quotas, and compares the answer with kube-apiserver's (test/reference/defaulted):
// defaults, the finalizers of StorageObjectInUseProtection, the status the strategies set.
func TestAdmissionGroupsDefaultsMatchKubeAPIServer(t *testing.T) {
	cases := []struct {
		file, path, input string
		// anyValue lists fields whose value depends on time: present, value not compared.
		anyValue []string
	}{
		{file: "pvc", path: "/api/v1/namespaces/NS/persistentvolumeclaims",
			input: `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pvc}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
		{file: "pv", path: "/api/v1/persistentvolumes",
			input:    `{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv}, spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}}}`,
			anyValue: []string{"status.lastPhaseTransitionTime"}},
		{file: "limitrange", path: "/api/v1/namespaces/NS/limitranges",
			input: `{apiVersion: v1, kind: LimitRange, metadata: {name: lr}, spec: {limits: [{type: Container, default: {cpu: 100m}}]}}`},
		{file: "resourcequota", path: "/api/v1/namespaces/NS/resourcequotas",
			input: `{apiVersion: v1, kind: ResourceQuota, metadata: {name: rq}, spec: {hard: {pods: '10'}}}`},
		{file: "ingress", path: "/apis/networking.k8s.io/v1/namespaces/NS/ingresses",
			input: `{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: ing}, spec: {rules: [{host: a.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}]}}]}}`},
		{file: "networkpolicy", path: "/apis/networking.k8s.io/v1/namespaces/NS/networkpolicies",
			input: `{apiVersion: networking.k8s.io/v1, kind: NetworkPolicy, metadata: {name: np}, spec: {podSelector: {}}}`},
		{file: "ingressclass", path: "/apis/networking.k8s.io/v1/ingressclasses",
			input: `{apiVersion: networking.k8s.io/v1, kind: IngressClass, metadata: {name: ic}, spec: {controller: example.com/x}}`},
		{file: "priorityclass", path: "/apis/scheduling.k8s.io/v1/priorityclasses",
			input: `{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: pc}, value: 1000}`},
		{file: "storageclass", path: "/apis/storage.k8s.io/v1/storageclasses",
			input: `{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: sc}, provisioner: example.com/x}`},
	}
	ns := testchain.Namespace(t, shared)
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(reference.Path("defaulted/" + tc.file + ".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]interface{}
			if err := json.Unmarshal(raw, &want); err != nil {
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
			var got map[string]interface{}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			for _, m := range []map[string]interface{}{got, want} {
				meta := m["metadata"].(map[string]interface{})
				for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "annotations", "namespace"} {
					delete(meta, k)
				}
				for _, f := range tc.anyValue {
					if !hasPath(m, f) {
						t.Errorf("%s is missing", f)
					}
					deletePath(m, f)
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
