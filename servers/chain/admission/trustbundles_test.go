package admission

import (
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestClusterTrustBundleAttest(t *testing.T) {
	bundle := func(signer string, finalizers ...string) *certificatesv1.ClusterTrustBundle {
		return &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "b", Finalizers: finalizers},
			Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: signer, TrustBundle: "pem"}}
	}
	changed := bundle("example.com/s")
	changed.Spec.TrustBundle = "other pem"
	alice := &user.DefaultInfo{Name: "alice"}
	forbidden := `clustertrustbundles.certificates.k8s.io "b" is forbidden: user not permitted to attest for signerName "example.com/s"`
	for _, tc := range []struct {
		name     string
		allowed  map[string]bool
		op       admission.Operation
		obj, old *certificatesv1.ClusterTrustBundle
		want     string
	}{
		{"a bundle of no signer", nil, admission.Create, bundle(""), nil, ""},
		{"allowed for the signer", map[string]bool{"example.com/s": true}, admission.Create, bundle("example.com/s"), nil, ""},
		{"allowed for the signer's domain", map[string]bool{"example.com/*": true}, admission.Create, bundle("example.com/s"), nil, ""},
		{"allowed for another signer", map[string]bool{"example.com/t": true}, admission.Create, bundle("example.com/s"), nil, forbidden},
		{"a changed bundle", nil, admission.Update, changed, bundle("example.com/s"), forbidden},
		{"only a finalizer added", nil, admission.Update, bundle("example.com/s", "example.com/keep"), bundle("example.com/s"), ""},
	} {
		p := NewClusterTrustBundleAttest()
		p.SetUnconditionalAuthorizer(signerAuthorizer{verb: "attest", allowed: tc.allowed})
		if err := p.ValidateInitialization(); err != nil {
			t.Fatal(err)
		}
		a := attrs(tc.obj, nil, trustBundleResource, "ClusterTrustBundle", "", "b", "", tc.op, alice)
		if tc.old != nil {
			a = attrs(tc.obj, tc.old, trustBundleResource, "ClusterTrustBundle", "", "b", "", tc.op, alice)
		}
		if got := errString(validate(t, p, a)); got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}
