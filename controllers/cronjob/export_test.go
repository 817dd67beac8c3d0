package cronjob

import (
	"context"

	"k8s.io/utils/clock"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// For package cronjob_test, whose chain imports this package (through servers/chain), so that it
// cannot be an internal test.

// SyncAt runs one sync of the CronJob at key as if the time were clk's.
func (c *Controller) SyncAt(ctx context.Context, clk clock.PassiveClock, key string) error {
	if c.recorder == nil {
		c.recorder = loop.Recorder(ctx, c.client, Name)
	}
	c.clock = clk
	return c.sync(ctx, key)
}

// ShutDown stops the queue the syncs fill with their next times.
func (c *Controller) ShutDown() { c.queue.ShutDown() }
