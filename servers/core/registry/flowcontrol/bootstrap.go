package flowcontrol

// The "priority-and-fairness-config-producer" post-start hook: kube-apiserver's bootstrap
// configuration of API Priority and Fairness, kept in storage. The objects are k8s.io/apiserver's
// (pkg/apis/flowcontrol/bootstrap); what the hook does with them is kube-apiserver's
// (pkg/registry/flowcontrol/rest), written here in the chain's words:
//
//   - mandatory objects (the exempt and catch-all FlowSchemas and priority levels) are kept as
//     bootstrap has them: a changed spec is put back, the auto-update annotation is set to true;
//   - suggested objects are created when missing, and put back to bootstrap's spec only while
//     they carry the annotation apf.kubernetes.io/autoupdate-spec: "true" (or, without a
//     readable annotation, while their spec was never changed: generation 1);
//   - objects that bootstrap no longer has, but that carry autoupdate-spec: "true" (a release
//     before made them), are deleted; anything else is the cluster's own and stays.
//
// The hook keeps the chain from being ready until one pass has succeeded, then runs a pass a
// minute, as kube-apiserver's does. Each pass lists both kinds and writes what differs; a write
// that loses a race (another instance, a user) is left to the next pass.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	genericapiserver "k8s.io/apiserver/pkg/server"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	"k8s.io/klog/v2"

	defaults "github.com/apichain/apichain/servers/core/defaults/flowcontrol"
)

// PostStartHookName is kube-apiserver's name for the hook.
const PostStartHookName = "priority-and-fairness-config-producer"

// fieldManager is the manager kube-apiserver's hook writes as, so that managedFields read the same.
const fieldManager = "api-priority-and-fairness-config-producer-v1"

// KeepBootstrapConfiguration is the post-start hook. Like kube-apiserver's, it gives the first
// pass five minutes, retrying every second, and fails the start if that is not enough.
func KeepBootstrapConfiguration(hc genericapiserver.PostStartHookContext) error {
	client, err := flowcontrolclient.NewForConfig(hc.LoopbackClientConfig)
	if err != nil {
		return fmt.Errorf("flowcontrol client: %w", err)
	}
	var lastErr error
	err = wait.PollUntilContextTimeout(hc, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		lastErr = Ensure(ctx, client)
		return lastErr == nil, nil
	})
	switch {
	case hc.Err() != nil:
		return nil // the server is stopping
	case err != nil:
		return fmt.Errorf("API Priority and Fairness bootstrap configuration: %w (last error: %v)", err, lastErr)
	}
	go func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-hc.Done():
				return
			case <-tick.C:
				if err := Ensure(hc, client); err != nil && hc.Err() == nil {
					klog.ErrorS(err, "Keeping the API Priority and Fairness bootstrap configuration; next try in a minute")
				}
			}
		}
	}()
	return nil
}

// Ensure makes one pass: priority levels first, so that the FlowSchemas created after them do
// not dangle, even for a moment.
func Ensure(ctx context.Context, client flowcontrolclient.FlowcontrolV1Interface) error {
	levels := storedPriorityLevels(client.PriorityLevelConfigurations()).ensure(ctx,
		bootstrap.MandatoryPriorityLevelConfigurations, bootstrap.SuggestedPriorityLevelConfigurations)
	schemas := storedFlowSchemas(client.FlowSchemas()).ensure(ctx,
		bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas)
	return errors.Join(levels, schemas)
}

// object is a FlowSchema or a PriorityLevelConfiguration.
type object interface {
	*flowcontrolv1.FlowSchema | *flowcontrolv1.PriorityLevelConfiguration
	metav1.Object
}

// kind is what a pass needs of one kind of object: its typed client, and how to read its
// lists and compare and carry its specs.
type kind[T object, L any] struct {
	client interface {
		List(context.Context, metav1.ListOptions) (L, error)
		Create(context.Context, T, metav1.CreateOptions) (T, error)
		Update(context.Context, T, metav1.UpdateOptions) (T, error)
		Delete(context.Context, string, metav1.DeleteOptions) error
	}
	items func(L) []T
	copy  func(T) T
	// specIs says whether stored's spec is want's, want being defaulted as storage would.
	specIs func(want, stored T) bool
	// withSpec is a copy of stored with want's spec.
	withSpec func(stored, want T) T
}

func storedPriorityLevels(c flowcontrolclient.PriorityLevelConfigurationInterface) kind[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList] {
	type pl = flowcontrolv1.PriorityLevelConfiguration
	return kind[*pl, *flowcontrolv1.PriorityLevelConfigurationList]{
		client: c,
		items:  func(l *flowcontrolv1.PriorityLevelConfigurationList) []*pl { return pointers(l.Items) },
		copy:   (*pl).DeepCopy,
		specIs: func(want, stored *pl) bool {
			want = want.DeepCopy()
			defaults.SetObjectDefaults_PriorityLevelConfiguration(want)
			// The exempt level's shares and lendable percent are the cluster's to tune.
			if want.Spec.Exempt != nil && stored.Spec.Exempt != nil {
				want.Spec.Exempt.NominalConcurrencyShares = stored.Spec.Exempt.NominalConcurrencyShares
				want.Spec.Exempt.LendablePercent = stored.Spec.Exempt.LendablePercent
			}
			return equality.Semantic.DeepEqual(want.Spec, stored.Spec)
		},
		withSpec: func(stored, want *pl) *pl {
			revised := stored.DeepCopy()
			want.Spec.DeepCopyInto(&revised.Spec)
			return revised
		},
	}
}

func storedFlowSchemas(c flowcontrolclient.FlowSchemaInterface) kind[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList] {
	type fs = flowcontrolv1.FlowSchema
	return kind[*fs, *flowcontrolv1.FlowSchemaList]{
		client: c,
		items:  func(l *flowcontrolv1.FlowSchemaList) []*fs { return pointers(l.Items) },
		copy:   (*fs).DeepCopy,
		specIs: func(want, stored *fs) bool {
			want = want.DeepCopy()
			defaults.SetObjectDefaults_FlowSchema(want)
			return equality.Semantic.DeepEqual(want.Spec, stored.Spec)
		},
		withSpec: func(stored, want *fs) *fs {
			revised := stored.DeepCopy()
			want.Spec.DeepCopyInto(&revised.Spec)
			return revised
		},
	}
}

// ensure makes the stored objects of the kind what bootstrap says of them (the file's comment).
func (k kind[T, L]) ensure(ctx context.Context, mandatory, suggested []T) error {
	list, err := k.client.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	stored := k.items(list)
	byName := map[string]T{}
	for _, o := range stored {
		byName[o.GetName()] = o
	}
	var errs []error
	wanted := map[string]bool{}
	for _, want := range mandatory {
		errs = append(errs, k.ensureOne(ctx, byName[want.GetName()], want, true))
		wanted[want.GetName()] = true
	}
	for _, want := range suggested {
		errs = append(errs, k.ensureOne(ctx, byName[want.GetName()], want, false))
		wanted[want.GetName()] = true
	}
	for _, o := range stored {
		if wanted[o.GetName()] {
			continue
		}
		// Only what says it is bootstrap's to update is bootstrap's to delete.
		if auto, err := strconv.ParseBool(o.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]); err != nil || !auto {
			continue
		}
		if err := k.client.Delete(ctx, o.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s, which bootstrap no longer has: %w", o.GetName(), err))
			continue
		}
		klog.V(2).InfoS("Deleted an API Priority and Fairness object that bootstrap no longer has", "name", o.GetName())
	}
	return errors.Join(errs...)
}

// ensureOne creates want if nothing is stored under its name, or brings stored in line with it.
func (k kind[T, L]) ensureOne(ctx context.Context, stored, want T, mandatory bool) error {
	var none T
	if stored == none {
		_, err := k.client.Create(ctx, k.copy(want), metav1.CreateOptions{FieldManager: fieldManager})
		if apierrors.IsAlreadyExists(err) {
			return nil // another instance was first; the next pass compares
		}
		return err
	}
	update := mandatory || autoUpdate(stored)
	revised, changed := k.copy(stored), false
	if update && !k.specIs(want, stored) {
		revised, changed = k.withSpec(stored, want), true
	}
	if current, ok := stored.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]; !ok || current != strconv.FormatBool(update) {
		// The annotation records what the pass decided: whether bootstrap keeps the object.
		annotations := revised.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[flowcontrolv1.AutoUpdateAnnotationKey] = strconv.FormatBool(update)
		revised.SetAnnotations(annotations)
		changed = true
	}
	if !changed {
		return nil
	}
	_, err := k.client.Update(ctx, revised, metav1.UpdateOptions{FieldManager: fieldManager})
	if apierrors.IsConflict(err) {
		return nil // written meanwhile; the next pass compares again
	}
	return err
}

// autoUpdate says whether a suggested object follows bootstrap: as its annotation says, or,
// without a readable one, as long as its spec was never changed.
func autoUpdate(o metav1.Object) bool {
	if auto, err := strconv.ParseBool(o.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]); err == nil {
		return auto
	}
	return o.GetGeneration() == 1
}

// pointers points at each item of a list.
func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
