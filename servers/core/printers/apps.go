// Follows kubernetes pkg/printers/internalversion/printers.go
// (printDeployment, printReplicaSet, printStatefulSet, printDaemonSet,
// printControllerRevision and their column definitions) as of kube-apiserver
// v1.37, on the apps/v1 types. Where the internal type has a plain int32 and
// apps/v1 a pointer (spec.replicas), nil counts as 0, as the v1-to-internal
// conversion does.

package printers

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Deployment prints apps/v1 Deployments.
var Deployment = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		{Name: "Up-to-date", Type: "string", Description: appsv1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]},
		{Name: "Available", Type: "string", Description: appsv1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]},
		ageColumn(),
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]},
	},
	Row: rowFunc(func(obj *appsv1.Deployment) ([]interface{}, error) {
		desiredReplicas := derefInt32(obj.Spec.Replicas)
		updatedReplicas := obj.Status.UpdatedReplicas
		readyReplicas := obj.Status.ReadyReplicas
		availableReplicas := obj.Status.AvailableReplicas
		age := translateTimestampSince(obj.CreationTimestamp)
		containers := obj.Spec.Template.Spec.Containers
		selector, err := metav1.LabelSelectorAsSelector(obj.Spec.Selector)
		selectorString := ""
		if err != nil {
			selectorString = "<invalid>"
		} else {
			selectorString = selector.String()
		}
		names, images := layoutContainerCells(containers)
		return []interface{}{obj.Name, fmt.Sprintf("%d/%d", int64(readyReplicas), int64(desiredReplicas)), int64(updatedReplicas), int64(availableReplicas), age,
			names, images, selectorString}, nil
	}),
}

// ReplicaSet prints apps/v1 ReplicaSets.
var ReplicaSet = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Desired", Type: "integer", Description: appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]},
		{Name: "Current", Type: "integer", Description: appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]},
		{Name: "Ready", Type: "integer", Description: appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]},
		ageColumn(),
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"]},
	},
	Row: rowFunc(func(obj *appsv1.ReplicaSet) ([]interface{}, error) {
		desiredReplicas := derefInt32(obj.Spec.Replicas)
		currentReplicas := obj.Status.Replicas
		readyReplicas := obj.Status.ReadyReplicas
		names, images := layoutContainerCells(obj.Spec.Template.Spec.Containers)
		return []interface{}{obj.Name, int64(desiredReplicas), int64(currentReplicas), int64(readyReplicas), translateTimestampSince(obj.CreationTimestamp),
			names, images, metav1.FormatLabelSelector(obj.Spec.Selector)}, nil
	}),
}

// StatefulSet prints apps/v1 StatefulSets.
var StatefulSet = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		ageColumn(),
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	},
	Row: rowFunc(func(obj *appsv1.StatefulSet) ([]interface{}, error) {
		desiredReplicas := derefInt32(obj.Spec.Replicas)
		readyReplicas := obj.Status.ReadyReplicas
		createTime := translateTimestampSince(obj.CreationTimestamp)
		names, images := layoutContainerCells(obj.Spec.Template.Spec.Containers)
		return []interface{}{obj.Name, fmt.Sprintf("%d/%d", int64(readyReplicas), int64(desiredReplicas)), createTime, names, images}, nil
	}),
}

// DaemonSet prints apps/v1 DaemonSets.
var DaemonSet = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Desired", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["desiredNumberScheduled"]},
		{Name: "Current", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["currentNumberScheduled"]},
		{Name: "Ready", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["numberReady"]},
		{Name: "Up-to-date", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["updatedNumberScheduled"]},
		{Name: "Available", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["numberAvailable"]},
		{Name: "Node Selector", Type: "string", Description: corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]},
		ageColumn(),
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]},
	},
	Row: rowFunc(func(obj *appsv1.DaemonSet) ([]interface{}, error) {
		desiredScheduled := obj.Status.DesiredNumberScheduled
		currentScheduled := obj.Status.CurrentNumberScheduled
		numberReady := obj.Status.NumberReady
		numberUpdated := obj.Status.UpdatedNumberScheduled
		numberAvailable := obj.Status.NumberAvailable
		names, images := layoutContainerCells(obj.Spec.Template.Spec.Containers)
		return []interface{}{obj.Name, int64(desiredScheduled), int64(currentScheduled), int64(numberReady), int64(numberUpdated), int64(numberAvailable),
			labels.FormatLabels(obj.Spec.Template.Spec.NodeSelector), translateTimestampSince(obj.CreationTimestamp),
			names, images, metav1.FormatLabelSelector(obj.Spec.Selector)}, nil
	}),
}

// ControllerRevision prints apps/v1 ControllerRevisions.
var ControllerRevision = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Controller", Type: "string", Description: "Controller of the object"},
		{Name: "Revision", Type: "string", Description: appsv1.ControllerRevision{}.SwaggerDoc()["revision"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *appsv1.ControllerRevision) ([]interface{}, error) {
		controllerRef := metav1.GetControllerOf(obj)
		controllerName := "<none>"
		if controllerRef != nil {
			withKind := true
			gv, err := schema.ParseGroupVersion(controllerRef.APIVersion)
			if err != nil {
				return nil, err
			}
			gvk := gv.WithKind(controllerRef.Kind)
			controllerName = formatResourceName(gvk.GroupKind(), controllerRef.Name, withKind)
		}
		revision := obj.Revision
		age := translateTimestampSince(obj.CreationTimestamp)
		return []interface{}{obj.Name, controllerName, revision, age}, nil
	}),
}
