package admission

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/apichain/apichain/internal/rbac"
)

// ClusterTrustBundleAttestPluginName is kube's name for the trust bundle plugin.
const ClusterTrustBundleAttestPluginName = "ClusterTrustBundleAttest"

var trustBundleResource = certificatesv1.Resource("clustertrustbundles")

// ClusterTrustBundleAttest lets only those allowed to "attest" for a signer (the synthetic
// resource signers, named by the signer or by its domain and "/*") publish or change a trust
// bundle of that signer (kubernetes plugin/pkg/admission/certificates/ctbattest). A bundle of no
// signer, and an update that only touches owner references or finalizers, are not checked.
type ClusterTrustBundleAttest struct {
	*admission.Handler
	authz authorizer.UnconditionalAuthorizer
}

var (
	_ admission.ValidationInterface            = &ClusterTrustBundleAttest{}
	_ initializer.WantsUnconditionalAuthorizer = &ClusterTrustBundleAttest{}
)

// NewClusterTrustBundleAttest creates the plugin.
func NewClusterTrustBundleAttest() *ClusterTrustBundleAttest {
	return &ClusterTrustBundleAttest{Handler: admission.NewHandler(admission.Create, admission.Update)}
}

// SetUnconditionalAuthorizer implements initializer.WantsUnconditionalAuthorizer.
func (p *ClusterTrustBundleAttest) SetUnconditionalAuthorizer(authz authorizer.UnconditionalAuthorizer) {
	p.authz = authz
}

// ValidateInitialization implements admission.InitializationValidator.
func (p *ClusterTrustBundleAttest) ValidateInitialization() error {
	if p.authz == nil {
		return fmt.Errorf("%s requires an authorizer", ClusterTrustBundleAttestPluginName)
	}
	return nil
}

// Validate checks the writer against the new bundle's signer (the signer cannot change:
// validation refuses that).
func (p *ClusterTrustBundleAttest) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != trustBundleResource {
		return nil
	}
	bundle, ok := a.GetObject().(*certificatesv1.ClusterTrustBundle)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type ClusterTrustBundle, got: %T", a.GetObject()))
	}
	if bundle.Spec.SignerName == "" || (a.GetOperation() == admission.Update && rbac.OnlyGCFieldsChanged(a.GetObject(), a.GetOldObject())) {
		return nil
	}
	if !signerAuthorized(ctx, p.authz, a.GetUserInfo(), "attest", bundle.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to attest for signerName %q", bundle.Spec.SignerName))
	}
	return nil
}
