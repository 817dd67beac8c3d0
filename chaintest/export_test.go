package chaintest

// SetSnapshots turns the bootstrap snapshot (snapshot.go) on or off for the process, for the
// benchmark that measures what it gives.
func SetSnapshots(on bool) { snapshotsOff.Store(!on) }
