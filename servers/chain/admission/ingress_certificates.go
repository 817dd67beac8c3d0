package admission

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"

	"github.com/apichain/apichain/servers/core/validation/certificates"
)

// DefaultIngressClassPluginName is kube's name for the ingress class plugin.
const DefaultIngressClassPluginName = "DefaultIngressClass"

// DefaultIngressClass gives a new Ingress without a class the default IngressClass, as
// kube-apiserver's plugin of that name does.
type DefaultIngressClass struct {
	*admission.Handler
	classes networkingv1listers.IngressClassLister
}

var _ admission.MutationInterface = &DefaultIngressClass{}

// NewDefaultIngressClass returns the plugin, reading IngressClasses from classes.
func NewDefaultIngressClass(classes networkingv1listers.IngressClassLister) *DefaultIngressClass {
	return &DefaultIngressClass{Handler: admission.NewHandler(admission.Create), classes: classes}
}

// Admit sets spec.ingressClassName when neither it nor the legacy annotation is set.
func (p *DefaultIngressClass) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != networkingv1.Resource("ingresses") || len(a.GetSubresource()) != 0 {
		return nil
	}
	ingress, ok := a.GetObject().(*networkingv1.Ingress)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Ingress resource, got: %v", a.GetKind()))
	}
	if ingress.Spec.IngressClassName != nil {
		return nil
	}
	if _, ok := ingress.Annotations["kubernetes.io/ingress.class"]; ok {
		return nil
	}
	list, err := p.classes.List(labels.Everything())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	var defaults []*networkingv1.IngressClass
	for _, class := range list {
		if class.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
			defaults = append(defaults, class)
		}
	}
	if def := newest(defaults); def != nil {
		ingress.Spec.IngressClassName = &def.Name
	}
	return nil
}

// Names of the certificate plugins, as kube-apiserver has them.
const (
	CertificateApprovalPluginName           = "CertificateApproval"
	CertificateSigningPluginName            = "CertificateSigning"
	CertificateSubjectRestrictionPluginName = "CertificateSubjectRestriction"
)

var csrResource = certificatesv1.Resource("certificatesigningrequests")

// signerAuthorized follows kubernetes pkg/certauthorization IsAuthorizedForSignerName: the verb
// on signers/<signerName>, or on signers/<domain>/*.
func signerAuthorized(ctx context.Context, authz authorizer.UnconditionalAuthorizer, info user.Info, verb, signerName string) bool {
	for _, name := range []string{signerName, strings.Split(signerName, "/")[0] + "/*"} {
		d, _, err := authz.Authorize(ctx, authorizer.AttributesRecord{User: info, Verb: verb, Name: name,
			APIGroup: "certificates.k8s.io", APIVersion: "*", Resource: "signers", ResourceRequest: true})
		if err == nil && d == authorizer.DecisionAllow {
			return true
		}
	}
	return false
}

// CertificateSigner is CertificateApproval (verb "approve", /approval) and CertificateSigning
// (verb "sign", /status): the user must be allowed the verb for the request's signer (kubernetes
// plugin/pkg/admission/certificates/{approval,signing}/admission.go).
type CertificateSigner struct {
	*admission.Handler
	verb, subresource string
	authz             authorizer.UnconditionalAuthorizer
}

var (
	_ admission.ValidationInterface            = &CertificateSigner{}
	_ initializer.WantsUnconditionalAuthorizer = &CertificateSigner{}
)

// NewCertificateApproval creates the CertificateApproval plugin.
func NewCertificateApproval() *CertificateSigner {
	return &CertificateSigner{Handler: admission.NewHandler(admission.Update), verb: "approve", subresource: "approval"}
}

// NewCertificateSigning creates the CertificateSigning plugin.
func NewCertificateSigning() *CertificateSigner {
	return &CertificateSigner{Handler: admission.NewHandler(admission.Update), verb: "sign", subresource: "status"}
}

// SetUnconditionalAuthorizer implements initializer.WantsUnconditionalAuthorizer.
func (p *CertificateSigner) SetUnconditionalAuthorizer(authz authorizer.UnconditionalAuthorizer) {
	p.authz = authz
}

// ValidateInitialization implements admission.InitializationValidator.
func (p *CertificateSigner) ValidateInitialization() error {
	if p.authz == nil {
		return fmt.Errorf("certificate %s requires an authorizer", p.verb)
	}
	return nil
}

// Validate checks the permission against the stored request's signer.
func (p *CertificateSigner) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetSubresource() != p.subresource || a.GetResource().GroupResource() != csrResource {
		return nil
	}
	oldCSR, ok := a.GetOldObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetOldObject()))
	}
	if p.verb == "sign" {
		csr, ok := a.GetObject().(*certificatesv1.CertificateSigningRequest)
		if !ok {
			return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetObject()))
		}
		// only when status.certificate or status.conditions changed
		if reflect.DeepEqual(oldCSR.Status.Certificate, csr.Status.Certificate) && apiequality.Semantic.DeepEqual(oldCSR.Status.Conditions, csr.Status.Conditions) {
			return nil
		}
	}
	if !signerAuthorized(ctx, p.authz, a.GetUserInfo(), p.verb, oldCSR.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to %s requests with signerName %q", p.verb, oldCSR.Spec.SignerName))
	}
	return nil
}

// CertificateSubjectRestriction rejects requests to the kube-apiserver-client signer for the
// system:masters group (kubernetes plugin/pkg/admission/certificates/subjectrestriction/admission.go).
type CertificateSubjectRestriction struct {
	*admission.Handler
}

var _ admission.ValidationInterface = &CertificateSubjectRestriction{}

// NewCertificateSubjectRestriction creates the plugin.
func NewCertificateSubjectRestriction() *CertificateSubjectRestriction {
	return &CertificateSubjectRestriction{Handler: admission.NewHandler(admission.Create)}
}

// Validate rejects a system:masters client certificate request.
func (p *CertificateSubjectRestriction) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != csrResource || a.GetSubresource() != "" {
		return nil
	}
	csr, ok := a.GetObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetObject()))
	}
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	parsed, err := certificates.ParseRequest(csr.Spec.Request)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to parse CSR: %v", err))
	}
	for _, group := range parsed.Subject.Organization {
		if group == user.SystemPrivilegedGroup {
			return admission.NewForbidden(a, fmt.Errorf("use of %s signer with system:masters group is not allowed", certificatesv1.KubeAPIServerClientSignerName))
		}
	}
	return nil
}
