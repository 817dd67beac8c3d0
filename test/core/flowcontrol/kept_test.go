package flowcontrol_test

import (
	"context"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/test/testchain"
)

const autoUpdate = flowcontrolv1.AutoUpdateAnnotationKey

// TestBootstrapConfigurationKept: at every start, the post-start hook
// priority-and-fairness-config-producer brings the stored configuration back to bootstrap's,
// as kube-apiserver's does: mandatory objects as bootstrap has them, suggested ones only while
// they say they follow bootstrap, objects bootstrap no longer has removed if they say they
// were bootstrap's, and the cluster's own left alone. A chain makes changes of each kind; the
// next start on its data dir (the hook holds /readyz until its first pass is done) finds each
// put back or kept.
func TestBootstrapConfigurationKept(t *testing.T) {
	t.Parallel() // on chains of its own
	dir := t.TempDir()
	first, err := testchain.StartIn(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := client(t, first.Admin)
	ctx := context.Background()
	fss, pls := cs.FlowcontrolV1().FlowSchemas(), cs.FlowcontrolV1().PriorityLevelConfigurations()

	// Mandatory: their specs are fixed by validation, but not their annotation, nor the
	// exempt level's shares (the cluster's to tune); they may be deleted.
	changeFlowSchema(t, cs, "exempt", func(fs *flowcontrolv1.FlowSchema) { fs.Annotations[autoUpdate] = "false" })
	changeLevel(t, cs, "exempt", func(pl *flowcontrolv1.PriorityLevelConfiguration) {
		pl.Spec.Exempt.NominalConcurrencyShares = ptr.To[int32](10)
	})
	if err := pls.Delete(ctx, "catch-all", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Suggested: one that still follows bootstrap, one that stopped following it, one changed
	// without the annotation (the cluster's now), one deleted.
	changeFlowSchema(t, cs, "service-accounts", func(fs *flowcontrolv1.FlowSchema) { fs.Spec.MatchingPrecedence = 9001 })
	changeLevel(t, cs, "global-default", func(pl *flowcontrolv1.PriorityLevelConfiguration) {
		pl.Annotations[autoUpdate] = "false"
		pl.Spec.Limited.NominalConcurrencyShares = ptr.To[int32](21)
	})
	changeFlowSchema(t, cs, "kube-scheduler", func(fs *flowcontrolv1.FlowSchema) {
		delete(fs.Annotations, autoUpdate)
		fs.Spec.MatchingPrecedence = 801
	})
	if err := fss.Delete(ctx, "probes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Not bootstrap's: one that says it was (a release before made it), and the cluster's own.
	for name, annotations := range map[string]map[string]string{"retired": {autoUpdate: "true"}, "mine": nil, "mine-pinned": {autoUpdate: "false"}} {
		fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
			Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"},
				MatchingPrecedence: 5000, Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
					Subjects:         []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: name}}},
					NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/" + name}}}}}}}
		if _, err := fss.Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}

	second, err := testchain.StartIn(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Stop() })
	cs = client(t, second.Admin)
	fss, pls = cs.FlowcontrolV1().FlowSchemas(), cs.FlowcontrolV1().PriorityLevelConfigurations()

	fs := getFlowSchema(t, cs, "exempt")
	if fs.Annotations[autoUpdate] != "true" {
		t.Errorf("mandatory exempt schema: annotation %q, want it set back to true", fs.Annotations[autoUpdate])
	}
	pl := getLevel(t, cs, "exempt")
	if s := pl.Spec.Exempt.NominalConcurrencyShares; s == nil || *s != 10 {
		t.Errorf("mandatory exempt level: nominalConcurrencyShares %v, want the 10 it was given", s)
	}
	if _, err := pls.Get(ctx, "catch-all", metav1.GetOptions{}); err != nil {
		t.Errorf("mandatory catch-all level, deleted: %v, want it created again", err)
	}
	if fs := getFlowSchema(t, cs, "service-accounts"); fs.Spec.MatchingPrecedence != 9000 {
		t.Errorf("suggested service-accounts schema, following bootstrap: precedence %d, want 9000 back", fs.Spec.MatchingPrecedence)
	}
	if pl := getLevel(t, cs, "global-default"); *pl.Spec.Limited.NominalConcurrencyShares != 21 || pl.Annotations[autoUpdate] != "false" {
		t.Errorf("suggested global-default level, not following bootstrap: shares %d, annotation %q; want 21 and false kept",
			*pl.Spec.Limited.NominalConcurrencyShares, pl.Annotations[autoUpdate])
	}
	if fs := getFlowSchema(t, cs, "kube-scheduler"); fs.Spec.MatchingPrecedence != 801 || fs.Annotations[autoUpdate] != "false" {
		t.Errorf("suggested kube-scheduler schema, changed without the annotation: precedence %d, annotation %q; want 801 kept and false",
			fs.Spec.MatchingPrecedence, fs.Annotations[autoUpdate])
	}
	if _, err := fss.Get(ctx, "probes", metav1.GetOptions{}); err != nil {
		t.Errorf("suggested probes schema, deleted: %v, want it created again", err)
	}
	if _, err := fss.Get(ctx, "retired", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a schema bootstrap no longer has, annotated as bootstrap's: %v, want it deleted", err)
	}
	for _, name := range []string{"mine", "mine-pinned"} {
		if _, err := fss.Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("the cluster's own schema %s: %v, want it kept", name, err)
		}
	}
}

// TestDeletedMandatoryComesBack: the hook keeps the configuration while the chain runs, not
// only at start: a mandatory object deleted is created again by its next pass (kube-apiserver's
// run once a minute), with bootstrap's spec.
func TestDeletedMandatoryComesBack(t *testing.T) {
	// Parallel tests run once the package's others are done: none of them sees catch-all missing.
	t.Parallel()
	ctx := context.Background()
	cs, _ := testchain.Clients(t, shared)
	old := getFlowSchema(t, cs, "catch-all")
	if err := cs.FlowcontrolV1().FlowSchemas().Delete(ctx, "catch-all", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var back *flowcontrolv1.FlowSchema
	testchain.Eventually(t, "the catch-all FlowSchema created again", func(ctx context.Context) (bool, error) {
		fs, err := cs.FlowcontrolV1().FlowSchemas().Get(ctx, "catch-all", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		back = fs
		return err == nil, err
	})
	if back.UID == old.UID {
		t.Fatalf("catch-all kept its UID %s: it was not deleted", old.UID)
	}
	if !equality.Semantic.DeepEqual(back.Spec, old.Spec) || back.Annotations[autoUpdate] != "true" {
		t.Errorf("catch-all created again with spec %+v, annotations %v; want bootstrap's %+v, auto-update true", back.Spec, back.Annotations, old.Spec)
	}
}

func client(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// changeFlowSchema updates FlowSchema name with change, again if the configuration controller
// wrote its status meanwhile.
func changeFlowSchema(t *testing.T, cs kubernetes.Interface, name string, change func(*flowcontrolv1.FlowSchema)) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		fs := getFlowSchema(t, cs, name)
		change(fs)
		_, err := cs.FlowcontrolV1().FlowSchemas().Update(context.Background(), fs, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("changing FlowSchema %s: %v", name, err)
	}
}

// changeLevel updates PriorityLevelConfiguration name with change.
func changeLevel(t *testing.T, cs kubernetes.Interface, name string, change func(*flowcontrolv1.PriorityLevelConfiguration)) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pl := getLevel(t, cs, name)
		change(pl)
		_, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Update(context.Background(), pl, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("changing PriorityLevelConfiguration %s: %v", name, err)
	}
}

func getFlowSchema(t *testing.T, cs kubernetes.Interface, name string) *flowcontrolv1.FlowSchema {
	t.Helper()
	fs, err := cs.FlowcontrolV1().FlowSchemas().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func getLevel(t *testing.T, cs kubernetes.Interface, name string) *flowcontrolv1.PriorityLevelConfiguration {
	t.Helper()
	pl, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pl
}
