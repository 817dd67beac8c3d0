package chain

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// stopSteps is the chain's own pre-shutdown work: what has to happen while the chain still
// accepts requests (deleting its identity Lease, handing over the controllers' Lease, waiting
// for the metrics server to withdraw its APIService through the chain, ending the trace
// followers). k8s.io/apiserver runs pre-shutdown hooks one after another, and the chain's
// steps mostly wait for a request to the chain; none needs another to have run first, so the
// chain registers them all as one hook, stop-chain (CreateServerChain), that runs them side by
// side. A stop then takes as long as the slowest step, not their sum. Each step keeps its own
// timeout.
type stopSteps struct {
	steps []stopStep
}

type stopStep struct {
	name string
	run  func() error
}

// add appends a step. Steps are added while the chain is built and started, before it serves.
func (s *stopSteps) add(name string, run func() error) {
	s.steps = append(s.steps, stopStep{name, run})
}

// run runs every step at once and returns when they have all returned, with the errors of
// those that failed, each named. The server goes on to stop taking requests only after that.
func (s *stopSteps) run() error {
	errs := make([]error, len(s.steps))
	var wg sync.WaitGroup
	for i, step := range s.steps {
		wg.Go(func() {
			began := time.Now()
			if err := step.run(); err != nil {
				errs[i] = fmt.Errorf("%s: %w", step.name, err)
			}
			klog.V(2).InfoS("Pre-shutdown step done", "step", step.name, "duration", time.Since(began))
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
