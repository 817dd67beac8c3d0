package authorization

// SelfSubjectRulesReview (`kubectl auth can-i --list`), following kubernetes
// pkg/registry/authorization/selfsubjectrulesreview/rest.go: the rules the chain's rule
// resolver (RBAC) finds for the requesting user in a namespace.

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// SelfSubjectRulesReviewREST answers SelfSubjectRulesReviews.
type SelfSubjectRulesReviewREST struct {
	ruleResolver authorizer.RuleResolver
}

var (
	_ rest.Creater              = &SelfSubjectRulesReviewREST{}
	_ rest.SingularNameProvider = &SelfSubjectRulesReviewREST{}
)

func (r *SelfSubjectRulesReviewREST) NamespaceScoped() bool { return false }
func (r *SelfSubjectRulesReviewREST) New() runtime.Object {
	return &authorizationv1.SelfSubjectRulesReview{}
}
func (r *SelfSubjectRulesReviewREST) Destroy()                {}
func (r *SelfSubjectRulesReviewREST) GetSingularName() string { return "selfsubjectrulesreview" }

// Create lists the requesting user's rules in spec.namespace.
func (r *SelfSubjectRulesReviewREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	selfSRR, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %#v", obj))
	}
	user, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	namespace := selfSRR.Spec.Namespace
	if namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	ret := &authorizationv1.SelfSubjectRulesReview{}
	if r.ruleResolver == nil {
		ret.Status.Incomplete = true
		return ret, nil
	}
	resourceInfo, nonResourceInfo, incomplete, err := r.ruleResolver.RulesFor(ctx, user, namespace)
	ret.Status = authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    getResourceRules(resourceInfo),
		NonResourceRules: getNonResourceRules(nonResourceInfo),
		Incomplete:       incomplete,
	}
	if err != nil {
		ret.Status.EvaluationError = err.Error()
	}
	return ret, nil
}

func getResourceRules(infos []authorizer.ResourceRuleInfo) []authorizationv1.ResourceRule {
	rules := make([]authorizationv1.ResourceRule, len(infos))
	for i, info := range infos {
		rules[i] = authorizationv1.ResourceRule{
			Verbs:         info.GetVerbs(),
			APIGroups:     info.GetAPIGroups(),
			Resources:     info.GetResources(),
			ResourceNames: info.GetResourceNames(),
		}
	}
	return rules
}

func getNonResourceRules(infos []authorizer.NonResourceRuleInfo) []authorizationv1.NonResourceRule {
	rules := make([]authorizationv1.NonResourceRule, len(infos))
	for i, info := range infos {
		rules[i] = authorizationv1.NonResourceRule{
			Verbs:           info.GetVerbs(),
			NonResourceURLs: info.GetNonResourceURLs(),
		}
	}
	return rules
}
