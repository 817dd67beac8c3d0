package kubelet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

const (
	// MetricsPathAnnotation tells the metrics server where a node's kubelet serves its resource
	// metrics, when not at /metrics/resource. Each node's endpoint serves them there now; nodes
	// registered when all shared one endpoint (at /nodes/<name>/metrics/resource) lose it.
	MetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
	// ControlPlaneLabel marks the host node, as kubeadm marks the node it runs on.
	ControlPlaneLabel = "node-role.kubernetes.io/control-plane"

	// FieldManager is the name the simulator's writes carry in managedFields, a kubelet's.
	FieldManager = "kubelet"

	leaseDurationSeconds = 40 // the kubelet's nodeLeaseDurationSeconds
	maxPods              = 110
	// evictionHard is the kubelet's default memory.available eviction threshold, which it
	// subtracts from capacity to give allocatable.
	evictionHard = 100 << 20
)

var asKubelet = metav1.UpdateOptions{FieldManager: FieldManager}

// node is one simulated kubelet's node.
type node struct {
	name string
	host bool
	// registered: the simulator registers it itself (the host, sim-node-N), and reconciles
	// its labels once per run, as a kubelet does; otherwise someone else created it for the
	// simulator to run (NodeAnnotation, NodeLabel), and its metadata is theirs.
	registered bool
	// bootID changes on every Run, as it does when a machine reboots.
	bootID string
	// port is where this node's kubelet endpoint listens, srv what serves it; stopStreams
	// ends the streams it serves.
	port        int
	srv         *http.Server
	stopStreams context.CancelFunc

	// deleted is set when the informer sees the Node the simulator runs deleted.
	deleted atomic.Bool
	// pods hands out its pods' addresses, from the node's spec.podCIDR; nil until the node has
	// one (ipam.go).
	podsMu sync.Mutex
	pods   *ipPool

	// Only the node worker touches these.
	uid        types.UID             // of the Node object simulated
	reconciled bool                  // its labels reconciled in this run
	lease      *coordinationv1.Lease // as last written
	lastStatus time.Time             // when its status was last posted
	lastLease  time.Time             // when its Lease was last renewed
}

// syncNode keeps one node going: the kubelet's registerWithAPIServer, syncNodeStatus and lease
// controller, in one step. It registers a node the simulator registers itself and that is not
// there yet; it starts and stops the simulation of a node as it appears and goes; it posts the
// node's status when that changed or StatusReportFrequency passed, and renews its Lease every
// heartbeat. It reads the node from the informer's cache, as the kubelet reads it from its own,
// and queues itself again for the next thing due.
func (s *Simulator) syncNode(ctx context.Context, name string) error {
	cached, err := s.nodeLister.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	n := s.node(name)
	if n != nil && n.deleted.Load() {
		s.stop(n) // and a Node created again by that name is looked at afresh
		n = nil
	}
	if cached == nil {
		if n != nil || !s.registersItself(name) {
			return nil // one it just registered (the cache is behind), or none of its own
		}
		return s.register(ctx, name)
	}
	if !s.runs(cached) {
		if n != nil {
			s.stop(n) // its annotation or label was taken away
		}
		return nil
	}
	if n == nil {
		if n, err = s.start(name); err != nil {
			return err
		}
	}
	n.uid = cached.UID
	if n.registered && !n.reconciled {
		// Registered before (an earlier run, or someone else): a kubelet that finds its node
		// already there reconciles the labels it owns, once.
		obj := cached.DeepCopy()
		if s.reconcileMeta(obj, n) {
			client, err := s.clientOf(name)
			if err != nil {
				return err
			}
			if cached, err = client.CoreV1().Nodes().Update(ctx, obj, asKubelet); err != nil {
				return fmt.Errorf("updating node %s: %w", name, err)
			}
		}
		n.reconciled = true
	}
	now := time.Now()
	obj := cached.DeepCopy()
	s.setStatus(obj, n, now)
	// Posted but no Lease yet: this sync is the Lease's turn (below). The cache may not show
	// the post yet, and must not be taken for a status that changed: posting again until the
	// cache catches up is a loop of writes, each queueing the node again.
	leaseTurn := !n.lastStatus.IsZero() && n.lastLease.IsZero()
	if !leaseTurn && (now.Sub(n.lastStatus) >= s.statusReport || statusChanged(&cached.Status, &obj.Status)) {
		client, err := s.clientOf(name)
		if err != nil {
			return err
		}
		if cached, err = patchStatus(ctx, client, cached, obj); err != nil {
			return fmt.Errorf("posting status of node %s: %w", name, err)
		}
		n.lastStatus = now
		if n.lastLease.IsZero() {
			// Its first post, which says Ready: its Lease waits its turn behind the first
			// posts of the nodes created with it, so that a burst of new nodes turns Ready
			// without each waiting for the Leases of those queued before it. A Lease a few
			// seconds late is well inside its 40 s.
			s.nodeQueue.Add(name)
			return nil
		}
	}
	if now.Sub(n.lastLease) >= s.heartbeat {
		if err := s.renewLease(ctx, n, cached); err != nil {
			return err
		}
		n.lastLease = now
	}
	s.nodeQueue.AddAfter(name, min(n.lastStatus.Add(s.statusReport).Sub(now), n.lastLease.Add(s.heartbeat).Sub(now)))
	return nil
}

// register creates a node the simulator registers itself, and its Lease.
func (s *Simulator) register(ctx context.Context, name string) error {
	client, err := s.clientOf(name)
	if err != nil {
		return err
	}
	n, err := s.start(name)
	if err != nil {
		return err
	}
	now := time.Now()
	obj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	s.reconcileMeta(obj, n)
	s.setStatus(obj, n, now)
	created, err := client.CoreV1().Nodes().Create(ctx, obj, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		// AlreadyExists: the cache is behind; the next try finds it there.
		s.stop(n)
		return fmt.Errorf("registering node %s: %w", name, err)
	}
	n.uid, n.reconciled, n.lastStatus = created.UID, true, now
	if err := s.renewLease(ctx, n, created); err != nil {
		return err
	}
	n.lastLease = now
	s.nodeQueue.AddAfter(name, s.heartbeat)
	return nil
}

// patchStatus posts obj's status as a strategic-merge patch of what it changed from cached, as
// a kubelet posts its node's status. The patch names no resourceVersion: others write the Node
// too (node-ipam its podCIDR, the node lifecycle controller its taints, a user a label, another
// agent a condition of its own), and an update pinned to the cache's version would fail with a
// 409 Conflict whenever one of them wrote since the informer last saw the node, losing that
// heartbeat. Only the status fields the simulator set are in the patch; conditions merge by
// type, so others' conditions stay. (Addresses merge by type too, which is wrong for a node
// with two addresses of one type; ours have one of each.)
func patchStatus(ctx context.Context, client NodeAPI, cached, obj *corev1.Node) (*corev1.Node, error) {
	before, err := json.Marshal(corev1.Node{Status: cached.Status})
	if err != nil {
		return nil, err
	}
	after, err := json.Marshal(corev1.Node{Status: obj.Status})
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(before, after, corev1.Node{})
	if err != nil {
		return nil, err
	}
	return client.CoreV1().Nodes().Patch(ctx, cached.Name, types.StrategicMergePatchType, patch,
		metav1.PatchOptions{FieldManager: FieldManager}, "status")
}

// statusChanged says whether a node status differs from the one posted in more than the
// conditions' heartbeat times (kubelet nodeStatusHasChanged).
func statusChanged(posted, now *corev1.NodeStatus) bool {
	strip := func(st *corev1.NodeStatus) *corev1.NodeStatus {
		st = st.DeepCopy()
		for i := range st.Conditions {
			st.Conditions[i].LastHeartbeatTime = metav1.Time{}
		}
		return st
	}
	return !apiequality.Semantic.DeepEqual(strip(posted), strip(now))
}

// reconcileMeta sets the labels and annotations a node the simulator registers carries, and
// reports whether it changed anything. Labels and annotations others added stay.
func (s *Simulator) reconcileMeta(obj *corev1.Node, n *node) bool {
	want := map[string]string{
		corev1.LabelHostname:      labelValue(n.name),
		corev1.LabelOSStable:      runtime.GOOS,
		corev1.LabelArchStable:    runtime.GOARCH,
		"beta.kubernetes.io/os":   runtime.GOOS,
		"beta.kubernetes.io/arch": runtime.GOARCH,
	}
	if n.host {
		want[ControlPlaneLabel] = ""
	} else {
		want[NodeLabel] = NodeLabelValue
	}
	changed := setAll(&obj.Labels, want)
	changed = setAll(&obj.Annotations, map[string]string{"volumes.kubernetes.io/controller-managed-attach-detach": "true"}) || changed
	if _, ok := obj.Annotations[MetricsPathAnnotation]; ok {
		delete(obj.Annotations, MetricsPathAnnotation)
		changed = true
	}
	return changed
}

func setAll(m *map[string]string, want map[string]string) bool {
	if *m == nil {
		*m = map[string]string{}
	}
	changed := false
	for k, v := range want {
		if old, ok := (*m)[k]; !ok || old != v {
			(*m)[k] = v
			changed = true
		}
	}
	return changed
}

// labelValue cuts a node name to what a label value may hold.
func labelValue(s string) string {
	if len(s) > validation.LabelValueMaxLength {
		s = strings.TrimRight(s[:validation.LabelValueMaxLength], "-.")
	}
	return s
}

// Synthetic capacity of a simulated node.
var simCapacity = corev1.ResourceList{
	corev1.ResourceCPU:    resource.MustParse("4"),
	corev1.ResourceMemory: resource.MustParse("16Gi"),
	corev1.ResourcePods:   *resource.NewQuantity(maxPods, resource.DecimalSI),
}

// capacity is what the node has and what of it pods may use (kubelet nodestatus.MachineInfo:
// no reservations, allocatable memory less the hard eviction threshold).
func (s *Simulator) capacity(n *node) (capacity, allocatable corev1.ResourceList) {
	capacity = simCapacity.DeepCopy()
	if n.host {
		capacity = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(s.hostsys.cpus)*1000, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(s.hostsys.memTotal, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(maxPods, resource.DecimalSI),
		}
	}
	allocatable = capacity.DeepCopy()
	mem := allocatable[corev1.ResourceMemory]
	mem.Sub(*resource.NewQuantity(evictionHard, resource.BinarySI))
	if mem.Sign() < 0 {
		mem = resource.Quantity{}
	}
	allocatable[corev1.ResourceMemory] = mem
	return capacity, allocatable
}

// setStatus writes the status a healthy kubelet posts (kubelet nodestatus setters), at now.
func (s *Simulator) setStatus(obj *corev1.Node, n *node, at time.Time) {
	now := metav1.NewTime(at).Rfc3339Copy()
	st := &obj.Status
	// Merged, not replaced: resources others advertise on the node (extended resources) stay.
	// A node created for the simulator keeps the capacity its creator gave it, as with kwok.
	capacity, allocatable := s.capacity(n)
	merge(&st.Capacity, capacity, n.registered)
	merge(&st.Allocatable, allocatable, n.registered)
	st.Phase = "" // deprecated, no kubelet sets it
	for _, c := range []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	} {
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
		setNodeCondition(st, c)
	}
	hostname := n.name
	if n.host {
		hostname = s.hostsys.hostname
	}
	st.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: s.nodeIP.String()},
		{Type: corev1.NodeHostName, Address: hostname},
	}
	st.DaemonEndpoints.KubeletEndpoint.Port = int32(n.port)
	st.NodeInfo = s.nodeInfo(n)
	st.Features = &corev1.NodeFeatures{SupplementalGroupsPolicy: ptr.To(true)}
}

func (s *Simulator) nodeInfo(n *node) corev1.NodeSystemInfo {
	info := corev1.NodeSystemInfo{
		MachineID:               hashHex("machine:"+n.name, 32),
		BootID:                  n.bootID,
		KernelVersion:           "unknown",
		OSImage:                 "apichain simulated node",
		ContainerRuntimeVersion: "apichain://simulated",
		KubeletVersion:          Version,
		OperatingSystem:         runtime.GOOS,
		Architecture:            runtime.GOARCH,
	}
	info.SystemUUID = uuidFormat(info.MachineID)
	if h := s.hostsys; h != nil {
		// Simulated nodes run on this machine's kernel too.
		info.KernelVersion, info.OSImage = h.kernel, h.osImage
		if n.host {
			info.MachineID, info.SystemUUID = h.machineID, h.systemUUID
			if h.bootID != "" {
				info.BootID = h.bootID
			}
		}
	}
	return info
}

// setNodeCondition replaces the condition of c's type, keeping its transition time when its
// status did not change.
func setNodeCondition(st *corev1.NodeStatus, c corev1.NodeCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type != c.Type {
			continue
		}
		if st.Conditions[i].Status == c.Status {
			c.LastTransitionTime = st.Conditions[i].LastTransitionTime
		}
		st.Conditions[i] = c
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// merge sets src's resources in dst: all of them when replace, else those dst lacks.
func merge(dst *corev1.ResourceList, src corev1.ResourceList, replace bool) {
	if *dst == nil {
		*dst = corev1.ResourceList{}
	}
	for k, v := range src {
		if _, ok := (*dst)[k]; replace || !ok {
			(*dst)[k] = v
		}
	}
}

// renewLease renews the node's Lease in kube-node-lease, creating it if it is missing, owned
// by the node so that it goes with it (kubelet pkg/kubelet/nodelease, component-helpers
// apimachinery/lease): it updates the lease it last wrote. Not knowing one (a node's first
// renewal in a run, or after a failed update), it creates it straight away and reads it only
// when it is already there: a new node's Lease costs one request, not a read that finds
// nothing and then a create.
func (s *Simulator) renewLease(ctx context.Context, n *node, obj *corev1.Node) error {
	client, err := s.clientOf(obj.Name)
	if err != nil {
		return err
	}
	leases := client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	owner := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: obj.Name, UID: obj.UID}}
	if n.lease == nil {
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: corev1.NamespaceNodeLease}}
		lease.OwnerReferences, lease.Spec = owner, leaseSpec(obj.Name)
		created, err := leases.Create(ctx, lease, metav1.CreateOptions{FieldManager: FieldManager})
		if err == nil {
			n.lease = created
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating lease of node %s: %w", obj.Name, err)
		}
		found, err := leases.Get(ctx, obj.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("getting lease of node %s: %w", obj.Name, err)
		}
		n.lease = found
	}
	lease := n.lease.DeepCopy()
	lease.OwnerReferences, lease.Spec = owner, leaseSpec(obj.Name)
	updated, err := leases.Update(ctx, lease, asKubelet)
	if err != nil {
		n.lease = nil // changed or gone: read it again next time
		return fmt.Errorf("renewing lease of node %s: %w", obj.Name, err)
	}
	n.lease = updated
	return nil
}

func leaseSpec(holder string) coordinationv1.LeaseSpec {
	return coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(holder),
		LeaseDurationSeconds: ptr.To[int32](leaseDurationSeconds),
		RenewTime:            ptr.To(metav1.NowMicro()),
	}
}
