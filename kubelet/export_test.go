package kubelet

import "time"

// SetHeartbeat makes s renew leases every d instead of every 10 s, and post an unchanged
// status as often, so that tests see heartbeats without waiting for them.
func SetHeartbeat(s *Simulator, d time.Duration) { s.heartbeat, s.statusReport = d, d }

// Simulates says whether s simulates the node of that name now.
func Simulates(s *Simulator, name string) bool { return s.node(name) != nil }
