package groups_test

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/test/testchain"
)

// TestGroupValidationMessages sends invalid objects of this stage's resources and compares the
// whole error message with kube-apiserver's: the handwritten and declarative rules, merged in
// kube-apiserver's order.
func TestGroupValidationMessages(t *testing.T) {
	ns := testchain.Namespace(t, shared)
	cases := []struct {
		path, manifest, want string
	}{
		{"/apis/storage.k8s.io/v1/storageclasses", `{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: bad-sc}, reclaimPolicy: Recycle}`,
			`StorageClass.storage.k8s.io "bad-sc" is invalid: [reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain", provisioner: Required value]`},
		{"/apis/networking.k8s.io/v1/namespaces/NS/ingresses", `{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: bad-ing}, spec: {}}`,
			"Ingress.networking.k8s.io \"bad-ing\" is invalid: spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"},
		{"/apis/networking.k8s.io/v1/namespaces/NS/networkpolicies", `{apiVersion: networking.k8s.io/v1, kind: NetworkPolicy, metadata: {name: bad-np}, spec: {podSelector: {}, ingress: [{from: [{ipBlock: {cidr: ""}}, {}]}]}}`,
			`NetworkPolicy.networking.k8s.io "bad-np" is invalid: [spec.ingress[0].from[1]: Required value: must specify a peer, spec.ingress[0].from[0].ipBlock.cidr: Required value]`},
		{"/apis/networking.k8s.io/v1/ingressclasses", `{apiVersion: networking.k8s.io/v1, kind: IngressClass, metadata: {name: bad-ic}, spec: {controller: nope}}`,
			`IngressClass.networking.k8s.io "bad-ic" is invalid: spec.controller: Invalid value: "nope": must be a domain-prefixed path (such as "acme.io/foo")`},
		{"/apis/scheduling.k8s.io/v1/priorityclasses", `{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: bad-pc}, value: 1000000001}`,
			`PriorityClass.scheduling.k8s.io "bad-pc" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`},
		{"/api/v1/persistentvolumes", `{apiVersion: v1, kind: PersistentVolume, metadata: {name: bad-pv}, spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}}`,
			`PersistentVolume "bad-pv" is invalid: spec: Required value: must specify a volume type`},
		{"/api/v1/namespaces/NS/persistentvolumeclaims", `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: bad-pvc}, spec: {resources: {requests: {storage: 1Gi}}}}`,
			`PersistentVolumeClaim "bad-pvc" is invalid: spec.accessModes: Required value: at least 1 access mode is required`},
		{"/api/v1/namespaces/NS/limitranges", `{apiVersion: v1, kind: LimitRange, metadata: {name: bad-lr}, spec: {limits: [{type: Pod}, {type: Pod}]}}`,
			`LimitRange "bad-lr" is invalid: spec.limits[1].type: Duplicate value: "Pod"`},
		{"/api/v1/namespaces/NS/resourcequotas", `{apiVersion: v1, kind: ResourceQuota, metadata: {name: bad-rq}, spec: {hard: {pods: "1.5"}}}`,
			`ResourceQuota "bad-rq" is invalid: spec.hard[pods]: Invalid value: "1500m": must be an integer`},
		{"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: bad-vwc}, webhooks: [{name: k8s.io, clientConfig: {url: "https://example.com"}, sideEffects: Some, admissionReviewVersions: [v1]}]}`,
			`ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad-vwc" is invalid: [webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots, webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"]`},
		{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicyBinding, metadata: {name: bad-vapb}, spec: {}}`,
			`ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "bad-vapb" is invalid: [spec.policyName: Required value, spec.validationActions: Required value]`},
		{"/apis/certificates.k8s.io/v1/certificatesigningrequests", `{apiVersion: certificates.k8s.io/v1, kind: CertificateSigningRequest, metadata: {name: bad-csr}, spec: {request: "", signerName: kubernetes.io/legacy-unknown}}`,
			`CertificateSigningRequest.certificates.k8s.io "bad-csr" is invalid: [spec.request: Invalid value: "": PEM block type must be CERTIFICATE REQUEST, spec.usages: Required value, spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version]`},
	}
	for _, tc := range cases {
		body, err := yaml.YAMLToJSON([]byte(tc.manifest))
		if err != nil {
			t.Fatal(err)
		}
		resp, out := testchain.Do(t, shared.Admin, "POST", strings.ReplaceAll(tc.path, "NS", ns)+"?dryRun=All", body, "application/json")
		var st struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(out, &st)
		if resp.StatusCode != 422 || st.Message != tc.want {
			t.Errorf("%s:\n got  %d %s\n want %s", tc.manifest, resp.StatusCode, st.Message, tc.want)
		}
	}
}
