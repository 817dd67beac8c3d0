package certificates

// The two subresources through which a CertificateSigningRequest changes after it is created:
// /approval, where an approver adds the Approved or Denied condition, and /status, where the
// signer sets the certificate and conditions of its own. Each changes only its part of the
// object; the rest is kept as stored.

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apichain/apichain/servers/core/resource"
)

type csr = certificatesv1.CertificateSigningRequest

// csrUpdates is the update strategy of one subresource: the main resource's, but for what the
// update may change (keep restores the rest from the stored object), how it is validated, and
// the fields server-side apply ignores.
type csrUpdates struct {
	mainStrategy
	ignoring
	keep     func(update, stored *csr)
	validate func(update, stored *csr) field.ErrorList
}

// mainStrategy is what a subresource keeps of the main strategy: its update rules and its
// declarative validation, which runs on /status and /approval too.
type mainStrategy = resource.UpdateRules

// ignoring is a rest.ResetFieldsStrategy: the fields server-side apply ignores in a request.
type ignoring map[fieldpath.APIVersion]*fieldpath.Set

func (f ignoring) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set { return f }

func (s *csrUpdates) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	s.keep(obj.(*csr), old.(*csr))
}

func (s *csrUpdates) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return s.validate(obj.(*csr), old.(*csr))
}

func (s *csrUpdates) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// keepForApproval: an approval changes the conditions, nothing else.
func keepForApproval(update, stored *csr) {
	stampConditions(update, stored)
	conditions := update.Status.Conditions
	update.Spec, update.Status = stored.Spec, stored.Status
	update.Status.Conditions = conditions
}

// keepForStatus: a status update changes the status, but not the Approved and Denied
// conditions already there. When it adds or drops one of those, the conditions stay as sent,
// and validation refuses the change.
func keepForStatus(update, stored *csr) {
	update.Spec = stored.Spec
	for _, decision := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
		sent, had := conditionsOfType(update, decision), conditionsOfType(stored, decision)
		if len(sent) == len(had) {
			for i := range sent {
				update.Status.Conditions[sent[i]] = stored.Status.Conditions[had[i]]
			}
		}
	}
	stampConditions(update, stored)
}

// conditionsOfType returns the indexes of the request's conditions of type t.
func conditionsOfType(r *csr, t certificatesv1.RequestConditionType) []int {
	var at []int
	for i := range r.Status.Conditions {
		if r.Status.Conditions[i].Type == t {
			at = append(at, i)
		}
	}
	return at
}

// stampConditions dates the conditions the update leaves undated: updated now, and changed
// when the stored request had the same condition with the same status, else now.
func stampConditions(update, stored *csr) {
	now := metav1.Now()
	for i := range update.Status.Conditions {
		c := &update.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = now
		for _, before := range stored.Status.Conditions {
			if before.Type == c.Type && before.Status == c.Status && !before.LastTransitionTime.IsZero() {
				c.LastTransitionTime = before.LastTransitionTime
				break
			}
		}
	}
}
