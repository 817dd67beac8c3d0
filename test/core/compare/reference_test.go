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

// TestDefaultsMatchKubeAPIServer sends the objects that test/reference/capture.sh sent to the
// real kube-apiserver v1.37.2 with --dry-run=server, and compares what comes back with what it
// returned (test/reference/defaulted): every default, every system-set field.
func TestDefaultsMatchKubeAPIServer(t *testing.T) {
	const c = `containers: [{name: c, image: "nginx:1.27", ports: [{containerPort: 80}]}]`
	cases := []struct {
		file, path, input string
		// drop lists what the reference has that this stage of the chain does not do yet or
		// cannot reproduce, each with its reason.
		drop []string
		// anyValue lists fields whose value depends on allocation: present, value not compared.
		anyValue []string
	}{
		{file: "pod", path: "pods", input: `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {` + c + `}}`},
		{file: "pod-latest-image", path: "pods", input: `{apiVersion: v1, kind: Pod, metadata: {name: p2}, spec: {containers: [{name: c, image: nginx}]}}`},
		{file: "service", path: "services", input: `{apiVersion: v1, kind: Service, metadata: {name: svc}, spec: {selector: {app: a}, ports: [{port: 80}]}}`,
			anyValue: []string{"spec.clusterIP", "spec.clusterIPs"}},
		{file: "service-nodeport", path: "services", input: `{apiVersion: v1, kind: Service, metadata: {name: svc2}, spec: {type: NodePort, selector: {app: a}, ports: [{port: 80}]}}`,
			anyValue: []string{"spec.clusterIP", "spec.clusterIPs", "spec.ports"}},
		{file: "configmap", path: "configmaps", input: `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: b}}`},
		{file: "secret", path: "secrets", input: `{apiVersion: v1, kind: Secret, metadata: {name: sec}, stringData: {a: b}}`},
		{file: "serviceaccount", path: "serviceaccounts", input: `{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa}}`},
		{file: "namespace", path: "/api/v1/namespaces", input: `{apiVersion: v1, kind: Namespace, metadata: {name: nsx}}`},
		{file: "node", path: "/api/v1/nodes", input: `{apiVersion: v1, kind: Node, metadata: {name: n1}}`},
		{file: "endpointslice", path: "/apis/discovery.k8s.io/v1/namespaces/NS/endpointslices", input: `{apiVersion: discovery.k8s.io/v1, kind: EndpointSlice, metadata: {name: es}, addressType: IPv4, endpoints: [{addresses: [10.0.0.9]}], ports: [{port: 80}]}`},
		{file: "event", path: "events", input: `{apiVersion: v1, kind: Event, metadata: {name: ev}, involvedObject: {kind: Pod, name: p, namespace: NS}, reason: R, message: M}`},
		{file: "lease", path: "/apis/coordination.k8s.io/v1/namespaces/NS/leases", input: `{apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: l}, spec: {holderIdentity: me}}`},
		{file: "csidriver", path: "/apis/storage.k8s.io/v1/csidrivers", input: `{apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: csi.example.com}, spec: {}}`},
		{file: "csinode", path: "/apis/storage.k8s.io/v1/csinodes", input: `{apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: n1}, spec: {drivers: [{name: csi.example.com, nodeID: n1}]}}`},
		{file: "csistoragecapacity", path: "/apis/storage.k8s.io/v1/namespaces/NS/csistoragecapacities", input: `{apiVersion: storage.k8s.io/v1, kind: CSIStorageCapacity, metadata: {name: csc}, storageClassName: sc, capacity: 10Gi}`},
		{file: "volumeattachment", path: "/apis/storage.k8s.io/v1/volumeattachments", input: `{apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, metadata: {name: va}, spec: {attacher: csi.example.com, nodeName: n1, source: {persistentVolumeName: pv}}}`},
		{file: "volumeattributesclass", path: "/apis/storage.k8s.io/v1/volumeattributesclasses", input: `{apiVersion: storage.k8s.io/v1, kind: VolumeAttributesClass, metadata: {name: vac}, driverName: csi.example.com, parameters: {iops: "3000"}}`},
		{file: "ipaddress", path: "/apis/networking.k8s.io/v1/ipaddresses", input: `{apiVersion: networking.k8s.io/v1, kind: IPAddress, metadata: {name: 192.168.7.7}, spec: {parentRef: {group: "", name: svc, namespace: default, resource: services}}}`},
		{file: "servicecidr", path: "/apis/networking.k8s.io/v1/servicecidrs", input: `{apiVersion: networking.k8s.io/v1, kind: ServiceCIDR, metadata: {name: cidr}, spec: {cidrs: [10.96.0.0/24]}}`},
		{file: "runtimeclass", path: "/apis/node.k8s.io/v1/runtimeclasses", input: `{apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata: {name: rtc}, handler: runc}`},
		{file: "flowschema", path: "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", input: `{apiVersion: flowcontrol.apiserver.k8s.io/v1, kind: FlowSchema, metadata: {name: fs}, spec: {priorityLevelConfiguration: {name: global-default}, rules: [{resourceRules: [{apiGroups: [""], namespaces: ["*"], resources: [pods], verbs: [get]}], subjects: [{group: {name: "system:authenticated"}, kind: Group}]}]}}`},
		{file: "prioritylevelconfiguration", path: "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", input: `{apiVersion: flowcontrol.apiserver.k8s.io/v1, kind: PriorityLevelConfiguration, metadata: {name: plc}, spec: {limited: {limitResponse: {queuing: {}, type: Queue}}, type: Limited}}`},
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
			body, err := yaml.YAMLToJSON([]byte(strings.ReplaceAll(tc.input, "NS", ns)))
			if err != nil {
				t.Fatal(err)
			}
			path := strings.ReplaceAll(tc.path, "NS", ns)
			if !strings.HasPrefix(path, "/") {
				path = "/api/v1/namespaces/" + ns + "/" + path
			}
			resp, out := testchain.Do(t, shared.Admin, "POST", path+"?dryRun=All", body, "application/json")
			if resp.StatusCode != 201 {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			var got map[string]interface{}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			// What differs by nature: identity and time, kubectl's annotation, the namespace.
			for _, m := range []map[string]interface{}{got, want} {
				meta := m["metadata"].(map[string]interface{})
				for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "annotations", "namespace"} {
					delete(meta, k)
				}
				if io, ok := m["involvedObject"].(map[string]interface{}); ok {
					delete(io, "namespace")
				}
				for _, f := range tc.drop {
					deletePath(m, f)
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

func deletePath(m map[string]interface{}, path string) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]interface{})
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

func hasPath(m map[string]interface{}, path string) bool {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]interface{})
		if !ok {
			return false
		}
		m = next
	}
	_, ok := m[parts[len(parts)-1]]
	return ok
}

// TestValidationMessagesMatchKubeAPIServer sends the bad objects of
// test/reference/validation-messages.txt that belong to the groups the chain serves and
// compares the error with what kubectl printed for the real kube-apiserver.
func TestValidationMessagesMatchKubeAPIServer(t *testing.T) {
	raw, err := os.ReadFile(reference.Path("validation-messages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ns := testchain.Namespace(t, shared)
	paths := map[string]string{"ConfigMap": "configmaps", "Pod": "pods", "Service": "services", "Secret": "secrets"}
	tested := 0
	for _, block := range strings.Split(string(raw), "### ")[1:] {
		input, message, _ := strings.Cut(block, "\n")
		message = strings.TrimSpace(message)
		var obj map[string]interface{}
		if err := yaml.Unmarshal([]byte(input), &obj); err != nil {
			t.Fatal(err)
		}
		resource, ok := paths[obj["kind"].(string)]
		if !ok || obj["apiVersion"] != "v1" {
			continue // a group this stage does not serve yet
		}
		obj["metadata"].(map[string]interface{})["namespace"] = ns
		body, _ := json.Marshal(obj)
		resp, out := testchain.Do(t, shared.Admin, "POST", "/api/v1/namespaces/"+ns+"/"+resource, body, "application/json")
		var st struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(out, &st)
		// kubectl prefixes "The " to Invalid errors and lays several causes out one per line;
		// compare the apiserver's message with what kubectl printed, undone the same way.
		want := strings.TrimPrefix(message, "The ")
		want = strings.TrimPrefix(want, `Error from server (BadRequest): error when creating "STDIN": `)
		if lines := strings.Split(want, "\n* "); len(lines) > 1 {
			want = strings.TrimSuffix(lines[0], " ") + " [" + strings.Join(lines[1:], ", ") + "]"
		}
		if resp.StatusCode/100 != 4 || st.Message != want {
			t.Errorf("%s\n got  %d %s\n want %s", input, resp.StatusCode, st.Message, want)
		}
		tested++
	}
	if tested < 6 {
		t.Errorf("only %d reference cases were tested", tested)
	}
}
