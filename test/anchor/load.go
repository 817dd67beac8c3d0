package anchor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// LoadFigures is what one run of the workload measured.
type LoadFigures struct {
	CreatesPerSecond, GetsPerSecond float64
	CreateP50, CreateP99            time.Duration
	GetP50, GetP99                  time.Duration
	// List is one LIST of all n objects by label selector; Watch the time until a watch has
	// delivered 200 updates made right after it opened.
	List, Watch time.Duration
}

// Load is the benchmarks' workload: in a new namespace, create n ConfigMaps with c
// workers, get each, list them all, then time the delivery of 200 updates to a watch.
func Load(ctx context.Context, cfg *rest.Config, n, c int) (LoadFigures, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 1e6, 1e6
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return LoadFigures{}, err
	}
	ns := fmt.Sprintf("load-%d", time.Now().UnixNano())
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return LoadFigures{}, err
	}
	defer func() { _ = cs.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{}) }()
	cms := cs.CoreV1().ConfigMaps(ns)
	cm := func(i int) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Labels: map[string]string{"load": "yes"}},
			Data: map[string]string{"k": fmt.Sprintf("value-%d", i)}}
	}

	var f LoadFigures
	if f.CreatesPerSecond, f.CreateP50, f.CreateP99, err = Parallel(n, c, func(i int) error {
		_, err := cms.Create(ctx, cm(i), metav1.CreateOptions{})
		return err
	}); err != nil {
		return f, fmt.Errorf("create: %w", err)
	}
	if f.GetsPerSecond, f.GetP50, f.GetP99, err = Parallel(n, c, func(i int) error {
		_, err := cms.Get(ctx, fmt.Sprintf("cm-%06d", i), metav1.GetOptions{})
		return err
	}); err != nil {
		return f, fmt.Errorf("get: %w", err)
	}

	t := time.Now()
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "load=yes"})
	if err != nil {
		return f, fmt.Errorf("list: %w", err)
	}
	f.List = time.Since(t)
	if len(list.Items) != n {
		return f, fmt.Errorf("list returned %d objects, want %d", len(list.Items), n)
	}

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return f, fmt.Errorf("watch: %w", err)
	}
	defer w.Stop()
	const updates = 200
	t = time.Now()
	updateErr := make(chan error, 1)
	go func() {
		for i := range updates {
			o := cm(i)
			o.Data["k"] = "changed"
			if _, err := cms.Update(ctx, o, metav1.UpdateOptions{}); err != nil {
				updateErr <- err
				return
			}
		}
	}()
	timeout := time.After(60 * time.Second)
	for seen := 0; seen < updates; {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return f, fmt.Errorf("watch closed after %d of %d updates", seen, updates)
			}
			if ev.Type == watch.Modified {
				seen++
			}
		case err := <-updateErr:
			return f, fmt.Errorf("update: %w", err)
		case <-timeout:
			return f, fmt.Errorf("watch saw %d of %d updates in 60 s", seen, updates)
		}
	}
	f.Watch = time.Since(t)
	return f, nil
}

// Parallel runs op(0..n-1) on c workers: operations per second, median and 99th percentile.
// The first error is returned, after every operation has run.
func Parallel(n, c int, op func(i int) error) (float64, time.Duration, time.Duration, error) {
	lat := make([]time.Duration, n)
	next := make(chan int)
	errs := make(chan error, c)
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				if err := op(i); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	select {
	case err := <-errs:
		return 0, 0, 0, err
	default:
	}
	slices.Sort(lat)
	return float64(n) / elapsed.Seconds(), lat[n/2], lat[n*99/100], nil
}
