package certificates

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// fixedResetFields are the fields a strategy resets, as GetResetFields reports them.
type fixedResetFields map[fieldpath.APIVersion]*fieldpath.Set

func (f fixedResetFields) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set { return f }

// subresourceStrategy is the update strategy of /status and /approval: the main strategy with
// its own preparation, validation and reset fields (kubernetes
// pkg/registry/certificates/certificates/strategy.go csrStatusStrategy, csrApprovalStrategy).
type subresourceStrategy struct {
	mainStrategy
	prepare     func(newCSR, oldCSR *certificatesv1.CertificateSigningRequest)
	validate    func(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) field.ErrorList
	resetFields map[fieldpath.APIVersion]*fieldpath.Set
}

// mainStrategy is what the subresources keep of the main strategy: its update rules and its
// declarative validation, which runs on /status and /approval too.
type mainStrategy interface {
	rest.RESTUpdateStrategy
	rest.DeclarativeValidationStrategy
}

func (s *subresourceStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.prepare(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

func (s *subresourceStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.validate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

func (s *subresourceStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}

func (s *subresourceStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return s.resetFields
}

// prepareStatusUpdate lets a signer set the certificate and conditions other than Approved and
// Denied, which stay as they were; new conditions get their timestamps.
func prepareStatusUpdate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) {
	newCSR.Spec = oldCSR.Spec
	preserveConditionInstances(newCSR, oldCSR, certificatesv1.CertificateApproved)
	preserveConditionInstances(newCSR, oldCSR, certificatesv1.CertificateDenied)
	populateConditionTimestamps(newCSR, oldCSR)
}

// prepareApprovalUpdate lets an approver change the conditions only.
func prepareApprovalUpdate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) {
	populateConditionTimestamps(newCSR, oldCSR)
	newConditions := newCSR.Status.Conditions
	newCSR.Spec = oldCSR.Spec
	newCSR.Status = oldCSR.Status
	newCSR.Status.Conditions = newConditions
}

// preserveConditionInstances keeps the stored conditions of type conditionType when the update
// has as many of them.
func preserveConditionInstances(newCSR, oldCSR *certificatesv1.CertificateSigningRequest, conditionType certificatesv1.RequestConditionType) bool {
	oldIndices := findConditionIndices(oldCSR, conditionType)
	newIndices := findConditionIndices(newCSR, conditionType)
	if len(oldIndices) != len(newIndices) {
		return false
	}
	for i, oldIndex := range oldIndices {
		newCSR.Status.Conditions[newIndices[i]] = oldCSR.Status.Conditions[oldIndex]
	}
	return true
}

func findConditionIndices(csr *certificatesv1.CertificateSigningRequest, conditionType certificatesv1.RequestConditionType) []int {
	var retval []int
	for i, c := range csr.Status.Conditions {
		if c.Type == conditionType {
			retval = append(retval, i)
		}
	}
	return retval
}

// populateConditionTimestamps sets lastUpdateTime to now and lastTransitionTime to the stored
// one when the condition kept its status, else to now.
func populateConditionTimestamps(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) {
	now := metav1.Now()
	for i := range newCSR.Status.Conditions {
		c := &newCSR.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if c.LastTransitionTime.IsZero() {
			lastTransition := now
			for _, oldCondition := range oldCSR.Status.Conditions {
				if oldCondition.Type == c.Type && oldCondition.Status == c.Status && !oldCondition.LastTransitionTime.IsZero() {
					lastTransition = oldCondition.LastTransitionTime
					break
				}
			}
			c.LastTransitionTime = lastTransition
		}
	}
}

// subresourceREST serves /status or /approval: get, update and patch through its own strategy
// (kubernetes pkg/registry/certificates/certificates/storage StatusREST, ApprovalREST).
type subresourceREST struct {
	store *genericregistry.Store
}

var _ rest.Patcher = &subresourceREST{}

func newSubresource(main *genericregistry.Store, strategy *subresourceStrategy) *subresourceREST {
	store := *main
	store.UpdateStrategy = strategy
	store.ResetFieldsStrategy = strategy
	return &subresourceREST{store: &store}
}

// New implements rest.Storage.
func (r *subresourceREST) New() runtime.Object { return &certificatesv1.CertificateSigningRequest{} }

// Destroy implements rest.Storage; the main store owns the underlying storage.
func (r *subresourceREST) Destroy() {}

// Get retrieves the object, so that clients can read before they patch.
func (r *subresourceREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update changes the object through the subresource's strategy; it never creates one.
func (r *subresourceREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields implements rest.ResetFieldsStrategy.
func (r *subresourceREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable implements rest.TableConvertor.
func (r *subresourceREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}
