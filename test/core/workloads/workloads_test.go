package workloads_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

const workloadTemplate = `template: {metadata: {labels: {app: NAME}}, spec: {containers: [{name: c, image: nginx}]}}`

// workloadResources are one minimal valid object per workload resource, as a user would write it.
var workloadResources = []struct {
	gvr      schema.GroupVersionResource
	manifest string
	// status is a status the resource's /status accepts.
	status map[string]interface{}
	// change is a valid change of the spec: a path and a new value.
	change []interface{}
}{
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		`{apiVersion: apps/v1, kind: Deployment, metadata: {name: NAME}, spec: {selector: {matchLabels: {app: NAME}}, ` + workloadTemplate + `}}`,
		map[string]interface{}{"replicas": int64(1), "observedGeneration": int64(1)}, minReadySeconds},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"},
		`{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: NAME}, spec: {selector: {matchLabels: {app: NAME}}, ` + workloadTemplate + `}}`,
		map[string]interface{}{"replicas": int64(1), "observedGeneration": int64(1)}, minReadySeconds},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"},
		`{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: NAME}, spec: {serviceName: NAME, selector: {matchLabels: {app: NAME}}, ` + workloadTemplate + `}}`,
		map[string]interface{}{"replicas": int64(1), "availableReplicas": int64(0), "observedGeneration": int64(1)}, minReadySeconds},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"},
		`{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: NAME}, spec: {selector: {matchLabels: {app: NAME}}, ` + workloadTemplate + `}}`,
		map[string]interface{}{"currentNumberScheduled": int64(1), "desiredNumberScheduled": int64(1), "numberMisscheduled": int64(0), "numberReady": int64(1)}, minReadySeconds},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"},
		`{apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: NAME}, revision: 1, data: {a: b}}`, nil, nil},
	{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
		`{apiVersion: batch/v1, kind: Job, metadata: {name: NAME}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}`,
		map[string]interface{}{"active": int64(1)}, []interface{}{"spec.parallelism", int64(3)}},
	{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"},
		`{apiVersion: batch/v1, kind: CronJob, metadata: {name: NAME}, spec: {schedule: '@hourly', jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox}]}}}}}}`,
		map[string]interface{}{"lastScheduleTime": "2026-01-01T00:00:00Z"}, []interface{}{"spec.schedule", "@daily"}},
	{schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
		`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: NAME}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: NAME}, maxReplicas: 3}}`,
		map[string]interface{}{"currentReplicas": int64(2), "desiredReplicas": int64(2)}, []interface{}{"spec.maxReplicas", int64(5)}},
	{schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
		`{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: NAME}, spec: {minAvailable: 1, selector: {matchLabels: {app: NAME}}}}`,
		map[string]interface{}{"currentHealthy": int64(1), "desiredHealthy": int64(1), "disruptionsAllowed": int64(0), "expectedPods": int64(1), "observedGeneration": int64(1)}, []interface{}{"spec.minAvailable", int64(2)}},
	{schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"},
		`{apiVersion: v1, kind: PodTemplate, metadata: {name: NAME}, ` + workloadTemplate + `}`, nil, nil},
	{schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"},
		`{apiVersion: v1, kind: ReplicationController, metadata: {name: NAME}, spec: {selector: {app: NAME}, ` + workloadTemplate + `}}`,
		map[string]interface{}{"replicas": int64(1), "observedGeneration": int64(1)}, minReadySeconds},
	{schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"},
		`{apiVersion: events.k8s.io/v1, kind: Event, metadata: {name: NAME}, eventTime: "2026-01-01T00:00:00.000000Z", type: Normal, reason: Started, action: Start, note: hello, reportingController: example.com/ctl, reportingInstance: ctl-1, regarding: {kind: Pod, name: p, namespace: NS}}`, nil, nil},
}

var minReadySeconds = []interface{}{"spec.minReadySeconds", int64(5)}

// TestWorkloadResourcesCRUDAndWatch creates, reads, lists, updates, patches, watches and deletes one
// object of every workload resource through the dynamic client, as controllers do.
func TestWorkloadResourcesCRUDAndWatch(t *testing.T) {
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	for _, r := range workloadResources {
		t.Run(r.gvr.Group+"/"+r.gvr.Resource, func(t *testing.T) {
			name := "crud-" + strings.TrimSuffix(r.gvr.Resource, "s")
			ri := dyn.Resource(r.gvr).Namespace(ns)
			w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			defer w.Stop()

			created, err := ri.Create(ctx, coretest.Object(t, r.manifest, name, ns), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.GetUID() == "" || created.GetResourceVersion() == "" {
				t.Errorf("create did not fill system metadata: %v", created.Object["metadata"])
			}
			if _, err := ri.Create(ctx, coretest.Object(t, r.manifest, name, ns), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
				t.Errorf("second create: %v, want AlreadyExists", err)
			}
			got, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil || got.GetUID() != created.GetUID() {
				t.Fatalf("get: %v", err)
			}
			if list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name}); err != nil || len(list.Items) != 1 {
				t.Fatalf("list by name: %v", err)
			}
			got.SetLabels(map[string]string{"updated": "yes"})
			updated, err := ri.Update(ctx, got, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			if _, err := ri.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Errorf("update with stale resourceVersion: %v, want Conflict", err)
			}
			patched, err := ri.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"patched":"yes"}}}`), metav1.PatchOptions{})
			if err != nil {
				t.Fatalf("patch: %v", err)
			}
			if patched.GetLabels()["updated"] != "yes" || patched.GetAnnotations()["patched"] != "yes" || patched.GetResourceVersion() == updated.GetResourceVersion() {
				t.Errorf("patch: %v", patched.Object["metadata"])
			}
			if l, err := ri.List(ctx, metav1.ListOptions{LabelSelector: "updated=yes"}); err != nil || len(l.Items) != 1 {
				t.Errorf("list by label: %v", err)
			}
			background := metav1.DeletePropagationBackground // as kubectl deletes
			if err := ri.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := ri.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
			expectWatchEvents(t, w, watch.Added, watch.Modified, watch.Modified, watch.Deleted)
		})
	}
}

// expectWatchEvents reads the next events of w and compares their types.
func expectWatchEvents(t *testing.T, w watch.Interface, want ...watch.EventType) {
	t.Helper()
	for i, typ := range want {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d events", i)
			}
			if ev.Type != typ {
				t.Fatalf("watch event %d: %s, want %s (%v)", i, ev.Type, typ, ev.Object)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no watch event %d (%s) in 30s", i, typ)
		}
	}
}

// TestWorkloadStatusSubresource: the main resource ignores status, /status ignores the spec (and
// keeps the metadata changes kube-apiserver's apps, batch, autoscaling and policy strategies
// keep), and metadata.generation counts spec changes only.
func TestWorkloadStatusSubresource(t *testing.T) {
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	for _, r := range workloadResources {
		if r.status == nil {
			continue
		}
		t.Run(r.gvr.Group+"/"+r.gvr.Resource, func(t *testing.T) {
			name := "status-" + strings.TrimSuffix(r.gvr.Resource, "s")
			ri := dyn.Resource(r.gvr).Namespace(ns)
			obj := coretest.Object(t, r.manifest, name, ns)
			obj.Object["status"] = r.status
			created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if created.GetGeneration() != 1 {
				t.Errorf("generation on create = %d, want 1", created.GetGeneration())
			}
			for k := range r.status {
				if v, found, _ := unstructured.NestedFieldNoCopy(created.Object, "status", k); found && v != int64(0) {
					t.Errorf("create kept status.%s = %v", k, v)
				}
			}

			// /status: the status changes, the spec does not, labels and annotations may.
			created.Object["status"] = r.status
			created.SetAnnotations(map[string]string{"from": "status"})
			afterStatus, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("update status: %v", err)
			}
			for k, v := range r.status {
				if got, _, _ := unstructured.NestedFieldNoCopy(afterStatus.Object, "status", k); got != v {
					t.Errorf("status.%s = %v after /status, want %v", k, got, v)
				}
			}
			if afterStatus.GetGeneration() != 1 {
				t.Errorf("generation after /status = %d, want 1", afterStatus.GetGeneration())
			}
			if afterStatus.GetAnnotations()["from"] != "status" {
				t.Errorf("/status dropped an annotation change: %v", afterStatus.GetAnnotations())
			}

			// The main resource: status changes are ignored, a spec change bumps the generation.
			afterStatus.Object["status"] = map[string]interface{}{}
			if err := unstructured.SetNestedField(afterStatus.Object, r.change[1], strings.Split(r.change[0].(string), ".")...); err != nil {
				t.Fatal(err)
			}
			updated, err := ri.Update(ctx, afterStatus, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			if updated.GetGeneration() != 2 {
				t.Errorf("generation after a spec change = %d, want 2", updated.GetGeneration())
			}
			for k, v := range r.status {
				if got, _, _ := unstructured.NestedFieldNoCopy(updated.Object, "status", k); got != v {
					t.Errorf("update changed status.%s to %v, want %v kept", k, got, v)
				}
			}
		})
	}
}

// TestWorkloadScaleSubresource reads and changes the replicas of each scalable resource through
// its autoscaling/v1 Scale, as kubectl scale and the HPA do.
func TestWorkloadScaleSubresource(t *testing.T) {
	cs, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	for _, r := range workloadResources {
		switch r.gvr.Resource {
		case "deployments", "replicasets", "statefulsets", "replicationcontrollers":
		default:
			continue
		}
		t.Run(r.gvr.Resource, func(t *testing.T) {
			name := "scale-" + strings.TrimSuffix(r.gvr.Resource, "s")
			if _, err := dyn.Resource(r.gvr).Namespace(ns).Create(ctx, coretest.Object(t, r.manifest, name, ns), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			scales := dyn.Resource(r.gvr).Namespace(ns)
			u, err := scales.Get(ctx, name, metav1.GetOptions{}, "scale")
			if err != nil {
				t.Fatal(err)
			}
			var scale autoscalingv1.Scale
			if err := runtime2Typed(u.Object, &scale); err != nil {
				t.Fatal(err)
			}
			if u.GetAPIVersion() != "autoscaling/v1" || u.GetKind() != "Scale" || scale.Spec.Replicas != 1 || scale.Status.Selector != "app="+name || scale.Name != name || scale.UID == "" {
				t.Errorf("scale: %v", u.Object)
			}

			// PUT
			scale.Spec.Replicas = 3
			body, _ := json.Marshal(&scale)
			path := "/apis/" + r.gvr.Group + "/v1/namespaces/" + ns + "/" + r.gvr.Resource + "/" + name + "/scale"
			if r.gvr.Group == "" {
				path = "/api/v1/namespaces/" + ns + "/" + r.gvr.Resource + "/" + name + "/scale"
			}
			if resp, out := testchain.Do(t, shared.Admin, "PUT", path, body, "application/json"); resp.StatusCode != 200 || !strings.Contains(string(out), `"replicas":3`) {
				t.Fatalf("PUT scale: %d %s", resp.StatusCode, out)
			}
			parent, err := dyn.Resource(r.gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if replicas, _, _ := unstructured.NestedInt64(parent.Object, "spec", "replicas"); replicas != 3 || parent.GetGeneration() != 2 {
				t.Errorf("after scaling to 3: spec.replicas %d, generation %d", replicas, parent.GetGeneration())
			}
			// PATCH
			if _, err := scales.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{}, "scale"); err != nil {
				t.Fatalf("patch scale: %v", err)
			}
			// A negative count is refused with the declarative minimum's message.
			resp, out := testchain.Do(t, shared.Admin, "PATCH", path, []byte(`{"spec":{"replicas":-1}}`), "application/merge-patch+json")
			var st metav1.Status
			_ = json.Unmarshal(out, &st)
			if want := `Scale.autoscaling "` + name + `" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`; resp.StatusCode != 422 || st.Message != want {
				t.Errorf("negative replicas: %d %q, want %q", resp.StatusCode, st.Message, want)
			}
			// A stale resourceVersion in the Scale is a conflict.
			resp, out = testchain.Do(t, shared.Admin, "PUT", path, body, "application/json")
			if resp.StatusCode != 409 {
				t.Errorf("PUT with a stale resourceVersion: %d %s", resp.StatusCode, out)
			}
			if _, err := scales.Get(ctx, "missing", metav1.GetOptions{}, "scale"); !apierrors.IsNotFound(err) {
				t.Errorf("scale of a missing object: %v", err)
			}
		})
	}

	// The typed clients' GetScale/UpdateScale, as kubectl scale uses them.
	ctx2 := context.Background()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "typed"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "typed"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "typed"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
	}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx2, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := cs.AppsV1().Deployments(ns).GetScale(ctx2, "typed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Replicas = 4
	if s, err = cs.AppsV1().Deployments(ns).UpdateScale(ctx2, "typed", s, metav1.UpdateOptions{}); err != nil || s.Spec.Replicas != 4 {
		t.Fatalf("UpdateScale: %v %v", s, err)
	}
	if got, _ := cs.AppsV1().Deployments(ns).Get(ctx2, "typed", metav1.GetOptions{}); ptr.Deref(got.Spec.Replicas, 0) != 4 {
		t.Errorf("deployment replicas after UpdateScale: %v", got.Spec.Replicas)
	}
}

func runtime2Typed(in map[string]interface{}, out interface{}) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// TestWorkloadStrategies: what the strategies set beyond the defaults.
func TestWorkloadStrategies(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}

	t.Run("job selector and labels", func(t *testing.T) {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "gen"}, Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}
		got, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uid := string(got.UID)
		want := map[string]string{"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "gen", "controller-uid": uid, "job-name": "gen"}
		if !mapsEqual(got.Spec.Template.Labels, want) || !mapsEqual(got.Labels, want) || !mapsEqual(got.Spec.Selector.MatchLabels, map[string]string{"batch.kubernetes.io/controller-uid": uid}) || ptr.Deref(got.Spec.ManualSelector, true) {
			t.Errorf("generated: labels %v, template labels %v, selector %v", got.Labels, got.Spec.Template.Labels, got.Spec.Selector)
		}
		// manualSelector without a selector
		manual := job.DeepCopy()
		manual.Name = "manual"
		manual.Spec.ManualSelector = ptr.To(true)
		_, err = cs.BatchV1().Jobs(ns).Create(ctx, manual, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.selector: Required value") {
			t.Errorf("manualSelector without selector: %v", err)
		}
		// a running job's template is immutable
		got.Spec.Template.Spec.Containers[0].Image = "busybox:2"
		if _, err := cs.BatchV1().Jobs(ns).Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.template: Invalid value:") || !strings.Contains(err.Error(), "field is immutable") {
			t.Errorf("changing the template of a running job: %v", err)
		}
	})

	t.Run("daemonset template generation", func(t *testing.T) {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds"}, Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, Template: template}}
		got, err := cs.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Annotations[appsv1.DeprecatedTemplateGeneration] != "1" || got.Generation != 1 {
			t.Errorf("created: annotations %v, generation %d", got.Annotations, got.Generation)
		}
		got.Spec.MinReadySeconds = 5
		got.Annotations[appsv1.DeprecatedTemplateGeneration] = "7" // not the user's to set
		if got, err = cs.AppsV1().DaemonSets(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Annotations[appsv1.DeprecatedTemplateGeneration] != "1" || got.Generation != 2 {
			t.Fatalf("spec change: %v, annotations %v, generation %d", err, got.Annotations, got.Generation)
		}
		got.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		if got, err = cs.AppsV1().DaemonSets(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Annotations[appsv1.DeprecatedTemplateGeneration] != "2" || got.Generation != 3 {
			t.Fatalf("template change: %v, annotations %v, generation %d", err, got.Annotations, got.Generation)
		}
	})

	t.Run("deployment annotations bump the generation", func(t *testing.T) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, Template: template}}
		got, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
		if got, err = cs.AppsV1().Deployments(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Generation != 2 || got.Annotations["deployment.kubernetes.io/revision"] != "1" {
			t.Fatalf("annotation change: %v, generation %d, annotations %v", err, got.Generation, got.Annotations)
		}
		got.Labels = map[string]string{"x": "y"}
		if got, err = cs.AppsV1().Deployments(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Generation != 2 {
			t.Fatalf("label change: %v, generation %d", err, got.Generation)
		}
		// /status keeps the labels (upstream's deployment status strategy resets them)
		got.Labels = map[string]string{"x": "z"}
		got.Status.ObservedGeneration = 2
		if got, err = cs.AppsV1().Deployments(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil || got.Labels["x"] != "y" || got.Status.ObservedGeneration != 2 {
			t.Fatalf("status update: %v, labels %v", err, got.Labels)
		}
	})

	t.Run("statefulset volume claim templates", func(t *testing.T) {
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.StatefulSetSpec{
			ServiceName: "web", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, Template: template,
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			}}},
		}}
		got, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// (in JSON: protobuf has no place for the type of an embedded object)
		_, dyn := testchain.Clients(t, shared)
		stsGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
		u, err := dyn.Resource(stsGVR).Namespace(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		vcts, _, _ := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
		if len(vcts) != 1 || vcts[0].(map[string]interface{})["apiVersion"] != "v1" || vcts[0].(map[string]interface{})["kind"] != "PersistentVolumeClaim" {
			t.Errorf("volume claim templates: %v", vcts)
		}
		w, err := dyn.Resource(stsGVR).Namespace(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web", ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		w.Stop()
		if vcts, _, _ := unstructured.NestedSlice(ev.Object.(*unstructured.Unstructured).Object, "spec", "volumeClaimTemplates"); len(vcts) != 1 || vcts[0].(map[string]interface{})["kind"] != "PersistentVolumeClaim" {
			t.Errorf("volume claim templates in a watch event: %v", vcts)
		}
		// An unchanged update does not bump the generation, with or without the template's type.
		got.Spec.VolumeClaimTemplates[0].TypeMeta = metav1.TypeMeta{}
		if got, err = cs.AppsV1().StatefulSets(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Generation != 1 {
			t.Fatalf("no-op update: %v, generation %d", err, got.Generation)
		}
		got.Spec.ServiceName = "other"
		if _, err := cs.AppsV1().StatefulSets(ns).Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.serviceName: Invalid value: "other": field is immutable`) {
			t.Errorf("serviceName change: %v", err)
		}
	})

	t.Run("jobs and replicationcontrollers orphan by default", func(t *testing.T) {
		_, dyn := testchain.Clients(t, shared)
		for _, r := range []int{5, 10} { // jobs, replicationcontrollers
			gvr := workloadResources[r].gvr
			ri := dyn.Resource(gvr).Namespace(ns)
			if _, err := ri.Create(ctx, coretest.Object(t, workloadResources[r].manifest, "orphaning", ns), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			path := "/apis/batch/v1/namespaces/" + ns + "/jobs/orphaning"
			if gvr.Group == "" {
				path = "/api/v1/namespaces/" + ns + "/replicationcontrollers/orphaning"
			}
			resp, out := testchain.Do(t, shared.Admin, "DELETE", path, nil, "")
			if resp.StatusCode != 200 {
				t.Fatalf("delete: %d %s", resp.StatusCode, out)
			}
			// Only jobs warn (pkg/registry/batch/job/storage).
			warned := strings.Contains(resp.Header.Get("Warning"), "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning")
			if warned != (gvr.Resource == "jobs") {
				t.Errorf("%s delete warning: %q", gvr.Resource, resp.Header.Get("Warning"))
			}
			// Without the garbage collector running, the orphan finalizer keeps the object.
			got, err := ri.Get(ctx, "orphaning", metav1.GetOptions{})
			if err != nil || got.GetDeletionTimestamp() == nil || strings.Join(got.GetFinalizers(), ",") != "orphan" {
				t.Errorf("%s deleted without options: %v, finalizers %v", gvr.Resource, err, got.GetFinalizers())
			}
		}
		// apps/v1 deletes dependents in the background: no finalizer.
		ri := dyn.Resource(workloadResources[0].gvr).Namespace(ns)
		if _, err := ri.Create(ctx, coretest.Object(t, workloadResources[0].manifest, "background", ns), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := ri.Delete(ctx, "background", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := ri.Get(ctx, "background", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("deployment deleted without options: %v, want it gone", err)
		}
	})

	t.Run("poddisruptionbudget updates need a resourceVersion", func(t *testing.T) {
		pdb := coretest.Object(t, workloadResources[8].manifest, "rv", ns)
		_, dyn := testchain.Clients(t, shared)
		ri := dyn.Resource(workloadResources[8].gvr).Namespace(ns)
		got, err := ri.Create(ctx, pdb, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got.SetResourceVersion("")
		if _, err := ri.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.resourceVersion: Invalid value: 0: must be specified for an update") {
			t.Errorf("unconditional update: %v", err)
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestWorkloadSubresourcesInDiscovery: the subresources are listed with the kind they serve.
func TestWorkloadSubresourcesInDiscovery(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	want := map[string]map[string]string{
		"apps/v1": {"deployments/status": "apps/v1/Deployment", "deployments/scale": "autoscaling/v1/Scale", "replicasets/scale": "autoscaling/v1/Scale",
			"statefulsets/scale": "autoscaling/v1/Scale", "daemonsets/status": "apps/v1/DaemonSet", "statefulsets/status": "apps/v1/StatefulSet"},
		"batch/v1":         {"jobs/status": "batch/v1/Job", "cronjobs/status": "batch/v1/CronJob"},
		"autoscaling/v2":   {"horizontalpodautoscalers/status": "autoscaling/v2/HorizontalPodAutoscaler"},
		"policy/v1":        {"poddisruptionbudgets/status": "policy/v1/PodDisruptionBudget"},
		"v1":               {"pods/eviction": "policy/v1/Eviction", "replicationcontrollers/scale": "autoscaling/v1/Scale", "replicationcontrollers/status": "v1/ReplicationController"},
		"events.k8s.io/v1": {"events": "events.k8s.io/v1/Event"},
	}
	for gv, subresources := range want {
		list, err := cs.Discovery().ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatal(err)
		}
		listGV, _ := schema.ParseGroupVersion(gv)
		got := map[string]string{}
		for _, r := range list.APIResources {
			g, v := r.Group, r.Version
			if g == "" && v == "" {
				g, v = listGV.Group, listGV.Version
			}
			got[r.Name] = schema.GroupVersion{Group: g, Version: v}.String() + "/" + r.Kind
		}
		for name, kind := range subresources {
			if got[name] != kind {
				t.Errorf("%s %s: %q, want %q", gv, name, got[name], kind)
			}
		}
	}
}
